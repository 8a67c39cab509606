#!/usr/bin/env bash
# collector_run.sh - `nnscope run` (owner: the collector): exit statuses pass
# through (3 stays 3, a signal N becomes 128+N, a missing command 127, bad
# options are a usage error before anything runs), LD_PRELOAD profiles an
# uninstrumented program that works (samplers, metadata, START/STOP, END at
# exit; one that records nothing and uses no CPU leaves no file), an
# instrumented one records on the preloaded profiler (nns_current) and its
# forked worker gets its own trace, --options reach the library, and the
# trace directory is printed on stderr.
#
#   NNSCOPE=build/nnscope bash tests/e2e/collector_run.sh
set -euo pipefail

# shellcheck source=lib/common.bash
. "$(dirname "$0")/lib/common.bash"
BIN=$(cd "$(dirname "$NNSCOPE")" && pwd)
CRASH=$BIN/tests/collector_crash
CHECK=$BIN/tests/collector_check
e2e_built "make e2e builds it" "$CRASH" "$CHECK" "$BIN/libnnscope.so"
e2e_setup collector_run.sh nnscope-run
unset NNSCOPE_OPTIONS MS_PROFILER_OPTIONS NNSCOPE_PRELOAD
val() { "$CHECK" "$1" | sed -n "s/^$2=//p" | tail -1; }

cd "$TMP"
# a busy uninstrumented program: SECONDS of CPU (a process that records
# nothing and uses under 100 ms of CPU leaves no file: collector_procs.sh)
BURN=(python3 -c 'import sys, time
while time.process_time() < float(sys.argv[1]): pass')
run_rc 3 "exit status passes through" "$NNSCOPE" run -- /bin/sh -c 'exit 3'
[ -z "$(ls data/*.nnst 2>/dev/null)" ] && pass "a shell that records nothing leaves no trace" \
	|| fail "trace of an idle shell: $(ls data)"
grep -q "no trace was written to $TMP/data" "$TMP/err.txt" && pass "no trace: said" \
	|| fail "no trace, not said: $(cat "$TMP/err.txt")"
run_rc 3 "exit status passes through a busy command" "$NNSCOPE" run -- \
	/bin/sh -c '"$0" "$@"; exit 3' "${BURN[@]}" 0.2
[ -n "$(ls data/*.nnst 2>/dev/null)" ] && pass "default output ./data" || fail "no trace in ./data"
run_rc 143 "a signal becomes 128+N" "$NNSCOPE" run -o "$TMP/sig" -- /bin/sh -c 'kill -TERM $$'
run_rc 127 "a missing command" "$NNSCOPE" run -o "$TMP/x" -- /nonexistent/program
run_rc 2 "bad options are refused" "$NNSCOPE" run --options '{"op_time":"yes"}' -- true
grep -q "option 'op_time' wants true or false" "$TMP/err.txt" && pass "the options error is named" \
	|| fail "options error message: $(cat "$TMP/err.txt")"
[ ! -e "$TMP/x" ] || [ -z "$(ls "$TMP/x")" ] && pass "nothing written for a missing command" \
	|| fail "files for a missing command"
run_rc 2 "no command" "$NNSCOPE" run -o "$TMP/y"

# an uninstrumented program: samplers, metadata, lifetime
run_rc 0 "uninstrumented program" "$NNSCOPE" run -o "$TMP/plain" \
	--options '{"cpu_sampling_interval_ms":20}' -- "${BURN[@]}" 0.3
grep -q "trace file in $TMP/plain" "$TMP/err.txt" && pass "prints where the trace is" \
	|| fail "no trace location printed: $(cat "$TMP/err.txt")"
f=$(ls "$TMP"/plain/*.nnst | head -1)
[ "$(val "$f" end)" = 1 ] && pass "END at exit" || fail "no END"
[ "$(val "$f" start)" = 1 ] && [ "$(val "$f" stop)" = 1 ] && pass "START/STOP = process lifetime" \
	|| fail "START $(val "$f" start) STOP $(val "$f" stop)"
[ "$(val "$f" samples)" -gt 3 ] && pass "samples: $(val "$f" samples)" || fail "samples: $(val "$f" samples)"
[ "$(val "$f" meta.attach)" = preload ] && pass "META attach=preload" || fail "no attach META"
val "$f" meta.cmdline | grep -q "import sys, time" && pass "META cmdline" || fail "cmdline"
val "$f" meta.options | grep -q '"cpu_sampling_interval_ms":20' && pass "--options reached the library" \
	|| fail "options: $(val "$f" meta.options)"
# with no ranges at all, the one default step is the profiling window
# (START..STOP), i.e. at least the 0.3 s the program ran
"$NNSCOPE" analyse "$TMP/plain" --out "$TMP/plain-out" -q
t=$(jq -r '.steps[0].total_us' "$TMP"/plain-out/*/overview.json)
awk "BEGIN{exit !($t >= 300000 && $t < 5000000)}" && pass "uninstrumented: step 0 spans the run ($t us)" \
	|| fail "uninstrumented: step 0 is $t us"
RANK=5 WORLD_SIZE=8 LOCAL_RANK=1 "$NNSCOPE" run -q -o "$TMP/rank" -- "${BURN[@]}" 0.2
f=$(ls "$TMP"/rank/*.nnst | head -1)
[ "$(val "$f" meta.rank)" = 5 ] && [ "$(val "$f" meta.world_size)" = 8 ] &&
	[ "$(val "$f" meta.local_rank)" = 1 ] && pass "rank metadata from RANK/WORLD_SIZE/LOCAL_RANK" \
	|| fail "rank metadata"
case $(basename "$f") in *_rank5_*.nnst) pass "the rank names the trace: $(basename "$f")" ;;
*) fail "trace name without the rank: $(basename "$f")" ;; esac

# an instrumented program with a forked worker
run_rc 0 "instrumented program with a fork" "$NNSCOPE" run -o "$TMP/inst" \
	--options '{"cpu_sampling_interval_ms":0}' -- "$CRASH" --preload 10
n=$(ls "$TMP"/inst/*.nnst | wc -l)
[ "$n" = 2 ] && pass "parent and forked child: 2 traces" || fail "$n traces"
for f in "$TMP"/inst/*.nnst; do
	if [ -n "$(val "$f" meta.fork_parent_pid)" ]; then
		[ "$(val "$f" events)" -ge 1000 ] && [ "$(val "$f" end)" = 1 ] &&
			pass "child trace: $(val "$f" events) events, END" || fail "child trace"
	else
		[ "$(val "$f" steps)" = 10 ] && [ "$(val "$f" end)" = 1 ] &&
			pass "parent trace: 10 steps, END" || fail "parent trace: steps $(val "$f" steps)"
	fi
done

# the command sees the library in LD_PRELOAD (an empty previous value adds no ':')
LD_PRELOAD= "$NNSCOPE" run -q -o "$TMP/env" -- /bin/sh -c 'echo "$LD_PRELOAD" > env.txt'
grep -qx ".*/libnnscope.so" env.txt && pass "LD_PRELOAD set for the command" || fail "LD_PRELOAD: $(cat env.txt)"

# the collector's threads never take a descriptor number the program frees
# to reuse: a program that closes its lowest free descriptor and opens a
# file, for 1.5 s, gets the same number back every time while the sampler
# reads /proc every millisecond (the sampler in the program's descriptor
# table made about 1 in 80 of them fail, and a shell's `echo > f` fail with
# "I/O error" about 1 run in 12: close(1), then dup2(f, 1) got EBUSY)
"$NNSCOPE" run -q -o "$TMP/fds" --options '{"cpu_sampling_interval_ms":1}' -- python3 -c '
import os, time
k = os.open("/dev/null", os.O_RDONLY)
n = wrong = 0
end = time.monotonic() + 1.5
while time.monotonic() < end:
    os.close(k)
    g = os.open("/dev/null", os.O_RDONLY)
    if g != k:
        wrong += 1
        k = g
    n += 1
print(n, wrong)' >fds.txt 2>&1
read -r fd_n fd_wrong <fds.txt || true
[ "${fd_n:-0}" -gt 10000 ] && [ "${fd_wrong:-1}" = 0 ] &&
	pass "close then open gets the same descriptor under the sampler ($fd_n times)" ||
	fail "descriptor taken by the collector: $(cat fds.txt)"
[ "$(val "$(ls "$TMP"/fds/*.nnst | head -1)" samples)" -gt 0 ] 2>/dev/null &&
	pass "the sampler sampled meanwhile" || fail "no samples: $(ls "$TMP/fds")"

e2e_summary collector_run.sh
