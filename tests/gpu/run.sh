#!/usr/bin/env bash
# tests/gpu/run.sh - the GPU check of issue 10, for a machine with a CUDA
# GPU, PyTorch 2.x with CUDA and nnscope built there by `make`: profiles a
# ResNet-18 (batch 64, 224x224, 30 steps, generated data) without a
# profiler, under `nnscope run` (CUPTI) with nnscope.torch, and under
# torch.profiler (CPU+CUDA, Chrome trace), analyses both traces with
# `nnscope analyse` and prints the comparison table (kernels and kernel time
# per step, memcpy/memset counts, top-10 kernels, step-time overheads, a
# one-rank NCCL all_reduce loop). See tests/gpu/resnet_compare.py. Then, on
# a GPU, tests/gpu/nccl_plugin.sh: the NCCL profiler plugin under real NCCL.
# Exits non-zero when either failed.
#
#   tests/gpu/run.sh [--cpu] [resnet_compare.py compare options]
#
# Prints "SKIP: no CUDA GPU" and exits 0 where torch sees no CUDA device
# (unless --cpu: the same pipeline on the CPU with tiny sizes, as
# tests/e2e/gpu_script_cpu.sh runs it). Environment: PYTHON (default
# python3), NNSCOPE (default build/nnscope), WORK (default a temporary
# directory, kept and printed: on the device tool, WORK=$OUT/gpu brings the
# traces and analyses back). Takes about 2-3 minutes on an H100.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
PYTHON=${PYTHON:-python3}
NNSCOPE=${NNSCOPE:-$ROOT/build/nnscope}
if ! "$PYTHON" -c 'import torch' >/dev/null 2>&1; then
	echo "SKIP: torch does not import for $PYTHON"
	exit 0
fi
if [ ! -x "$NNSCOPE" ] || ! ls "$(dirname "$NNSCOPE")"/python/nnscope/_nnscope*.so >/dev/null 2>&1; then
	echo "FAIL: $NNSCOPE and its python/ package are not built (make)"
	exit 1
fi
WORK=${WORK:-$(mktemp -d "${TMPDIR:-/tmp}/nnscope-gpu.XXXXXX")}
echo "work directory: $WORK"
export PYTHONPATH=$(cd "$(dirname "$NNSCOPE")" && pwd)/python${PYTHONPATH:+:$PYTHONPATH}
rc=0
"$PYTHON" "$ROOT/tests/gpu/resnet_compare.py" compare --nnscope "$NNSCOPE" --work "$WORK" "$@" || rc=$?
case " $* " in
*" --cpu "*) ;;
*)
	echo
	echo "== NCCL profiler plugin under real NCCL (tests/gpu/nccl_plugin.sh)"
	KEEP=$WORK/nccl PYTHON=$PYTHON NNSCOPE=$NNSCOPE bash "$ROOT/tests/gpu/nccl_plugin.sh" || rc=$?
	;;
esac
exit "$rc"
