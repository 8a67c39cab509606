#!/usr/bin/env bash
# nnst_cli.sh - end-to-end test of nnscope on its own trace format without
# the collector: a Python script writes a .nnst file byte by byte (header,
# chunks with CRC32: strings, threads, events, queue samples, CPU samples,
# metadata) and a MindSpore host_info CSV beside it, then
#   - `nnscope analyse --timeline` writes the SPEC §4 files plus
#     datapipe.json (a data_process warning: the queue is empty 50% of the
#     time), cpu.json, hostinfo.json (the CSV's stage times) and a
#     timeline.json that jq reads,
#   - `nnscope report --view datapipe,cpu` prints both views,
#   - `nnscope export` writes Chrome JSON to a file and to standard output,
#   - a truncated copy still analyses (warning, exit 0, truncated: true),
#   - a trace from a newer format version is refused with one clear line.
#
#   NNSCOPE=build/nnscope bash tests/e2e/nnst_cli.sh
set -euo pipefail

# shellcheck source=lib/common.bash
. "$(dirname "$0")/lib/common.bash"
e2e_need jq
command -v python3 >/dev/null || e2e_skip "python3 (used to write the test trace) is not installed"
e2e_setup nnst_cli.sh nnscope-nnst
valid() { jq -e "${2:-.}" "$1" >/dev/null 2>&1; }

mkdir -p "$TMP/run/host_info"
python3 - "$TMP/run/node1_4242.nnst" "$TMP/newer.nnst" <<'EOF'
import struct, sys, zlib

PID, TID = 4242, 4243
RT, MONO = 1_700_000_000_000_000_000, 1_000_000
PUSH, POP, MARK, QUEUE, STEP, START, STOP = 1, 2, 5, 11, 12, 13, 14

def header(version=1, min_version=1):
    return (b"NNSTRACE" + struct.pack("<HHIqqqQQQ", version, min_version, 64, PID, RT, MONO,
                                      0, 0, 0))

class File:
    def __init__(self, hdr):
        self.b, self.seq = bytearray(hdr), 0
    def chunk(self, typ, payload):
        self.b += struct.pack("<IIIIQ", 0x4B434E4E, typ, len(payload),
                              zlib.crc32(payload) & 0xFFFFFFFF, self.seq) + payload
        self.seq += 1

def ev(ts, typ, name=0, a=0, b=0):
    return struct.pack("<QIBBhQQ", ts, name, typ, 0, -1, a, b)

names = ["ProfilerStep", "forward", "aten::mm",
         "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", "batch_queue"]
f = File(header())
f.chunk(5, b"".join(struct.pack("<I", len(k)) + k + struct.pack("<I", len(v)) + v
                    for k, v in [(b"host", b"node1"), (b"rank", b"0"), (b"cpu_count", b"4")]))
f.chunk(1, b"".join(struct.pack("<II", i + 1, len(n)) + n.encode() for i, n in enumerate(names)))
f.chunk(2, struct.pack("<IqI", 0, TID, 4) + b"main")
evs = [ev(MONO, START, 0, 0)]
t = MONO
for step in range(10):
    if step:
        evs.append(ev(t, STEP, 0, step))
    evs += [ev(t + 10, PUSH, 4), ev(t + 20, QUEUE, 5, 0 if step % 2 else 2, 4),
            ev(t + 300, POP), ev(t + 310, PUSH, 2), ev(t + 320, PUSH, 3), ev(t + 800, POP),
            ev(t + 900, POP)]
    t += 1000
evs.append(ev(t, STOP))
f.chunk(3, struct.pack("<II", 0, len(evs)) + b"".join(evs))
samples = b""
for i in range(10):
    ts = MONO + 1000 * i + 500
    samples += struct.pack("<qqIffffIQQQ", ts, 0, 1, 30, 10, 55, 5, 2, 100, 0, 0)
    samples += struct.pack("<qqIffffIQQQ", ts, 0, 2, 80, 10, 0, 0, 3, 0, 20480, 0)
    samples += struct.pack("<qqIffffIQQQ", ts, TID, 3, 70, 5, 0, 0, 0, 0, 0, 0)
f.chunk(6, samples)
f.chunk(8, b"")
open(sys.argv[1], "wb").write(f.b)

g = File(header(version=9, min_version=7))
g.chunk(8, b"")
open(sys.argv[2], "wb").write(g.b)
EOF
{
	echo "tid,pid,parent_pid,module_name,event,stage,level,start_end,custom_info,memory_usage(kB),time_stamp(us)"
	echo "4243,4242,1,Dataset,GetNext,Batch,1,0,\"{{k:1}{j:2,3}}\",1000,1001"
	echo "4243,4242,1,Dataset,GetNext,Batch,1,1,,1200,1003"
	echo "9,9999,1,Other,Elsewhere,X,1,0,,0,1004"
	echo "9,9999,1,Other,Elsewhere,X,1,1,,0,1005"
} >"$TMP/run/host_info/host_info_0.csv"

OUT=$TMP/out
if "$NNSCOPE" analyse "$TMP/run" --out "$OUT" --timeline >"$TMP/an.txt" 2>&1; then
	pass "analyse a .nnst run"
else
	fail "analyse a .nnst run"
	sed 's/^/    /' "$TMP/an.txt"
fi
W=$OUT/node1_4242
for f in overview operators kernels memory modules datapipe cpu hostinfo timeline; do
	check "$f.json is valid JSON" valid "$W/$f.json"
done
check "data_pipeline.csv written" test -s "$W/data_pipeline.csv"
check "10 steps from the marks" jqt "$W/overview.json" '.steps | length == 10'
check "step 0 opened by START" jqt "$W/overview.json" '.steps[0].name == "0"'
check "DataLoader time in the breakdown" jqt "$W/overview.json" 'all(.steps[]; .dataloader_us > 0.28)'
check "aten::mm is an operator" jqt "$W/operators.json" 'any(.by_name[]; .name == "aten::mm" and .calls == 10)'
check "datapipe: data_process warning" jqt "$W/datapipe.json" '.verdict == "data_process" and .data_process.status == "warning"'
check "datapipe: empty ratio 0.5" jqt "$W/datapipe.json" '.empty_ratio == 0.5 and .consumer_queue == "batch_queue"'
check "datapipe: per-step rows" jqt "$W/datapipe.json" '.steps | length == 10'
check "datapipe: recommendation in the overview" jqt "$W/overview.json" 'any(.recommendations[]; .id == "data_pipeline")'
check "cpu: machine and process averages" jqt "$W/cpu.json" '.available and .machine.samples == 10 and .machine.user == 30 and .process.user == 80'
check "cpu: per-step samples" jqt "$W/cpu.json" 'all(.steps[]; .machine.samples == 1)'
check "cpu: the loop thread named" jqt "$W/cpu.json" '.threads[0].name == "main" and .threads[0].user == 70'
check "hostinfo: the process's own rows" jqt "$W/hostinfo.json" '(.events | length == 1) and .events[0].event == "GetNext" and .events[0].avg_us == 2'
check "hostinfo: memory peak" jqt "$W/hostinfo.json" '.memory.peak_kb == 1200 and .memory.aligned'
check "timeline: X events and thread names" jqt "$W/timeline.json" '([.traceEvents[] | select(.ph == "X")] | length > 30) and any(.traceEvents[]; .ph == "M" and .args.name == "main")'

if "$NNSCOPE" report "$TMP/run" --view datapipe,cpu >"$TMP/rep.txt" 2>&1 &&
	grep -q "Data pipeline" "$TMP/rep.txt" && grep -q "CPU utilization" "$TMP/rep.txt" &&
	grep -q "data_process WARNING" "$TMP/rep.txt"; then
	pass "report --view datapipe,cpu"
else
	fail "report --view datapipe,cpu"
	sed 's/^/    /' "$TMP/rep.txt" | head -20
fi

TR=$TMP/run/node1_4242.nnst
check "export chrome" "$NNSCOPE" export "$TR" --format chrome --out "$TMP/chrome.json" -q
check "export: valid, nothing cut" jqt "$TMP/chrome.json" '(.traceEvents | length > 30) and (has("nnscopeCut") | not)'
rc=0
"$NNSCOPE" export "$TR" --out - --limit-mb 0 >"$TMP/stdout.json" 2>/dev/null || rc=$?
check "export to stdout" test "$rc" -eq 0
check "export to stdout: valid" valid "$TMP/stdout.json" .traceEvents
rc=0
"$NNSCOPE" export "$TR" --format svg --out "$TMP/x" 2>/dev/null || rc=$?
check "export: unknown format is a usage error" test "$rc" -eq 2

head -c 2000 "$TR" >"$TMP/cut.nnst"
rc=0
"$NNSCOPE" analyse "$TMP/cut.nnst" --out "$TMP/cut.out" >/dev/null 2>"$TMP/cut.err" || rc=$?
check "truncated trace: exit 0" test "$rc" -eq 0
check "truncated trace: a warning with the byte offset" grep -q "warning: .*byte" "$TMP/cut.err"
check "truncated trace: diagnostics.truncated" jqt "$TMP/cut.out/cut/overview.json" '.diagnostics.truncated'

rc=0
"$NNSCOPE" analyse "$TMP/newer.nnst" --out "$TMP/newer.out" >/dev/null 2>"$TMP/newer.err" || rc=$?
check "newer format: exit 1" test "$rc" -eq 1
check "newer format: says so in one line" test "$(grep -c "written by a newer nnscope" "$TMP/newer.err")" -eq 1

e2e_summary "== nnst_cli.sh"
