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
: "${NNSCOPE:?set NNSCOPE to the path of the nnscope binary}"
cd "$(dirname "$0")/../.."
TMP=$(mktemp -d /tmp/nnscope-golden.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
fails=0

"$NNSCOPE" analyse tests/golden/bytes/tiny --out "$TMP/out" -q
COLUMNS=120 "$NNSCOPE" report tests/golden/bytes/tiny --view all --no-color >"$TMP/out/report.txt"
sed -i 's/"nnscope_version":"[^"]*"/"nnscope_version":"X"/' "$TMP/out"/*/overview.json

exp=$PWD/tests/golden/bytes/expected
n=$(cd "$exp" && find . -type f | wc -l)
if [ "$n" -lt 40 ]; then
	echo "FAIL golden_bytes: only $n expected files under $exp"
	exit 1
fi
while IFS= read -r f; do
	if [ ! -f "$TMP/out/$f" ]; then
		echo "FAIL golden_bytes: $f is no longer written"
		fails=$((fails + 1))
	elif ! cmp -s "$exp/$f" "$TMP/out/$f"; then
		echo "FAIL golden_bytes: $f differs:"
		diff "$exp/$f" "$TMP/out/$f" | head -5
		fails=$((fails + 1))
	fi
done < <(cd "$exp" && find . -type f | sed 's|^\./||' | LC_ALL=C sort)
extra=$(cd "$TMP/out" && find . -type f | sed 's|^\./||' | while read -r f; do [ -f "$exp/$f" ] || echo "$f"; done)
if [ -n "$extra" ]; then
	echo "FAIL golden_bytes: new files not in the expectations: $extra"
	fails=$((fails + 1))
fi
if [ "$fails" -eq 0 ]; then
	echo "PASS golden_bytes: $n files byte-identical to tests/golden/bytes/expected"
fi
exit $((fails > 0))
