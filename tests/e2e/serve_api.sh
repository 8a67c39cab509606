#!/usr/bin/env bash
# serve_api.sh - end-to-end test of `nnscope serve` (docs/SERVER.md) over
# real HTTP with curl:
#   - /api/runs lists the real Kineto runs of ../shared/data/kineto (tb_plugin
#     names and the hand-named modern traces), and a run added while serving
#     appears (generation grows);
#   - the first view request answers 202 with progress, then 200 with the same
#     document `nnscope analyse` writes (compared with jq);
#   - a second server on the same cache answers at once (disk cache, no 202);
#   - trace meta / window / event / summary answers are consistent with each
#     other and with the overview (steps, event names);
#   - distributed and diff answer;
#   - security: traversal with .., encoded dots, absolute paths, symlinked
#     files and directories pointing out of the logdir, bad Host headers,
#     methods, bodies, oversized headers, too many parameters, garbage
#     request lines all get 4xx and the server keeps serving.
#
#   NNSCOPE=build/nnscope bash tests/e2e/serve_api.sh
set -euo pipefail

# shellcheck source=lib/common.bash
. "$(dirname "$0")/lib/common.bash"
e2e_setup serve_api.sh nnscope-serve
e2e_need jq curl
SHARED=${NNS_SHARED:-../shared}

# start_server LOGDIR CACHE -> sets PORT, SPID (EXTRA: more options)
start_server() {
	# shellcheck disable=SC2086
	e2e_serve "$1" --cache-dir "$2" ${EXTRA:-} || { echo "server did not start: $(cat "$SERVE_OUT.err")"; exit 1; }
}
# code URL -> HTTP status
code() { curl -s -o "$TMP/body" -w '%{http_code}' "$@"; }
# get_ready PATH -> polls through 202 until 200; body in $TMP/body; echoes the codes seen
get_ready() {
	local c seen=""
	for _ in $(seq 600); do
		c=$(code "http://127.0.0.1:$PORT$1")
		seen="$seen $c"
		[ "$c" = 202 ] || break
		sleep 0.1
	done
	echo "$seen"
}
alive() { [ "$(code "http://127.0.0.1:$PORT/api/runs")" = 200 ]; }
# tcode: code, keeping every answer's body in $TMP/trav (checked below)
tcode() {
	local c
	c=$(code "$@")
	cat "$TMP/body" >>"$TMP/trav"
	echo "$c"
}

# ---- command line errors: one line, exit 2 for usage, 1 for input ----------
set +e
"$NNSCOPE" serve >/dev/null 2>"$TMP/err"; rc=$?
check_q "serve without a logdir exits 2 and says what is missing" \
	bash -c "[ $rc = 2 ] && grep -q 'missing --logdir' '$TMP/err'"
"$NNSCOPE" serve "$TMP/does-not-exist" >/dev/null 2>"$TMP/err"; rc=$?
check_q "serve on a missing folder exits 1 with one line" \
	bash -c "[ $rc = 1 ] && grep -q 'no such directory' '$TMP/err' && [ \$(wc -l <'$TMP/err') = 1 ]"
"$NNSCOPE" serve "$TMP" --port 70000 >/dev/null 2>"$TMP/err"; rc=$?
check_q "serve --port 70000 exits 2" [ $rc = 2 ]
"$NNSCOPE" serve "$TMP" --host not-an-ip >/dev/null 2>"$TMP/err"; rc=$?
check_q "serve --host not-an-ip exits 1 with one line" \
	bash -c "[ $rc = 1 ] && grep -q 'not a numeric' '$TMP/err' && [ \$(wc -l <'$TMP/err') = 1 ]"
set -e

# ---- a small logdir of our own: one good trace, one damaged, symlinks out --
LOG="$TMP/logdir"
OUTSIDE="$TMP/outside"
mkdir -p "$LOG/runA" "$LOG/runB" "$OUTSIDE/secret"
cat >"$LOG/runA/w0.pt.trace.json" <<'EOF'
{"schemaVersion": 1, "traceEvents": [
 {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 1, "tid": 1, "ts": 0, "dur": 1000},
 {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 100, "dur": 300, "args": {"External id": 7}},
 {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 150, "dur": 20, "args": {"correlation": 5, "External id": 7}},
 {"ph": "X", "cat": "kernel", "name": "sgemm_kernel", "pid": 0, "tid": 7, "ts": 200, "dur": 400, "args": {"correlation": 5, "External id": 7, "device": 0, "stream": 7}},
 {"ph": "X", "cat": "cpu_op", "name": "aten::relu", "pid": 1, "tid": 1, "ts": 500, "dur": 100},
 {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#2", "pid": 1, "tid": 1, "ts": 1000, "dur": 1000},
 {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 1100, "dur": 300, "args": {"External id": 8}},
 {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 1150, "dur": 20, "args": {"correlation": 6, "External id": 8}},
 {"ph": "X", "cat": "kernel", "name": "sgemm_kernel", "pid": 0, "tid": 7, "ts": 1200, "dur": 400, "args": {"correlation": 6, "External id": 8, "device": 0, "stream": 7}}
]}
EOF
cp "$LOG/runA/w0.pt.trace.json" "$OUTSIDE/secret/leak.pt.trace.json"
head -c 700 "$LOG/runA/w0.pt.trace.json" >"$LOG/runB/cut.pt.trace.json"
echo "this is not a trace" >"$LOG/runB/junk.pt.trace.json"
ln -s "$OUTSIDE/secret/leak.pt.trace.json" "$LOG/runA/leak.pt.trace.json"
ln -s "$OUTSIDE/secret" "$LOG/linkdir"

start_server "$LOG" "$TMP/cache-own"
B="http://127.0.0.1:$PORT"
code "$B/api/runs" >/dev/null
check_q "runs: own logdir lists runA and runB" \
	jq -e '[.runs[].name] == ["runA", "runB"]' "$TMP/body"
check_q "runs: a symlinked file pointing out of the logdir is not listed" \
	jq -e '[.runs[] | select(.name == "runA") | .workers[].name] == ["w0"]' "$TMP/body"
check_q "runs: a symlinked directory pointing out is not walked" \
	jq -e '[.runs[].name | select(test("linkdir|secret"))] == []' "$TMP/body"

seen=$(get_ready "/api/view?run=runA&worker=w0&view=overview")
check_q "view: first answer is 202 with progress, then 200 ($seen)" \
	bash -c "[[ '$seen' == ' 202'* && '$seen' == *' 200' ]]"
check_q "view: overview has the two steps of the trace" \
	jq -e '[.steps[].name] == ["1", "2"]' "$TMP/body"
get_ready "/api/view?run=runA&worker=w0&view=operators" >/dev/null
check_q "view: operators has aten::mm with 2 calls" \
	jq -e '.by_name[] | select(.name == "aten::mm") | .calls == 2' "$TMP/body"
get_ready "/api/view?run=runA&worker=w0&view=steptrace" >/dev/null
check_q "view: steptrace parts sum to each step total" \
	jq -e '(.steps | length) == 2 and all(.steps[]; ((.iteration_interval_us + .fp_bp_us + .tail_us) - .total_us | fabs) < 0.01)' "$TMP/body"

# trace API on the small trace: exact events
get_ready "/api/trace/meta?run=runA&worker=w0" >/dev/null
cp "$TMP/body" "$TMP/meta.json"
check_q "trace meta: 9 events, a thread track and a GPU stream track" \
	jq -e '.events == 9 and ([.tracks[].kind] | index("thread") != null and index("stream") != null)' "$TMP/meta.json"
end=$(jq -r '.end' "$TMP/meta.json")
get_ready "/api/trace/window?run=runA&worker=w0&t0=0&t1=$end&px=2000" >/dev/null
cp "$TMP/body" "$TMP/win.json"
check_q "trace window at full resolution: every event is an item of its own" \
	jq -e '[.tracks[].items[]] | length == 9 and all(.[]; .[4] >= 0)' "$TMP/win.json"
check_q "trace window: the two launch->kernel flows are there" \
	jq -e '(.flows | map(select(.[2] == 0)) | length) == 2' "$TMP/win.json"
kid=$(jq -r '.names as $n | [.tracks[].items[] | select($n[.[3]] == "sgemm_kernel")][0][4]' "$TMP/win.json")
get_ready "/api/trace/event?run=runA&worker=w0&id=$kid" >/dev/null
check_q "trace event: the kernel's details name its launch" \
	jq -e '.name == "sgemm_kernel" and .dur == 400000 and (.links | map(.name) | index("cudaLaunchKernel") != null)' "$TMP/body"
get_ready "/api/trace/window?run=runA&worker=w0&t0=0&t1=$end&px=1" >/dev/null
check_q "trace window at 1 px: events merged into summaries, none lost" \
	jq -e '([.tracks[].items[] | if .[4] < 0 then -.[4] else 1 end] | add) == 9 and ([.tracks[].items[]] | length) < 9' "$TMP/body"
get_ready "/api/trace/summary?run=runA&worker=w0&t0=0&t1=2000000" >/dev/null
check_q "trace summary: aten::mm twice, 600 us in all" \
	jq -e '.rows[] | select(.name == "aten::mm") | .count == 2 and .total == 600000' "$TMP/body"
check_q "trace: bad window is 400" [ "$(code "$B/api/trace/window?run=runA&worker=w0&t0=5&t1=1&px=10")" = 400 ]
check_q "trace: px out of range is 400" [ "$(code "$B/api/trace/window?run=runA&worker=w0&t0=0&t1=10&px=99999")" = 400 ]
check_q "trace: unknown event id is 404" [ "$(code "$B/api/trace/event?run=runA&worker=w0&id=999999")" = 404 ]

# a damaged trace: analysed from what was read, or a clear error; never a crash
seen=$(get_ready "/api/view?run=runB&worker=cut&view=overview")
check_q "damaged trace: answered ($seen) with diagnostics.truncated or an error message" \
	bash -c "jq -e '.diagnostics.truncated == true or (.error | test(\"byte\"))' '$TMP/body' >/dev/null"
seen=$(get_ready "/api/view?run=runB&worker=junk&view=overview")
check_q "a file that is not a trace: 422 with the importer's one-line reason ($seen)" \
	bash -c "[[ '$seen' == *' 422' ]] && jq -e '.error | test(\"junk.pt.trace.json: byte 0: not a JSON trace\")' '$TMP/body' >/dev/null"
check_q "server alive after the damaged trace" alive

# security
check_q "traversal: /static/../ (raw) is 404" [ "$(tcode --path-as-is "$B/static/../../../etc/passwd")" = 404 ]
check_q "traversal: encoded dots are 404" [ "$(tcode --path-as-is "$B/static/%2e%2e/%2e%2e/etc/passwd")" = 404 ]
check_q "traversal: run=../.. is 404" [ "$(tcode "$B/api/view?run=../../etc&worker=passwd&view=overview")" = 404 ]
check_q "traversal: absolute path as run is 404" [ "$(tcode "$B/api/view?run=$OUTSIDE/secret&worker=leak&view=overview")" = 404 ]
check_q "traversal: the symlinked file's worker is 404" [ "$(tcode "$B/api/view?run=runA&worker=leak&view=overview")" = 404 ]
check_q "traversal: the symlinked dir as a run is 404" [ "$(tcode "$B/api/view?run=linkdir&worker=leak&view=overview")" = 404 ]
check_q "no traversal answer holds /etc/passwd or the trace outside the logdir" \
	bash -c "[ -s '$TMP/trav' ] && ! grep -q -e 'root:' -e 'sgemm_kernel' -e 'aten::' '$TMP/trav'"
check_q "unknown view is 404" [ "$(code "$B/api/view?run=runA&worker=w0&view=nope")" = 404 ]
check_q "missing parameter is 400" [ "$(code "$B/api/view?run=runA&view=overview")" = 400 ]
check_q "unknown API is 404" [ "$(code "$B/api/nope")" = 404 ]
check_q "/api/schema: the role table and the page's column titles and formats" bash -c \
	"curl -s '$B/api/schema' | jq -e '.roles[3].name == \"Communication\" and
	 ([.tables.operators.columns[] | select(.name == \"calls\")][0] | .page == \"Calls\" and .fmt == \"int\")' >/dev/null"
check_q "POST is 405" [ "$(code -X POST "$B/api/runs")" = 405 ]
check_q "DELETE is 405" [ "$(code -X DELETE "$B/api/runs")" = 405 ]
check_q "a request body is 413" [ "$(code -X GET --data-binary 'xxxx' "$B/api/runs")" = 413 ]
check_q "Host from another site is 403 (DNS rebinding)" [ "$(code -H 'Host: evil.example:80' "$B/api/runs")" = 403 ]
big=$(head -c 40000 /dev/zero | tr '\0' a)
c=$(code -H "X-Big: $big" "$B/api/runs")
check_q "a 40 KB header is refused ($c)" bash -c "[[ '$c' == 4* ]]"
c=$(code "$B/api/runs?q=$big")
check_q "a 40 KB URL is refused ($c)" bash -c "[[ '$c' == 4* ]]"
args=$(for i in $(seq 100); do printf 'a%d=1&' "$i"; done)
check_q "100 parameters is 400" [ "$(code "$B/api/runs?$args")" = 400 ]
check_q "index page served with a CSP" bash -c "curl -sI '$B/' | grep -qi 'content-security-policy'"
check_q "the chart library is embedded" [ "$(code "$B/static/vendor/echarts.min.js")" = 200 ]
if command -v python3 >/dev/null; then
	python3 - "$PORT" <<'EOF' >"$TMP/raw" 2>&1 || true
import socket, sys
for req in [b"GARBAGE\r\n\r\n", b"GET /api/runs HTTP/9.9\r\n\r\n", b"\x00\xff\xfe\r\n\r\n",
            b"GET /api/view?run=%00&worker=%ff&view=overview HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"]:
    s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=2)
    s.sendall(req)
    try:
        print(s.recv(64).split(b"\r\n")[0].decode("latin-1") or "closed")
    except Exception as e:
        print("no answer:", e)
    s.close()
EOF
	# 505 (HTTP/9.9) is the right answer to an unknown version; 500 never is
	check_q "garbage requests get 4xx, 505, no answer or a closed connection" \
		bash -c "! grep -q ' 500 ' '$TMP/raw' && grep -q ' 404 ' '$TMP/raw'"
fi
check_q "server alive after the hostile requests" alive

# a second server on a port in use: a clear error
set +e
"$NNSCOPE" serve "$LOG" --port "$PORT" >/dev/null 2>"$TMP/err"; rc=$?
set -e
check_q "serve on a port in use exits 1 and says so" \
	bash -c "[ $rc = 1 ] && grep -q 'in use' '$TMP/err'"

# a run added while serving appears
gen=$(curl -s "$B/api/runs" | jq .generation)
mkdir -p "$LOG/runC"
cp "$LOG/runA/w0.pt.trace.json" "$LOG/runC/w9.pt.trace.json"
sleep 2.3
curl -s "$B/api/runs" >"$TMP/runs2"
check_q "a new run appears while serving" jq -e '[.runs[].name] | index("runC") != null' "$TMP/runs2"
check_q "and the generation grows" jq -e ".generation > $gen" "$TMP/runs2"
# a trace rewritten while serving is analysed again (the cache key is size + mtime)
sed 's/aten::relu/aten::gelu/' "$LOG/runA/w0.pt.trace.json" >"$TMP/w0.new"
mv "$TMP/w0.new" "$LOG/runA/w0.pt.trace.json"
sleep 2.3
curl -s "$B/api/runs" >/dev/null
get_ready "/api/view?run=runA&worker=w0&view=operators" >/dev/null
check_q "a trace rewritten while serving is re-analysed" \
	jq -e '[.by_name[].name] | index("aten::gelu") != null and index("aten::relu") == null' "$TMP/body"

# with room for one trace in memory, opening another unloads the first; it
# comes back (from the file) when opened again
kill "$SPID"
wait "$SPID" 2>/dev/null || true
EXTRA="--max-loaded 1" start_server "$LOG" "$TMP/cache-own"
B="http://127.0.0.1:$PORT"
get_ready "/api/trace/meta?run=runA&worker=w0" >/dev/null
get_ready "/api/trace/meta?run=runC&worker=w9" >/dev/null
seen=$(get_ready "/api/trace/meta?run=runA&worker=w0")
check_q "--max-loaded 1: the first trace was unloaded ($seen) and loads again" \
	bash -c "[[ '$seen' == ' 202'* && '$seen' == *' 200' ]] && jq -e '.events == 9' '$TMP/body' >/dev/null"
check_q "--max-loaded 1: a cached view of the unloaded trace answers at once" \
	[ "$(code "$B/api/view?run=runC&worker=w9&view=overview")" = 200 ]

# ---- the real traces -------------------------------------------------------
if [ ! -d "$SHARED/data/kineto/resnet50_num_workers_0" ]; then
	echo "SKIP real-trace part: $SHARED/data/kineto is absent"
else
	CACHE="$TMP/cache-real"
	start_server "$SHARED/data/kineto" "$CACHE"
	B="http://127.0.0.1:$PORT"
	code "$B/api/runs" >/dev/null
	check_q "real: runs modern, resnet50_num_workers_0, resnet50_num_workers_4" \
		jq -e '[.runs[].name] == ["modern", "resnet50_num_workers_0", "resnet50_num_workers_4"]' "$TMP/body"
	check_q "real: worker0 has spans 1 and 2" \
		jq -e '.runs[1].workers[0] == {"name": "worker0", "spans": ["1", "2"]}' "$TMP/body"
	"$NNSCOPE" analyse "$SHARED/data/kineto/resnet50_num_workers_0" --out "$TMP/ana" -q
	Q="run=resnet50_num_workers_0&worker=worker0&span=1"
	for v in overview operators kernels memory modules; do
		get_ready "/api/view?$Q&view=$v" >/dev/null
		check_q "real: /api/view $v equals analyse's $v.json" \
			jq -e --slurpfile a "$TMP/ana/worker0.1/$v.json" \
			'del(.source, .run, .worker, .span) == ($a[0] | del(.source, .run, .worker, .span))' "$TMP/body"
	done
	get_ready "/api/trace/meta?$Q" >/dev/null
	cp "$TMP/body" "$TMP/rmeta"
	check_q "real: trace meta has GPU streams and the overview's steps" \
		jq -e --slurpfile a "$TMP/ana/worker0.1/overview.json" \
		'([.tracks[] | select(.kind == "stream")] | length) >= 1 and [.steps[].name] == [$a[0].steps[].name]' "$TMP/rmeta"
	end=$(jq -r .end "$TMP/rmeta")
	get_ready "/api/trace/window?$Q&t0=0&t1=$end&px=1920" >/dev/null
	n=$(jq -r .events "$TMP/rmeta")
	check_q "real: whole-trace window at 1920 px accounts for every event exactly once" \
		jq -e "([.tracks[].items[] | if .[4] < 0 then -.[4] else 1 end] | add) == $n" "$TMP/body"
	check_q "real: and is level-of-detail (far fewer items than events)" \
		jq -e "([.tracks[].items[]] | length) < ($n / 4)" "$TMP/body"
	get_ready "/api/distributed?run=resnet50_num_workers_0&span=1" >/dev/null
	check_q "real: distributed answers with its worker" jq -e '.workers | length == 1' "$TMP/body"
	get_ready "/api/diff?$Q&run2=resnet50_num_workers_4&worker2=worker0&span2=1" >/dev/null
	check_q "real: diff of num_workers 0 vs 4 has operator rows" jq -e '(.operators // .ops | length) > 10' "$TMP/body"
	kill "$SPID"
	wait "$SPID" 2>/dev/null || true
	# a second server on the same cache answers from disk at once
	start_server "$SHARED/data/kineto" "$CACHE"
	B="http://127.0.0.1:$PORT"
	check_q "real: warm cache answers the first overview request with 200" \
		[ "$(code "$B/api/view?$Q&view=overview")" = 200 ]
fi

e2e_summary serve_api.sh
