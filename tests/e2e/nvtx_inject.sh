#!/usr/bin/env bash
# nvtx_inject.sh - NVTX v3 injection (owner: the collector): a program
# instrumented only with the header-only NVTX v3 API (tests/e2e/nvtx_app.c,
# built here against /usr/local/cuda/include/nvtx3, no CUDA runtime, no
# libnnscope) is profiled with no code change, under `nnscope run` and with
# NVTX_INJECTION64_PATH + NNSCOPE_PRELOAD set by hand. The trace, exported as
# Chrome-trace JSON, must hold exactly the ranges, marks and payload counters
# nvtx_app.c's header comment lists: names (UNICODE, domains, registered
# strings), counts, nesting, threads (nvtxNameOsThread names, start/end
# ranges on "async ranges"), durations >= what the program slept, PyTorch
# emit_nvtx-style names as operators with Input Dims; malformed
# attributes give unnamed events. Also: a user's NVTX_INJECTION64_PATH is
# kept, op_time=false records no NVTX range, and without a profiler the
# injection is a silent no-op. SKIP when the NVTX headers are absent.
#
#   NNSCOPE=build/nnscope bash tests/e2e/nvtx_inject.sh
set -euo pipefail

# shellcheck source=lib/common.bash
. "$(dirname "$0")/lib/common.bash"
SRC=$(cd "$(dirname "$0")" && pwd)/nvtx_app.c
BIN=$(cd "$(dirname "$NNSCOPE")" && pwd)
LIB=$BIN/libnnscope.so
INC=${NVTX_INCLUDE:-/usr/local/cuda/include}
e2e_setup nvtx_inject.sh nnscope-nvtx
e2e_need jq cc
e2e_built "make" "$LIB"
[ -f "$INC/nvtx3/nvToolsExt.h" ] || e2e_skip "no NVTX v3 headers in $INC (set NVTX_INCLUDE)"
e2e_clean_env
unset NNSCOPE_PRELOAD NVTX_INJECTION64_PATH

APP=$TMP/nvtx_app
cc -std=c11 -O1 -Wall -Wextra -Werror -isystem "$INC" "$SRC" -o "$APP" -ldl -pthread ||
	{ fail "nvtx_app.c does not build against $INC"; e2e_summary nvtx_inject.sh; exit 1; }
cd "$TMP"

# check_trace DIR LABEL: the assertions on the one trace in DIR
check_trace() {
	local dir=$1 l=$2 j=$TMP/$2.json main worker async
	if ! "$NNSCOPE" export "$dir" --out "$j" 2>"$TMP/export.err"; then
		fail "$l: export: $(cat "$TMP/export.err")"
		return
	fi
	tidof() { jq --arg n "$1" '[.traceEvents[] | select(.ph=="M" and .name=="thread_name"
		and .args.name==$n) | .tid] | if length==1 then .[0] else -1 end' "$j"; }
	main=$(tidof nvtx-main)
	worker=$(tidof nvtx-worker)
	async=$(tidof "async ranges")
	[ "$main" != -1 ] && [ "$worker" != -1 ] && [ "$main" != "$worker" ] &&
		pass "$l: nvtxNameOsThreadA named both threads" ||
		fail "$l: thread names: main $main worker $worker"
	[ "$async" != -1 ] && pass "$l: start/end ranges on 'async ranges'" || fail "$l: no async thread"

	# X events per (name, thread), and the exact set on the main thread
	xs() { jq -c --argjson t "$1" '[.traceEvents[] | select(.ph=="X" and .tid==$t
		and (.name|startswith("ProfilerStep#")|not)) | .name] | group_by(.)
		| map({(.[0]): length}) | add // {}' "$j"; }
	want='{"":5,"aten::addmm":1,"aten::linear":1,"bogus_dom":1,"dom: ascii_in_dom":1,"dom: registered":1,"inner":1,"outer":1,"pay_double":1,"wide_ünï€":3}'
	got=$(xs "$main")
	[ "$(jq -S -c . <<<"$got")" = "$(jq -S -c . <<<"$want")" ] &&
		pass "$l: main-thread ranges by name and count" || fail "$l: main ranges $got, want $want"
	got=$(xs "$worker")
	[ "$got" = '{"worker":1}' ] && pass "$l: worker-thread range" || fail "$l: worker ranges $got"
	got=$(xs "$async")
	[ "$(jq -S -c . <<<"$got")" = '{"cross":1,"dom: dom_async":1}' ] &&
		pass "$l: async ranges cross, dom: dom_async" || fail "$l: async ranges $got"

	# durations >= the time slept (us), no upper bound
	ev() { jq -c --arg n "$1" --argjson t "$2" '[.traceEvents[] | select(.ph=="X"
		and .name==$n and .tid==$t)]' "$j"; }
	mindur() { # NAME TID US
		local d
		d=$(ev "$1" "$2" | jq 'map(.dur) | min')
		awk -v d="$d" -v w="$3" 'BEGIN{exit !(d != "null" && d >= w)}' &&
			pass "$l: $1 lasts >= $3 us ($d)" || fail "$l: $1 lasts $d us, want >= $3"
	}
	mindur outer "$main" 20000
	mindur inner "$main" 10000
	mindur "wide_ünï€" "$main" 2000
	mindur "dom: registered" "$main" 8000
	mindur "dom: ascii_in_dom" "$main" 4000
	mindur pay_double "$main" 1000
	mindur worker "$worker" 5000
	mindur cross "$async" 15000
	mindur "dom: dom_async" "$async" 6000

	# nesting: CHILD within PARENT on the same thread
	within() { # CHILD PARENT TID
		local c p
		c=$(ev "$1" "$3" | jq '.[0]')
		p=$(ev "$2" "$3" | jq '.[0]')
		jq -n --argjson c "$c" --argjson p "$p" \
			'$c.ts >= $p.ts and $c.ts + $c.dur <= $p.ts + $p.dur + 0.001' | grep -qx true &&
			pass "$l: '$1' nested in '$2'" || fail "$l: '$1' $c not within '$2' $p"
	}
	within inner outer "$main"
	within "dom: ascii_in_dom" "dom: registered" "$main"
	within aten::addmm aten::linear "$main"
	# the worker pushed "worker" after main started "cross", and ended
	# "cross" after popping it: cross (async) spans worker (another thread)
	c=$(ev cross "$async" | jq '.[0]')
	w=$(ev worker "$worker" | jq '.[0]')
	jq -n --argjson c "$c" --argjson w "$w" '$c.ts <= $w.ts and $c.ts + $c.dur >= $w.ts + $w.dur' |
		grep -qx true && pass "$l: cross (ended on the worker) spans worker" ||
		fail "$l: cross $c vs worker $w"
	# and it ended before main went on (joined the worker, then marked)
	m=$(jq --argjson t "$main" '[.traceEvents[] | select(.ph=="i" and .name=="mark_a"
		and .tid==$t) | .ts] | min' "$j")
	jq -n --argjson c "$c" --argjson m "$m" '$c.ts + $c.dur <= $m' | grep -qx true &&
		pass "$l: cross ended before the first mark_a" || fail "$l: cross $c, mark_a at $m"

	# marks (instants) on the main thread, and the payloads as counters
	got=$(jq -c --argjson t "$main" '[.traceEvents[] | select(.ph=="i" and .tid==$t
		and (.name|startswith("nnscope ")|not)) | .name] | group_by(.)
		| map({(.[0]): length}) | add // {}' "$j")
	want='{"":2,"dom: registered":1,"mark_a":2,"mark_ex":1,"pay_float":1,"pay_i32":1,"pay_u32":1,"pay_u64":1}'
	[ "$(jq -S -c . <<<"$got")" = "$(jq -S -c . <<<"$want")" ] &&
		pass "$l: marks by name and count" || fail "$l: marks $got, want $want"
	got=$(jq -c '[.traceEvents[] | select(.ph=="C" and (.name|test("^(mark_ex|pay_)")))
		| {(.name): .args.value}] | add // {}' "$j")
	want='{"mark_ex":42,"pay_double":2.5,"pay_u64":7,"pay_i32":-3,"pay_float":1.5,"pay_u32":9}'
	[ "$(jq -S -c . <<<"$got")" = "$(jq -S -c . <<<"$want")" ] &&
		pass "$l: payloads as counters" || fail "$l: counters $got, want $want"
	# a malformed attribute's message is never read
	jq -e '[.traceEvents[] | select(.name=="size_zero" or .name=="bad_type")] | length == 0' \
		"$j" >/dev/null && pass "$l: size 0 / unknown message type: unnamed" ||
		fail "$l: a malformed attribute's message was used"
	check_q "$l: analyse reads it" "$NNSCOPE" analyse "$dir" --out "$TMP/$l-analysis" -q
	# PyTorch emit_nvtx names: operators with their input shapes
	ops=$(find "$TMP/$l-analysis" -name operators.json | head -1)
	if [ -n "$ops" ] && jq -e '[.by_name_shape[] | select(.calls == 1 and
		((.name == "aten::addmm" and .input_shape == "[[5], [4, 3], [3, 5]]"
		  and .host_total_us >= 3000) or
		 (.name == "aten::linear" and .input_shape == "[[4, 3], [5, 3], [5]]"
		  and .host_total_us >= 3000)))] | length == 2' "$ops" >/dev/null &&
		jq -e '[.by_name[] | select(.name | test(", seq = |op_id|sizes"))] | length == 0' \
			"$ops" >/dev/null; then
		pass "$l: emit_nvtx names -> operators aten::linear, aten::addmm with Input Dims"
	else
		fail "$l: emit_nvtx operators: $(jq -c '.by_name_shape' "$ops" 2>/dev/null)"
	fi
}

# 1. nnscope run, nothing else
run_rc 0 "nnscope run -- nvtx_app" "$NNSCOPE" run -q -o "$TMP/run" -- "$APP"
grep -qx "nvtx_app done" "$TMP/out.txt" && pass "nvtx_app ran to the end" || fail "nvtx_app output"
[ ! -s "$TMP/err.txt" ] && pass "no warning on stderr" || fail "stderr: $(cat "$TMP/err.txt")"
check_trace "$TMP/run" run

# 2. by hand: the NVTX headers load the library (no LD_PRELOAD)
NNSCOPE_PRELOAD=1 NNSCOPE_OPTIONS="{\"output_path\":\"$TMP/direct\"}" \
	NVTX_INJECTION64_PATH=$LIB run_rc 0 "NVTX_INJECTION64_PATH without LD_PRELOAD" "$APP"
check_trace "$TMP/direct" direct

# 3. nnscope run sets NVTX_INJECTION64_PATH to its library, keeps the user's
"$NNSCOPE" run -q -o "$TMP/env" -- /bin/sh -c 'echo "$NVTX_INJECTION64_PATH"' >"$TMP/env.txt"
[ "$(cat "$TMP/env.txt")" = "$(readlink -f "$LIB")" ] && pass "NVTX_INJECTION64_PATH = libnnscope.so" ||
	fail "NVTX_INJECTION64_PATH: $(cat "$TMP/env.txt")"
NVTX_INJECTION64_PATH=/x/y.so "$NNSCOPE" run -q -o "$TMP/env" -- /bin/sh -c \
	'echo "$NVTX_INJECTION64_PATH"' >"$TMP/env.txt"
[ "$(cat "$TMP/env.txt")" = /x/y.so ] && pass "a user's NVTX_INJECTION64_PATH is kept" ||
	fail "user's NVTX_INJECTION64_PATH replaced: $(cat "$TMP/env.txt")"

# 4. op_time=false: no NVTX range, marks still recorded
run_rc 0 "op_time=false" "$NNSCOPE" run -q -o "$TMP/noop" --options '{"op_time":false}' -- "$APP"
"$NNSCOPE" export "$TMP/noop" --out "$TMP/noop.json" 2>/dev/null
n=$(jq '[.traceEvents[] | select(.ph=="X" and (.name|startswith("ProfilerStep#")|not))] | length' \
	"$TMP/noop.json")
m=$(jq '[.traceEvents[] | select(.ph=="i" and .name=="mark_a")] | length' "$TMP/noop.json")
[ "$n" = 0 ] && [ "$m" = 2 ] && pass "op_time=false: 0 ranges, 2 mark_a" ||
	fail "op_time=false: $n ranges, $m mark_a"

# 5. the library injected with no profiler: a silent no-op
mkdir "$TMP/none" && cd "$TMP/none"
NVTX_INJECTION64_PATH=$LIB run_rc 0 "injected, no profiler" "$APP"
[ -z "$(ls -A "$TMP/none")" ] && [ ! -s "$TMP/err.txt" ] &&
	pass "no profiler: no file, no message" || fail "no profiler: $(ls "$TMP/none") $(cat "$TMP/err.txt")"

e2e_summary nvtx_inject.sh
