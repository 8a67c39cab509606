#!/usr/bin/env bash
# golden_bytes.sh - the JSON, CSV and terminal outputs of a synthetic
# two-rank trace (tests/golden/bytes/tiny, written by make_traces.py) are
# byte for byte the committed ones (tests/golden/bytes/expected, written by
# the writers before they were driven by the result-table schema). Any
# change to a contract key, a number's format, a column or a table layout
# fails here; regen.sh rewrites the expectations when a change is meant.
#
#   NNSCOPE=build/nnscope bash tests/e2e/golden_bytes.sh
set -euo pipefail
. "$(dirname "$0")/lib/common.bash"
e2e_setup golden_bytes.sh nnscope-golden
cd "$(dirname "$0")/../.."
exp=$PWD/tests/golden/bytes/expected

"$NNSCOPE" analyse tests/golden/bytes/tiny --out "$TMP/out" -q
COLUMNS=120 "$NNSCOPE" report tests/golden/bytes/tiny --view all --no-color >"$TMP/out/report.txt"
sed -i 's/"nnscope_version":"[^"]*"/"nnscope_version":"X"/' "$TMP/out"/*/overview.json

n=$(cd "$exp" && find . -type f | wc -l)
check "golden_bytes: $n expected files (>= 40)" [ "$n" -ge 40 ]
while IFS= read -r f; do
	if [ ! -f "$TMP/out/$f" ]; then
		fail "golden_bytes: $f is no longer written"
	elif cmp -s "$exp/$f" "$TMP/out/$f"; then
		pass "golden_bytes: $f"
	else
		fail "golden_bytes: $f differs:"
		diff "$exp/$f" "$TMP/out/$f" | head -5 || true
	fi
done < <(cd "$exp" && find . -type f | sed 's|^\./||' | LC_ALL=C sort)
extra=$(cd "$TMP/out" && find . -type f | sed 's|^\./||' | while read -r f; do [ -f "$exp/$f" ] || echo "$f"; done)
check "golden_bytes: no file beyond the expectations ($extra)" [ -z "$extra" ]
e2e_summary golden_bytes
