#!/usr/bin/env bash
# demo_profile.sh - the demo's runs have data in every view their programs
# can fill: profiles the examples with scripts/demo-profile.sh (the very
# script `make demo` runs) and analyses them as the demo does, then checks
#   - the Makefile's demo target profiles through that script (no drift);
#   - C example: 100 steps; the CPU Utilization view has machine and process
#     samples (cpu.json) and its host_info part has records (hostinfo.json);
#     step trace, data pipeline (the loader stall is found: the script
#     makes the loader sleep 20 ms a batch against ~2 ms of compute, so the
#     queue is empty in > 80% of the samples; the check wants twice the
#     analysis's 30% threshold, which a loaded machine cannot undo), operators
#     (the seven of examples/mlp/mlp.c) and the critical path have rows;
#   - PyTorch example (when torch imports): CPU samples, host_info records,
#     operator memory rows (memory.json) and module rows.
#
#   NNSCOPE=build/nnscope bash tests/e2e/demo_profile.sh
set -euo pipefail
# shellcheck source=lib/common.bash
. "$(dirname "$0")/lib/common.bash"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=$(cd "$(dirname "$NNSCOPE")" && pwd)
MLP=$BUILD/examples/mlp
PYTHON=${PYTHON:-/usr/bin/python3}
e2e_need jq
e2e_built "make examples" "$MLP"
e2e_setup demo_profile.sh nnscope-demo
e2e_clean_env

check "make demo profiles the C example with scripts/demo-profile.sh" \
	grep -q 'scripts/demo-profile.sh mlp $(MLP_BIN) $(DEMO)/mlp$' "$ROOT/Makefile"
check "make demo profiles the PyTorch example with scripts/demo-profile.sh" \
	grep -q 'scripts/demo-profile.sh cnn $(PYTHON) $(DEMO)/cnn' "$ROOT/Makefile"

# profile_and_analyse NAME CMD...: the demo's two steps; W is the worker dir
profile_and_analyse() {
	local name=$1
	shift
	if ! "$@" >"$TMP/$name.log" 2>&1; then
		fail "demo-profile.sh $name: $(tail -3 "$TMP/$name.log")"
		return 1
	fi
	if ! "$NNSCOPE" analyse "$TMP/$name" --out "$TMP/$name/analysis" >"$TMP/$name.an" 2>&1; then
		fail "nnscope analyse $name: $(tail -3 "$TMP/$name.an")"
		return 1
	fi
	W=$(dirname "$(find "$TMP/$name/analysis" -name cpu.json | sort | head -1)")
	pass "demo-profile.sh $name, then nnscope analyse"
}

# ---- the C example ----------------------------------------------------------
if profile_and_analyse mlp bash "$ROOT/scripts/demo-profile.sh" mlp "$MLP" "$TMP/mlp"; then
	check "mlp: 100 steps (overview)" jqt "$W/overview.json" '(.steps | length) == 100'
	# the profiled part lasts >= 100 x 20 ms of loader stall: >= 200 periods
	# of 10 ms; at least 10 leaves room for a loaded machine
	check "mlp: cpu.json is available with machine samples (>= 10)" \
		jqt "$W/cpu.json" '.available == true and .machine.samples >= 10 and (.machine_series | length) == .machine.samples'
	check "mlp: cpu.json has process samples and threads" \
		jqt "$W/cpu.json" '.process.samples >= 10 and (.process_series | length) > 0 and (.threads | length) > 0'
	check "mlp: cpu.json attributes samples to steps" \
		jqt "$W/cpu.json" '[.steps[] | select(.machine.samples > 0)] | length > 0'
	check "mlp: hostinfo.json has the host_info records of 100 steps" \
		jqt "$W/hostinfo.json" '.available == true and .records >= 200 and (.memory.points | length) > 0'
	check "mlp: steptrace.json has 100 steps" jqt "$W/steptrace.json" '(.steps | length) == 100'
	# the cause is the test's own: a 20 ms stall per batch. While the loader
	# is the bottleneck every batch gives at least two empty samples (the
	# wait's first and the get) to one non-empty (the put), >= 2/3 however
	# slow the machine; at ~2 ms of compute it is ~94%
	echo "     mlp: batch_queue empty in $(jq -r '.empty_ratio * 100 | floor' "$W/datapipe.json")% of its samples (threshold 30%)"
	check "mlp: datapipe.json finds the loader stall (queue empty in > 60% of samples)" \
		jqt "$W/datapipe.json" '.verdict == "data_process" and (.queues | length) > 0 and .empty_ratio > 0.6'
	# the seven operators examples/mlp/mlp.c names, once a step
	check "mlp: operators.json has the example's 7 operators, 100 calls each" \
		jqt "$W/operators.json" '[.by_name[] | [.name, .calls]] | sort == [["mlp::cross_entropy",100],["mlp::linear1",100],["mlp::linear1_backward",100],["mlp::linear2",100],["mlp::linear2_backward",100],["mlp::relu",100],["mlp::relu_backward",100]]'
	check "mlp: critical_path.json has a path" jqt "$W/critical_path.json" '.ok == true and (.segments | length) > 0'
fi

# ---- the PyTorch example ----------------------------------------------------
if ! "$PYTHON" -c 'import torch' >/dev/null 2>&1; then
	echo "SKIP PyTorch example: torch does not import for $PYTHON"
elif ! ls "$BUILD"/python/nnscope/_nnscope*.so >/dev/null 2>&1; then
	fail "PyTorch example: $BUILD/python/nnscope is not built (make python)"
elif PYTHONPATH=$BUILD/python profile_and_analyse cnn bash "$ROOT/scripts/demo-profile.sh" cnn "$PYTHON" "$TMP/cnn"; then
	check "cnn: 20 steps (overview)" jqt "$W/overview.json" '(.steps | length) == 20'
	check "cnn: cpu.json is available with machine samples (>= 10)" \
		jqt "$W/cpu.json" '.available == true and .machine.samples >= 10 and .process.samples >= 10'
	check "cnn: hostinfo.json has host_info records" jqt "$W/hostinfo.json" '.available == true and .records >= 40'
	check "cnn: memory.json has CPU operator rows" \
		jqt "$W/memory.json" '(.devices | length) > 0 and ([.devices[].ops[]?] | length) > 0'
	# allocator events through the RecordFunction shim (when it builds):
	# memory tied to aten::conv2d, which the dispatch mode never sees
	if PYTHONPATH=$BUILD/python "$PYTHON" -c 'import nnscope.torch as nt; nt._rf_load()' >/dev/null 2>&1; then
		check "cnn: memory.json ties allocations to aten::conv2d and ConvolutionBackward0 (allocator events)" \
			jqt "$W/memory.json" '[.devices.CPU.ops[] | select(.alloc_count > 0) | .name] | index("aten::conv2d") != null and index("ConvolutionBackward0") != null'
	fi
	check "cnn: modules.json has the model's modules" jqt "$W/modules.json" '(.modules | length) > 0'
fi

e2e_summary demo_profile.sh
