#!/usr/bin/env python3
"""tests/hostile/gen.py - writes the hostile-input corpus (issue 20, item 8).

    python3 tests/hostile/gen.py OUTDIR [CASE...]

Writes one file (or one directory) per case into OUTDIR, and OUTDIR/MANIFEST:
one line per case, "case<TAB>path<TAB>decoded_bytes" (path relative to OUTDIR;
decoded_bytes is the JSON size after gunzip, what a memory ceiling is measured
against). With CASE names, only those cases are written (MANIFEST lists them).
Nothing is downloaded and nothing large is checked in: the corpus is generated
at test time from the standard library alone (Debian's python3, no pip).

Sizes on disk: about 120 MB in all, of which 100 MB is the huge-string case
(a plain .json on purpose: its point is one 100 MB token, not a decompression
ratio); the bombs are small .gz files that expand big (bomb_events: ~7.5 MB
-> 2.1 GB of 31 M tiny events; bomb_ws: ~8.3 MB -> 8.6 GB of whitespace).
They are written streaming (zlib), never decoded onto the disk.

File names avoid the words the tests look for in messages (truncated,
empty, whitespace, duplicate, 64 ...): a message matches for what it says,
not because it names the file.

Every case carries the canary CANARY wherever the content could be echoed
by an error message (the bad bytes, the cut tail, args): a run whose output
holds it has quoted the file. The canary is never in a field that a correct
report prints (operator names), so any output holding it is a leak.
Deterministic: the same bytes on every run (fixed seeds).
"""
import gzip
import os
import random
import struct
import sys
import zlib

CANARY = "NNS_CANARY_7f3a"
C = CANARY.encode()


def ev(name, ts, dur, cat="cpu_op", pid=1, tid=1, args=None):
    s = '{"ph":"X","cat":"%s","name":"%s","pid":%s,"tid":%s,"ts":%s,"dur":%s' % (
        cat, name, pid, tid, ts, dur)
    if args is not None:
        s += ',"args":' + args
    return s + "}"


def valid_events(steps=3, ops_per_step=4, note=True):
    """A small, correct Kineto trace's events: ProfilerStep#N, CPU ops,
    launches and kernels (correlated), as tests/common/kineto_doc.h."""
    out, t, corr = [], 1000, 1
    for s in range(steps):
        out.append(ev("ProfilerStep#%d" % s, t, 100 * ops_per_step + 50, cat="user_annotation"))
        for i in range(ops_per_step):
            ts = t + 10 + 100 * i
            a = '{"note":"%s"}' % CANARY if note else None
            out.append(ev("aten::mm", ts, 60, args=a))
            out.append(ev("cudaLaunchKernel", ts + 5, 10, cat="cuda_runtime",
                          args='{"correlation":%d}' % corr))
            out.append(ev("gemm_kernel", ts + 20, 40, cat="kernel", pid=0, tid=7,
                          args='{"correlation":%d,"device":0,"stream":7}' % corr))
            corr += 1
        t += 100 * ops_per_step + 100
    return out


HDR = '{"schemaVersion":1,"traceEvents":['


def doc(events, head=HDR):
    return head + ",".join(events) + "]}"


def write(path, data):
    with open(path, "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())
    return os.path.getsize(path)


# ---- the cases: each writes into d and returns (relative path, decoded bytes)

def case_control(d):
    p = "control.pt.trace.json"
    return p, write(os.path.join(d, p), doc(valid_events()))


def case_passwd(d):
    p = "passwd.json"
    text = ("root:x:0:0:%s:/root:/bin/bash\n"
            "daemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin\n"
            "bin:x:2:2:bin:/bin:/usr/sbin/nologin\n"
            "nobody:x:65534:65534:%s:/nonexistent:/usr/sbin/nologin\n") % (CANARY, CANARY)
    return p, write(os.path.join(d, p), text)


def case_garbage(d):
    p = "garbage.json"
    rnd = random.Random(7)
    b = bytearray(rnd.getrandbits(8) for _ in range(4096))
    for off in (0, 1000, 3000):
        b[off:off + len(C)] = C
    return p, write(os.path.join(d, p), bytes(b))


def case_empty(d):
    p = "zero_bytes.json"
    return p, write(os.path.join(d, p), b"")


def case_truncated(d):
    p = "cut_event.pt.trace.json"
    text = HDR + ",".join(valid_events(note=False)) + ',{"ph":"X","cat":"cpu_op","name":"' + \
        CANARY + '_cut","pid":1,"ti'
    return p, write(os.path.join(d, p), text)


def many_events(n):
    """n CPU ops on one thread, back to back, each with the canary in args."""
    return [ev("aten::add", 1000 + 10 * i, 5, args='{"note":"%s"}' % CANARY) for i in range(n)]


def case_truncated_gz(d):
    p = "cut_gz.pt.trace.json.gz"
    raw = doc(many_events(20000)).encode()
    gz = gzip.compress(raw, 6, mtime=0)
    write(os.path.join(d, p), gz[:len(gz) // 2])
    return p, len(raw)


def case_gz_no_trailer(d):
    """The whole JSON document and deflate stream, but the gzip trailer
    (CRC-32 and size, 8 bytes) is cut: the data cannot be verified."""
    p = "no_tail.pt.trace.json.gz"
    raw = doc(valid_events()).encode()
    gz = gzip.compress(raw, 6, mtime=0)
    write(os.path.join(d, p), gz[:-8])
    return p, len(raw)


def case_corrupt_gz(d):
    p = "flipped.pt.trace.json.gz"
    raw = doc(many_events(20000)).encode()
    gz = bytearray(gzip.compress(raw, 6, mtime=0))
    mid = len(gz) // 2
    for i in range(mid, mid + 64):
        gz[i] ^= 0xA5
    write(os.path.join(d, p), bytes(gz))
    return p, len(raw)


def case_bomb_events(d, n_events=31_000_000, per_ts=64):
    """~2.1 GB of JSON: n tiny complete events, per_ts of them at each ts
    (ts steps by 2, so groups never overlap), gzip -9 streaming: ~7.5 MB."""
    p = "tiny_events.pt.trace.json.gz"
    head = ('{"schemaVersion":1,"otherData":{"note":"%s"},"traceEvents":[' % CANARY).encode()
    one = '{"ph":"X","cat":"cpu_op","name":"a","pid":1,"tid":1,"ts":%d,"dur":1},'
    total = 0
    with open(os.path.join(d, p), "wb") as f:
        c = zlib.compressobj(9, zlib.DEFLATED, 31)
        f.write(c.compress(head))
        total += len(head)
        groups = n_events // per_ts
        for g in range(groups):
            blk = (one % (2 * g)).encode() * per_ts
            if g == groups - 1:
                blk = blk[:-1] + b"]}"
            total += len(blk)
            f.write(c.compress(blk))
        f.write(c.flush())
    return p, total


def gz_repeat(path, prefix, block, count, suffix):
    """A gzip file of prefix + block*count + suffix without running the
    compressor over every copy: block is deflated once from a fresh state and
    ended with a full flush (byte-aligned, no back-references), so its bytes
    can be repeated as they are. Returns the decoded size."""
    def deflate(data, final):
        c = zlib.compressobj(9, zlib.DEFLATED, -15, 9, zlib.Z_RLE)
        return c.compress(data) + c.flush(zlib.Z_FINISH if final else zlib.Z_FULL_FLUSH)

    crc = zlib.crc32(prefix)
    for _ in range(count):
        crc = zlib.crc32(block, crc)
    crc = zlib.crc32(suffix, crc)
    total = len(prefix) + len(block) * count + len(suffix)
    dblock = deflate(block, False)
    with open(path, "wb") as f:
        f.write(b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x02\xff")  # gzip, deflate, mtime 0, -9, unix
        f.write(deflate(prefix, False))
        for _ in range(count):
            f.write(dblock)
        f.write(deflate(suffix, True))
        f.write(struct.pack("<II", crc & 0xFFFFFFFF, total & 0xFFFFFFFF))
    return total


def case_bomb_ws(d, gib=8):
    """8 GiB of spaces between "traceEvents":[ and a valid trace: ~8.3 MB."""
    p = "spaces.pt.trace.json.gz"
    evs = valid_events()
    total = gz_repeat(os.path.join(d, p), HDR.encode(), b" " * (1 << 20), gib * 1024,
                      (",".join(evs) + "]}").encode())
    return p, total


def case_deep_nesting(d, depth=1_000_000):
    p = "brackets.pt.trace.json"
    nest = "[" * depth + '"%s"' % CANARY + "]" * depth
    evs = valid_events(note=False)
    evs.insert(1, ev("aten::deep", 1005, 1, args='{"x":' + nest + "}"))
    return p, write(os.path.join(d, p), doc(evs))


def case_huge_string(d, mb=100):
    p = "big_arg.pt.trace.json"
    evs = valid_events(note=False)
    path = os.path.join(d, p)
    head = HDR + ",".join(evs[:2]) + ',' + \
        '{"ph":"X","cat":"cpu_op","name":"aten::big","pid":1,"tid":1,"ts":1011,"dur":1,"args":{"s":"'
    tail = '"}},' + ",".join(evs[2:]) + "]}"
    with open(path, "wb") as f:
        f.write(head.encode())
        chunk = (CANARY + "x" * (1024 * 1024 - len(CANARY))).encode()
        for _ in range(mb):
            f.write(chunk)
        f.write(tail.encode())
    return p, os.path.getsize(path)


def case_dur_bad(d):
    p = "odd_dur.pt.trace.json"
    evs = valid_events(note=False)
    a = '{"note":"%s"}' % CANARY
    evs.insert(2, ev("aten::neg", 1020, -1000, args=a))
    evs.insert(3, ev("aten::huge", 1030, "9.2e18", args=a))
    return p, write(os.path.join(d, p), doc(evs))


def case_ts_huge(d):
    p = "far_ts.pt.trace.json"
    evs = valid_events(note=False)
    evs.insert(2, ev("aten::far", "1e308", 5, args='{"note":"%s"}' % CANARY))
    return p, write(os.path.join(d, p), doc(evs))


def case_dup_keys(d):
    p = "same_key.pt.trace.json"
    evs = valid_events(note=False)
    evs.insert(2, '{"ph":"X","cat":"cpu_op","name":"aten::dup","pid":1,"tid":1,"ts":1020,'
               '"dur":5,"ts":1021,"dur":6,"args":{"note":"%s"}}' % CANARY)
    return p, write(os.path.join(d, p), doc(evs))


def case_nan_inf(d):
    p = "nonfinite.pt.trace.json"
    evs = valid_events(note=False)
    evs.insert(2, ev("aten::nan", 1020, "NaN", args='{"note":"%s"}' % CANARY))
    evs.insert(3, ev("aten::inf", "Infinity", 5, args='{"note":"%s"}' % CANARY))
    evs.insert(4, ev("aten::ninf", 1040, "-Infinity", args='{"note":"%s"}' % CANARY))
    return p, write(os.path.join(d, p), doc(evs))


def case_bad_utf8(d):
    p = "bad_utf8.pt.trace.json"
    evs = [e.encode() for e in valid_events(note=False)]
    a = b'{"note":"' + C + b'\xc3\x28"}'
    evs.insert(2, ev("aten::\udcffbad", 1020, 5).encode("utf-8", "surrogateescape")[:-1] +
               b',"args":' + a + b"}")
    evs.insert(3, ev("aten::nul\\u0000x", 1030, 5, args='{"note":"%s\\u0000"}' % CANARY).encode())
    evs.insert(4, ev("aten::\xc0\xafover", 1040, 5).encode("latin-1"))
    return p, write(os.path.join(d, p), HDR.encode() + b",".join(evs) + b"]}")


def case_legacy(d):
    """torch.autograd.profiler's export_chrome_trace without Kineto: a bare
    array, "pid":"CPU functions", no "cat", ts and dur as floats in us."""
    p = "autograd_trace.json"
    rows, t = [], 100.0
    for i in range(20):
        name = ["aten::linear", "aten::addmm", "aten::relu"][i % 3]
        rows.append('{"name": "%s", "ph": "X", "ts": %.3f, "dur": %.3f, "tid": %d, '
                    '"pid": "CPU functions", "args": {"note": "%s"}}' % (name, t, 7.5, 1, CANARY))
        t += 10.0
    return p, write(os.path.join(d, p), "[" + ",\n".join(rows) + "\n]\n")


def nnst_bytes():
    """A small valid .nnst trace (header, strings, threads, events, metadata,
    END), as tests/e2e/nnst_cli.sh writes it."""
    pid, tid, rt, mono = 4242, 4243, 1_700_000_000_000_000_000, 1_000_000
    push, pop, start, stop, step = 1, 2, 13, 14, 12
    b = bytearray(b"NNSTRACE" + struct.pack("<HHIqqqQQQ", 1, 1, 64, pid, rt, mono, 0, 0, 0))
    seq = [0]

    def chunk(typ, payload):
        b.extend(struct.pack("<IIIIQ", 0x4B434E4E, typ, len(payload),
                             zlib.crc32(payload) & 0xFFFFFFFF, seq[0]) + payload)
        seq[0] += 1

    def e(ts, typ, name=0, a=0, bb=0):
        return struct.pack("<QIBBhQQ", ts, name, typ, 0, -1, a, bb)

    chunk(5, b"".join(struct.pack("<I", len(k)) + k + struct.pack("<I", len(v)) + v
                      for k, v in [(b"host", b"node1"), (b"rank", b"0"), (b"note", C)]))
    names = ["ProfilerStep", "forward", "aten::mm"]
    chunk(1, b"".join(struct.pack("<II", i + 1, len(n)) + n.encode() for i, n in enumerate(names)))
    chunk(2, struct.pack("<IqI", 0, tid, 4) + b"main")
    evs, t = [e(mono, start)], mono
    for s in range(200):
        if s:
            evs.append(e(t, step, 0, s))
        evs += [e(t + 10, push, 2), e(t + 20, push, 3), e(t + 80, pop), e(t + 90, pop)]
        t += 100
    evs.append(e(t, stop))
    chunk(3, struct.pack("<II", 0, len(evs)) + b"".join(evs))
    chunk(8, b"")
    return bytes(b)


def case_nnst_truncated(d):
    p = "cut.nnst"
    full = nnst_bytes()
    return p, write(os.path.join(d, p), full[:len(full) * 2 // 3])


def case_nnst_badmagic(d):
    p = "wrong_head.nnst"
    full = bytearray(nnst_bytes())
    full[0:8] = b"NNSTRACX"
    full[8:8 + len(C)] = C
    return p, write(os.path.join(d, p), bytes(full))


def case_deep_dir(d, levels=70):
    p = "tower"
    sub = os.path.join(d, p, *["sub"] * levels)
    os.makedirs(sub, exist_ok=True)
    return p, write(os.path.join(sub, "w.pt.trace.json"), doc(valid_events(note=False)))


def case_mindspore(d):
    """A MindSpore profiler directory by its file names, garbage inside."""
    p = "ms_prof"
    m = os.path.join(d, p)
    os.makedirs(m, exist_ok=True)
    rnd = random.Random(11)
    junk = bytes(rnd.getrandbits(8) for _ in range(2048))
    n = write(os.path.join(m, "ascend_timeline_display_0.json"),
              b'[{"name":"' + C + b'","ph":"X","pid":' + junk)
    n += write(os.path.join(m, "step_trace_raw_0_detail_time.csv"),
               b"step_num,start_point,end_point\n1," + C + b",\x00\xff" + junk[:200] + b"\n")
    return p, n


CASES = {name[5:]: fn for name, fn in globals().items() if name.startswith("case_")}


def main():
    if len(sys.argv) < 2:
        sys.exit("usage: gen.py OUTDIR [CASE...]; cases: " + " ".join(CASES))
    out, want = sys.argv[1], sys.argv[2:] or list(CASES)
    bad = [w for w in want if w not in CASES]
    if bad:
        sys.exit("gen.py: unknown case(s): %s (cases: %s)" % (" ".join(bad), " ".join(CASES)))
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "MANIFEST"), "w") as man:
        for name in want:
            path, decoded = CASES[name](out)
            man.write("%s\t%s\t%d\n" % (name, path, decoded))


if __name__ == "__main__":
    main()
