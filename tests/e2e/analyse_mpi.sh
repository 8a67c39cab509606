#!/usr/bin/env bash
# analyse_mpi.sh - `mpirun -np 2 nnscope analyse --mpi RUN` (Open MPI,
# loaded by nnscope at run time) on a 4-rank run of the C example with rank
# 1 slowed by DELAY_MS per step must give the same results as a plain
# `nnscope analyse RUN`:
#   - cluster.json and cluster.csv equal (every rank row, step and
#     proposal; the slow rank is rank 1);
#   - each worker's files equal, written by the process that analysed it;
#   - with 6 processes for 4 ranks (2 idle) the same again;
#   - the job really was split: each process printed its own workers;
#   - a trace that cannot be loaded fails nothing (exit 0, process 0
#     counts it) unless every trace fails, as in a plain analyse;
# and --mpi without Open MPI (NNSCOPE_LIBMPI naming a missing library)
# fails in one line with exit 1.
# Skips when mpirun is absent.
#
#   NNSCOPE=build/nnscope bash tests/e2e/analyse_mpi.sh
set -euo pipefail

# shellcheck source=lib/common.bash
. "$(dirname "$0")/lib/common.bash"
NNSCOPE=$(cd "$(dirname "$NNSCOPE")" && pwd)/$(basename "$NNSCOPE")
MLP=$(dirname "$NNSCOPE")/examples/mlp
command -v mpirun >/dev/null || e2e_skip "mpirun is not installed (openmpi-bin)"
e2e_need jq
e2e_built "make examples" "$MLP"

e2e_setup analyse_mpi.sh nnscope-mpi
e2e_clean_env
# Open MPI refuses root unless told; harmless otherwise
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# one machine: no network probing, shared memory between the processes
export OMPI_MCA_btl=self,vader OMPI_MCA_btl_vader_single_copy_mechanism=none

STEPS=10
DELAY_MS=25
SLOW=1
RUN=$TMP/run
pids=()
for r in 0 1 2 3; do
	delay=0
	[ $r = $SLOW ] && delay=$DELAY_MS
	env RANK=$r WORLD_SIZE=4 LOCAL_RANK=$r NNS_MLP_DELAY_MS=$delay "$MLP" --quiet \
		--steps $STEPS --batch 32 --in 64 --hidden 64 --out "$RUN" >"$TMP/rank$r.log" 2>&1 &
	pids+=($!)
done
ok=1
for p in "${pids[@]}"; do wait "$p" || ok=0; done
check "4 ranks ran" test $ok = 1 -a "$(find "$RUN" -name '*.nnst' | wc -l)" -eq 4

if "$NNSCOPE" analyse "$RUN" --out "$TMP/plain" -q >"$TMP/plain.log" 2>&1; then
	pass "plain nnscope analyse"
else
	fail "plain nnscope analyse"
	sed 's/^/    /' "$TMP/plain.log" | tail -5
fi
check "plain: the slow rank is rank $SLOW" \
	jqt "$TMP/plain/cluster.json" "[.proposals[] | select(.id == \"slow_rank\") | .rank] == [$SLOW]"

# same cluster.json/csv and per-worker files as the plain analyse
same_as_plain() { # DIR
	local d=$1 w bad=0
	diff <(jq -S . "$TMP/plain/cluster.json") <(jq -S . "$d/cluster.json") >"$d.diff" 2>&1 || bad=1
	cmp -s "$TMP/plain/cluster.csv" "$d/cluster.csv" || bad=1
	for w in "$TMP"/plain/*/; do
		w=$(basename "$w")
		diff -r "$TMP/plain/$w" "$d/$w" >>"$d.diff" 2>&1 || bad=1
	done
	[ $bad = 0 ] || head -5 "$d.diff" | sed 's/^/    /'
	return $bad
}

for np in 2 6; do
	if timeout 300 mpirun --oversubscribe --tag-output -np $np "$NNSCOPE" analyse --mpi "$RUN" \
		--out "$TMP/mpi$np" >"$TMP/mpi$np.log" 2>&1; then
		pass "mpirun -np $np nnscope analyse --mpi"
	else
		fail "mpirun -np $np nnscope analyse --mpi"
		sed 's/^/    /' "$TMP/mpi$np.log" | tail -8
	fi
	check "np $np: 4 rank rows, slow rank $SLOW" \
		jqt "$TMP/mpi$np/cluster.json" "(.ranks | length) == 4 and ([.proposals[] | select(.id == \"slow_rank\") | .rank] == [$SLOW])"
	check "np $np: cluster.json, cluster.csv and every worker's files equal the plain analyse" \
		same_as_plain "$TMP/mpi$np"
	check "np $np: one cluster.json line (process 0 alone writes it)" \
		test "$(grep -c 'cluster.json: 4 ranks' "$TMP/mpi$np.log")" -eq 1
done
# round robin over 2 processes: each analysed (and printed) 2 of the workers
# (--tag-output prefixes each line with [jobid,process])
per_proc() { grep 'steps, .* operators' "$TMP/mpi2.log" | sed -n 's/^\[[0-9]*,\([0-9]*\)\].*/\1/p' | sort | uniq -c | awk '{printf "%s:%s ", $2, $1}'; }
check "np 2: the 4 workers split 2 + 2 between processes 0 and 1 ($(per_proc))" \
	test "$(per_proc)" = "0:2 1:2 "

# the split follows the trace sizes: rank 0 runs 30x the steps, so its
# trace alone outweighs the three others and process 0 gets it alone
RUNB=$TMP/runb
for r in 0 1 2 3; do
	steps=10
	[ $r = 0 ] && steps=300
	env RANK=$r WORLD_SIZE=4 LOCAL_RANK=$r "$MLP" --quiet --steps $steps --batch 32 --in 64 \
		--hidden 64 --out "$RUNB" >"$TMP/rankb$r.log" 2>&1 || true
done
big=$(ls -S "$RUNB"/*.nnst | head -1)
timeout 300 mpirun --oversubscribe --tag-output -np 2 "$NNSCOPE" analyse --mpi "$RUNB" \
	--out "$TMP/mpib" >"$TMP/mpib.log" 2>&1 || true
per_procb() { grep 'steps, .* operators' "$TMP/mpib.log" | sed -n 's/^\[[0-9]*,\([0-9]*\)\].*/\1/p' | sort | uniq -c | awk '{printf "%s:%s ", $2, $1}'; }
check "by size: the big trace alone on process 0, the 3 small on process 1 ($(per_procb))" \
	bash -c "test '$(per_procb)' = '0:1 1:3 ' && grep -q '^\[[0-9]*,0\].*/$(basename "$big" .nnst): 300 steps' '$TMP/mpib.log'"
check "by size: 4 rank rows in cluster.json" jqt "$TMP/mpib/cluster.json" '(.ranks | length) == 4'

# a MindSpore cluster job: process 0 writes the job's cluster.json, the
# devices (workers) are split like any run's
JOB=${NNS_SHARED:-$(dirname "$0")/../../../shared}/data/mindinsight/cluster_propose
if [ -d "$JOB" ]; then
	"$NNSCOPE" analyse "$JOB" --out "$TMP/ms_plain" -q >/dev/null 2>&1 || true
	if timeout 120 mpirun --oversubscribe -np 2 "$NNSCOPE" analyse --mpi "$JOB" \
		--out "$TMP/ms_mpi" -q >"$TMP/ms.log" 2>&1; then
		pass "MindSpore job under --mpi: exit 0"
	else
		fail "MindSpore job under --mpi"
		sed 's/^/    /' "$TMP/ms.log" | tail -5
	fi
	check "MindSpore job: every file (cluster.json, device_<id>/) equal to the plain analyse" \
		diff -r "$TMP/ms_plain" "$TMP/ms_mpi"
	check "MindSpore job: cluster.json equal to the plain analyse (slow rank 2, 22.23 %)" \
		bash -c "cmp -s '$TMP/ms_plain/cluster.json' '$TMP/ms_mpi/cluster.json' && test \"\$(jq -r '.proposals[] | select(.id == \"slow_rank\") | \"\(.rank) \(.percent)\"' '$TMP/ms_mpi/cluster.json')\" = '2 22.23'"
else
	echo "SKIP MindSpore job under --mpi: $JOB absent (set NNS_SHARED)"
fi

# a trace that cannot be loaded among good ones: the same rule as a plain
# analyse (reported, the rest analysed, exit 0); only traces that all fail
# give a non-zero exit
RUNC=$TMP/runc
cp -r "$RUN" "$RUNC"
printf '{"traceEvents": []}' >"$RUNC/bad.pt.trace.json"
set +e
timeout 120 mpirun --oversubscribe -np 2 "$NNSCOPE" analyse --mpi "$RUNC" --out "$TMP/mpic" \
	>"$TMP/mpic.log" 2>&1
rc=$?
set -e
check "one unloadable trace under --mpi: exit 0 (rc $rc)" test $rc -eq 0
check "...the bad trace is named" grep -q 'bad.pt.trace.json: no events: traceEvents is empty' "$TMP/mpic.log"
check "...process 0 counts it: 4 analysed, 1 could not be read" \
	grep -q '4 trace(s) analysed, 1 could not be read' "$TMP/mpic.log"
check "...the 4 good ranks still make cluster.json" jqt "$TMP/mpic/cluster.json" '(.ranks | length) == 4'
mkdir -p "$TMP/allbad"
printf '{"traceEvents": []}' >"$TMP/allbad/a.pt.trace.json"
printf '{"traceEvents": []}' >"$TMP/allbad/b.pt.trace.json"
set +e
timeout 120 mpirun --oversubscribe -np 2 "$NNSCOPE" analyse --mpi "$TMP/allbad" --out "$TMP/mpid" \
	>"$TMP/mpid.log" 2>&1
rc=$?
set -e
check "every trace unloadable under --mpi: non-zero exit, no hang (rc $rc)" test $rc -ne 0 -a $rc -ne 124

# processes that see different inputs (no shared file system): all stop,
# process 0 says why, nothing hangs
mkdir -p "$TMP/other"
cp "$(find "$RUN" -name '*.nnst' | head -1)" "$TMP/other/"
set +e
timeout 120 mpirun --oversubscribe -np 1 "$NNSCOPE" analyse --mpi "$RUN" --out "$TMP/split" : \
	-np 1 "$NNSCOPE" analyse --mpi "$TMP/other" --out "$TMP/split" >"$TMP/split.log" 2>&1
rc=$?
set -e
check "different inputs per process: non-zero exit, no hang (rc $rc)" test $rc -ne 0 -a $rc -ne 124
check "process 0 names the process that saw other runs" \
	grep -q 'process 1 found other runs than process 0' "$TMP/split.log"
check "and nothing was half written" test ! -e "$TMP/split/cluster.json"

set +e
NNSCOPE_LIBMPI=libnnscope-no-such-mpi.so.40 "$NNSCOPE" analyse --mpi "$RUN" --out "$TMP/x" \
	>"$TMP/nompi.out" 2>"$TMP/nompi.err"
rc=$?
set -e
check "--mpi without Open MPI: exit 1, one line naming the library" \
	bash -c "test $rc -eq 1 && test \$(wc -l <'$TMP/nompi.err') -eq 1 && grep -q 'cannot load libnnscope-no-such-mpi.so.40' '$TMP/nompi.err'"

e2e_summary
