#!/usr/bin/env bash
# serve_snapshot.sh - a restarted `nnscope serve` reopens the traces it has
# read before from the snapshot beside their cache (docs/SERVER.md,
# "Snapshots"), over real HTTP:
#   - the first server parses each trace and then writes trace.snap; a
#     second one on the same cache says it loaded them from their snapshots
#     and answers every trace endpoint, the views and a diff byte for byte
#     as the first did (a small trace of our own and, when ../shared is
#     there, the ResNet-50 sample);
#   - a snapshot cut short, one written by another nnscope binary, and one
#     whose trace changed are not used: the server says why (not for the
#     changed trace, whose whole cache is stale), reads the trace again,
#     answers the same, and writes a good snapshot in its place;
#   - a symbolic link planted as trace.snap is neither followed when read
#     nor written through: its target is left as it was;
#   - --no-snapshots: the trace is parsed, no snapshot is written.
#
#   NNSCOPE=build/nnscope bash tests/e2e/serve_snapshot.sh
set -euo pipefail

# shellcheck source=lib/common.bash
. "$(dirname "$0")/lib/common.bash"
e2e_setup serve_snapshot.sh nnscope-snap
e2e_need jq curl
SHARED=${NNS_SHARED:-../shared}
SAMPLE=$SHARED/data/kineto/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz

LOG="$TMP/logdir"
CACHE="$TMP/cache"
mkdir -p "$LOG/runA"
cat >"$LOG/runA/w0.pt.trace.json" <<'EOF'
{"schemaVersion": 1, "traceEvents": [
 {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 1, "tid": 1, "ts": 0, "dur": 1000},
 {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 100, "dur": 300, "args": {"External id": 7, "Input Dims": [[2, 3], [3, 4]]}},
 {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 150, "dur": 20, "args": {"correlation": 5, "External id": 7}},
 {"ph": "X", "cat": "kernel", "name": "sgemm_kernel", "pid": 0, "tid": 7, "ts": 200, "dur": 400, "args": {"correlation": 5, "External id": 7, "device": 0, "stream": 7}},
 {"ph": "X", "cat": "cpu_op", "name": "aten::relu", "pid": 1, "tid": 1, "ts": 500, "dur": 100},
 {"ph": "i", "s": "t", "name": "[memory]", "pid": 1, "tid": 1, "ts": 120, "args": {"Device Type": 1, "Device Id": 0, "Bytes": 4096, "Total Allocated": 4096}},
 {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#2", "pid": 1, "tid": 1, "ts": 1000, "dur": 1000},
 {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 1100, "dur": 300, "args": {"External id": 8}},
 {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 1150, "dur": 20, "args": {"correlation": 6, "External id": 8}},
 {"ph": "X", "cat": "kernel", "name": "sgemm_kernel", "pid": 0, "tid": 7, "ts": 1200, "dur": 400, "args": {"correlation": 6, "External id": 8, "device": 0, "stream": 7}}
]}
EOF
TRACES=("runA w0")
if [ -f "$SAMPLE" ]; then
	mkdir -p "$LOG/resnet"
	cp "$SAMPLE" "$LOG/resnet/worker0.pt.trace.json.gz"
	TRACES+=("resnet worker0")
else
	echo "SKIP serve_snapshot.sh: $SAMPLE not found (set NNS_SHARED): the ResNet-50 sample is not checked"
fi
N=${#TRACES[@]}

code() { curl -s -o "$TMP/body" -w '%{http_code}' "$@"; }
# get PATH FILE: polls through 202 until 200, the body into FILE
get() {
	local c
	for _ in $(seq 600); do
		c=$(code "http://127.0.0.1:$PORT$1")
		[ "$c" = 202 ] || break
		sleep 0.1
	done
	[ "$c" = 200 ] || echo "GET $1: $c $(head -c 300 "$TMP/body")" >&2
	cp "$TMP/body" "$2"
}
# serve [BINARY]: a server on LOG and CACHE that says what it loads
serve() {
	NNSCOPE=${1:-$NNSCOPE} E2E_LOUD=1 e2e_serve "$LOG" --cache-dir "$CACHE" ||
		{ echo "server did not start: $(cat "$SERVE_OUT.err")"; exit 1; }
}
stop() {
	kill "$SPID" 2>/dev/null || true
	wait "$SPID" 2>/dev/null || true
}
# fetch DIR: every trace endpoint, views and a diff of each trace into DIR
fetch() {
	local d=$1 t run worker q end n
	mkdir -p "$d"
	for t in "${TRACES[@]}"; do
		read -r run worker <<<"$t"
		q="run=$run&worker=$worker"
		get "/api/trace/meta?$q" "$d/$run.meta.json"
		end=$(jq -r .end "$d/$run.meta.json")
		n=$(jq -r .events "$d/$run.meta.json")
		get "/api/trace/window?$q&t0=0&t1=$end&px=1920" "$d/$run.window.json"
		get "/api/trace/window?$q&t0=$((end / 3))&t1=$((end / 2))&px=300" "$d/$run.window2.json"
		get "/api/trace/event?$q&id=$((n / 2))" "$d/$run.event.json"
		get "/api/trace/event?$q&id=1" "$d/$run.event1.json"
		get "/api/trace/summary?$q&t0=0&t1=$end" "$d/$run.summary.json"
		for v in overview operators kernels memory launches; do
			get "/api/view?$q&view=$v" "$d/$run.$v.json"
		done
	done
	get "/api/diff?run=runA&worker=w0&run2=${TRACES[-1]% *}&worker2=${TRACES[-1]#* }" "$d/diff.json"
}
# snaps: how many snapshots the cache holds (waits up to 60 s for want)
snaps() {
	local want=$1 have=0
	for _ in $(seq 600); do
		have=$(find "$CACHE" -name trace.snap -type f | wc -l)
		[ "$have" -ge "$want" ] && break
		sleep 0.1
	done
	echo "$have"
}
said() { grep -c "$1" "$SERVE_OUT.err" || true; }

# ---- first server: parses, then writes the snapshots -----------------------
serve
fetch "$TMP/a"
check_q "first server: trace meta answered" jqt "$TMP/a/runA.meta.json" '.events == 9'
check_q "first server: a snapshot per trace is written ($N)" [ "$(snaps "$N")" = "$N" ]
check_q "first server: loaded by parsing, not from a snapshot" [ "$(said 'from its snapshot')" = 0 ]
stop

# ---- second server: mapped from the snapshots, the same answers -------------
serve
fetch "$TMP/b"
check "restarted server: every trace loaded from its snapshot ($N)" [ "$(said 'from its snapshot')" = "$N" ]
check "restarted server: trace endpoints, views and diff byte for byte the same" diff -r "$TMP/a" "$TMP/b"
check_q "restarted server: the diff is a real one" jqt "$TMP/b/diff.json" 'type == "object"'
stop

SNAP_A=$(find "$CACHE" -path '*w0*' -name trace.snap)
SIZE_A=$(stat -c %s "$SNAP_A")

# ---- a snapshot cut short -----------------------------------------------------
truncate -s $((SIZE_A - 100)) "$SNAP_A"
serve
fetch "$TMP/c"
check "cut-short snapshot: refused, said why" \
	[ "$(said 'snapshot: cut short; reading the trace again')" = 1 ]
check "cut-short snapshot: the same answers from the trace" diff -r "$TMP/a" "$TMP/c"
for _ in $(seq 100); do [ "$(stat -c %s "$SNAP_A")" = "$SIZE_A" ] && break; sleep 0.1; done
check "cut-short snapshot: a whole one written in its place" [ "$(stat -c %s "$SNAP_A")" = "$SIZE_A" ]
stop

# ---- the trace changed: its whole cache is stale, silently --------------------
touch "$LOG/runA/w0.pt.trace.json"
serve
fetch "$TMP/e"
check_q "changed trace: read again, no snapshot refused" \
	[ "$(said 'reading the trace again')" = 0 ]
check "changed trace: only the unchanged trace from its snapshot" \
	[ "$(said 'from its snapshot')" = $((N - 1)) ]
check "changed trace: the same answers" diff -r "$TMP/a" "$TMP/e"
check_q "changed trace: a new snapshot is written" [ "$(snaps "$N")" = "$N" ]
stop

# ---- a link planted as the snapshot --------------------------------------------
echo "not yours" >"$TMP/target"
rm -f "$SNAP_A"
ln -s "$TMP/target" "$SNAP_A"
serve
fetch "$TMP/f"
check "planted link: the same answers" diff -r "$TMP/a" "$TMP/f"
check_q "planted link: not loaded from it" [ "$(said 'from its snapshot')" = $((N - 1)) ]
for _ in $(seq 100); do [ -L "$SNAP_A" ] || break; sleep 0.1; done
check_q "planted link: its target is untouched" [ "$(cat "$TMP/target")" = "not yours" ]
check_q "planted link: replaced by a snapshot file, not written through" \
	bash -c "[ ! -L '$SNAP_A' ] && [ -f '$SNAP_A' ]"
stop

# ---- --no-snapshots: none used, none written ---------------------------------
# (every snapshot in the cache is this binary's and valid now)
E2E_LOUD=1 e2e_serve "$LOG" --cache-dir "$CACHE" --no-snapshots ||
	{ echo "server did not start: $(cat "$SERVE_OUT.err")"; exit 1; }
fetch "$TMP/g"
check "--no-snapshots: the same answers" diff -r "$TMP/a" "$TMP/g"
check_q "--no-snapshots: valid snapshots not used" [ "$(said 'from its snapshot')" = 0 ]
stop
rm -f "$SNAP_A"
E2E_LOUD=1 e2e_serve "$LOG" --cache-dir "$CACHE" --no-snapshots ||
	{ echo "server did not start: $(cat "$SERVE_OUT.err")"; exit 1; }
get "/api/trace/meta?run=runA&worker=w0" "$TMP/g/again.json"
sleep 0.5
check_q "--no-snapshots: none written" [ ! -e "$SNAP_A" ]
stop
serve
get "/api/trace/meta?run=runA&worker=w0" "$TMP/g/again.json"
check_q "without it again: the snapshot is written" [ "$(snaps "$N")" = "$N" ]
stop

# ---- another nnscope binary ----------------------------------------------------
cp "$NNSCOPE" "$TMP/nnscope-other"
touch -d '2001-01-01' "$TMP/nnscope-other"
serve "$TMP/nnscope-other"
fetch "$TMP/d"
# (the planted link above was replaced by a snapshot of ours)
check "another build: snapshots refused ($(said 'written by another build'))" \
	[ "$(said 'snapshot: written by another build; reading the trace again')" = "$N" ]
check "another build: the same answers" diff -r "$TMP/a" "$TMP/d"
stop

e2e_summary serve_snapshot.sh
