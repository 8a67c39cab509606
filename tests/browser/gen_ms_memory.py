#!/usr/bin/env python3
"""gen_ms_memory.py DIR [DEV] - writes DIR/memory_usage_<DEV>.pb, a MindSpore
device memory file encoded here by hand after MindSpore's public
memory_profiling.proto (MemoryProto 1 graph_mem, 2 total_mem; GraphMemProto
1 graph_id, 2 static_mem, 3 node_mems, 4 tensor_mems, 5 fp_start, 6 bp_end;
NodeMemProto 1 node_name, 2 node_id, 3/4/5 input/output/workspace tensor ids
(packed); TensorMemProto 1 tensor_id, 2 size, 3 type, 4 life_start,
5 life_end, 6 life_long). No protobuf library is needed (Debian's python3
may have none); the unit test tests/unit/test_ms_memory.c has its own C
encoder of the same graph.

The graph (sizes in MiB, static 100 MiB, total 32 GiB), hand-computed:
  node 0 Conv2D-op1  out [1] ws [2]    live: 1, 2, 7, 10   -> 100+1000+50+5000+13 = 6163
  node 1 ReLU-op2    out [3]           live: 1, 3, 7, 10   -> 100+1000+200+5000+13 = 6313 (peak)
  node 2 MatMul-op3  out [4] ws [4, 5] live: 3, 4, 5, 7    -> 100+200+400+30+5000 = 5730
  node 3 Add-op4     out [6]           live: 4, 6, 7       -> 100+400+7+5000 = 5507
The breakdown at the peak (node 1): Conv2D-op1:0 (1000 MiB), ReLU-op2:0 (200 MiB).
A second graph (id 2) has no tensor: MindInsight skips it.
"""
import os
import sys

MIB = 1 << 20


def varint(v):
    out = bytearray()
    v &= (1 << 64) - 1
    while True:
        b = v & 0x7F
        v >>= 7
        out.append(b | (0x80 if v else 0))
        if not v:
            return bytes(out)


def key(field, wt):
    return varint(field << 3 | wt)


def vint(field, v):
    return key(field, 0) + varint(v)


def vbytes(field, b):
    if isinstance(b, str):
        b = b.encode()
    return key(field, 2) + varint(len(b)) + b


def packed(field, ids):
    return vbytes(field, b"".join(varint(i) for i in ids))


def node(name, nid, ins=(), outs=(), ws=()):
    m = vbytes(1, name) + vint(2, nid)
    for f, ids in ((3, ins), (4, outs), (5, ws)):
        if ids:
            m += packed(f, ids)
    return vbytes(3, m)


def tensor(tid, size, start, end, life_long):
    m = vint(1, tid) + vint(2, size) + vbytes(3, "Common") + vint(4, start) + vint(5, end)
    return vbytes(4, m + vbytes(6, life_long))


def build():
    g = vint(1, 1) + vint(2, 100 * MIB) + vbytes(5, "Default/Conv2D-op1") + vbytes(6, "Gradients/MatMul-op3")
    g += node("Conv2D-op1", 10, outs=[1], ws=[2])
    g += node("ReLU-op2", 11, ins=[1], outs=[3])
    g += node("MatMul-op3", 12, ins=[3], outs=[4], ws=[4, 5])
    g += node("Add-op4", 13, outs=[6])
    for t in ((1, 1000, 0, 1, "LifeLongNone"), (2, 50, 0, 0, "LifeLongNone"),
              (3, 200, 1, 2, "LifeLongNone"), (4, 400, 2, 0, "LifeLongGraphEnd"),
              (5, 30, 2, 2, "LifeLongNone"), (6, 7, 3, 3, "LifeLongNone"),
              (7, 5000, 0, 0, "LifeLongGraphAll"), (10, 13, 0, 1, "LifeLongGraphStart")):
        g += tensor(t[0], t[1] * MIB, t[2], t[3], t[4])
    g2 = vint(1, 2) + vint(2, 999) + node("Lonely-op1", 0)
    return vbytes(1, g) + vint(2, 32 << 30) + vbytes(1, g2)


def main():
    if len(sys.argv) < 2:
        sys.exit("usage: gen_ms_memory.py DIR [DEV]")
    d, dev = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 0
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "memory_usage_%d.pb" % dev), "wb") as f:
        f.write(build())


if __name__ == "__main__":
    main()
