#!/usr/bin/env bash
# serve_escape.sh - `nnscope serve` reads and writes nothing outside the
# logdir and its own cache, whatever is swapped or planted there (issue 20):
#   (a) a symlink that points at a trace inside the logdir when /api/runs
#       lists it, switched to /etc/passwd or to a valid trace outside before
#       the first view request: the view is a 422 JSON refusal naming the
#       link ("refused: resolves outside"), with no byte of the outside file
#       and no analysis of the outside trace (nor any in the cache); the next
#       /api/runs lists those links as skipped with that reason;
#   (b) links planted in a run's .nnscope-cache/<worker>/ (operators.json ->
#       /etc/passwd beside a valid cache-key; cache-key itself a link to a
#       valid key outside beside a planted operators.json; operators.json a
#       hard link) are not served: the view is the trace's own analysis;
#   (c) a .nnscope-cache that is a symlink to an outside folder: nothing is
#       written there (the per-user cache is used instead);
#   (d) a MindSpore cluster job (../shared/data/mindinsight/cluster_propose)
#       whose flops_summary_0.json is a link to a file outside: its numbers
#       are not served, the note says the file was refused; a job directory
#       that is a link out is neither listed nor served.
#
#   NNSCOPE=build/nnscope bash tests/e2e/serve_escape.sh
set -uo pipefail

# shellcheck source=lib/common.bash
. "$(dirname "$0")/lib/common.bash"
SHARED=${NNS_SHARED:-$(cd "$(dirname "$0")/../.." && pwd)/../shared}
e2e_setup serve_escape.sh nnscope-escape
e2e_need jq curl
export XDG_CACHE_HOME=$TMP/xdg # the per-user cache, where a refused one falls back

# code PATH -> HTTP status, body in $TMP/body
code() { curl -s -o "$TMP/body" -w '%{http_code}' "http://127.0.0.1:$PORT$1"; }
# final PATH -> polls through 202; the last status (body in $TMP/body)
final() {
	local c
	for _ in $(seq 300); do
		c=$(code "$1")
		[ "$c" = 202 ] || break
		sleep 0.1
	done
	echo "$c"
}
start() { e2e_serve "$@" || { echo "server did not start: $(cat "$SERVE_OUT.err")"; exit 1; }; }
stop() { kill "$SPID" 2>/dev/null; wait "$SPID" 2>/dev/null; }
# trace NAME OP -> a small Kineto trace whose operator is OP and kernel NAME_kernel
trace() {
	cat <<EOF
{"schemaVersion": 1, "traceEvents": [
 {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 1, "tid": 1, "ts": 0, "dur": 1000},
 {"ph": "X", "cat": "cpu_op", "name": "$2", "pid": 1, "tid": 1, "ts": 100, "dur": 300, "args": {"External id": 7}},
 {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 150, "dur": 20, "args": {"correlation": 5, "External id": 7}},
 {"ph": "X", "cat": "kernel", "name": "$1_kernel", "pid": 0, "tid": 7, "ts": 200, "dur": 400, "args": {"correlation": 5, "External id": 7, "device": 0, "stream": 7}}
]}
EOF
}
OUT=$TMP/outside
mkdir -p "$OUT"
trace outside "aten::OUTSIDE_SECRET_OP" >"$OUT/out.pt.trace.json"

# ---- (a) a link switched out between discovery and the first load ---------
LOG=$TMP/logdir
mkdir -p "$LOG/runA" "$LOG/.store"
trace inside "aten::inside_op" >"$LOG/.store/in.json" # hidden: not a run of its own
ln -s ../.store/in.json "$LOG/runA/w1.pt.trace.json"
ln -s ../.store/in.json "$LOG/runA/w2.pt.trace.json"
ln -s ../.store/in.json "$LOG/runA/w3.pt.trace.json"
start "$LOG" --cache-dir "$TMP/cache-a"
code /api/runs >/dev/null
check_q "(a) /api/runs lists the three links that point inside" \
	jq -e '[.runs[] | select(.name == "runA") | .workers[].name] == ["w1", "w2", "w3"]' "$TMP/body"
c=$(final "/api/view?run=runA&worker=w3&view=operators")
check_q "(a) a link inside is served ($c, aten::inside_op)" \
	bash -c "[ $c = 200 ] && jq -e '[.by_name[].name] | index(\"aten::inside_op\") != null' '$TMP/body'"
ln -sfn /etc/passwd "$LOG/runA/w1.pt.trace.json"
ln -sfn "$OUT/out.pt.trace.json" "$LOG/runA/w2.pt.trace.json"
: >"$TMP/answers"
for w in w1 w2; do
	c=$(final "/api/view?run=runA&worker=$w&view=overview")
	cat "$TMP/body" >>"$TMP/answers"
	check_q "(a) $w switched out: the view is a 422 refusal ($c): $(head -c 200 "$TMP/body")" \
		bash -c "[ $c = 422 ] && jq -e '.error | test(\"$w.pt.trace.json: refused: resolves outside\")' '$TMP/body'"
	c=$(final "/api/view?run=runA&worker=$w&view=operators")
	cat "$TMP/body" >>"$TMP/answers"
	check_q "(a) $w: operators refused too ($c)" [ "$c" = 422 ]
done
check_q "(a) no answer holds a byte of /etc/passwd or the outside trace" \
	bash -c "! grep -q -e 'root:' -e \"got '\" -e OUTSIDE_SECRET -e outside_kernel '$TMP/answers'"
check_q "(a) nothing of the outside trace was analysed into the cache" \
	bash -c "! grep -rq OUTSIDE_SECRET '$TMP/cache-a'"
sleep 2.1 # the next /api/runs walks the logdir again
code /api/runs >/dev/null
check_q "(a) /api/runs: the links out are listed as skipped, refused" \
	jq -e '[.skipped[] | select(.reason | test("^refused: resolves outside")) | .path | split("/") | last] | sort == ["w1.pt.trace.json", "w2.pt.trace.json"]' "$TMP/body"
check_q "(a) /api/runs: only w3 is still a worker" \
	jq -e '[.runs[] | select(.name == "runA") | .workers[].name] == ["w3"]' "$TMP/body"
stop

# ---- (d) MindSpore cluster files linked out --------------------------------
JOB=$SHARED/data/mindinsight/cluster_propose
if [ -d "$JOB" ]; then
	cp -r "$JOB" "$LOG/job"
	cp -r "$JOB" "$OUT/job2"
	echo '{"FLOPs": 987654.321, "FLOPS": 13579.246, "FLOPS_Utilization": 42.4242}' >"$OUT/flops_summary_0.json"
	rm "$LOG/job/flops_summary_0.json"
	ln -s "$OUT/flops_summary_0.json" "$LOG/job/flops_summary_0.json"
	ln -s "$OUT/job2" "$LOG/jobout"
	start "$LOG" --cache-dir "$TMP/cache-a"
	c=$(final "/api/cluster?run=job")
	cp "$TMP/body" "$TMP/cluster.json"
	check_q "(d) /api/cluster?run=job answers ($c) with its 4 ranks" \
		bash -c "[ $c = 200 ] && jq -e '(.ranks | length) == 4' '$TMP/cluster.json'"
	check_q "(d) the outside file's numbers are not served" \
		bash -c "! grep -q -e 987654 -e 13579.2 -e 42.42 '$TMP/cluster.json'"
	check_q "(d) the note says rank 0's flops file was refused" \
		jq -e '.note | test("rank 0: flops_summary_0.json: refused: resolves outside")' "$TMP/cluster.json"
	code /api/cluster_jobs >/dev/null
	check_q "(d) /api/cluster_jobs lists job, not the link out" \
		jq -e '[.jobs[].name] == ["job"]' "$TMP/body"
	c=$(code "/api/cluster?run=jobout")
	check_q "(d) the job linked out is 404 ($c)" [ "$c" = 404 ]
	c=$(code "/api/cluster?run=job/../jobout")
	check_q "(d) nor through .. ($c)" [ "$c" = 404 ]
	stop
else
	echo "SKIP (d): $JOB absent (set NNS_SHARED)"
fi

# ---- (b) links planted in the cache; (c) a cache dir that is a link out ----
LOG2=$TMP/logdir2
mkdir -p "$LOG2/runB"
for w in w0 w1 w2; do trace "$w" "aten::mm" >"$LOG2/runB/$w.pt.trace.json"; done
start "$LOG2"
for w in w0 w1 w2; do final "/api/view?run=runB&worker=$w&view=operators" >/dev/null; done
stop
C=$LOG2/runB/.nnscope-cache
check_q "(b) the views were cached beside the run" \
	test -f "$C/w0/cache-key" -a -f "$C/w1/operators.json" -a -f "$C/w2/cache-key"
ln -sfn /etc/passwd "$C/w0/operators.json"
cp "$C/w1/cache-key" "$OUT/key1"
ln -sfn "$OUT/key1" "$C/w1/cache-key"
echo '{"planted": "beside a linked key", "by_name": []}' >"$C/w1/operators.json"
echo '{"planted": "hard link", "by_name": []}' >"$OUT/hl.json"
rm "$C/w2/operators.json"
ln "$OUT/hl.json" "$C/w2/operators.json" 2>/dev/null || cp "$OUT/hl.json" "$C/w2/operators.json"
cp "$OUT/key1" "$TMP/key1.before"
# (c): a run whose .nnscope-cache is a link to a folder outside
mkdir -p "$LOG2/runC" "$OUT/evil-cache"
trace c "aten::mm" >"$LOG2/runC/w0.pt.trace.json"
ln -s "$OUT/evil-cache" "$LOG2/runC/.nnscope-cache"

start "$LOG2"
: >"$TMP/answers"
for w in w0 w1 w2; do
	c=$(final "/api/view?run=runB&worker=$w&view=operators")
	cat "$TMP/body" >>"$TMP/answers"
	check_q "(b) $w: the planted operators.json is not served; the trace's own ($c)" \
		bash -c "[ $c = 200 ] && jq -e '[.by_name[].name] | index(\"aten::mm\") != null' '$TMP/body'"
done
check_q "(b) no answer holds /etc/passwd or a planted file" \
	bash -c "! grep -q -e 'root:' -e planted '$TMP/answers'"
check_q "(b) the key outside the cache was neither used nor written" cmp -s "$OUT/key1" "$TMP/key1.before"
check_q "(b) the cache-key link was replaced by a key of our own" \
	bash -c "[ ! -L '$C/w1/cache-key' ] && [ -f '$C/w1/cache-key' ]"
c=$(final "/api/view?run=runC&worker=w0&view=operators")
check_q "(c) a run whose .nnscope-cache links out is served ($c)" [ "$c" = 200 ]
check_q "(c) nothing was written into the folder the link points at" \
	bash -c "[ -z \"\$(ls -A '$OUT/evil-cache')\" ]"
check_q "(c) its views went to the per-user cache" \
	bash -c "ls '$XDG_CACHE_HOME'/nnscope/*/w0/cache-key >/dev/null 2>&1"
stop

e2e_summary
