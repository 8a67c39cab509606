#!/usr/bin/env bash
# live_top.sh - `nnscope top` on runs of the C example (build/examples/mlp):
#   - a finished run: `top --once` (text) and `top --once --json` print the
#     step count and the top operator that `nnscope analyse` of the same
#     run gives (an independent reading of the trace), say the trace has
#     ended, and `top` without --once stops by itself after one refresh;
#   - usage and input errors (no such directory, no .nnst, a bad --alert
#     with its column, bad --interval / --last, no operand) exit 2 and say
#     what is wrong;
#   - a running job: `top --json` follows it (a line while it is live with
#     fewer steps than the end), exits by itself once the job has ended,
#     its last line says "ended" with analyse's step count; --max-refreshes
#     stops after K lines; SIGINT stops it at once, exit 0.
#
#   NNSCOPE=build/nnscope bash tests/e2e/live_top.sh
set -euo pipefail

# shellcheck source=lib/common.bash
. "$(dirname "$0")/lib/common.bash"
BUILD=$(cd "$(dirname "$NNSCOPE")" && pwd)
MLP=$BUILD/examples/mlp
e2e_need jq timeout
e2e_built "make examples" "$MLP"

e2e_setup live_top.sh nnscope-live-top
e2e_clean_env
jqs_true() { [ "$(jq -s "$2" "$1" 2>/dev/null)" = "true" ]; } # FILE EXPR over all its lines

# ---- a finished run ----------------------------------------------------------
STEPS=40
DONE=$TMP/done
"$MLP" --quiet --steps $STEPS --out "$DONE" >"$TMP/mlp.log" 2>&1 || fail "mlp ran"
if "$NNSCOPE" analyse "$DONE" --out "$TMP/an" >"$TMP/an.log" 2>&1; then pass "nnscope analyse"; else
	fail "nnscope analyse"
	tail -3 "$TMP/an.log" | sed 's/^/    /'
fi
worker=$(basename "$(find "$DONE" -name '*.nnst' | head -1)" .nnst)
want_steps=$(jq '.steps | length' "$TMP/an/$worker/overview.json" 2>/dev/null || echo none)
want_op=$(jq -r '.by_name | max_by(.host_self_us) | .name' "$TMP/an/$worker/operators.json" 2>/dev/null || echo none)
echo "    analyse: $want_steps steps, top operator by host self time: $want_op"
check "analyse found the $STEPS steps" test "$want_steps" = "$STEPS"

run_rc 0 "top --once on the finished run" "$NNSCOPE" top "$DONE" --once --last 128
out=$TMP/out.txt
check "text: the trace's row has $want_steps steps and says ended" \
	grep -Eq "^ *0 +$worker +$want_steps .* ended *$" "$out"
check "text: the first operator listed is $want_op" \
	test "$(grep -A1 '^  operator' "$out" | tail -1 | awk '{print $1}')" = "$want_op"
check "text: says every trace has ended" grep -q "every trace has ended" "$out"
check "text: one rank, no slow-rank verdict" grep -q "^slow rank: No slow-rank verdict: 1 rank" "$out"

run_rc 0 "top --once --json" "$NNSCOPE" top "$DONE" --once --json --last 128
J=$TMP/once.json
cp "$TMP/out.txt" "$J"
check "json: one line" test "$(wc -l <"$J")" -eq 1
check "json: $want_steps steps, state ended, refresh 1" \
	jqt "$J" ".traces[0].steps == $want_steps and .state == \"ended\" and .refresh == 1 and .traces[0].state == \"ended\""
check "json: the focus is the first (only) rank, its first operator $want_op" \
	jqt "$J" ".focus.why == \"first\" and .focus.ops[0].name == \"$want_op\""
check "json: the operator's calls are one per step" \
	jqt "$J" ".focus.ops[0].calls == $STEPS"
check "json: wall_ns is the time of printing (within a minute of now)" \
	jqt "$J" "(.wall_ns / 1e9 - $(date +%s) | fabs) < 60"
check "json: no rank verdict with one rank" jqt "$J" '.ranks.window == 0 and .ranks.slow == null'

run_rc 0 "top on the finished run stops by itself" timeout 30 "$NNSCOPE" top "$DONE" --json --interval 0.1
check "one refresh: the traces had all ended" test "$(wc -l <"$TMP/out.txt")" -eq 1

# ---- errors ------------------------------------------------------------------
run_rc 2 "no such directory" "$NNSCOPE" top "$TMP/nope"
check "  says the path" grep -q "$TMP/nope" "$TMP/err.txt"
mkdir -p "$TMP/empty"
echo '{"traceEvents": []}' >"$TMP/empty/x.json"
run_rc 2 "a directory without .nnst" "$NNSCOPE" top "$TMP/empty"
check "  says there is no .nnst trace" grep -q "no .nnst trace" "$TMP/err.txt"
run_rc 2 "a bad --alert" "$NNSCOPE" top "$DONE" --once --alert 'step_ms > 1.2*avg'
check "  names the rule, the column and what is wrong" \
	grep -q "bad --alert 'step_ms > 1.2\*avg': column 15: expected a number or median" "$TMP/err.txt"
run_rc 2 "an unknown metric" "$NNSCOPE" top "$DONE" --once -a 'speed > 3'
check "  says the metric is unknown" grep -q "column 1: unknown metric 'speed'" "$TMP/err.txt"
run_rc 2 "--interval 0" "$NNSCOPE" top "$DONE" --interval 0
run_rc 2 "--last 0" "$NNSCOPE" top "$DONE" --last 0
run_rc 2 "no run directory" "$NNSCOPE" top
run_rc 0 "valid alerts are accepted" "$NNSCOPE" top "$DONE" --once --json \
	--alert 'step_ms > 1.5*median' --alert 'rank_pct > 20' --alert 'data_pct >= 90'
check "  and listed in the JSON" jqt "$TMP/out.txt" '[.alerts.rules[].metric] == ["step_ms", "rank_pct", "data_pct"]'

# ---- a running job -------------------------------------------------------------
LIVE=$TMP/live
# ~20 ms a step (the loader's stall): a few seconds, flushed every 0.5 s
"$MLP" --quiet --steps 120 --stall-ms 20 --batch 32 --in 64 --hidden 64 --out "$LIVE" \
	>"$TMP/mlp2.log" 2>&1 &
MPID=$!
E2E_PIDS+=("$MPID")
for _ in $(seq 100); do
	ls "$LIVE"/*.nnst >/dev/null 2>&1 && break
	sleep 0.05
done
rc=0
timeout 120 "$NNSCOPE" top "$LIVE" --json --interval 0.2 >"$TMP/live.jsonl" 2>"$TMP/live.err" || rc=$?
mrc=0
wait "$MPID" || mrc=$?
check "the job ran (exit 0)" test "$mrc" = 0
check "top exited by itself, 0, once the job had ended (not the 120 s timeout)" test "$rc" = 0
if "$NNSCOPE" analyse "$LIVE" --out "$TMP/an2" >/dev/null 2>&1; then pass "analyse the job"; else fail "analyse the job"; fi
live_worker=$(basename "$(find "$LIVE" -name '*.nnst' | head -1)" .nnst)
live_steps=$(jq '.steps | length' "$TMP/an2/$live_worker/overview.json" 2>/dev/null || echo -1)
last=$(tail -1 "$TMP/live.jsonl")
echo "$last" >"$TMP/last.json"
echo "    $(wc -l <"$TMP/live.jsonl") lines; steps per line: $(jq -r '.traces[0].steps' "$TMP/live.jsonl" | tr '\n' ' ')"
check "several refreshes" test "$(wc -l <"$TMP/live.jsonl")" -ge 3
check "a line while the job was live, with fewer steps than it ended with" \
	test "$(jq -s "[.[] | select(.state == \"live\" and .traces[0].state == \"live\" and .traces[0].steps < $live_steps)] | length" "$TMP/live.jsonl")" -ge 1
check "the last line says ended, with analyse's $live_steps steps" \
	jqt "$TMP/last.json" ".state == \"ended\" and .traces[0].steps == $live_steps"
check "only the last line says ended" \
	test "$(jq -s '[.[] | select(.state == "ended")] | length' "$TMP/live.jsonl")" -eq 1
# shellcheck disable=SC2016 # a jq program in single quotes
check "the step counts never go down" \
	jqs_true "$TMP/live.jsonl" '[.[].traces[0].steps] as $s | all(range(1; $s | length); $s[.] >= $s[. - 1])'

# --max-refreshes, then SIGINT, on a longer job
"$MLP" --quiet --steps 2000 --stall-ms 20 --batch 32 --in 64 --hidden 64 --out "$TMP/long" \
	>"$TMP/mlp3.log" 2>&1 &
LPID=$!
E2E_PIDS+=("$LPID")
for _ in $(seq 100); do
	ls "$TMP"/long/*.nnst >/dev/null 2>&1 && break
	sleep 0.05
done
run_rc 0 "--max-refreshes 3 on a running job" timeout 60 "$NNSCOPE" top "$TMP/long" --json --interval 0.1 --max-refreshes 3
check "  3 lines, all live" test "$(jq -s '[.[] | select(.state == "live")] | length' "$TMP/out.txt")" -eq 3
"$NNSCOPE" top "$TMP/long" --interval 0.2 >"$TMP/int.txt" 2>&1 &
TPID=$!
E2E_PIDS+=("$TPID")
sleep 1
kill -INT "$TPID"
rc=0
for _ in $(seq 100); do kill -0 "$TPID" 2>/dev/null || break; sleep 0.05; done
if kill -0 "$TPID" 2>/dev/null; then fail "SIGINT stops top within 5 s"; else
	wait "$TPID" || rc=$?
	check "SIGINT stops top, exit 0" test "$rc" = 0
fi
check "  it had drawn the view (not a tty: blocks, no escape codes)" \
	bash -c "grep -q '^nnscope top' '$TMP/int.txt' && ! grep -q $'\e' '$TMP/int.txt'"
kill "$LPID" 2>/dev/null || true

e2e_summary
