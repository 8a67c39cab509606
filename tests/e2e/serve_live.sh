#!/usr/bin/env bash
# serve_live.sh - `nnscope serve` follows a run while it is written
# (docs/SERVER.md, "Live runs"): the C example (build/examples/mlp) trains
# under `nnscope run` into the served logdir, long enough to poll several
# times, and through the API:
#   - /api/runs lists its worker (and the run) "live": true, a Kineto run
#     beside it not; /api/live of the Kineto file is 404;
#   - /api/live shows the completed steps growing across polls, and each
#     refresh read only the bytes appended since the one before: for
#     consecutive refreshes, bytes_read grows by exactly refresh_bytes;
#   - while live, /api/view of operators and overview are live documents
#     ("live": {...}, the steps so far), modules is 409 with a JSON error
#     saying it comes when the run ends, and the trace answers (a snapshot);
#   - once the program exits and the END chunk is written, the worker is
#     no longer live (generation changed), /api/live says live false and
#     ended, the per-refresh counts of every refresh sum to bytes_read,
#     which equals the file's size (nothing was read twice), and
#     /api/view operators and overview equal `nnscope analyse` of the
#     same file (by_name rows, steps and average).
#
#   NNSCOPE=build/nnscope bash tests/e2e/serve_live.sh
set -euo pipefail

# shellcheck source=lib/common.bash
. "$(dirname "$0")/lib/common.bash"
BUILD=$(cd "$(dirname "$NNSCOPE")" && pwd)
MLP=$BUILD/examples/mlp
e2e_need jq curl
e2e_built "make examples" "$MLP"

e2e_setup serve_live.sh nnscope-serve-live
e2e_clean_env

LOG=$TMP/log
mkdir -p "$LOG/kin"
cat >"$LOG/kin/w0.pt.trace.json" <<'EOF'
{"schemaVersion": 1, "traceEvents": [
 {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 1, "tid": 1, "ts": 0, "dur": 1000},
 {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 100, "dur": 300}
]}
EOF
e2e_serve "$LOG" --cache-dir "$TMP/cache" || { echo "FAIL serve_live.sh: the server did not start: $(cat "$SERVE_OUT.err")"; exit 1; }
B="http://127.0.0.1:$PORT"
# code PATH -> HTTP status, body in $TMP/body
code() { curl -s -o "$TMP/body" -w '%{http_code}' "$B$1"; }
# get_ready PATH -> polls through 202 until another status; echoes it
get_ready() {
	local c
	for _ in $(seq 600); do
		c=$(code "$1")
		[ "$c" = 202 ] || break
		sleep 0.1
	done
	echo "$c"
}
# every live head seen (a refresh's counters), one JSON object a line
OBS=$TMP/obs.jsonl
: >"$OBS"
observe() { jq -c '(.live | objects) // . | {refreshes, bytes_read, refresh_bytes}' "$TMP/body" >>"$OBS"; }

# the program: >= 800 x 15 ms of data stalls, about 12 s (longer when loaded)
"$NNSCOPE" run -o "$LOG/live" -- "$MLP" --steps 800 --stall-ms 15 --quiet >"$TMP/mlp.out" 2>&1 &
MPID=$!
E2E_PIDS+=("$MPID")

# ---- the run appears, live --------------------------------------------------
listed=0
for _ in $(seq 100); do
	code /api/runs >/dev/null
	if jq -e '.runs[] | select(.name == "live") | .live == true and .workers[0].live == true' "$TMP/body" >/dev/null 2>&1; then
		listed=1
		break
	fi
	sleep 0.1
done
cp "$TMP/body" "$TMP/runs-live.json"
check "runs: the run being written and its worker say live: true" [ $listed = 1 ]
check_q "runs: the finished Kineto run does not say live" \
	jq -e '.runs[] | select(.name == "kin") | (has("live") | not) and (.workers[0] | has("live") | not)' "$TMP/runs-live.json"
GEN_LIVE=$(jq -r '.generation' "$TMP/runs-live.json")
W=$(jq -r '.runs[] | select(.name == "live") | .workers[0].name' "$TMP/runs-live.json")
# the span of the training process: the one whose file is the largest
SPAN="" best=-1
for s in $(jq -r '.runs[] | select(.name == "live") | .workers[0].spans[]' "$TMP/runs-live.json"); do
	c=$(code "/api/live?run=live&worker=$W&span=$s")
	[ "$c" = 200 ] || continue
	observe_span=$(jq -r '.file_size' "$TMP/body")
	if [ "$observe_span" -gt "$best" ]; then best=$observe_span SPAN=$s; fi
	[ "$s" != "$SPAN" ] || cp "$TMP/body" "$TMP/first.json"
done
[ -n "$SPAN" ] || { fail "live: no span of worker $W answers /api/live"; e2e_summary; exit 1; }
Q="run=live&worker=$W&span=$SPAN"
FILE=$LOG/$(jq -r '.file' "$TMP/first.json")
[ -f "$FILE" ] || FILE=$(jq -r '.file' "$TMP/first.json")
check_q "live: the first answer is live and names a .nnst file ($FILE)" \
	bash -c "jq -e '.live == true and .ended == false and (.file | endswith(\".nnst\"))' '$TMP/first.json' && [ -f '$FILE' ]"
check_q "live: /api/live of a Kineto trace is 404" \
	bash -c "[ \$(curl -s -o /dev/null -w '%{http_code}' '$B/api/live?run=kin&worker=w0') = 404 ]"
check_q "live: last=0 is a 400" \
	bash -c "[ \$(curl -s -o /dev/null -w '%{http_code}' '$B/api/live?$Q&last=0') = 400 ]"

# ---- polls while it runs: steps grow, each refresh reads only new bytes ------
: >"$OBS"
cp "$TMP/first.json" "$TMP/body"
observe
for i in 1 2 3 4; do
	sleep 1.1 # a refresh at most once a second: each poll is one refresh
	c=$(code "/api/live?$Q")
	[ "$c" = 200 ] || { fail "live: poll $i answered $c: $(cat "$TMP/body")"; continue; }
	observe
	jq -c '{live, steps_completed, bytes_read, refresh_bytes, refreshes, file_size}' "$TMP/body" >>"$TMP/polls.jsonl"
done
check_q "live: every poll while running says live" jq -se 'length == 4 and all(.[]; .live == true)' "$TMP/polls.jsonl"
check_q "live: the completed steps grow across polls ($(jq -s -c 'map(.steps_completed)' "$TMP/polls.jsonl"))" \
	jq -se '[.[].steps_completed] as $s | $s[0] > 0 and ($s[-1] > $s[0]) and all(range(1; $s | length); $s[.] >= $s[. - 1])' "$TMP/polls.jsonl"
check_q "live: each refresh read only the bytes appended since the last ($(jq -s -c 'map([.refreshes, .refresh_bytes, .bytes_read])' "$OBS"))" \
	jq -se 'all(range(1; length) as $i | [.[$i - 1], .[$i]];
		.[1].refreshes == .[0].refreshes + 1 and .[1].bytes_read == .[0].bytes_read + .[1].refresh_bytes
		and .[1].refresh_bytes < .[1].bytes_read)' "$OBS"

# ---- the views while live ----------------------------------------------------
c=$(code "/api/view?$Q&view=operators")
observe
cp "$TMP/body" "$TMP/ops-live.json"
check_q "view: operators while live is a live document with operators ($c)" \
	bash -c "[ $c = 200 ] && jq -e '.live.live == true and (.by_name | length) > 0 and all(.by_name[]; .calls > 0 and .host_self_us <= .host_total_us + 0.001)' '$TMP/ops-live.json'"
c=$(code "/api/view?$Q&view=overview")
observe
check_q "view: overview while live has the steps completed so far ($c)" \
	bash -c "[ $c = 200 ] && jq -e '.live.live == true and (.steps | length) > 0 and (.steps | length) == .live.steps_completed' '$TMP/body'"
c=$(code "/api/view?$Q&view=modules")
check_q "view: modules while live is 409 with a JSON error ($c: $(head -c 200 "$TMP/body"))" \
	bash -c "[ $c = 409 ] && jq -e '.error | test(\"available when the run ends\")' '$TMP/body'"
c=$(get_ready "/api/trace/meta?$Q")
check_q "trace: meta while live answers from a snapshot ($c)" \
	bash -c "[ $c = 200 ] && jq -e '.events > 0 and (.tracks | length) > 0' '$TMP/body'"
c=$(code "/api/live?$Q")
observe
check_q "live: still live after the view requests" jq -e '.live == true' "$TMP/body"

# ---- the end -----------------------------------------------------------------
wait "$MPID" || { fail "the program under nnscope run failed: $(tail -3 "$TMP/mlp.out")"; }
ended=0
for _ in $(seq 100); do
	code /api/runs >/dev/null
	if jq -e '.runs[] | select(.name == "live") | (has("live") | not) and (.workers[0] | has("live") | not)' "$TMP/body" >/dev/null 2>&1; then
		ended=1
		break
	fi
	sleep 0.1
done
check "runs: after the END chunk the worker is no longer live" [ $ended = 1 ]
check_q "runs: the generation changed when it stopped being live" \
	jq -e ".generation > $GEN_LIVE" "$TMP/body"
c=$(code "/api/live?$Q")
observe
SIZE=$(stat -c %s "$FILE")
check_q "live: after the end /api/live still answers: live false, ended ($c)" \
	bash -c "[ $c = 200 ] && jq -e '.live == false and .ended == true' '$TMP/body'"
check_q "live: bytes read in total = the file's size, $SIZE (nothing read twice): $(jq -c '{bytes_read, file_size}' "$TMP/body")" \
	jq -e ".bytes_read == $SIZE and .file_size == $SIZE" "$TMP/body"
check_q "live: the per-refresh counts of every refresh sum to the total ($(jq -s -c 'unique_by(.refreshes) | map(.refresh_bytes)' "$OBS"))" \
	jq -se 'unique_by(.refreshes) as $r | ($r | map(.refreshes)) == [range(1; ($r | length) + 1)]
		and ($r | map(.refresh_bytes) | add) == $r[-1].bytes_read' "$OBS"

# ---- the final views are `nnscope analyse` of the same file --------------------
"$NNSCOPE" analyse "$FILE" --out "$TMP/an" --quiet >/dev/null 2>&1 || fail "nnscope analyse $FILE failed"
AN=$(dirname "$(find "$TMP/an" -name operators.json | head -1)")
c=$(get_ready "/api/view?$Q&view=operators")
cp "$TMP/body" "$TMP/ops.json"
check_q "final: operators is no longer a live document ($c)" \
	bash -c "[ $c = 200 ] && jq -e 'has(\"live\") | not' '$TMP/ops.json'"
check_q "final: operators by_name equals nnscope analyse's" \
	jq -en --slurpfile a "$TMP/ops.json" --slurpfile b "$AN/operators.json" \
	'$a[0].by_name == $b[0].by_name and ($a[0].by_name | length) > 0'
check_q "final: the operators of the live document are operators of the whole run, with no more calls" \
	jq -en --slurpfile l "$TMP/ops-live.json" --slurpfile a "$AN/operators.json" \
	'($a[0].by_name | map({(.name): .calls}) | add) as $f | all($l[0].by_name[]; $f[.name] != null and .calls <= $f[.name])'
c=$(get_ready "/api/view?$Q&view=overview")
cp "$TMP/body" "$TMP/ov.json"
check_q "final: overview steps and average equal nnscope analyse's ($(jq '.steps | length' "$TMP/ov.json") steps)" \
	bash -c "[ $c = 200 ] && jq -en --slurpfile a '$TMP/ov.json' --slurpfile b '$AN/overview.json' \
		'\$a[0].steps == \$b[0].steps and \$a[0].average == \$b[0].average and (\$a[0].steps | length) >= 790'"
c=$(code "/api/view?$Q&view=modules")
check_q "final: modules answers once the run ended ($c)" bash -c "[ $c = 200 ] || [ $c = 202 ]"

e2e_summary serve_live.sh
