#!/usr/bin/env bash
# python_torch.sh - end-to-end test of nnscope.torch on the PyTorch example
# (examples/pytorch/train_cnn.py, CPU): the run's analysis has one step per
# iteration, module rows (forward and backward) in modules.json, aten
# operators in operators.json, DataLoader time in the overview; and a run
# with ops=False records no aten operators. Skips (exit 0) with a message
# when torch does not import for /usr/bin/python3.
#
#   NNSCOPE=build/nnscope bash tests/e2e/python_torch.sh
set -euo pipefail

# shellcheck source=lib/common.bash
. "$(dirname "$0")/lib/common.bash"
BUILD=$(cd "$(dirname "$NNSCOPE")" && pwd)
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
PYTHON=${PYTHON:-/usr/bin/python3}
"$PYTHON" -c 'import torch' >/dev/null 2>&1 ||
	e2e_skip "torch does not import for $PYTHON (apt-get install python3-torch)"
e2e_python "$BUILD"
e2e_need jq

e2e_setup python_torch.sh nnscope-torch
unset NNSCOPE_OPTIONS MS_PROFILER_OPTIONS
worker_dir() { dirname "$(find "$1" -name overview.json | sort | head -1)"; }

STEPS=20
run() { # run NAME ARGS...
	local name=$1
	shift
	if ! "$PYTHON" "$ROOT/examples/pytorch/train_cnn.py" --quiet --steps $STEPS \
		--out "$TMP/$name" "$@" >"$TMP/$name.log" 2>&1; then
		fail "train_cnn.py $name"
		sed 's/^/    /' "$TMP/$name.log" | tail -8
		return 1
	fi
	pass "train_cnn.py $name: $(tail -1 "$TMP/$name.log")"
	if ! "$NNSCOPE" analyse "$TMP/$name" --out "$TMP/$name.out" >"$TMP/$name.an" 2>&1; then
		fail "nnscope analyse $name"
		sed 's/^/    /' "$TMP/$name.an" | tail -5
		return 1
	fi
	pass "nnscope analyse $name"
}
run ops --record-shapes || true
run noops --no-ops || true

check "the loss went down" awk '/^cnn: /{for(i=1;i<=NF;i++){split($i,kv,"=");v[kv[1]]=kv[2]}} END{exit !(v["loss_last"] < v["loss_first"])}' "$TMP/ops.log"
W=$(worker_dir "$TMP/ops.out" 2>/dev/null || true)
N=$(worker_dir "$TMP/noops.out" 2>/dev/null || true)
if [ -z "$W" ] || [ -z "$N" ]; then
	fail "analysis wrote no overview.json"
	echo "$passes passed, $fails failed"
	exit 1
fi

# steps
check "$STEPS steps" jqt "$W/overview.json" ".steps | length == $STEPS"
check "ops=False: $STEPS steps" jqt "$N/overview.json" ".steps | length == $STEPS"
check "DataLoader time in the steps" jqt "$W/overview.json" '.average.dataloader_us > 0'

# modules (forward and backward)
check "modules.json: forward module rows" \
	jqt "$W/modules.json" '[.modules[] | select(.backward | not) | .name] as $n | (["Conv2d_0", "Linear_1", "SmallCNN_0"] | all(. as $x | $n | any(test($x))))'
check "modules.json: backward module rows" \
	jqt "$W/modules.json" '[.modules[].name] | any(test("Conv2d_0.*backward"))'
check "modules.json: Conv2d_0 runs once per step" \
	jqt "$W/modules.json" "any(.modules[]; (.name | test(\"Conv2d_0\$\")) and .occurrences == $STEPS)"
check "modules.json: the hierarchy has parents" \
	jqt "$W/modules.json" 'any(.modules[]; .parent != null)'
check "ops=False: module rows still there" jqt "$N/modules.json" '.modules | length > 0'

# aten operators
check "operators.json: aten operators" \
	jqt "$W/operators.json" '[.by_name[].name] as $n | (["aten::convolution", "aten::addmm", "aten::relu", "aten::convolution_backward"] | all(. as $x | $n | index($x)))'
check "operators.json: aten::convolution twice per step" \
	jqt "$W/operators.json" "any(.by_name[]; .name == \"aten::convolution\" and .calls == 2 * $STEPS)"
check "ops=False: no aten operators" jqt "$N/operators.json" '[.by_name[].name | select(startswith("aten::"))] | length == 0'
if jqt "$W/operators.json" '[.by_name_shape[] | .input_shape // "" | select(. != "")] | length > 0'; then
	check "operators.json: input shapes of aten::addmm" \
		jqt "$W/operators.json" 'any(.by_name_shape[]; .name == "aten::addmm" and (.input_shape | test("32, 2048")))'
else
	echo "NOTE by_name_shape has no input shapes: the .nnst importer does not attach the \"input_dims:\" instants yet"
fi

e2e_summary
