#!/usr/bin/env bash
# input_discovery.sh - what `nnscope analyse/report` take from a path, on
# small traces written here: a directory is searched recursively and files
# are recognised by content (hand-named *.json[.gz], Chrome's event array),
# files that are not traces are listed with the reason (stderr and
# <out>/skipped.json) and the exit code is
# non-zero only when nothing could be analysed; [], [1,2,3] and an empty
# traceEvents are errors naming the file; worker names keep their dots
# ("....1074" is not split into "...." and span "1") and the output
# directory is not hidden; --worker / --span that match nothing list what
# exists (exit 2, report, export and diff alike); `nnscope help --help` prints help; one span group writes
# distributed.json / cluster.json once, not a .1 copy.
#
#   NNSCOPE=build/nnscope bash tests/e2e/input_discovery.sh
set -euo pipefail

# shellcheck source=lib/common.bash
. "$(dirname "$0")/lib/common.bash"
e2e_setup input_discovery.sh nnscope-e2e-input

ev() { # ev PID: a one-operator Kineto document
	printf '{"traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": %s, "tid": 1, "ts": 10, "dur": 5}]}\n' "$1"
}
D=$TMP/in
mkdir -p "$D/worker" "$D/sub/deeper"
ev 1 | gzip >"$D/rank-0.json.gz"
ev 2 | gzip >"$D/worker/control.json.gz"
ev 3 >"$D/sub/deeper/w0.1700000001074.pt.trace.json"
printf '[{"ph": "X", "name": "a", "pid": 1, "tid": 1, "ts": 0, "dur": 3}]' >"$D/chrome.json"
printf '[1,2,3]' >"$D/list.json"
printf '[]' >"$D/empty.json"
printf '{"lr": 0.1}' >"$D/config.json"
printf 'not a trace' >"$D/notes.txt"

# ---- discovery by content ---------------------------------------------------
run_rc 0 "analyse DIR finds hand-named traces in every directory" "$NNSCOPE" analyse "$D" --out "$TMP/o"
check "rank-0.json.gz -> worker rank-0" test -s "$TMP/o/in/rank-0/overview.json"
check "chrome.json (event array) -> worker chrome" test -s "$TMP/o/in/chrome/overview.json"
check "worker/control.json.gz -> run worker, worker control" test -s "$TMP/o/worker/control/overview.json"
check "a tb_plugin file two levels down: worker w0, span 1" test -s "$TMP/o/sub/deeper/w0.1/overview.json"
for f in list.json empty.json config.json; do
	check "$f is listed as skipped" grep -q "^nnscope: warning: .*$f: skipped: " "$TMP/err.txt"
done
check "[] is skipped as an empty array" grep -q "empty.json: skipped: no events: the JSON array is empty" "$TMP/err.txt"
check "notes.txt is not a candidate: not listed" test "$(grep -c notes.txt "$TMP/err.txt")" -eq 0
check "skipped.json lists list.json, empty.json, config.json with reasons" jqt "$TMP/o/skipped.json" \
	'(.skipped|length)==3 and .more==0 and (.skipped|all((.path|type)=="string" and (.reason|length)>0))
	 and ([.skipped[].path|split("/")[-1]]|sort)==["config.json","empty.json","list.json"]
	 and (.skipped[]|select(.path|endswith("empty.json"))|.reason)=="no events: the JSON array is empty"'
run_rc 0 "analyse DIR/sub: traces one level down" "$NNSCOPE" analyse "$D/sub" --out "$TMP/o2"
check "DIR/sub -> run deeper" test -s "$TMP/o2/w0.1/overview.json"
check "nothing skipped: no skipped.json" test ! -e "$TMP/o2/skipped.json"
cp "$TMP/o/skipped.json" "$TMP/o2/skipped.json"
run_rc 0 "analyse DIR/sub again into the same directory" "$NNSCOPE" analyse -q "$D/sub" --out "$TMP/o2"
check "...removes the stale skipped.json" test ! -e "$TMP/o2/skipped.json"

# a bad trace among good ones: reported, the rest analysed, exit 0
printf '{"traceEvents": []}' >"$D/sub/deeper/bad.json"
run_rc 0 "a directory with one empty trace still succeeds" "$NNSCOPE" analyse "$D/sub" --out "$TMP/o3"
check "the empty traceEvents is named" grep -q "bad.json: no events: traceEvents is empty" "$TMP/err.txt"
mkdir -p "$TMP/none"
printf '[]' >"$TMP/none/a.json"
run_rc 1 "a directory with nothing to analyse fails" "$NNSCOPE" analyse "$TMP/none" --out "$TMP/o4"
check "...and lists what it skipped" grep -q "a.json: skipped: no events" "$TMP/err.txt"

# ---- validity of a single file ----------------------------------------------
run_rc 1 "[1,2,3] is an error" "$NNSCOPE" analyse "$D/list.json" --out "$TMP/o5"
check "...that says so" grep -q "list.json: no events: the JSON array holds 3 element(s), none of them an event" "$TMP/err.txt"
run_rc 1 "[] is an error" "$NNSCOPE" analyse "$D/empty.json" --out "$TMP/o5"
check "...naming the file" grep -q "empty.json: no events: the JSON array is empty" "$TMP/err.txt"
run_rc 1 "an empty traceEvents is an error" "$NNSCOPE" analyse "$D/sub/deeper/bad.json" --out "$TMP/o5"
check "...with 'traceEvents is empty'" grep -q "bad.json: no events: traceEvents is empty" "$TMP/err.txt"
run_rc 0 "Chrome's array format stays valid" "$NNSCOPE" analyse "$D/chrome.json" --out "$TMP/o6"

# ---- worker names -----------------------------------------------------------
mkdir -p "$TMP/dots"
ev 1 >"$TMP/dots/....1074.pt.trace.json"
ev 2 >"$TMP/dots/x.1074.pt.trace.json"
run_rc 0 "analyse a run with dotted names" "$NNSCOPE" analyse "$TMP/dots" --out "$TMP/od"
check "....1074 is one worker, in a visible directory" test -s "$TMP/od/_....1074/overview.json"
check "x.1074 is worker x, span 1" test -s "$TMP/od/x.1/overview.json"
check "no output name ends in dots" test "$(ls -a "$TMP/od" | grep -c '\.\.*$' )" -le 2

# ---- one span group: one distributed.json -----------------------------------
check "one span group: no distributed.1.json copy" test ! -e "$TMP/od/distributed.1.json"
check "one span group: no cluster.1.json copy" test ! -e "$TMP/od/cluster.1.json"
check "one span group: distributed.json written" test -s "$TMP/od/distributed.json"
mkdir -p "$TMP/two"
ev 1 >"$TMP/two/a.1.pt.trace.json"
ev 1 >"$TMP/two/a.2.pt.trace.json"
ev 2 >"$TMP/two/b.1.pt.trace.json"
ev 2 >"$TMP/two/b.2.pt.trace.json"
run_rc 0 "two span groups" "$NNSCOPE" analyse "$TMP/two" --out "$TMP/ot"
check "two span groups: distributed.1.json and distributed.2.json" test -s "$TMP/ot/distributed.2.json" -a -s "$TMP/ot/distributed.1.json"

# ---- CLI selection and help -------------------------------------------------
run_rc 2 "report --worker nope" "$NNSCOPE" report "$TMP/two" --worker nope
check "...lists the workers" grep -q "the workers are: a, b" "$TMP/err.txt"
run_rc 2 "report --span 3" "$NNSCOPE" report "$TMP/two" --span 3
check "...lists the spans" grep -q "the spans are: a: 1 2; b: 1 2" "$TMP/err.txt"
run_rc 2 "export --worker nope" "$NNSCOPE" export "$TMP/two" --worker nope --out "$TMP/x.json"
check "...lists the workers" grep -q "the workers are: a, b" "$TMP/err.txt"
run_rc 2 "diff --worker nope (one run directory)" "$NNSCOPE" diff "$TMP/two" --worker nope
check "...lists the workers" grep -q "the workers are: a, b" "$TMP/err.txt"
run_rc 2 "diff --worker nope (two traces)" "$NNSCOPE" diff "$TMP/two/a.1.pt.trace.json" "$TMP/two/a.2.pt.trace.json" --worker nope
check "...lists the worker" grep -q "the workers are: a" "$TMP/err.txt"
run_rc 0 "report --worker a --span 2" "$NNSCOPE" report "$TMP/two" --worker a --span 2
run_rc 0 "nnscope help --help" "$NNSCOPE" help --help
check "...prints the help" grep -q "^Usage: nnscope <command>" "$TMP/out.txt"

e2e_summary
