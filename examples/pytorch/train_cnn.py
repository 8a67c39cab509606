#!/usr/bin/env python3
"""train_cnn.py - a small CNN trained on generated data on the CPU, profiled
with nnscope.

    PYTHONPATH=build/python python3 examples/pytorch/train_cnn.py \
        [--steps 20] [--batch 32] [--out ./data] [--no-ops] [--no-profile]
        [--record-shapes] [--memory] [--workers 0] [--analyse]

The data are 3x32x32 images whose class (of 10) is encoded by the mean of
one colour channel in one quadrant plus noise, so the loss goes down within
a few dozen steps. A DataLoader over a generated TensorDataset feeds the
model; nnscope.torch records steps, module forward/backward ranges, aten
operators (unless --no-ops), DataLoader waits and optimizer steps.

The last line is machine-readable for bench/overhead_examples:
    cnn: steps=N loss_first=.. loss_last=.. step_ms_mean=.. step_ms_median=..
         profiled=0|1 ops=0|1
"""

import argparse
import statistics
import sys
import time

import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

import nnscope
import nnscope.torch


class SmallCNN(nn.Module):
    def __init__(self, classes=10):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2))
        self.classifier = nn.Sequential(
            nn.Flatten(), nn.Linear(32 * 8 * 8, 64), nn.ReLU(),
            nn.Linear(64, classes))

    def forward(self, x):
        return self.classifier(self.features(x))


def make_data(n, seed=0):
    g = torch.Generator().manual_seed(seed)
    y = torch.randint(0, 10, (n,), generator=g)
    x = torch.randn(n, 3, 32, 32, generator=g)
    # class c brightens channel c % 3 in quadrant c // 3 (of 4)
    for c in range(10):
        idx = (y == c).nonzero(as_tuple=True)[0]
        q = c // 3
        r, col = (q // 2) * 16, (q % 2) * 16
        x[idx, c % 3, r:r + 16, col:col + 16] += 1.0
    return TensorDataset(x, y)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--out", default="./data")
    ap.add_argument("--no-ops", action="store_true",
                    help="do not record aten operators")
    ap.add_argument("--record-shapes", action="store_true")
    ap.add_argument("--memory", action="store_true",
                    help="record the allocator's memory events "
                         "(profile_memory)")
    ap.add_argument("--no-profile", action="store_true")
    ap.add_argument("--workers", type=int, default=0)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--analyse", action="store_true",
                    help="run the analysis at the end (Profiler.analyse)")
    ap.add_argument("--quiet", action="store_true")
    a = ap.parse_args(argv)

    torch.manual_seed(0)
    torch.set_num_threads(a.threads)
    data = make_data(a.steps * a.batch)
    loader = DataLoader(data, batch_size=a.batch, shuffle=True,
                        num_workers=a.workers)
    model = SmallCNN()
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    loss_fn = nn.CrossEntropyLoss()

    prof = None
    if not a.no_profile:
        prof = nnscope.torch.Profiler(output_path=a.out, ops=not a.no_ops,
                                      record_shapes=a.record_shapes,
                                      profile_memory=a.memory)
        prof.set_metadata("example", "train_cnn")
    times, losses = [], []
    t0 = time.perf_counter()
    # A fixed number of steps, each fetching its batch: the DataLoader's
    # final StopIteration would otherwise land after the last step() in a
    # trailing partial step.
    it = iter(loader)
    for step in range(a.steps):
        x, y = next(it)
        opt.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()
        losses.append(loss.item())
        if prof is not None:
            prof.step()  # last in the iteration: ends this step
        t1 = time.perf_counter()
        times.append(t1 - t0)
        t0 = t1
        if not a.quiet:
            print("step %3d  loss %.4f" % (step, losses[-1]))
    out = None
    if prof is not None:
        if a.analyse:
            out = prof.analyse()
        prof.close()
    steady = times[len(times) // 10:] or times
    print("cnn: steps=%d loss_first=%.4f loss_last=%.4f step_ms_mean=%.3f "
          "step_ms_median=%.3f profiled=%d ops=%d"
          % (len(losses), losses[0], losses[-1],
             statistics.mean(steady) * 1e3, statistics.median(steady) * 1e3,
             prof is not None, prof is not None and not a.no_ops))
    if out:
        print("analysis:", out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
