#!/usr/bin/env bash
# tests/gpu/device_check.sh - the whole GPU check as one command on a bare GPU
# machine (no package registry; Python with PyTorch + CUDA, nvcc, a C/C++
# compiler). Its contract, in order:
#   1. preflight: prints the GPU, driver, Python, torch, CUDA, NCCL and which
#      compilers and headers it found;
#   2. builds there only what depends on that machine (tests/gpu/
#      build_bare.sh): the collector (libnnscope.so: needs zlib.h, else the
#      kit's prebuilt copy), the Python extension for its Python, and the
#      RecordFunction shim against its torch; the nnscope program itself comes prebuilt in the kit
#      (scripts/gpukit.sh: `make gpu-kit` on the development machine);
#   3. runs tests/gpu/run.sh (ResNet-18 nnscope vs torch.profiler, the NCCL
#      plugin under real NCCL) and tests/gpu/cupti_cost.sh (step time by
#      CUPTI activity kind), each under a time limit;
#   4. leaves at most 8 files in OUTDIR: check.log (everything printed),
#      results.tar.gz (the analyses, logs and small traces) and, when they
#      fit in 15 MiB, traces.tar.gz (the raw traces, for analysis elsewhere).
#
#   bash tests/gpu/device_check.sh        (OUTDIR default $OUT, else /tmp)
# Environment: KIT (default .gpukit), PYTHON (python3), LIMIT_S (360: the
# time given to run.sh), COST_LIMIT_S (150: cupti_cost.sh; 0 skips it), and run.sh's
# options as arguments. About 4 minutes on an H200.
# Exits with run.sh's status; 2 when the build failed.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUTDIR=${OUTDIR:-${OUT:-/tmp/nnscope-gpu-out}}
KIT=${KIT:-$ROOT/.gpukit}
PYTHON=${PYTHON:-python3}
LIMIT_S=${LIMIT_S:-360}
COST_LIMIT_S=${COST_LIMIT_S:-150}
B=$ROOT/build-gpu
WORK=/tmp/nnscope-gpu-work
mkdir -p "$OUTDIR"
exec > >(tee "$OUTDIR/check.log") 2>&1
T0=$(date +%s)
say() { printf '[%4ds] %s\n' $(($(date +%s) - T0)) "$*"; }
have() { command -v "$1" >/dev/null 2>&1; }

say "== preflight"
date -u
uname -srm
have nvidia-smi && nvidia-smi --query-gpu=name,driver_version,memory.total,compute_cap --format=csv,noheader
"$PYTHON" - <<'EOF'
import sys, sysconfig, os
print("python", sys.version.split()[0], sys.executable)
inc = sysconfig.get_paths()["include"]
print("Python.h", "yes" if os.path.isfile(os.path.join(inc, "Python.h")) else "NO", inc)
try:
    import torch
    print("torch", torch.__version__, "cuda", torch.version.cuda,
          "gpu", torch.cuda.get_device_name(0) if torch.cuda.is_available() else "NONE")
    try:
        print("nccl", ".".join(map(str, torch.cuda.nccl.version())))
    except Exception as e:
        print("nccl ?", e)
    from torch.utils import cpp_extension
    print("torch include", cpp_extension.include_paths()[0])
except Exception as e:
    print("torch: does not import:", e)
EOF
for t in cc gcc g++ c++ make nvcc cmake; do
	printf '%-5s %s\n' "$t" "$(command -v $t || echo -)"
done
for h in zlib.h sqlite3.h microhttpd.h; do
	f=$(echo '#include <'$h'>' | cc -E -x c - 2>/dev/null | grep -m1 -o "/[^\"]*/$h")
	printf '%-13s %s\n' "$h" "${f:-missing}"
done
ls -d /usr/local/cuda*/extras/CUPTI/lib64/libcupti.so* 2>/dev/null | head -3
ls "$KIT"/nnscope "$KIT"/lib 2>&1 | tr '\n' ' '
echo

say "== build (only what depends on this machine)"
rm -rf "$B"
mkdir -p "$B/lib" "$B/python/nnscope" "$B/obj"
cp "$KIT/nnscope" "$B/nnscope" && cp "$KIT"/lib/* "$B/lib/" ||
	{ say "FAIL: no prebuilt nnscope in $KIT (make gpu-kit)"; exit 2; }
"$B/nnscope" --version || { say "FAIL: the kit's nnscope does not run here"; exit 2; }
# the same build tests/e2e/bare_build.sh checks in CI without the -dev packages
PYTHON=$PYTHON bash "$ROOT/tests/gpu/build_bare.sh" "$B" "$KIT" ||
	{ say "FAIL: tests/gpu/build_bare.sh"; exit 2; }
cd "$ROOT"
say "build done"

say "== tests/gpu/run.sh (limit ${LIMIT_S} s)"
rm -rf "$WORK"
rc=0
WORK=$WORK PYTHON=$PYTHON NNSCOPE=$B/nnscope timeout -k 10 "$LIMIT_S" bash tests/gpu/run.sh "$@" || rc=$?
[ "$rc" = 124 ] && say "run.sh TIMED OUT after $LIMIT_S s"
say "run.sh exit $rc"

if [ "$COST_LIMIT_S" -gt 0 ]; then
	say "== tests/gpu/cupti_cost.sh: step time by CUPTI activity kinds (limit ${COST_LIMIT_S} s)"
	PYTHON=$PYTHON NNSCOPE=$B/nnscope timeout -k 10 "$COST_LIMIT_S" bash tests/gpu/cupti_cost.sh ||
		say "cupti_cost.sh exit $?"
fi

say "== packing"
cd "$WORK" 2>/dev/null || exit "$rc"
# results: everything but the raw traces
tar -czf "$OUTDIR/results.tar.gz" --exclude='*.nnst' --exclude='*.pt.trace.json' --exclude='*.sqlite' . 2>/dev/null
# the raw traces when they fit (the torch.profiler JSON compresses ~10x)
tar -czf "$OUTDIR/traces.tar.gz" $(find . -name '*.nnst' -o -name '*.pt.trace.json' | LC_ALL=C sort) 2>/dev/null
if [ "$(stat -c %s "$OUTDIR/traces.tar.gz" 2>/dev/null || echo 0)" -gt 15728640 ]; then
	tar -czf "$OUTDIR/traces.tar.gz" $(find . -name '*.nnst' -path './cupti/*' -o -name '*.nnst' -path './nccl/*' -o -name '*.nnst' -path './comm/*' | LC_ALL=C sort) 2>/dev/null
fi
ls -l "$OUTDIR"
say "done, exit $rc"
exit "$rc"
