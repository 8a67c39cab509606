#!/usr/bin/env bash
# collector_exit.sh - nothing collected is lost at exit (owner: the
# collector). build/tests/collector_exit emits exactly N marks ("exit-mark")
# and leaves without nns_destroy:
#   - returning from main, exec of /bin/true, and death by SIGSEGV (a real
#     fault), abort(), SIGTERM, SIGBUS, SIGFPE, SIGILL: the trace holds all
#     N marks and END, and the exit status is the program's own; with the
#     program's own SIGSEGV handler installed first, faults it recovers
#     from change nothing, and one it gives up on (faulthandler) flushes;
#   - forked children that leave by exit(), _exit(), exec, abort() or a
#     return from main: each child's own trace holds its N marks and END,
#     with the C API and under `nnscope run` (LD_PRELOAD);
#   - under `nnscope run` with the file size limited (ulimit -f, SIGXFSZ
#     ignored: writes fail with EFBIG): the collector prints the failure
#     on stderr while the program still runs, `nnscope run` prints the
#     events not written at exit, equal to the events emitted minus those
#     in the trace, and exits 74 (a failing command keeps its status);
#     events dropped on full buffers are a warning with the trace's count.
# Marks are counted twice: by collector_check (the format reader) and by
# `nnscope export` (the analyzer's importer).
#
#   NNSCOPE=build/nnscope bash tests/e2e/collector_exit.sh
set -euo pipefail

# shellcheck source=lib/common.bash
. "$(dirname "$0")/lib/common.bash"
BIN=$(cd "$(dirname "$NNSCOPE")" && pwd)
EXE=$BIN/tests/collector_exit
CHECK=$BIN/tests/collector_check
e2e_built "make e2e builds it" "$EXE" "$CHECK" "$BIN/libnnscope.so"
e2e_need jq
e2e_setup collector_exit.sh nnscope-exit
e2e_clean_env
N=5000
val() { "$CHECK" "$1" | sed -n "s/^$2=//p" | tail -1; }
exported() { # marks in FILE read by `nnscope export`
	"$NNSCOPE" export "$1" --format chrome --out - 2>"$TMP/export.err" |
		jq '[.traceEvents[] | select(.name == "exit-mark")] | length'
}
# one trace: all N marks, END, and the analyzer reads it without a warning
whole() { # LABEL FILE [MARKS]
	local want=${3:-$N} m e x
	if [ ! -f "$2" ]; then
		fail "$1: no trace"
		return
	fi
	m=$(val "$2" marks)
	e=$(val "$2" end)
	x=$(exported "$2")
	if [ "$m" = "$want" ] && [ "$e" = 1 ] && [ "$x" = "$want" ] && [ ! -s "$TMP/export.err" ]; then
		pass "$1: $m marks, END"
	else
		fail "$1: marks $m (export $x) of $want, END $e $(head -1 "$TMP/export.err")"
	fi
}
# a forked child's trace beside its parent's
child_trace() { # DIR: the trace with META fork_parent_pid
	local f
	for f in "$1"/*.nnst; do
		[ -n "$(val "$f" meta.fork_parent_pid)" ] && { echo "$f"; return; }
	done
	echo "$1/none"
}

# ---- the C API, no nns_destroy ----
run_rc 0 "return from main" "$EXE" return "$TMP/return" $N
whole "return from main" "$(ls "$TMP"/return/*.nnst | head -1)"
run_rc 0 "exec /bin/true" "$EXE" exec "$TMP/exec" $N
whole "exec" "$(ls "$TMP"/exec/*.nnst | head -1)"
for s in segv:139 abort:134 term:143 bus:135 fpe:136 ill:132; do
	run_rc "${s#*:}" "die by ${s%:*}" "$EXE" signal "$TMP/sig-${s%:*}" $N "${s%:*}"
	whole "die by ${s%:*}" "$(ls "$TMP/sig-${s%:*}"/*.nnst | head -1)"
done
# a runtime's SIGSEGV handler installed before the collector's runs first
run_rc 0 "faults the program recovers from" "$EXE" signal "$TMP/handled" $N handled
whole "faults recovered" "$(ls "$TMP"/handled/*.nnst | head -1)"
run_rc 139 "a handler that gives up (faulthandler)" "$EXE" signal "$TMP/gives-up" $N gives-up
grep -q "giving up" "$TMP/err.txt" && pass "the program's handler ran" || fail "the program's handler did not run"
whole "a handler that gives up" "$(ls "$TMP"/gives-up/*.nnst | head -1)"
for how in exit _exit exec abort return; do
	run_rc 0 "fork, the child leaves by $how" "$EXE" fork "$TMP/fork-$how" $N "$how"
	n=$(ls "$TMP/fork-$how"/*.nnst | wc -l)
	[ "$n" = 2 ] && pass "fork/$how: parent and child traces" || fail "fork/$how: $n traces"
	whole "fork/$how: child" "$(child_trace "$TMP/fork-$how")"
done

# ---- under `nnscope run` (LD_PRELOAD), on the preloaded profiler ----
OPTS='{"cpu_sampling_interval_ms":0}'
for how in exit _exit exec abort; do
	run_rc 0 "nnscope run, fork, the child leaves by $how" \
		"$NNSCOPE" run -q -o "$TMP/pfork-$how" --options "$OPTS" -- "$EXE" fork - $N "$how"
	whole "nnscope run fork/$how: child" "$(child_trace "$TMP/pfork-$how")"
done
run_rc 139 "nnscope run, SIGSEGV" "$NNSCOPE" run -q -o "$TMP/psegv" --options "$OPTS" -- \
	"$EXE" signal - $N segv
whole "nnscope run, SIGSEGV" "$(ls "$TMP"/psegv/*.nnst | head -1)"

# ---- write failure under `nnscope run`: at most 2 MiB per file ----
FLOOD=3000000
(
	trap '' XFSZ
	ulimit -f 2048
	exec "$NNSCOPE" run -o "$TMP/full" --options "$OPTS" -- "$EXE" flood $FLOOD 3000
) >"$TMP/full.out" 2>"$TMP/full.err" &
rpid=$!
E2E_PIDS+=("$rpid")
said=""
for _ in $(seq 25); do # the program sleeps 3 s after flooding
	grep -q "File too large" "$TMP/full.err" && { said=1; break; }
	sleep 0.1
done
running=$(kill -0 "$rpid" 2>/dev/null && echo 1 || echo 0) # nnscope run waits for it
[ -n "$said" ] && [ "$running" = 1 ] && pass "the write failure is printed at once (program still running)" \
	|| fail "no failure line while the program ran: $(cat "$TMP/full.err")"
rc=0
wait "$rpid" || rc=$?
[ "$rc" = 74 ] && pass "write failure: nnscope run exits 74" || fail "write failure: exit $rc"
f=$(ls "$TMP"/full/*.nnst | head -1)
written=$("$CHECK" "$f" | sed -n 's/^events=//p')
# START + the marks + STOP were emitted; what the trace lacks was counted
missing=$((FLOOD + 2 - written))
said=$(sed -n 's/.* \([0-9][0-9]*\) events were not written.*/\1/p' "$TMP/full.err")
[ "$(grep -c "nnscope: pid [0-9]*: .*File too large" "$TMP/full.err")" = 1 ] &&
	pass "the collector said it once" || fail "collector lines: $(cat "$TMP/full.err")"
grep -q "nnscope: error: $f: writing the trace at byte [0-9]*: File too large; $said events not written" \
	"$TMP/full.err" && pass "at exit: the trace, why, and the count" || fail "exit report: $(cat "$TMP/full.err")"
[ -n "$said" ] && [ "$said" -ge "$missing" ] && [ "$said" -gt $((FLOOD / 2)) ] &&
	pass "events not written: $said reported, $missing missing from the trace ($written written)" ||
	fail "events not written: '$said' reported, $missing missing ($written written)"
# the command's own failure wins
(
	trap '' XFSZ
	ulimit -f 2048
	exec "$NNSCOPE" run -q -o "$TMP/full3" --options "$OPTS" -- /bin/sh -c "\"$EXE\" flood $FLOOD; exit 3"
) >/dev/null 2>"$TMP/full3.err" && rc=0 || rc=$?
[ "$rc" = 3 ] && grep -q "events were not written" "$TMP/full3.err" &&
	pass "a failing command keeps its status (3) and the loss is printed" ||
	fail "failing command: exit $rc, $(cat "$TMP/full3.err")"

# ---- buffers full (no write failure): a warning with the trace's count ----
run_rc 0 "dropped events are not a failure" "$NNSCOPE" run -q -o "$TMP/drop" \
	--options '{"cpu_sampling_interval_ms":0,"buffer_kb_per_thread":2}' -- "$EXE" flood 2000000
f=$(ls "$TMP"/drop/*.nnst | head -1)
lost=$(val "$f" lost)
if [ "$lost" -gt 0 ] && grep -q "warning: $lost events were dropped in 1 process" "$TMP/err.txt"; then
	pass "dropped: $lost events, as the trace counts"
else
	fail "dropped: trace $lost, said: $(cat "$TMP/err.txt")"
fi
grep -q "error" "$TMP/err.txt" && fail "drops reported as an error" || pass "drops are no error"

e2e_summary collector_exit.sh
