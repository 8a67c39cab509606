#!/usr/bin/env python3
"""gen_ms_marey.py DIR - writes a hand-made MindSpore profiler directory for
the Marey view's FLOPs / memory lines, blocks and steps (tests/e2e/ms_marey.sh,
docs/MINDSPORE.md). Times in us; every expected value below is computed by
hand from these inputs (ms_marey.sh asserts them).

Timelines (ascend_timeline_display_<dev>.json), steps "1" and "2":
  device0: step 1 [0,100): Conv2D-op1 10+20, AllReduce-op9 40+10, MatMul-op3 60+20,
           StreamRecv-op5 85+2; step 2 [100,200): Conv2D-op1 110+30,
           AllReduce-op9 150+10, MatMul-op3 170+10
  device1: the same operators 5 us later (its shortest AllReduce of step 1,
           AllReduce-op9 at 45, aligns it onto device0: shift -5):
           step 1 Conv2D-op1 15+30, AllReduce-op9 45+10, MatMul-op3 65+10;
           step 2 Conv2D-op1 115+20, AllReduce-op9 155+10, MatMul-op3 175+20
  device2: no AllReduce-op9 -> its own stage: step 1 Receive-op7 20+5,
           Add-op4 30+40; step 2 Receive-op7 120+5, Add-op4 130+20
  -> stage0 = device0, device1; stage1 = device2; steps [1, 2].
FLOPs (flops_<dev>.txt; x = middle of the op in the aligned map):
  device0 legacy MFLOPs(10^6): MatMul-op3 300, Conv2D-op1 100, StreamRecv-op5 7
          (skipped: Stream*), Unknown-op99 50 (not in the map), AllReduce-op9 "-"
          -> step 1 [[20,100],[70,300]], step 2 [[125,100],[175,300]]
  device1 FLOPs column: Conv2D-op1 200, MatMul-op3 400
          -> step 1 [[25,200],[65,400]], step 2 [[120,200],[180,400]]
  range step 1 [100, 400]
flops_summary: device0 FLOPs 400 FLOPS 40, device1 600 / 60, device2 300 / 120
  -> ratios d0 0.666.., 0.333..; d1 1, 0.5; d2 0.5, 1;
     stage0 mean 500 (0.8333..), 50 (0.41666..); stage1 300 (0.5), 120 (1)
Memory (memory_usage_<dev>.pb, graph 1; lines = static + live tensors):
  device0 static 50: Conv2D-op1 (t1 100 live at 0), MatMul-op3 (t2 400 live at 1)
          -> lines 150, 450; total 1000 -> peak 450, ratio 0.45
          -> step 1 [[20,150],[70,450]]
  device2 static 1000, t3 300 LifeLongGraphAll: Receive-op7 (t1 500), Add-op4
          (t2 2000), Send-op8 (not in the map) -> lines 1800, 3300, 1300;
          total 10000 -> peak 3300, ratio 0.33
          -> step 1 [[22.5,1800],[50,3300]], step 2 [[122.5,1800],[140,3300]]
  range step 1 [150, 3300]; stage0 memory: device0's only (450, 1000, 0.45)
"""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "browser"))
import gen_ms_memory as pb  # noqa: E402  (the hand-written protobuf encoder)


def ev(name, ts, dur, tid="7"):
    return {"name": name, "ph": "X", "tid": tid, "ts": ts, "dur": dur, "pid": 1}


def timeline(step0, ops):
    rows = [ev("1", step0, 100, "step"), ev("2", step0 + 100, 100, "step")]
    for name, ts, dur in ops:
        rows.append(ev(name, ts, dur))
    return rows


def mem(static, total, nodes, tensors):
    g = pb.vint(1, 1) + pb.vint(2, static)
    for i, (name, outs) in enumerate(nodes):
        g += pb.node(name, i, outs=outs)
    for t in tensors:
        g += pb.tensor(*t)
    return pb.vbytes(1, g) + pb.vint(2, total)


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: gen_ms_marey.py DIR")
    d = sys.argv[1]
    os.makedirs(d, exist_ok=True)
    tl = {
        0: timeline(0, [("Conv2D-op1", 10, 20), ("AllReduce-op9", 40, 10), ("MatMul-op3", 60, 20),
                        ("StreamRecv-op5", 85, 2), ("Conv2D-op1", 110, 30), ("AllReduce-op9", 150, 10),
                        ("MatMul-op3", 170, 10)]),
        1: timeline(5, [("Conv2D-op1", 15, 30), ("AllReduce-op9", 45, 10), ("MatMul-op3", 65, 10),
                        ("Conv2D-op1", 115, 20), ("AllReduce-op9", 155, 10), ("MatMul-op3", 175, 20)]),
        2: timeline(0, [("Receive-op7", 20, 5), ("Add-op4", 30, 40), ("Receive-op7", 120, 5),
                        ("Add-op4", 130, 20)]),
    }
    for dev, rows in tl.items():
        with open(os.path.join(d, "ascend_timeline_display_%d.json" % dev), "w") as f:
            json.dump(rows, f)
    with open(os.path.join(d, "flops_0.txt"), "w") as f:
        f.write("op_full_name, MFLOPs(10^6), GFLOPS(10^9), FLOPS utilization(%)\n"
                "Default/network/MatMul-op3, 300, 30, 10\n"
                "Default/network/Conv2D-op1, 100, 10, 5\n"
                "Default/StreamRecv-op5, 7, 1, 1\n"
                "Default/Unknown-op99, 50, 5, 2\n"
                "Default/AllReduce-op9, -, -, -\n")
    with open(os.path.join(d, "flops_1.txt"), "w") as f:
        f.write("full_kernel_name, FLOPs, FLOPS, FLOPS utilization\n"
                "Default/Conv2D-op1, 200, 20, 8\n"
                "Default/MatMul-op3, 400, 40, 12\n")
    for dev, fl, fs in ((0, 400, 40), (1, 600, 60), (2, 300, 120)):
        with open(os.path.join(d, "flops_summary_%d.json" % dev), "w") as f:
            json.dump({"FLOPs": fl, "FLOPS": fs, "FLOPS_Utilization": 10}, f)
    with open(os.path.join(d, "memory_usage_0.pb"), "wb") as f:
        f.write(mem(50, 1000, [("Conv2D-op1", [1]), ("MatMul-op3", [2])],
                    [(1, 100, 0, 0, "LifeLongNone"), (2, 400, 1, 1, "LifeLongNone")]))
    with open(os.path.join(d, "memory_usage_2.pb"), "wb") as f:
        f.write(mem(1000, 10000, [("Receive-op7", [1]), ("Add-op4", [2]), ("Send-op8", [])],
                    [(1, 500, 0, 0, "LifeLongNone"), (2, 2000, 1, 1, "LifeLongNone"),
                     (3, 300, 0, 0, "LifeLongGraphAll")]))


if __name__ == "__main__":
    main()
