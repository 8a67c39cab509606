#!/bin/bash
# demo-profile.sh - profiles the demo's example programs the way `make demo`
# does; the demo (Makefile) and its test (tests/e2e/demo_profile.sh) both
# run this script, so what the test checks is what the demo shows.
#
#   scripts/demo-profile.sh mlp MLP_BINARY OUT_DIR   the C example
#   scripts/demo-profile.sh cnn PYTHON OUT_DIR       the PyTorch example
#                                                    (PYTHONPATH: build/python)
#
# Both examples run a few seconds at most (mlp: 100 steps of ~20 ms, its
# loader sleeping 20 ms a batch against ~2 ms of compute: a data-pipeline
# bottleneck to find, and one no machine load hides: the training loop
# samples the empty queue every ms while it waits, so the queue is empty in
# > 80% of the samples, far above the analysis's 30% threshold; cnn: 20
# steps). The collector's default CPU sampling period is 1 s,
# which leaves the CPU Utilization view empty, so the demo samples every
# 10 ms and asks for MindSpore's host_info CSV (profile_framework "all":
# the per-step host memory that view also shows). The PyTorch example also
# records torch's allocator events (--memory: profile_memory, through the
# RecordFunction shim when it builds) for the Memory view.
set -euo pipefail
usage() { echo "usage: $0 mlp MLP_BINARY OUT_DIR | cnn PYTHON OUT_DIR" >&2; exit 2; }
[ $# -eq 3 ] || usage
here=$(cd "$(dirname "$0")" && pwd)
export NNSCOPE_OPTIONS='{"cpu_sampling_interval_ms": 10, "profile_framework": "all"}'
case $1 in
mlp) exec "$2" --steps 100 --stall-ms 20 --queue-sample-ms 1 --out "$3" --quiet ;;
cnn) exec "$2" "$here/../examples/pytorch/train_cnn.py" --memory --out "$3" ;;
*) usage ;;
esac
