#!/usr/bin/env bash
# tests/gpu/nccl_plugin.sh - the NCCL profiler plugin with real NCCL on a GPU
# machine (owner: the collector; not part of `make test`, which has no GPU:
# tests/e2e/nccl_plugin.sh covers the plugin there with a harness). Runs
# tests/gpu/nccl_allreduce.c (one process, one communicator per visible GPU)
# under `nnscope run` with NCCL's INFO log and prints a pass/fail table:
#   - NCCL loaded libnnscope.so as its profiler plugin (which version:
#     v5 on NCCL 2.28, v6 on 2.29+), and what the plugin says it took
#     (META nccl_profiler, e.g. "ncclProfiler_v5 kernel gputimer");
#   - the trace holds ITERS x NGPU AllReduce records (count, ncclFloat32,
#     ranks) and BCAST x NGPU Broadcast records (ncclBfloat16, root 0);
#   - how many are timed by kernel-channel events (exec=1: as the host saw
#     them, exec=2: by NCCL's GPU timer ring, v4+) and their median
#     duration; with v4+ every one by the GPU timer (META
#     nccl_profiler_gpu_timer: timed / unusable); no events refused (META
#     nccl_profiler_drops);
#   - `nnscope analyse`: nccl:all_reduce calls and bytes in distributed.json.
# SKIP when there is no GPU or no CUDA toolkit.
#
#   NNSCOPE=build/nnscope bash tests/gpu/nccl_plugin.sh [ITERS] [BCAST] [COUNT]
set -uo pipefail

: "${NNSCOPE:?set NNSCOPE to the nnscope binary}"
ITERS=${1:-20}
BCAST=${2:-4}
COUNT=${3:-1048576}
CUDA=${CUDA_HOME:-/usr/local/cuda}
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
TMP=$(mktemp -d /tmp/nnscope-nccl-gpu.XXXXXX)
# KEEP=DIR: the trace, the job's log and the analysis are copied there
trap '[ -n "${KEEP:-}" ] && mkdir -p "$KEEP" && cp -r "$TMP"/run "$TMP"/an "$TMP"/job.* "$TMP"/recs.txt "$KEEP"/ 2>/dev/null; rm -rf "$TMP"' EXIT
fails=0
row() { printf '%-4s %s\n' "$1" "$2"; [ "$1" = FAIL ] && fails=$((fails + 1)); return 0; }

# NCCL: the CUDA toolkit's, else NCCL_HOME, else the nvidia-nccl wheel of
# python3 (what PyTorch's pip wheels load: include/nccl.h, lib/libnccl.so.2)
NCCL=${NCCL_HOME:-}
[ -z "$NCCL" ] && [ -f "$CUDA/include/nccl.h" ] && NCCL=$CUDA
[ -z "$NCCL" ] && NCCL=$(${PYTHON:-python3} -c 'import nvidia.nccl as m, os; print(os.path.dirname(m.__file__) if m.__file__ else list(m.__path__)[0])' 2>/dev/null)
[ -n "$NCCL" ] && [ -f "$NCCL/include/nccl.h" ] || { echo "SKIP: no nccl.h (CUDA toolkit, NCCL_HOME or the nvidia-nccl wheel)"; exit 0; }
lnccl=-lnccl
ls "$NCCL"/lib*/libnccl.so >/dev/null 2>&1 || lnccl=-l:libnccl.so.2
echo "NCCL: $NCCL ($(grep -m1 -o 'NCCL_VERSION_CODE [0-9]*' "$NCCL/include/nccl.h"))"
cc -std=c11 -O1 -I"$NCCL/include" -I"$CUDA/include" "$HERE/nccl_allreduce.c" -o "$TMP/job" \
	-L"$NCCL/lib" -L"$CUDA/lib64" -L"$CUDA/lib" $lnccl -lcudart \
	-Wl,-rpath,"$NCCL/lib:$CUDA/lib64:$CUDA/lib" ||
	{ echo "FAIL: nccl_allreduce.c does not build"; exit 1; }
cc -std=c11 -D_GNU_SOURCE -O1 -I"$ROOT/include" -I"$ROOT/src" "$ROOT/tests/e2e/nccl_check.c" \
	"$ROOT/src/format/nnst_reader.c" "$ROOT/src/format/nnst_clock.c" "$ROOT/src/format/nnst_crc.c" "$ROOT/src/common/vec.c" \
	-o "$TMP/check" -lz || { echo "FAIL: nccl_check.c does not build"; exit 1; }
"$TMP/job" 1 0 1024 >/dev/null 2>"$TMP/probe.err" ||
	{ echo "SKIP: no usable GPU: $(head -1 "$TMP/probe.err")"; exit 0; }

cd "$TMP"
unset NCCL_PROFILER_PLUGIN
NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,ENV "$NNSCOPE" run -q -o run -- ./job "$ITERS" "$BCAST" "$COUNT" \
	>job.out 2>job.err
rc=$?
ngpu=$(sed -n 's/^ok ranks=//p' job.out)
[ "$rc" = 0 ] && [ -n "$ngpu" ] && row PASS "job ran on $ngpu GPU(s)" ||
	row FAIL "job exit $rc: $(tail -2 job.err | tr '\n' ' ')"
ngpu=${ngpu:-1}
ver=$(grep -o 'PROFILER/Plugin: Loaded [^ ]* (v[0-9])' job.out job.err | head -1)
case "$ver" in *"nnscope (v"*) row PASS "NCCL: $ver" ;; *) row FAIL "NCCL did not load the plugin ($ver)" ;; esac

# One rank: NCCL runs a one-rank collective as a local copy (none at all
# in place) and never reaches the profiler, so there is nothing to record.
if [ "$ngpu" -lt 2 ]; then
	row SKIP "collective records: one GPU here; NCCL gives the profiler no events for a one-rank communicator (needs >= 2 GPUs)"
	f=$(ls run/*.nnst 2>/dev/null | head -1)
	[ -n "$f" ] && "$TMP/check" "$f" 2>/dev/null | grep '^meta nccl_profiler' | sed 's/^/     /'
else
	f=$(ls run/*.nnst 2>/dev/null | head -1)
	"$TMP/check" "$f" >recs.txt 2>check.err || row FAIL "nccl_check: $(cat check.err)"
	cnt() { awk -v n="$1" -v k="$2" '$1=="coll" && $2=="name=" n { c++; if (index($0, k)) m++ }
		END { printf "%d %d", c, m }' recs.txt; }
	read -r n m <<<"$(cnt AllReduce "count=$COUNT hash=")"
	want=$((ITERS * ngpu))
	[ "$n" = "$want" ] && row PASS "AllReduce records: $n (= $ITERS x $ngpu)" || row FAIL "AllReduce records: $n, want $want"
	read -r n m <<<"$(cnt AllReduce "dtype=ncclFloat32")"
	[ "$m" = "$want" ] && row PASS "AllReduce datatype ncclFloat32, nranks $ngpu" || row FAIL "AllReduce ncclFloat32: $m of $n"
	read -r n m <<<"$(cnt Broadcast "dtype=ncclBfloat16")"
	want=$((BCAST * ngpu))
	[ "$n" = "$want" ] && [ "$m" = "$want" ] && row PASS "Broadcast records: $n ncclBfloat16" ||
		row FAIL "Broadcast records: $n ($m ncclBfloat16), want $want"
	# copy-engine collectives (v6, algo=CE) have no kernel: their enqueue window
	tot=$(grep '^coll ' recs.txt | grep -vc ' algo=CE ')
	med() { grep " exec=$1 " recs.txt | sed 's/.*dur_us=\([0-9-]*\).*/\1/' | sort -n |
		awk '{ a[NR] = $1 } END { print (NR ? a[int((NR + 1) / 2)] : "-") }'; }
	ex1=$(grep -c ' exec=1 ' recs.txt)
	ex2=$(grep -c ' exec=2 ' recs.txt)
	[ $((ex1 + ex2)) = "$tot" ] && [ "$tot" -gt 0 ] &&
		row PASS "all $tot records timed by kernel-channel events: $ex2 by the GPU timer (median $(med 2) us), $ex1 as the host saw them (median $(med 1) us)" ||
		row FAIL "$((ex1 + ex2)) of $tot records timed by kernel-channel events (others: enqueue window)"
	pv=$(sed -n 's/^meta nccl_profiler=ncclProfiler_v\([0-9]*\).*/\1/p' recs.txt)
	if [ "${pv:-0}" -ge 4 ]; then
		[ "$ex2" = "$tot" ] && row PASS "plugin v$pv: every record timed by NCCL's GPU timer ($(sed -n 's/^meta nccl_profiler_gpu_timer=//p' recs.txt))" ||
			row FAIL "plugin v$pv: $ex2 of $tot records GPU-timed ($(grep '^meta nccl_profiler_gpu_timer' recs.txt || echo no gpu_timer key))"
	else
		row SKIP "GPU timer: plugin v${pv:-?} (NCCL before 2.27) gives no GPU times"
	fi
	drops=$(grep '^meta nccl_profiler_drops' recs.txt)
	[ -z "$drops" ] && row PASS "no events refused" || row FAIL "$drops"
	grep '^meta nccl_profiler=' recs.txt | sed 's/^/     /'

	if "$NNSCOPE" analyse run --out an >an.out 2>an.err; then
		got=$(${PYTHON:-python3} -c 'import json, sys
	d = json.load(open(sys.argv[1]))
	r = [[o["calls"], o["total_bytes"]] for o in d.get("comm_ops", []) if o["name"] == "nccl:all_reduce"]
	print(json.dumps(r[0] if r else None, separators=(",", ":")))' an/distributed.json)
		want="[$((ITERS * ngpu)),$((ITERS * ngpu * COUNT * 4))]"
		[ "$got" = "$want" ] && row PASS "analysis: nccl:all_reduce calls, bytes $got" ||
			row FAIL "analysis: nccl:all_reduce $got, want $want"
	else
		row FAIL "nnscope analyse: $(head -2 an.err)"
	fi
fi
echo "nccl_plugin (GPU): $fails failed"
[ "$fails" = 0 ]
