#!/usr/bin/env bash
# live_ranks.sh - the live slow-rank verdict and the rank_pct alert of
# `nnscope top` on a job while it runs: 4 ranks of the C example
# (build/examples/mlp, RANK / WORLD_SIZE as tests/e2e/cluster_slow_rank.sh
# launches them) whose steps take ~STALL_MS (the loader's stall), rank SLOW
# slowed by DELAY_MS per step from step FROM on (--delay-from-step: a sleep
# in an "mlp.delay" range at the start of each step). Alongside runs
#   nnscope top RUN --json --alert 'rank_pct > 20' --interval 0.5
# and, its lines carrying the wall time they were printed at (wall_ns):
#   - before the slowdown, no line names a slow rank (and some already had
#     a verdict window: the rule was being applied);
#   - the first line that names rank SLOW slow comes within 5 s of the
#     slowdown, and so does the first hit of the alert, which names it too;
#   - no other rank is ever named; top stops by itself when the job ends.
# When the slowdown began is read from the slow rank's own trace, not from
# top: its first "mlp.delay" range (`nnscope export --format chrome`:
# baseTimeNanoseconds + ts, CLOCK_REALTIME like wall_ns).
#
#   NNSCOPE=build/nnscope bash tests/e2e/live_ranks.sh
set -euo pipefail

# shellcheck source=lib/common.bash
. "$(dirname "$0")/lib/common.bash"
# shellcheck source=lib/ranks.bash
. "$(dirname "$0")/lib/ranks.bash"
BUILD=$(cd "$(dirname "$NNSCOPE")" && pwd)
MLP=$BUILD/examples/mlp
e2e_need jq timeout
e2e_built "make examples" "$MLP"

e2e_setup live_ranks.sh nnscope-live-ranks
e2e_clean_env
jqs() { jq -rs "$2" "$1" 2>/dev/null; } # FILE EXPR over all its lines (raw)

STEPS=160
STALL_MS=20
FROM=100
DELAY_MS=60
SLOW=2
RUN=$TMP/run
ranks_launch "$RUN" "$STEPS" "$STALL_MS" "$SLOW" "$DELAY_MS" "$FROM"
ranks_traces "$RUN"

rc=0
timeout 300 "$NNSCOPE" top "$RUN" --json --alert 'rank_pct > 20' --interval 0.5 \
	>"$TMP/top.jsonl" 2>"$TMP/top.err" || rc=$?
ranks_wait
check "top stopped by itself when the job ended (exit 0)" test "$rc" = 0
[ "$rc" = 0 ] || sed 's/^/    /' "$TMP/top.err" | head -5
J=$TMP/top.jsonl
check "the last line says ended, 4 ranks" \
	jqt <(tail -1 "$J") '.state == "ended" and (.ranks.ranks | length) == 4 and ([.ranks.ranks[].rank] == [0,1,2,3])'

# when rank SLOW slowed: its first mlp.delay range, from its own trace
change_ms=$(ranks_slowdown_ms "$RUN")
delays=$(jq '[.traceEvents[] | select(.name == "mlp.delay")] | length' "$TMP/slow.json" 2>/dev/null || echo 0)
check "rank $SLOW slept in $((STEPS - FROM)) mlp.delay ranges (steps $FROM..)" test "$delays" = $((STEPS - FROM))
if [ "$change_ms" = null ] || [ -z "$change_ms" ]; then
	fail "the slowdown's start is in the trace"
	e2e_summary
	exit 1
fi

# wall time (ms) of each line, the rank it names slow, its alert hits
jqs "$J" '.[] | [(.wall_ns / 1e6 | floor), (.ranks.slow.rank // -1), .ranks.window, .alerts.fired] | @tsv' >"$TMP/lines.tsv"
first_named=$(awk -v s=$SLOW '$2 == s { print $1; exit }' "$TMP/lines.tsv")
echo "    slowdown at $change_ms ms; $(wc -l <"$TMP/lines.tsv") lines; rank $SLOW first named at ${first_named:-never}" \
	"($((${first_named:-0} - change_ms)) ms later)"
check "lines before the slowdown had a verdict window (the rule was applied)" \
	test "$(awk -v c="$change_ms" '$1 < c && $3 > 0' "$TMP/lines.tsv" | wc -l)" -ge 1
check "no line before the slowdown names a slow rank" \
	test "$(awk -v c="$change_ms" '$1 < c && $2 != -1' "$TMP/lines.tsv" | wc -l)" -eq 0
check "no line ever names another rank" \
	test "$(awk -v s=$SLOW '$2 != -1 && $2 != s' "$TMP/lines.tsv" | wc -l)" -eq 0
check "rank $SLOW is named slow within 5 s of the slowdown" \
	test -n "$first_named" -a "${first_named:-0}" -ge "$change_ms" -a "$((${first_named:-0} - change_ms))" -le 5000
check "its verdict says which rank and by how much (> 20 %)" \
	jqt <(jqs "$J" "[.[] | select(.ranks.slow.rank == $SLOW)][0]") \
	".ranks.slow.pct > 20 and (.ranks.verdict | contains(\"rank $SLOW\")) and .focus.rank == $SLOW and .focus.why == \"slowest\""

# the alert: its first hit names rank SLOW, within 5 s of the slowdown
hit=$(jqs "$J" '[.[] | .alerts.hits[]] | sort_by(.wall_ns) | .[0] // empty')
echo "$hit" >"$TMP/hit.json"
hit_ms=$(jq '.wall_ns / 1e6 | floor' "$TMP/hit.json" 2>/dev/null || echo 0)
check "the rank_pct alert fired, naming rank $SLOW" \
	jqt "$TMP/hit.json" ".rank == $SLOW and .step == null and .value > 20 and .text == \"rank_pct > 20\""
check "the alert fired within 5 s of the slowdown, not before it" \
	test "$hit_ms" -ge "$change_ms" -a "$((hit_ms - change_ms))" -le 5000
check "the line that first shows the hit was printed within 5 s of the slowdown" \
	test "$(awk -v c="$change_ms" '$4 > 0 { print $1 - c; exit }' "$TMP/lines.tsv")" -le 5000

e2e_summary
