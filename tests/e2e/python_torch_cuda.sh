#!/usr/bin/env bash
# python_torch_cuda.sh - nnscope.torch's switch for GPU collection
# (Profiler(cuda=...), nnscope.torch.enable_cuda) without a GPU, through
# the fake libcupti the Makefile builds (tests/e2e/fake_cupti.c, named by
# NNSCOPE_CUPTI_LIB):
#   - cuda=True with the fake: no warning, cuda_error None, the trace's
#     META cupti says "collecting (CUPTI version 130001, ...)";
#   - cuda=True with another CUPTI client subscribed (FAKE_CUPTI_SUBSCRIBED):
#     a RuntimeWarning naming it, cuda_error set, the CPU profile intact
#     (operators recorded), META cupti "unavailable: ...";
#   - cuda=True with no libcupti: the warning says libcupti was not found;
#   - cuda="auto" on this CPU-only torch: CUPTI is not touched (no META
#     cupti, no warning); cuda=False: the same;
#   - a bad value is a ValueError.
# Skips (exit 0) when torch does not import for /usr/bin/python3.
#
#   NNSCOPE=build/nnscope bash tests/e2e/python_torch_cuda.sh
set -euo pipefail

# shellcheck source=lib/common.bash
. "$(dirname "$0")/lib/common.bash"
BUILD=$(cd "$(dirname "$NNSCOPE")" && pwd)
PYTHON=${PYTHON:-/usr/bin/python3}
"$PYTHON" -c 'import torch' >/dev/null 2>&1 ||
	e2e_skip "torch does not import for $PYTHON (apt-get install python3-torch)"
e2e_python "$BUILD"
e2e_need jq
FAKE=$BUILD/tests/libfake_cupti.so
CHECK=$BUILD/tests/collector_check
[ -f "$FAKE" ] && [ -x "$CHECK" ] || {
	echo "FAIL python_torch_cuda.sh: $FAKE or $CHECK not built (make e2e)"
	exit 1
}

e2e_setup python_torch_cuda.sh nnscope-torchcuda
e2e_clean_env
unset NNSCOPE_CUPTI_LIB FAKE_CUPTI_SUBSCRIBED CUDA_INJECTION64_PATH

cat >"$TMP/drive.py" <<'PY'
import sys, warnings
import torch
import nnscope.torch as nt

out, cuda = sys.argv[1], sys.argv[2]
cuda = {"auto": "auto", "true": True, "false": False}[cuda]
model = torch.nn.Linear(8, 4)
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    with nt.Profiler(output_path=out, cuda=cuda) as prof:
        for _ in range(3):
            model(torch.randn(2, 8)).sum().backward()
            prof.step()
msgs = [str(x.message) for x in w if "GPU collection" in str(x.message)]
print("warnings=%d" % len(msgs))
for m in msgs:
    print("warning=" + m)
print("cuda_error=%s" % prof.cuda_error)
PY

meta() { "$CHECK" "$(ls "$TMP/$1"/*.nnst | head -1)" | sed -n "s/^meta\.$2=//p" | tail -1; }
run() { # NAME CUDA [ENV...]
	local name=$1 cuda=$2
	shift 2
	env "$@" "$PYTHON" "$TMP/drive.py" "$TMP/$name" "$cuda" >"$TMP/$name.out" 2>"$TMP/$name.err" ||
		fail "$name: the script failed: $(tail -3 "$TMP/$name.err")"
}
field() { sed -n "s/^$2=//p" "$TMP/$1.out" | head -1; }

run ok true NNSCOPE_CUPTI_LIB="$FAKE"
[ "$(field ok warnings)" = 0 ] && pass "fake CUPTI: no warning" ||
	fail "fake CUPTI: warnings: $(cat "$TMP/ok.out")"
[ "$(field ok cuda_error)" = None ] && pass "fake CUPTI: cuda_error is None" ||
	fail "fake CUPTI: cuda_error = $(field ok cuda_error)"
case "$(meta ok cupti)" in
"collecting (CUPTI version 130001"*) pass "fake CUPTI: META cupti = $(meta ok cupti)" ;;
*) fail "fake CUPTI: META cupti = '$(meta ok cupti)'" ;;
esac

run busy true NNSCOPE_CUPTI_LIB="$FAKE" FAKE_CUPTI_SUBSCRIBED=1
[ "$(field busy warnings)" = 1 ] && pass "another subscriber: one warning" ||
	fail "another subscriber: warnings = $(field busy warnings)"
case "$(field busy warning)" in
*"another CUPTI client"*) pass "another subscriber: the warning names it" ;;
*) fail "another subscriber: warning '$(field busy warning)'" ;;
esac
[ "$(field busy cuda_error)" != None ] && pass "another subscriber: cuda_error set" ||
	fail "another subscriber: cuda_error is None"
case "$(meta busy cupti)" in
unavailable:*) pass "another subscriber: META cupti unavailable" ;;
*) fail "another subscriber: META cupti = '$(meta busy cupti)'" ;;
esac
"$NNSCOPE" analyse "$TMP/busy" --out "$TMP/busy.an" >/dev/null 2>&1 ||
	fail "another subscriber: analyse failed"
if jq -e '[.. | objects | select(.name? == "aten::linear")] | length > 0' \
	"$TMP/busy.an"/*/operators.json >/dev/null 2>&1; then
	pass "another subscriber: the CPU profile is intact (aten::linear)"
else
	fail "another subscriber: no aten::linear in operators.json"
fi

run nolib true NNSCOPE_CUPTI_LIB="$TMP/no-such-libcupti.so"
case "$(field nolib warning)" in
*"libcupti not found"*) pass "no libcupti: the warning says so" ;;
*) fail "no libcupti: warning '$(field nolib warning)'" ;;
esac

run auto auto NNSCOPE_CUPTI_LIB="$FAKE"
[ "$(field auto warnings)" = 0 ] && [ -z "$(meta auto cupti)" ] &&
	pass "auto on CPU-only torch: CUPTI not touched" ||
	fail "auto on CPU-only torch: warnings $(field auto warnings), META cupti '$(meta auto cupti)'"
run off false NNSCOPE_CUPTI_LIB="$FAKE"
[ -z "$(meta off cupti)" ] && pass "cuda=False: CUPTI not touched" ||
	fail "cuda=False: META cupti '$(meta off cupti)'"

if "$PYTHON" -c 'import nnscope.torch as nt; nt.Profiler(output_path="'"$TMP"'/bad", cuda="yes")' \
	>/dev/null 2>"$TMP/bad.err"; then
	fail "cuda='yes': accepted"
elif grep -q "ValueError" "$TMP/bad.err"; then
	pass "cuda='yes': ValueError"
else
	fail "cuda='yes': $(tail -1 "$TMP/bad.err")"
fi
e2e_summary python_torch_cuda.sh
