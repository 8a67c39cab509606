#!/usr/bin/env bash
# nccl_plugin.sh - the NCCL profiler plugin in libnnscope.so, without a GPU
# (owner: the collector). tests/e2e/nccl_harness.c plays NCCL: it dlopens
# $NCCL_PROFILER_PLUGIN (which `nnscope run` sets) and drives the newest
# ncclProfiler_vN it finds, or the version asked for. Checks:
#   - `nnscope run` sets NCCL_PROFILER_PLUGIN to libnnscope.so, keeps a
#     user's;
#   - two ranks (RANK=0/1, WORLD_SIZE=2) in one run dir, v5: each trace holds
#     exactly the COLL records of the harness's script (function, count,
#     datatype, algorithm, protocol, root or peer, rank/nranks, communicator
#     hash, sequence numbers), timed by their kernel-channel events (>= the
#     30 ms the harness keeps them open), one caller thread per communicator;
#   - versions 1-4 give the same records (v1's enums mapped to v2+'s
#     strings; v1/v2 have no kernel events: the enqueue window, >= 2 ms);
#   - bad calls (NULL/stale/double-stopped handles, unknown types, a 5000-task
#     flood past the 4096-slot pool, a finalized context) do not crash, are
#     counted in META nccl_profiler_drops, and a later task is still recorded;
#   - without a profiler the plugin records nothing and does not fail;
#   - `nnscope analyse` of the two-rank run: the communication table has
#     both ranks and per op the calls and bytes of the script, and each
#     rank communicates at least the time its all-reduces were open.
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

# sig FILE: the records without time and thread, sorted
sig() { "$C" "$1" | awk '$1=="coll"{$NF=""; $(NF-1)=""; $(NF-2)=""; $(NF-3)=""; print}' |
	sed 's/ *$//' | sort; }
# want RANK NRANKS EXEC: the records the script makes
want() {
	local r=$1 n=$2 x=$3 a=0xa11ed0ce00000001 b=0xa11ed0ce00000002 i
	for i in 0 1 2 3 4; do
		echo "coll name=AllReduce count=1048576 hash=$a dtype=ncclFloat32 algo=RING proto=SIMPLE rank=$r nranks=$n root=0 seq=$i"
	done
	for i in 0 1; do
		echo "coll name=Broadcast count=4096 hash=$b dtype=ncclBfloat16 algo=TREE proto=LL rank=$r nranks=$n root=0 seq=$i"
	done
	echo "coll name=AllGather count=262144 hash=$b dtype=ncclFloat16 algo=RING proto=LL128 rank=$r nranks=$n root=0 seq=2"
	echo "coll name=Send count=1024 hash=$b dtype=ncclInt8 algo= proto= rank=$r nranks=$n root=$(((r + 1) % 2)) seq=0"
	: "$x"
}
# check_file FILE RANK NRANKS EXEC MIN_US LABEL
check_file() {
	local f=$1 r=$2 n=$3 x=$4 us=$5 l=$6 got exp bad tids
	got=$(sig "$f")
	exp=$(want "$r" "$n" "$x" | sort)
	[ "$got" = "$exp" ] && pass "$l: exactly the 9 records of the script" ||
		fail "$l: records differ:$(diff <(echo "$exp") <(echo "$got") | head -8 | tr '\n' '|')"
	bad=$("$C" "$f" | awk -v us="$us" -v x="$x" '$1=="coll"{
		for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
		if (v["dur_us"] + 0 < us || v["exec"] != x || v["hostclock"] != 1) print v["name"], v["dur_us"], v["exec"] }')
	[ -z "$bad" ] && pass "$l: every record lasts >= $us us, exec=$x, host clock" ||
		fail "$l: records off: $bad"
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
grep -q '^version=5 ' r0.out && pass "the harness found ncclProfiler_v5 first" || fail "version: $(cat r0.out)"
n=$(ls two/*.nnst 2>/dev/null | wc -l)
[ "$n" = 2 ] && pass "two traces in the run dir" || fail "$n traces in two/"
for f in two/*.nnst; do
	r=$("$C" "$f" | awk '$1=="coll"{ sub("rank=", "", $8); print $8; exit }')
	case "$r" in 0 | 1) check_file "$f" "$r" 2 1 30000 "v5 rank $r" ;; *) fail "$f: no rank ($r)" ;; esac
	grep -qx 'meta nccl_profiler=ncclProfiler_v5 kernel' <<<"$("$C" "$f")" &&
		pass "v5 rank $r: META nccl_profiler" || fail "v5 rank $r: META nccl_profiler missing"
done

# ---- each older version through its own adapter -----------------------------
for v in 4 3 2 1; do
	rm -rf "v$v"
	if ! RANK=0 WORLD_SIZE=2 "$NNSCOPE" run -q -o "v$v" -- "$H" script "$v" >"v$v.out" 2>"v$v.err"; then
		fail "v$v: harness failed: $(head -3 "v$v.err")"
		continue
	fi
	grep -q "^version=$v " "v$v.out" || fail "v$v: used $(cat "v$v.out")"
	if [ "$v" -ge 4 ]; then nr=2; else nr=0; fi # v1-v3 init does not give nranks
	if [ "$v" -ge 3 ]; then check_file v"$v"/*.nnst 0 "$nr" 1 30000 "v$v"; else
		check_file v"$v"/*.nnst 0 "$nr" 0 2000 "v$v"; fi
done

# ---- bad calls ------------------------------------------------------------------
for v in 5 3 1; do
	rm -rf "bad$v"
	rc=0
	RANK=0 WORLD_SIZE=2 "$NNSCOPE" run -q -o "bad$v" -- "$H" bad "$v" >"bad$v.out" 2>"bad$v.err" || rc=$?
	[ "$rc" = 0 ] && pass "bad calls v$v: no crash (exit 0)" || fail "bad calls v$v: exit $rc $(head -3 "bad$v.err")"
	if [ "$v" = 1 ]; then fl=Reduce tw=ReduceScatter nb=3 x=0; else fl=Flood tw=Twice nb=4 x=1; fi
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
# Broadcast 2 x 4096 x 2, AllGather 1 x 262144 x 2 (Send: calls only)
if "$NNSCOPE" analyse two --out an >an.out 2>an.err; then
	pass "nnscope analyse of the two-rank run"
	d=an/distributed.json
	got=$(jq -c '[.comm_ops[] | {w: .worker, n: (.name | ascii_downcase | gsub("[^a-z]"; "")),
		c: .calls, b: .total_bytes}] | group_by(.w) | map({(.[0].w): (map({(.n): [.c, .b]}) | add)})
		| add // {} | [.[]] ' "$d")
	exp='{"ncclallreduce":[5,20971520],"ncclbroadcast":[2,16384],"ncclallgather":[1,524288]}'
	nw=$(jq 'length' <<<"$got")
	[ "$nw" = 2 ] && pass "analysis: comm ops of both ranks" || fail "analysis: comm ops of $nw workers: $got"
	ok=$(jq --argjson e "$exp" 'length == 2 and all(.[]; . as $w | all($e | to_entries[];
		$w[.key] == .value) and ($w.ncclsend[0] // 0) == 1)' <<<"$got")
	[ "$ok" = true ] && pass "analysis: calls and bytes per op as the script (5 x 4 MiB all-reduce ...)" ||
		fail "analysis: comm ops $got, want each worker $exp and one send"
	# the 5 all-reduces of thread ar alone keep a rank communicating >= 5 x 30 ms
	got=$(jq -c '[.workers[] | .communication_us]' "$d")
	jq -e 'length == 2 and all(.[]; . >= 150000)' <<<"$got" >/dev/null &&
		pass "analysis: each rank communicates >= 150 ms ($got us)" ||
		fail "analysis: communication_us per rank $got, want 2 ranks >= 150000"
else
	fail "nnscope analyse: $(head -3 an.err)"
fi

e2e_summary nccl_plugin.sh
