#!/usr/bin/env python3
"""make_traces.py - writes the two synthetic Kineto traces of the byte-for-byte
golden test (tests/e2e/golden_bytes.sh): a two-rank NCCL job with three steps
each, exercising every per-worker table (steps, operators with shapes and call
stacks, modules, kernels with launch properties, memcpy, memory alloc/free,
data loading, optimizer, communication). Deterministic: rerunning it writes
the same bytes. usage: make_traces.py OUTDIR"""
import json
import os
import sys


def trace(rank):
    ev = []
    corr = [1000 * (rank + 1)]
    ext = [1]
    scale = 1.0 + 0.25 * rank
    base = 1_700_000_000_000 + rank * 7

    def x(cat, name, ts, dur, pid=1, tid=1, args=None):
        e = {"ph": "X", "cat": cat, "name": name, "pid": pid, "tid": tid,
             "ts": ts, "dur": dur}
        if args:
            e["args"] = args
        ev.append(e)
        return e

    def launch(ts, kname, kts, kdur, stream, api="cudaLaunchKernel", cat="kernel", kargs=None):
        corr[0] += 1
        c = corr[0]
        x("cuda_runtime", api, ts, 8, args={"External id": ext[0], "correlation": c})
        a = {"External id": ext[0], "correlation": c, "device": 0, "stream": stream}
        a.update(kargs or {})
        x(cat, kname, kts, kdur, pid=0, tid=stream, args=a)
        ev.append({"ph": "s", "id": c, "pid": 1, "tid": 1, "ts": ts, "cat": "ac2g", "name": "ac2g"})
        ev.append({"ph": "f", "id": c, "pid": 0, "tid": stream, "ts": kts, "cat": "ac2g",
                   "name": "ac2g", "bp": "e"})

    def op(name, ts, dur, dims=None, types=None, stack=None):
        ext[0] += 1
        a = {"External id": ext[0], "Sequence number": ext[0], "Fwd thread id": 0}
        if dims is not None:
            a["Input Dims"] = dims
            a["Input type"] = types
        if stack:
            a["Call stack"] = stack
        return x("cpu_op", name, ts, dur, args=a)

    gemm = {"grid": [4, 1, 1], "block": [256, 1, 1], "registers per thread": 64,
            "shared memory": 16384, "blocks per SM": 0.5, "warps per SM": 8.0,
            "est. achieved occupancy %": 25}
    addr = 94000000
    t = base
    for step in range(1, 4):
        d = int(1000 * scale)
        x("user_annotation", "ProfilerStep#%d" % step, t, d)
        x("user_annotation", "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__",
          t + 5, 50)
        x("python_function", "nn.Module: Linear_0", t + 60, 340,
          args={"Python id": 10 + step, "Python parent id": 1, "Python module id": 1})
        op("aten::linear", t + 70, 320, [[32, 64], [128, 64], [128]],
           ["float", "float", "float"], "model.py(12): forward;train.py(40): main")
        op("aten::addmm", t + 80, 300, [[128], [32, 64], [64, 128], [], []],
           ["float", "float", "float", "Scalar", "Scalar"], "model.py(12): forward;train.py(40): main")
        ev.append({"ph": "i", "s": "t", "cat": "cpu_instant_event", "name": "[memory]",
                   "pid": 1, "tid": 1, "ts": t + 85,
                   "args": {"Device Type": 1, "Device Id": 0, "Addr": addr + step,
                            "Bytes": 8192, "Total Allocated": 8192 * step,
                            "Total Reserved": 1 << 20}})
        launch(t + 90, "volta_sgemm_128x64_nn", t + 150, int(200 * scale), 7, kargs=gemm)
        op("aten::copy_", t + 410, 40, [[32, 64], [32, 64], []], ["float", "float", "Scalar"])
        launch(t + 415, "Memcpy HtoD (Pageable -> Device)", t + 420, 20, 7,
               api="cudaMemcpyAsync", cat="gpu_memcpy",
               kargs={"bytes": 8192, "memory bandwidth (GB/s)": 0.4})
        op("nccl:all_reduce", t + 600, 100)
        launch(t + 610, "ncclKernel_AllReduce_RING_LL_Sum_float", t + 620,
               int(150 * scale), 13)
        ev.append({"ph": "i", "s": "t", "cat": "cpu_instant_event", "name": "[memory]",
                   "pid": 1, "tid": 1, "ts": t + 640,
                   "args": {"Device Type": 1, "Device Id": 0, "Addr": addr + step,
                            "Bytes": -8192, "Total Allocated": 8192 * (step - 1),
                            "Total Reserved": 1 << 20}})
        x("user_annotation", "Optimizer.step#SGD.step", t + 820, 80)
        op("aten::add_", t + 830, 50, [[128, 64], [128, 64], []], ["float", "float", "Scalar"])
        launch(t + 835, "vectorized_elementwise_kernel", t + 850, 30, 7,
               kargs={"grid": [64, 1, 1], "block": [128, 1, 1], "registers per thread": 16,
                      "shared memory": 0, "blocks per SM": 0.48,
                      "est. achieved occupancy %": 50})
        t += d + 50
    ev.append({"ph": "M", "name": "thread_name", "pid": 1, "tid": 1,
               "args": {"name": "python main thread"}})
    ev.append({"ph": "M", "name": "process_name", "pid": 0, "tid": 0,
               "args": {"name": "GPU 0"}})
    return {
        "schemaVersion": 1,
        "distributedInfo": {"backend": "nccl", "rank": rank, "world_size": 2},
        "deviceProperties": [{"id": 0, "name": "NVIDIA H100 80GB HBM3",
                              "totalGlobalMem": 85024112640, "computeMajor": 9,
                              "computeMinor": 0, "maxThreadsPerBlock": 1024,
                              "maxThreadsPerMultiprocessor": 2048, "regsPerBlock": 65536,
                              "regsPerMultiprocessor": 65536, "warpSize": 32,
                              "sharedMemPerBlock": 49152,
                              "sharedMemPerMultiprocessor": 233472, "numSms": 132,
                              "sharedMemPerBlockOptin": 232448}],
        "traceEvents": ev,
        "baseTimeNanoseconds": 1700000000000000000,
    }


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for rank in (0, 1):
        with open(os.path.join(out, "rank%d.pt.trace.json" % rank), "w") as f:
            json.dump(trace(rank), f, indent=None, separators=(",", ":"))
            f.write("\n")


if __name__ == "__main__":
    main()
