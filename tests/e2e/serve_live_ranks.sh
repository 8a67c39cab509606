#!/usr/bin/env bash
# serve_live_ranks.sh - `nnscope serve` names the slow rank of a job while
# it runs (docs/SERVER.md "Live runs", docs/LIVE.md): 4 ranks of the C
# example (build/examples/mlp, RANK / WORLD_SIZE) write one run directory
# under the served logdir, each step ~STALL_MS (the loader's stall), rank
# SLOW slowed by DELAY_MS per step from step FROM on (--delay-from-step: a
# sleep in an "mlp.delay" range). The server runs with
#   --alert 'rank_pct > 20' --alert 'step_ms > 2*median'
# and the test polls /api/cluster every 0.3 s, noting when each answer came
# (CLOCK_REALTIME ms) and the rank it names slow:
#   - while the job runs, /api/cluster is the live verdict (live: true, 4
#     ranks 0..3, a window of steps), not the 409 of a run still written;
#   - no answer before the slowdown names a slow rank; the first answer that
#     names rank SLOW comes within 5 s of the slowdown; no other rank is
#     ever named;
#   - /api/live_alerts has the rank_pct hit naming rank SLOW, fired within
#     5 s of the slowdown and not before, and the step_ms rule's first hit at
#     rank SLOW's first slowed step, its slow steps one episode (a step
#     the loaded machine stalls may be another); the server
#     printed the hit on stderr (the watcher fires it with no page asking);
#   - after the job, /api/cluster is the ordinary cluster.json again.
# When the slowdown began is read from the slow rank's own trace: its first
# "mlp.delay" range (`nnscope export --format chrome`).
#
#   NNSCOPE=build/nnscope bash tests/e2e/serve_live_ranks.sh
set -euo pipefail

# shellcheck source=lib/common.bash
. "$(dirname "$0")/lib/common.bash"
# shellcheck source=lib/ranks.bash
. "$(dirname "$0")/lib/ranks.bash"
BUILD=$(cd "$(dirname "$NNSCOPE")" && pwd)
MLP=$BUILD/examples/mlp
e2e_need jq curl
e2e_built "make examples" "$MLP"

e2e_setup serve_live_ranks.sh nnscope-serve-live-ranks
e2e_clean_env

STEPS=260
STALL_MS=20
FROM=150
DELAY_MS=60
SLOW=2
LOG=$TMP/log
RUN=$LOG/job
mkdir -p "$LOG"
e2e_serve "$LOG" --cache-dir "$TMP/cache" --alert 'rank_pct > 20' --alert 'step_ms > 2*median' ||
	{ echo "FAIL serve_live_ranks.sh: the server did not start: $(cat "$SERVE_OUT.err")"; exit 1; }
B="http://127.0.0.1:$PORT"
ranks_launch "$RUN" "$STEPS" "$STALL_MS" "$SLOW" "$DELAY_MS" "$FROM"

ranks_traces "$RUN"
# the page asks for a run once /api/runs lists it (rescanned every 2 s)
for _ in $(seq 100); do
	curl -s "$B/api/runs" | jq -e '.runs[] | select(.name == "job") | .live' >/dev/null 2>&1 && break
	sleep 0.1
done

# poll while any rank runs: one line per answer: wall ms, status, live,
# ranks, slow rank (-1 none), window
: >"$TMP/polls.tsv"
running() { for p in "${RANK_PIDS[@]}"; do kill -0 "$p" 2>/dev/null && return 0; done; return 1; }
while running; do
	c=$(curl -s -o "$TMP/c.json" -w '%{http_code}' "$B/api/cluster?run=job" || true)
	now=$(date +%s%3N)
	if [ "$c" = 200 ] && jq -e '.live == true' "$TMP/c.json" >/dev/null 2>&1; then
		jq -r --arg now "$now" '[$now, 200, 1, (.verdict.ranks | length), (.verdict.slow.rank // -1), .verdict.window] | @tsv' \
			"$TMP/c.json" >>"$TMP/polls.tsv"
		cp "$TMP/c.json" "$TMP/c-live.json"
	else
		printf '%s\t%s\t0\t0\t-1\t0\n' "$now" "$c" >>"$TMP/polls.tsv"
	fi
	sleep 0.3
done
ranks_wait
live_polls=$(awk '$3 == 1' "$TMP/polls.tsv" | wc -l)
echo "    $(wc -l <"$TMP/polls.tsv") polls, $live_polls live"
check "while the job ran, /api/cluster answered the live verdict of 4 ranks" \
	test "$(awk '$3 == 1 && $4 == 4' "$TMP/polls.tsv" | wc -l)" -ge 5
check "no answer was a 409 or an error" \
	test "$(awk '$2 != 200 && $2 != 202' "$TMP/polls.tsv" | wc -l)" -eq 0 ||
	awk '$2 != 200 && $2 != 202 { print "    status " $2 " at " $1 }' "$TMP/polls.tsv" | head -5
check_q "the live answer: ranks 0..3 with their steps, a window, the alert rules" \
	jq -e '(.verdict.ranks | map(.rank)) == [0,1,2,3] and (.verdict.ranks | all(.steps > 0)) and .verdict.window > 0 and (.alerts.rules | length) == 2' \
	"$TMP/c-live.json"

# when rank SLOW slowed: its first mlp.delay range, from its own trace
change_ms=$(ranks_slowdown_ms "$RUN")
if [ "$change_ms" = null ] || [ -z "$change_ms" ]; then
	fail "the slowdown's start is in the trace"
	e2e_summary
	exit 1
fi
first_named=$(awk -v s=$SLOW '$5 == s { print $1; exit }' "$TMP/polls.tsv")
echo "    slowdown at $change_ms ms; rank $SLOW first named at ${first_named:-never} ($((${first_named:-0} - change_ms)) ms later)"
check "answers before the slowdown had a verdict window (the rule was applied)" \
	test "$(awk -v c="$change_ms" '$1 < c && $6 > 0' "$TMP/polls.tsv" | wc -l)" -ge 1
check "no answer before the slowdown names a slow rank" \
	test "$(awk -v c="$change_ms" '$1 < c && $5 != -1' "$TMP/polls.tsv" | wc -l)" -eq 0
check "no answer ever names another rank" \
	test "$(awk -v s=$SLOW '$5 != -1 && $5 != s' "$TMP/polls.tsv" | wc -l)" -eq 0
check "rank $SLOW is named slow within 5 s of the slowdown" \
	test -n "$first_named" -a "${first_named:-0}" -ge "$change_ms" -a "$((${first_named:-0} - change_ms))" -le 5000

# the alerts
curl -s "$B/api/live_alerts?run=job" >"$TMP/alerts.json"
check_q "/api/live_alerts: the run, its two rules" \
	jq -e '.run == "job" and (.alerts.rules | map(.text)) == ["rank_pct > 20", "step_ms > 2*median"]' "$TMP/alerts.json"
hit_ms=$(jq '[.alerts.hits[] | select(.text == "rank_pct > 20")] | sort_by(.wall_ns) | .[0].wall_ns / 1e6 | floor' "$TMP/alerts.json" 2>/dev/null || echo 0)
check_q "the rank_pct alert fired, naming rank $SLOW only" \
	jq -e "[.alerts.hits[] | select(.text == \"rank_pct > 20\")] | length >= 1 and all(.rank == $SLOW and .value > 20)" "$TMP/alerts.json" ||
	jq -c '.alerts.hits[] | select(.text == "rank_pct > 20")' "$TMP/alerts.json" | head -5 | sed 's/^/    /' 
check "it fired within 5 s of the slowdown, not before it" \
	test "$hit_ms" -ge "$change_ms" -a "$((hit_ms - change_ms))" -le 5000
check_q "the step_ms alert's first hit is rank $SLOW's first slowed step ($FROM)" \
	jq -e "[.alerts.hits[] | select(.text == \"step_ms > 2*median\")] | sort_by(.wall_ns) | .[0] | .rank == $SLOW and .step == $FROM" "$TMP/alerts.json"
check_q "its $((STEPS - FROM)) slowed steps are an episode, not a hit each" \
	jq -e "[.alerts.hits[] | select(.text == \"step_ms > 2*median\" and .rank == $SLOW)] | length < $(((STEPS - FROM) / 4))" "$TMP/alerts.json"
check "the server printed the hit on stderr" \
	grep -q "alert: run job: rank_pct > 20" "$SERVE_OUT.err"

# after the job: the ordinary cluster.json
c=""
for _ in $(seq 300); do
	c=$(curl -s -o "$TMP/c.json" -w '%{http_code}' "$B/api/cluster?run=job" || true)
	[ "$c" = 200 ] && ! jq -e '.live == true' "$TMP/c.json" >/dev/null 2>&1 && break
	sleep 0.1
done
check_q "after the job, /api/cluster is the ordinary cluster.json of 4 ranks" \
	jq -e '(has("live") | not) and (.ranks | length) == 4 and has("proposals")' "$TMP/c.json"

e2e_summary
