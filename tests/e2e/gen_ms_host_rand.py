#!/usr/bin/env python3
"""gen_ms_host_rand.py - a random MindSpore profiler directory with a host_info CSV.

    python3 gen_ms_host_rand.py SEED DIR

writes DIR/cpu_op_type_info_0.csv (so that DIR is one MindSpore device) and
DIR/host_info/host_info_0.csv: a header (now and then reordered, short of a
column or with a foreign one) and up to 40 rows drawn so that starts and
ends pair (Dataset and Framework, tid t_1, '_' in names, non-ASCII, quotes,
commas and newlines in custom_info, spaces and '_' in numbers), with the
odd short or long row, blank line, bad number and CRLF ends. Used by
tests/e2e/ms_hostinfo.sh to hold nnscope's host_info outputs to
gen_ms_host.py's (MindSpore's code) on inputs nobody hand-picked.
"""
import os
import random
import sys

COLS = ['tid', 'pid', 'parent_pid', 'module_name', 'event', 'stage', 'level', 'start_end', 'custom_info',
        'memory_usage(kB)', 'time_stamp(us)']
VALS = {
    'tid': ['1', '1', 't_1', '2'], 'pid': ['100', '100', '7'], 'parent_pid': ['1', ''],
    'module_name': ['Dataset', 'Dataset', 'Dataset', 'Framework'], 'event': ['Batch', '读', 'A_B'],
    'stage': ['Get', 'Get', 'S_1'], 'level': ['0', '1'], 'start_end': ['0', '1', '1', '0', '2', '3', ' 1'],
    'custom_info': ['', 'x', 'a,b', 'q"u', 'l\nm', '🚀', '\\t'], 'memory_usage(kB)': ['0', '0', '10', ' 5', '-1', '1_0'],
}


def field(v, rnd):
    if any(ch in v for ch in ',"\n\r') or rnd.random() < 0.05:
        return '"' + v.replace('"', '""') + '"'
    return v


def main():
    rnd = random.Random(int(sys.argv[1]))
    out = sys.argv[2]
    cols = COLS[:]
    r = rnd.random()
    if r < 0.05:
        rnd.shuffle(cols)
    elif r < 0.08:
        cols.remove(rnd.choice(cols))
    elif r < 0.1:
        cols.append('extra')
    lines, t = [','.join(cols)], 0
    for _ in range(rnd.randint(0, 40)):
        row = []
        for k in cols:
            if k == 'time_stamp(us)':
                t += rnd.randint(-3, 30)
                v = str(t)
                if rnd.random() < 0.01:
                    v = rnd.choice(['12a', '', ' 7 ', '3_0', '+5'])
            elif k == 'extra':
                v = 'e'
            else:
                v = rnd.choice(VALS[k])
            row.append(field(v, rnd))
        if rnd.random() < 0.01:
            row = row[:rnd.randint(0, len(row))]
        if rnd.random() < 0.01:
            row.append('z')
        lines.append(','.join(row))
        if rnd.random() < 0.03:
            lines.append('')
    nl = rnd.choice(['\n', '\r\n', '\n'])
    os.makedirs(os.path.join(out, 'host_info'), exist_ok=True)
    with open(os.path.join(out, 'host_info', 'host_info_0.csv'), 'w', newline='', encoding='utf-8') as f:
        f.write(nl.join(lines) + (nl if rnd.random() < 0.8 else ''))
    with open(os.path.join(out, 'cpu_op_type_info_0.csv'), 'w', encoding='utf-8') as f:
        f.write('op_type,type_occurrences,execution_frequency,total_compute_time(ms),avg_time(ms),'
                'total_proportion\nCast,3,30,1.5,0.05,0.75\n')


if __name__ == '__main__':
    main()
