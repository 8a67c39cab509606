#!/usr/bin/env bash
# regen.sh - rewrites tests/golden/bytes/expected/ from an nnscope binary.
# Only for a deliberate change of the output contract: the byte-for-byte
# test (tests/e2e/golden_bytes.sh) exists to show that refactoring the
# writers changes nothing. The expected files were first written by the
# writers before the result-table schema (commit 00c87f6).
#   NNSCOPE=build/nnscope bash tests/golden/bytes/regen.sh
set -euo pipefail
: "${NNSCOPE:?set NNSCOPE to the path of the nnscope binary}"
cd "$(dirname "$0")/../../.."
out=tests/golden/bytes/expected
rm -rf "$out"
"$NNSCOPE" analyse tests/golden/bytes/tiny --out "$out" -q
COLUMNS=120 "$NNSCOPE" report tests/golden/bytes/tiny --view all --no-color >"$out/report.txt"
# the version is not part of what the test compares
sed -i 's/"nnscope_version":"[^"]*"/"nnscope_version":"X"/' "$out"/*/overview.json
