# ranks.bash - a live multi-rank job for the e2e tests of the live verdict
# (live_ranks.sh, serve_live_ranks.sh): 4 ranks of the C example
# (build/examples/mlp, RANK / WORLD_SIZE) into one run directory, each
# step ~STALL_MS (the loader's stall, so 4 ranks on 2 cores do not differ
# by chance), rank SLOW slowed by DELAY_MS per step from step FROM on
# (--delay-from-step: a sleep in an "mlp.delay" range). Source after
# common.bash; needs $MLP, $TMP, $NNSCOPE.

# ranks_launch RUN STEPS STALL_MS SLOW DELAY_MS FROM: starts the ranks in
# the background (RANK_PIDS, also in E2E_PIDS); SLOW_PID is the slow one's.
ranks_launch() {
	local run=$1 steps=$2 stall=$3 slow=$4 delay=$5 from=$6 r
	local args=(--quiet --steps "$steps" --stall-ms "$stall" --batch 32 --in 64 --hidden 64 --out "$run")
	RANK_PIDS=()
	for r in 0 1 2 3; do
		local extra=()
		[ "$r" = "$slow" ] && extra=(--delay-ms "$delay" --delay-from-step "$from")
		env RANK=$r WORLD_SIZE=4 LOCAL_RANK=$r "$MLP" "${args[@]}" "${extra[@]}" >"$TMP/rank$r.log" 2>&1 &
		RANK_PIDS+=($!)
		E2E_PIDS+=($!)
	done
	SLOW_PID=${RANK_PIDS[$slow]}
}

# ranks_traces RUN: waits up to 10 s for the 4 traces; a check
ranks_traces() {
	for _ in $(seq 200); do
		[ "$(find "$1" -name '*.nnst' 2>/dev/null | wc -l)" -ge 4 ] && break
		sleep 0.05
	done
	check "4 traces appeared" test "$(find "$1" -name '*.nnst' | wc -l)" -eq 4
}

# ranks_wait: waits for the ranks; a check that they all exited 0
ranks_wait() {
	local ok=1 p
	for p in "${RANK_PIDS[@]}"; do wait "$p" || ok=0; done
	check "4 ranks ran" test $ok = 1
}

# ranks_slowdown_ms RUN: when the slow rank slowed (CLOCK_REALTIME ms): its
# first "mlp.delay" range, read from its own trace (`nnscope export
# --format chrome`: baseTimeNanoseconds + ts); "null" when not found.
ranks_slowdown_ms() {
	local trace
	trace=$(find "$1" -name "*_${SLOW_PID}.nnst" | head -1)
	"$NNSCOPE" export "$trace" --format chrome --out "$TMP/slow.json" >/dev/null 2>&1 || { echo null; return; }
	jq '.baseTimeNanoseconds as $b | [.traceEvents[] | select(.name == "mlp.delay") | .ts] | min | ($b / 1e6 + . / 1e3) | floor' \
		"$TMP/slow.json" 2>/dev/null || echo null
}
