#!/usr/bin/env bash
# nccl_plugin.sh - the NCCL profiler plugin in libnnscope.so, without a GPU
# (owner: the collector). tests/e2e/nccl_harness.c plays NCCL: it dlopens
# $NCCL_PROFILER_PLUGIN (which `nnscope run` sets) and drives the newest
# ncclProfiler_vN it finds, or the version asked for. Checks:
#   - `nnscope run` sets NCCL_PROFILER_PLUGIN to libnnscope.so, keeps a
#     user's;
#   - two ranks (RANK=0/1, WORLD_SIZE=2) in one run dir, v6 (NCCL 2.29+):
#     each trace holds exactly the COLL records of the harness's script
#     (function, count, datatype, algorithm, protocol, root or peer,
#     rank/nranks, communicator hash, sequence numbers) plus v6's copy-engine
#     AllGather (algorithm CE, protocol MC, its enqueue window), one caller
#     thread per communicator; ProxyOp events get no handle;
#   - the GPU timer (v4+): each task's record spans its channels' GPU times,
#     21000 us (channel 0 from t0 - 1000 us to t0 + 19000 us, channel 1
#     from t0 - 500 us to t0 + 20000 us, the host keeping them open 30 ms),
#     exec=2, placed by the tightest host observation: its start is t0 -
#     500 us (channel 1's GPU start, seen at t0, minus the 500 us channel 0
#     began before it) plus the harness's few us between t0 and that start;
#     META nccl_profiler_gpu_timer timed=9 unusable=0;
#   - without usable GPU times (pTimer 0, a channel stopping before it
#     starts) or with NNSCOPE_NCCL_GPU_TIMER=0: the host's view (exec=1,
#     >= 30 ms), counted as unusable;
#   - versions 1-5 give the same records (v1's enums mapped to v2+'s
#     strings; v1/v2 have no kernel events: the enqueue window, >= 2 ms;
#     v3 has no GPU times: the kernel events' host window, >= 30 ms);
#   - bad calls (NULL/stale/double-stopped handles, unknown types, a 5000-task
#     flood past the 4096-slot pool, a finalized context; v6 v5 v3 v1) do not crash, are
#     counted in META nccl_profiler_drops, and a later task is still recorded;
#   - without a profiler the plugin records nothing and does not fail;
#   - `nnscope analyse` of the two-rank run: the communication table has
#     both ranks and per op the calls and bytes of the script (the CE
#     AllGather included), and each rank communicates at least the GPU time
#     of its all-reduces (5 x 21 ms).
#
#   NNSCOPE=build/nnscope bash tests/e2e/nccl_plugin.sh
set -euo pipefail

# shellcheck source=lib/common.bash
. "$(dirname "$0")/lib/common.bash"
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
BIN=$(cd "$(dirname "$NNSCOPE")" && pwd)
LIB=$BIN/libnnscope.so
e2e_setup nccl_plugin.sh nnscope-nccl
e2e_need cc awk jq
e2e_built "make" "$LIB"
e2e_clean_env
unset NCCL_PROFILER_PLUGIN

H=$TMP/nccl_harness
C=$TMP/nccl_check
cc -std=c11 -O1 -Wall -Wextra -Werror "$HERE/nccl_harness.c" -o "$H" -ldl -pthread ||
	{ fail "nccl_harness.c does not build"; e2e_summary nccl_plugin.sh; exit 1; }
cc -std=c11 -D_GNU_SOURCE -O1 -Wall -Wextra -Werror -I"$ROOT/include" -I"$ROOT/src" \
	"$HERE/nccl_check.c" "$ROOT/src/format/nnst_reader.c" "$ROOT/src/format/nnst_clock.c" \
	"$ROOT/src/format/nnst_crc.c" "$ROOT/src/common/vec.c" -o "$C" -lz ||
	{ fail "nccl_check.c does not build"; e2e_summary nccl_plugin.sh; exit 1; }
cd "$TMP"

# ---- the environment `nnscope run` gives ------------------------------------
got=$("$NNSCOPE" run -q -o env -- sh -c 'echo "$NCCL_PROFILER_PLUGIN"')
[ "$got" = "$(realpath "$LIB")" ] && pass "nnscope run sets NCCL_PROFILER_PLUGIN" ||
	fail "NCCL_PROFILER_PLUGIN under nnscope run: '$got'"
got=$(NCCL_PROFILER_PLUGIN=/my/plugin.so "$NNSCOPE" run -q -o env -- sh -c 'echo "$NCCL_PROFILER_PLUGIN"')
[ "$got" = /my/plugin.so ] && pass "a user's NCCL_PROFILER_PLUGIN is kept" ||
	fail "user's NCCL_PROFILER_PLUGIN became '$got'"

# sig FILE: the records without thread and times, sorted
sig() { "$C" "$1" | awk '$1=="coll"' | sed 's/ tid=.*//' | sort; }
# want RANK NRANKS VERSION: the records the script makes
want() {
	local r=$1 n=$2 v=$3 a=0xa11ed0ce00000001 b=0xa11ed0ce00000002 i
	for i in 0 1 2 3 4; do
		echo "coll name=AllReduce count=1048576 hash=$a dtype=ncclFloat32 algo=RING proto=SIMPLE rank=$r nranks=$n root=0 seq=$i"
	done
	for i in 0 1; do
		echo "coll name=Broadcast count=4096 hash=$b dtype=ncclBfloat16 algo=TREE proto=LL rank=$r nranks=$n root=0 seq=$i"
	done
	echo "coll name=AllGather count=262144 hash=$b dtype=ncclFloat16 algo=RING proto=LL128 rank=$r nranks=$n root=0 seq=2"
	echo "coll name=Send count=1024 hash=$b dtype=ncclInt8 algo= proto= rank=$r nranks=$n root=$(((r + 1) % 2)) seq=0"
	[ "$v" -lt 6 ] ||
		echo "coll name=AllGather count=65536 hash=$b dtype=ncclFloat32 algo=CE proto=MC rank=$r nranks=$n root=0 seq=3"
}
# times FILE: name/algorithm, exec, dur_us, hostclock of each record
times() { "$C" "$1" | awk '$1=="coll"{ for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
	print v["name"] "/" v["algo"], v["exec"], v["dur_us"], v["hostclock"] }'; }
# check_file FILE RANK NRANKS VERSION LABEL [EXEC]: records and times; EXEC
# of the kernel tasks (default by version: 0 for v1/v2, 1 for v3, 2 for v4+)
check_file() {
	local f=$1 r=$2 n=$3 ver=$4 l=$5 x=${6:-} got exp bad tids nrec what
	if [ -z "$x" ]; then
		x=0
		[ "$ver" -ge 3 ] && x=1
		[ "$ver" -ge 4 ] && x=2
	fi
	got=$(sig "$f")
	exp=$(want "$r" "$n" "$ver" | sort)
	nrec=$(wc -l <<<"$exp")
	[ "$got" = "$exp" ] && pass "$l: exactly the $nrec records of the script" ||
		fail "$l: records differ:$(diff <(echo "$exp") <(echo "$got") | head -8 | tr '\n' '|')"
	# exec 0: the enqueue window (ENQ_US 2000 us); 1: the host sees the
	# channels open >= KERNEL_US 30000 us; 2: the GPU's 21000 us (one GPU ns
	# span put on the host clock: +-10 us). The CE AllGather has no
	# kernel: its enqueue window.
	bad=$(times "$f" | awk -v x="$x" '{ e = ($1 == "AllGather/CE") ? 0 : x
		ok = $2 == e && $4 == 1 && (e == 0 ? $3 >= 2000 : e == 1 ? $3 >= 30000 : $3 >= 20990 && $3 <= 21010)
		if (!ok) print $0 }')
	case $x in 0) what='>= 2000 us' ;; 1) what='>= 30000 us' ;; *) what='21000 +- 10 us' ;; esac
	[ -z "$bad" ] && pass "$l: every kernel task exec=$x, $what, host clock" ||
		fail "$l: records off (name exec dur_us hostclock): $(tr '\n' '|' <<<"$bad")"
	# one caller thread per communicator (thread ar: AllReduce; bc: the rest)
	tids=$("$C" "$f" | awk '$1=="coll"{ for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
		print v["hash"], v["tid"] }' | sort -u)
	[ "$(wc -l <<<"$tids")" = 2 ] && [ "$(cut -d' ' -f1 <<<"$tids" | sort -u | wc -l)" = 2 ] &&
		[ "$(cut -d' ' -f2 <<<"$tids" | sort -u | wc -l)" = 2 ] &&
		pass "$l: one caller tid per communicator, two different" ||
		fail "$l: (communicator, tid) pairs: $(tr '\n' ' ' <<<"$tids")"
}

# ---- two ranks, newest version (v5), one run dir ----------------------------
RANK=0 WORLD_SIZE=2 "$NNSCOPE" run -q -o two -- "$H" script >r0.out 2>r0.err &
p0=$!
RANK=1 WORLD_SIZE=2 "$NNSCOPE" run -q -o two -- "$H" script >r1.out 2>r1.err &
p1=$!
rc0=0 rc1=0
wait "$p0" || rc0=$?
wait "$p1" || rc1=$?
[ "$rc0" = 0 ] && [ "$rc1" = 0 ] && pass "two ranks ran (exit 0)" ||
	fail "ranks exited $rc0/$rc1: $(cat r0.err r1.err | head -3)"
grep -q '^version=6 ' r0.out && pass "the harness found ncclProfiler_v6 first" || fail "version: $(head -1 r0.out)"
n=$(ls two/*.nnst 2>/dev/null | wc -l)
[ "$n" = 2 ] && pass "two traces in the run dir" || fail "$n traces in two/"
for f in two/*.nnst; do
	r=$("$C" "$f" | awk '$1=="coll"{ sub("rank=", "", $8); print $8; exit }')
	case "$r" in 0 | 1) check_file "$f" "$r" 2 6 "v6 rank $r" ;; *) fail "$f: no rank ($r)"; continue ;; esac
	m=$("$C" "$f" | grep '^meta')
	grep -qx 'meta nccl_profiler=ncclProfiler_v6 kernel gputimer' <<<"$m" &&
		grep -qx 'meta nccl_profiler_gpu_timer=timed=9 unusable=0' <<<"$m" &&
		pass "v6 rank $r: META nccl_profiler (v6, GPU timer), 9 records GPU-timed" ||
		fail "v6 rank $r: META $(tr '\n' '|' <<<"$m")"
	# placement: start - t0 of each GPU-timed record, in us
	off=$(awk '$1=="t0"{ t[$2 " " $3 " " $4] = substr($5, 4) }
		$1=="coll"{ for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
			k = "func=" v["name"] " hash=" v["hash"] " seq=" v["seq"]
			if (v["exec"] == 2) { if (k in t) printf "%d ", (v["start_ns"] - t[k]) / 1000; else printf "none " } }' \
		"r$r.out" <("$C" "$f"))
	bad=$(tr ' ' '\n' <<<"$off" | awk 'NF && !($1 >= -510 && $1 <= -300)')
	[ -n "$off" ] && [ -z "$bad" ] && pass "v6 rank $r: each GPU-timed record starts at t0 - 500 us (+ the harness's delay): $off" ||
		fail "v6 rank $r: start - t0 (us) $off, want -510..-300"
done

# ---- each older version through its own adapter -----------------------------
for v in 5 4 3 2 1; do
	rm -rf "v$v"
	if ! RANK=0 WORLD_SIZE=2 "$NNSCOPE" run -q -o "v$v" -- "$H" script "$v" >"v$v.out" 2>"v$v.err"; then
		fail "v$v: harness failed: $(head -3 "v$v.err")"
		continue
	fi
	grep -q "^version=$v " "v$v.out" || fail "v$v: used $(cat "v$v.out")"
	if [ "$v" -ge 4 ]; then nr=2; else nr=0; fi # v1-v3 init does not give nranks
	check_file v"$v"/*.nnst 0 "$nr" "$v" "v$v"
done

# ---- GPU times missing, inconsistent, or not wanted: the host's view ----------
for how in HARNESS_GPU_TIMER=0 HARNESS_GPU_TIMER=bad NNSCOPE_NCCL_GPU_TIMER=0; do
	d=g_${how//[^A-Za-z0-9]/_}
	rm -rf "$d"
	if ! env "$how" RANK=0 WORLD_SIZE=2 "$NNSCOPE" run -q -o "$d" -- "$H" script 6 >"$d.out" 2>"$d.err"; then
		fail "$how: harness failed: $(head -3 "$d.err")"
		continue
	fi
	check_file "$d"/*.nnst 0 2 6 "v6 $how" 1
	m=$("$C" "$d"/*.nnst | grep '^meta')
	case $how in
	NNSCOPE*) want_m='meta nccl_profiler=ncclProfiler_v6 kernel' ;;
	*) want_m='meta nccl_profiler_gpu_timer=timed=0 unusable=9' ;;
	esac
	grep -qx "$want_m" <<<"$m" && pass "v6 $how: ${want_m#meta }" || fail "v6 $how: META $(tr '\n' '|' <<<"$m")"
done

# ---- bad calls ------------------------------------------------------------------
for v in 6 5 3 1; do
	rm -rf "bad$v"
	rc=0
	RANK=0 WORLD_SIZE=2 "$NNSCOPE" run -q -o "bad$v" -- "$H" bad "$v" >"bad$v.out" 2>"bad$v.err" || rc=$?
	[ "$rc" = 0 ] && pass "bad calls v$v: no crash (exit 0)" || fail "bad calls v$v: exit $rc $(head -3 "bad$v.err")"
	if [ "$v" = 1 ]; then fl=Reduce tw=ReduceScatter nb=3 x=0; else fl=Flood tw=Twice nb=4 x=1; fi
	[ "$v" -ge 4 ] && x=2 # the later task has GPU times
	got=$("$C" bad"$v"/*.nnst | awk -v fl="$fl" -v tw="$tw" '$1=="coll"{ n[$2]++; if ($2=="name=AllReduce") e = $(NF-1) }
		END { printf "%d %d %d %s", n["name=" fl], n["name=" tw], n["name=AllReduce"], e }')
	[ "$got" = "4096 1 1 exec=$x" ] && pass "bad calls v$v: 4096 flood records (the pool), 1 twice-stopped, the later task" ||
		fail "bad calls v$v: flood/twice/later/exec = $got, want 4096 1 1 exec=$x"
	grep -q "^meta nccl_profiler_drops=pool_full=904 bad_handle=$nb " <<<"$("$C" bad"$v"/*.nnst)" &&
		pass "bad calls v$v: META counts 904 refused, $nb bad handles" ||
		fail "bad calls v$v: $("$C" bad"$v"/*.nnst | grep drops || echo no drops key)"
done

# ---- no profiler: the plugin is a silent no-op ------------------------------------
rc=0
NCCL_PROFILER_PLUGIN=$LIB HARNESS_NO_PROFILER=1 "$H" script >np.out 2>np.err || rc=$?
[ "$rc" = 0 ] && [ ! -s np.err ] && pass "without a profiler: nothing recorded, no error" ||
	fail "without a profiler: exit $rc $(head -3 np.err)"

# ---- analysis: the communication table of the two-rank run --------------------------
# per worker and op (name lower-cased, letters only): calls and bytes of the
# script, bytes = count x datatype size: AllReduce 5 x 1048576 x 4,
# Broadcast 2 x 4096 x 2, AllGather 1 x 262144 x 2 + the CE one 1 x 65536 x 4
# (Send: calls only)
if "$NNSCOPE" analyse two --out an >an.out 2>an.err; then
	pass "nnscope analyse of the two-rank run"
	d=an/distributed.json
	got=$(jq -c '[.comm_ops[] | {w: .worker, n: (.name | ascii_downcase | gsub("[^a-z]"; "")),
		c: .calls, b: .total_bytes}] | group_by(.w) | map({(.[0].w): (map({(.n): [.c, .b]}) | add)})
		| add // {} | [.[]] ' "$d")
	exp='{"ncclallreduce":[5,20971520],"ncclbroadcast":[2,16384],"ncclallgather":[2,786432]}'
	nw=$(jq 'length' <<<"$got")
	[ "$nw" = 2 ] && pass "analysis: comm ops of both ranks" || fail "analysis: comm ops of $nw workers: $got"
	ok=$(jq --argjson e "$exp" 'length == 2 and all(.[]; . as $w | all($e | to_entries[];
		$w[.key] == .value) and ($w.ncclsend[0] // 0) == 1)' <<<"$got")
	[ "$ok" = true ] && pass "analysis: calls and bytes per op as the script (5 x 4 MiB all-reduce, CE all-gather ...)" ||
		fail "analysis: comm ops $got, want each worker $exp and one send"
	# the 5 all-reduces of thread ar alone keep a rank communicating 5 x 21 ms
	got=$(jq -c '[.workers[] | .communication_us]' "$d")
	jq -e 'length == 2 and all(.[]; . >= 105000)' <<<"$got" >/dev/null &&
		pass "analysis: each rank communicates >= 105 ms ($got us)" ||
		fail "analysis: communication_us per rank $got, want 2 ranks >= 105000"
else
	fail "nnscope analyse: $(head -3 an.err)"
fi

e2e_summary nccl_plugin.sh
