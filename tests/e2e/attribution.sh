#!/usr/bin/env bash
# attribution.sh - operator device time on a real trace whose launches carry
# External id == their own correlation id (as PyTorch 2.x traces of issue 8
# do): the ResNet-50 sample is rewritten so that every launch's external id is
# its correlation id, and nnscope must attribute every operator the same
# device time as on the original trace (by the innermost enclosing operator
# instead of by external id), with the attribution diagnostics saying so.
#
#   NNSCOPE=build/nnscope NNS_SHARED=../shared bash tests/e2e/attribution.sh
set -euo pipefail

# shellcheck source=lib/common.bash
. "$(dirname "$0")/lib/common.bash"
here=$(cd "$(dirname "$0")" && pwd)
SHARED=${NNS_SHARED:-$here/../../../shared}
SRC=$SHARED/data/kineto/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz
[ -f "$SRC" ] || e2e_skip "$SRC not found (set NNS_SHARED to the shared/ directory)"
e2e_need jq python3
e2e_setup attribution.sh nnscope-attr

mkdir -p "$TMP/orig" "$TMP/eqcorr"
cp "$SRC" "$TMP/orig/worker0.1.pt.trace.json.gz"
# the rewrite: launches (Runtime / cuda_runtime / cuda_driver) and device
# events get External id := correlation
python3 - "$SRC" "$TMP/eqcorr/worker0.1.pt.trace.json" <<'PY'
import gzip, json, sys
doc = json.load(gzip.open(sys.argv[1], 'rt'))
n = 0
for e in doc['traceEvents']:
    a = e.get('args')
    if isinstance(a, dict) and 'correlation' in a and e.get('ph') == 'X':
        for k in ('External id', 'external id'):
            if k in a:
                a[k] = a['correlation']
                n += 1
json.dump(doc, open(sys.argv[2], 'w'))
print('rewrote', n, 'external ids', file=sys.stderr)
PY

"$NNSCOPE" analyse "$TMP/orig" -o "$TMP/out-orig" >/dev/null
"$NNSCOPE" analyse "$TMP/eqcorr" -o "$TMP/out-eq" >/dev/null
O=$TMP/out-orig/worker0.1
E=$TMP/out-eq/worker0.1

ops() { jq -r '.by_name[] | "\(.name) \(.calls) \(.device_self_us) \(.device_total_us)"' "$1/operators.json" | sort; }
ops "$O" >"$TMP/o.txt"
ops "$E" >"$TMP/e.txt"
total_o=$(jq '[.by_name[].device_self_us] | add' "$O/operators.json")
total_e=$(jq '[.by_name[].device_self_us] | add' "$E/operators.json")
# the original trace attributes (nearly) all kernel time to operators
if jq -e --argjson t "$total_o" '$t > 500000' <<<0 >/dev/null; then
	pass "original trace: operators hold ${total_o} us of device time"
else
	fail "original trace: operators hold only ${total_o} us of device time"
fi
if cmp -s "$TMP/o.txt" "$TMP/e.txt"; then
	pass "ext==corr: every operator's calls, device self and total time equal the original's (${total_e} us)"
else
	fail "ext==corr: operator device time differs from the original:"
	diff "$TMP/o.txt" "$TMP/e.txt" | head -20 || true
fi
a=$(jq -c '.diagnostics.attribution' "$E/overview.json")
if jq -e '.by_enclosing_op > 11000 and .by_external_id == 0 and .launches == 11923 and
	  .device_unattributed == 0 and .device_without_launch == 0' <<<"$a" >/dev/null; then
	pass "ext==corr: diagnostics attribute launches by the enclosing operator: $a"
else
	fail "ext==corr: attribution diagnostics $a"
fi
a=$(jq -c '.diagnostics.attribution' "$O/overview.json")
if jq -e '.by_external_id > 11000 and .by_enclosing_op == 0' <<<"$a" >/dev/null; then
	pass "original: diagnostics attribute launches by external id: $a"
else
	fail "original: attribution diagnostics $a"
fi
# the kernels view is independent of attribution; the tensor-core columns of
# operators depend on it and must match too
if [ "$(jq -c '[.by_name[] | {name, tc_self_ratio}]' "$O/operators.json")" = \
     "$(jq -c '[.by_name[] | {name, tc_self_ratio}]' "$E/operators.json")" ]; then
	pass "ext==corr: tensor-core ratios per operator equal the original's"
else
	fail "ext==corr: tensor-core ratios per operator differ"
fi
[ $fails -eq 0 ] || exit 1
