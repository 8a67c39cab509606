#!/usr/bin/env bash
# gpu_script_cpu.sh - keeps tests/gpu/run.sh from rotting on machines
# without a GPU: runs its pipeline with --cpu and tiny sizes (ResNet-18,
# batch 2, 32x32, 3 steps; a 5-iteration one-rank Gloo all_reduce loop)
# and checks that it exits 0 and prints the whole table: every run worked,
# losses bit-identical across runs, nnscope.torch's shim used, the memory
# events of nnscope.torch(memory) equal torch.profiler(profile_memory)'s
# (allocations, frees, peak), aten::conv2d
# 20 calls per step in both nnscope's and torch.profiler's views (the
# ResNet-18 count), the step-time rows, the loop's gloo:all_reduce ranges
# = 5 with float32[1000] inputs. Also: without --cpu on a machine with no
# CUDA device it says "SKIP: no CUDA GPU" and exits 0.
# Skips when torch does not import for /usr/bin/python3 or the shim is not
# available.
#
#   NNSCOPE=build/nnscope bash tests/e2e/gpu_script_cpu.sh
set -euo pipefail

# shellcheck source=lib/common.bash
. "$(dirname "$0")/lib/common.bash"
BUILD=$(cd "$(dirname "$NNSCOPE")" && pwd)
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
PYTHON=${PYTHON:-/usr/bin/python3}
"$PYTHON" -c 'import torch' >/dev/null 2>&1 ||
	e2e_skip "torch does not import for $PYTHON (apt-get install python3-torch)"
e2e_python "$BUILD"
e2e_setup gpu_script_cpu.sh nnscope-gpucpu
e2e_clean_env
unset NNSCOPE_TORCH_OPS NNSCOPE_TORCH_SHIM
export XDG_CACHE_HOME=$TMP/cache
if ! "$PYTHON" -c 'import nnscope.torch as nt; nt._rf_load()' >"$TMP/shim.log" 2>&1; then
	e2e_skip "RecordFunction shim not available: $(tail -1 "$TMP/shim.log")"
fi

if "$PYTHON" -c 'import sys, torch; sys.exit(torch.cuda.is_available())'; then
	if PYTHON=$PYTHON NNSCOPE=$NNSCOPE WORK=$TMP/skip bash "$ROOT/tests/gpu/run.sh" >"$TMP/skip.out" 2>&1; then
		check "without a GPU: SKIP: no CUDA GPU" grep -q '^SKIP: no CUDA GPU' "$TMP/skip.out"
	else
		fail "run.sh without a GPU exits 0"
	fi
fi

if PYTHON=$PYTHON NNSCOPE=$NNSCOPE WORK=$TMP/work timeout 300 bash "$ROOT/tests/gpu/run.sh" --cpu \
	--steps 3 --warmup 1 --batch 2 --size 32 --classes 10 --iters 5 --numel 1000 >"$TMP/out" 2>&1; then
	pass "run.sh --cpu exits 0"
else
	fail "run.sh --cpu exits 0"
	sed 's/^/    /' "$TMP/out" | tail -30
fi
O=$TMP/out
check "no FAIL line" test "$(grep -c '^FAIL' "$O")" = 0
for r in plain cupti nnscope zero torch plain2 nnscope-mem torch-mem; do
	check "run $r worked" grep -q "^ok   run $r " "$O"
done
check "losses bit-identical in the seven runs after the first" \
	test "$(grep -c '^ok   .*: losses bit-identical to the unprofiled run' "$O")" = 7
# the zero-code run: 1 warm-up + 3 timed optimizer steps, 20 convolutions each
check "zero-code: 4 steps from the optimizer's step" grep -q '^ok   zero-code: 4 steps' "$O"
check "zero-code: aten::conv2d 80 calls" grep -q '^ok   zero-code: aten::conv2d 80 calls' "$O"
check "nnscope.torch used the shim (with and without memory)" \
	test "$(grep -c '^ok   nnscope\(-mem\)\?: nnscope.torch used the RecordFunction shim' "$O")" = 2
check "memory events (allocations / frees / peak) equal torch.profiler's" \
	grep -q '^ok   cpu: memory events equal torch.profiler.s' "$O"
check "memory table row: the same three figures on both sides" \
	grep -Eq '^cpu +([0-9]+ / [0-9]+ / [0-9]+) +\1$' "$O"
check "table: aten::conv2d 20.0 per step in both views" \
	grep -Eq '^aten::conv2d calls .* 20\.0 +20\.0 +0\.0%' "$O"
check "table: kernel row says n/a on the CPU" grep -Eq '^kernels +n/a +n/a' "$O"
check "table: six step-time rows" \
	test "$(grep -Ec '^(no profiler \((before|after)\)|nnscope run|torch\.profiler \(CPU\)) .*%$' "$O")" = 6
check "comm loop: 5 gloo:all_reduce ranges, float32[1000]" \
	grep -q '^ok   gloo:all_reduce ranges: 5 (loop count 5)' "$O"
check "comm loop: input dims checked" grep -q "^ok   gloo:all_reduce input dims \['\[\[1000\]\]'\]: 4000 bytes" "$O"
check "comm loop: the one rank's Distributed view has the loop's calls" \
	grep -q '^ok   Distributed view: gloo:all_reduce calls = loop count 5' "$O"
check "comm loop: and its bytes (5 x 4000)" \
	grep -q '^ok   Distributed view: gloo:all_reduce bytes = 5 x 4000 B' "$O"
check "RESULT: ok" grep -q '^RESULT: ok' "$O"
e2e_summary
