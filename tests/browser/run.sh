#!/bin/bash
# tests/browser/run.sh - browser tests of the web UI (make browser).
# playwright-core (web/node_modules) drives Debian's chromium headless against
# real `nnscope serve` processes started here (--port 0, private cache dir):
#   - logdir with the Kineto samples of $NNS_SHARED/data/kineto (copied),
#     an nnscope run of examples/mlp profiled here, and a truncated trace;
#   - the extra runs of tests/browser/gen_runs.mjs in the same logdir: the
#     tb_plugin conformance cases $NNS_SHARED/conformance/tbplugin/10 (dist/,
#     two workers) and 08 (memory/), and a hand-written module trace (modules/);
#   - MindInsight's profiler directories run_1, profiler/ and run_2 of
#     $NNS_SHARED/data/mindinsight (copied to mindspore/: the MindSpore tab,
#     tests/browser/mindspore.test.mjs);
#   - an empty logdir (the "no runs" state);
#   - a logdir of slow traces: big/w0 and big/w1, one 16 GB .gz trace of
#     profiler markers (hard links; tests/e2e/lib/serve_probe.py mkbig), and
#     a small span (small/w).
# Test files: ui.test.mjs (every view; the Trace view's checks in
# trace_checks.mjs), mindspore.test.mjs (the MindSpore
# tab), defaults.test.mjs (what the views pick and show on their own: the
# selected run's cluster, Diff's default pair, the Trace view's first
# window, pie legends, the unattributed-device-time warning), loading.test.mjs
# (a slow load: the page says which file and why; a small span still opens),
# live.test.mjs (a run followed while it is written: an empty logdir of its
# own that the test fills with the C example, then stops it),
# live_cluster.test.mjs (the live Cluster view and the alert badge: an empty
# logdir of its own, served with --alert 'rank_pct > 20', that the test fills
# with 4 ranks of the C example, one slowed midway).
# Prints one PASS/FAIL/SKIP line per check; exits non-zero on any FAIL.
# Screenshots: $BUILD/screenshots/<view>-<run>.png.
#
#   tests/browser/run.sh [TEST...]   only those test files (ui, mindspore,
#                                    defaults, loading, live, live_cluster;
#                                    default all),
#                                    with only the logdirs they need
#
# env: NNSCOPE (nnscope binary), NNS_SHARED (../shared), BUILD (build dir)
set -uo pipefail
cd "$(dirname "$0")/../.."
ROOT=$(pwd)
BUILD=${BUILD:-$ROOT/build}
NNSCOPE=${NNSCOPE:-$BUILD/nnscope}
NNS_SHARED=${NNS_SHARED:-$ROOT/../shared}
CHROMIUM=${CHROMIUM:-/usr/bin/chromium}
WANT=" ${*:-ui mindspore defaults loading live live_cluster} "
want() { [[ "$WANT" == *" $1 "* ]]; }
for t in $WANT; do
	[ -f "tests/browser/$t.test.mjs" ] || { echo "FAIL browser: no test file tests/browser/$t.test.mjs"; exit 1; }
done

fail() { echo "FAIL browser: $*"; exit 1; }
command -v node >/dev/null 2>&1 || fail "node not found (run 'make deps')"
[ -x "$CHROMIUM" ] || fail "chromium not found at $CHROMIUM (run 'make deps')"
[ -f "$ROOT/web/node_modules/playwright-core/index.mjs" ] || fail "web/node_modules/playwright-core missing (run 'make deps')"
[ -x "$NNSCOPE" ] || fail "nnscope binary $NNSCOPE not found (run 'make')"
[ -x "$BUILD/examples/mlp" ] || fail "$BUILD/examples/mlp not found (run 'make')"

TMP=$(mktemp -d /tmp/nns-browser.XXXXXX)
# a private copy: a concurrent build may relink $NNSCOPE while the tests run
for _ in 1 2 3 4 5 6 7 8 9 10; do
	cp "$NNSCOPE" "$TMP/nnscope" 2>/dev/null && "$TMP/nnscope" --help >/dev/null 2>&1 && break
	sleep 1
done
NNSCOPE=$TMP/nnscope
PIDS=()
cleanup() {
	for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done
	for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null; done
	rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# start_server NAME LOGDIR: sets URL_<NAME> and PID_<NAME>
start_server() {
	local name=$1 dir=$2 out=$TMP/serve-$1.out i url=""
	shift 2
	"$NNSCOPE" serve --logdir "$dir" --port 0 --cache-dir "$TMP/cache-$name" -q "$@" >"$out" 2>"$TMP/serve-$name.err" &
	PIDS+=($!)
	printf -v "PID_$name" '%s' "$!"
	for i in $(seq 100); do
		url=$(grep -o 'http://[^ ]*' "$out" 2>/dev/null | head -1)
		[ -n "$url" ] && break
		sleep 0.1
	done
	[ -n "$url" ] || { cat "$TMP/serve-$name.err"; fail "nnscope serve ($name) did not start"; }
	printf -v "URL_$name" '%s' "${url%/}"
}
mkdir -p "$BUILD/screenshots"
SERVERS=""
rc=0

if want ui || want mindspore || want defaults; then
LOG=$TMP/logdir
mkdir -p "$LOG" "$TMP/empty"
KINETO=$NNS_SHARED/data/kineto
if [ -d "$KINETO" ]; then
	cp -r "$KINETO"/. "$LOG"/
	chmod -R u+w "$LOG"
	export NNS_KINETO=1
fi
# our own run: the C example, with a fast CPU sampler so the CPU view has data
NNSCOPE_OPTIONS='{"cpu_sampling_interval_ms":10,"profile_framework":"all"}' "$BUILD/examples/mlp" --steps 30 --stall-ms 3 \
	--out "$LOG/mlp" --quiet >"$TMP/mlp.out" 2>&1 || { cat "$TMP/mlp.out"; fail "examples/mlp failed"; }
# a damaged trace: a truncated copy of a small JSON trace
mkdir -p "$LOG/damaged"
SAMPLE_GZ=$KINETO/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz
if [ -f "$SAMPLE_GZ" ]; then
	gzip -dc "$SAMPLE_GZ" | head -c 3000000 >"$LOG/damaged/truncated.pt.trace.json"
else
	# no shared data: truncate a Chrome trace of our own
	printf '{"traceEvents":[{"name":"ProfilerStep#1","ph":"X","cat":"user_annotation","ts":1,"dur":100,"pid":1,"tid":1},{"name":"aten::mm","ph":"X","cat":"cpu_op","ts":2,"dur":50,"pid":1,"tid":1},{"name":"aten::a' \
		>"$LOG/damaged/truncated.pt.trace.json"
fi
# odd but whole: a repeated key (read from its last occurrence) in the second
# event, so the Overview lists the odd spot
printf '{"traceEvents":[{"name":"ProfilerStep#1","ph":"X","cat":"user_annotation","ts":1,"dur":100,"pid":1,"tid":1},{"name":"aten::mm","ph":"X","cat":"cpu_op","cat":"cpu_op","ts":2,"dur":50,"pid":1,"tid":1}]}' \
	>"$LOG/damaged/odd.pt.trace.json"

# a MindSpore cluster job (MindInsight's cluster_propose fixture) for the Cluster view
MSJOB=$NNS_SHARED/data/mindinsight/cluster_propose
if [ -d "$MSJOB" ]; then
	mkdir -p "$LOG/msjobs"
	cp -r "$MSJOB" "$LOG/msjobs/cluster_propose"
	chmod -R u+w "$LOG/msjobs"
	export NNS_MSJOB=msjobs/cluster_propose
fi

# MindInsight's profiler directories for the MindSpore tab (mindspore.test.mjs):
# run_1 (the conformance run), the three-device profiler/ and run_2
MI=$NNS_SHARED/data/mindinsight
if [ -d "$MI/run_1/normal_run/profiler" ]; then
	mkdir -p "$LOG/mindspore"
	cp -r "$MI/run_1/normal_run/profiler" "$LOG/mindspore/run_1"
	[ -d "$MI/profiler" ] && cp -r "$MI/profiler" "$LOG/mindspore/profiler"
	[ -d "$MI/run_2/normal_run/profiler" ] && cp -r "$MI/run_2/normal_run/profiler" "$LOG/mindspore/run_2"
	[ -d "$MI/parallel_strategy" ] && cp -r "$MI/parallel_strategy" "$LOG/mindspore/parallel_strategy"
	[ -d "$MI/marey_graph" ] && cp -r "$MI/marey_graph" "$LOG/mindspore/marey_graph"
	chmod -R u+w "$LOG/mindspore"
fi

# a MindSpore device memory file (memory_usage_0.pb), written here after the
# public memory_profiling.proto (mindspore.test.mjs, "device memory")
python3 tests/browser/gen_ms_memory.py "$LOG/msmem" 0 || fail "tests/browser/gen_ms_memory.py failed"
# a hand-made MindSpore job for the Marey view's lines, blocks and steps
# (mindspore.test.mjs, "msmarey")
python3 tests/e2e/gen_ms_marey.py "$LOG/msmarey" || fail "tests/e2e/gen_ms_marey.py failed"
# hand-written GPU / host CPU op tables and a host_info CSV (mindspore.test.mjs,
# "GPU and host CPU op tables", "host information")
cp -r tests/e2e/data/ms_hostops "$LOG/mshostops"
cp -r tests/e2e/data/ms_hostinfo "$LOG/mshostinfo"
# host_info with Dataset rows for ranks 0-3 (mindspore.test.mjs, "the dataset table")
cp -r tests/e2e/data/ms_hostds "$LOG/mshostds"

# the distributed / memory / module runs (written here, at test time)
CONF=$NNS_SHARED/conformance/tbplugin
node tests/browser/gen_runs.mjs "$LOG" "$CONF" || fail "tests/browser/gen_runs.mjs failed"

start_server main "$LOG"
start_server empty "$TMP/empty"
SERVERS="$SERVERS main empty"
fi

if want loading; then
SLOW=$TMP/slowlog
mkdir -p "$SLOW/big" "$SLOW/small"
python3 tests/e2e/lib/serve_probe.py mkbig "$SLOW/big/w0.pt.trace.json.gz" 16000 >/dev/null || fail "serve_probe.py mkbig failed"
ln "$SLOW/big/w0.pt.trace.json.gz" "$SLOW/big/w1.pt.trace.json.gz"
printf '{"traceEvents":[{"name":"ProfilerStep#1","ph":"X","cat":"user_annotation","ts":1,"dur":100,"pid":1,"tid":1},{"name":"aten::mm","ph":"X","cat":"cpu_op","ts":2,"dur":50,"pid":1,"tid":1}]}' \
	>"$SLOW/small/w.pt.trace.json"
start_server slow "$SLOW"
SERVERS="$SERVERS slow"
fi

# live.test.mjs writes its run here while the test watches (--live-idle 10:
# its end is the END chunk the collector writes when the test stops it)
if want live; then
mkdir -p "$TMP/livelog"
start_server live "$TMP/livelog"
SERVERS="$SERVERS live"
fi
# live_cluster.test.mjs writes its 4-rank job here while the test watches
if want live_cluster; then
mkdir -p "$TMP/liveclusterlog"
start_server livecluster "$TMP/liveclusterlog" --alert 'rank_pct > 20'
SERVERS="$SERVERS livecluster"
fi

if want ui; then
NNS_URL=$URL_main NNS_URL_EMPTY=$URL_empty NNS_SHOTS=$BUILD/screenshots NNS_KINETO_DIR=$KINETO NNS_CONF_DIR=$CONF \
	NNS_CHROMIUM=$CHROMIUM NNS_ROOT=$ROOT node tests/browser/ui.test.mjs || rc=1
fi
if want mindspore; then
NNS_URL=$URL_main NNS_SHOTS=$BUILD/screenshots NNS_CHROMIUM=$CHROMIUM NNS_ROOT=$ROOT \
	NNS_MI_CONF=$NNS_SHARED/conformance/mindinsight/expected_values.json NNS_MS_RUN=mindspore/run_1 NNS_MI_DATA=$NNS_SHARED/data/mindinsight \
	node tests/browser/mindspore.test.mjs || rc=1
fi
if want defaults; then
NNS_URL=$URL_main NNS_SHOTS=$BUILD/screenshots NNS_CHROMIUM=$CHROMIUM NNS_ROOT=$ROOT NNS_MSJOB=${NNS_MSJOB:-} \
	node tests/browser/defaults.test.mjs || rc=1
fi
if want loading; then
NNS_URL=$URL_slow NNS_SHOTS=$BUILD/screenshots NNS_CHROMIUM=$CHROMIUM NNS_ROOT=$ROOT \
	node tests/browser/loading.test.mjs || rc=1
	# its two 16 GB loads would go on (until abandoned) beside the live tests
	kill "$PID_slow" 2>/dev/null
	wait "$PID_slow" 2>/dev/null
fi
if want live; then
NNS_URL=$URL_live NNS_LIVE_DIR=$TMP/livelog NNS_MLP=$BUILD/examples/mlp NNS_SHOTS=$BUILD/screenshots \
	NNS_CHROMIUM=$CHROMIUM NNS_ROOT=$ROOT node tests/browser/live.test.mjs || rc=1
fi
if want live_cluster; then
NNS_URL=$URL_livecluster NNS_LIVE_DIR=$TMP/liveclusterlog NNS_MLP=$BUILD/examples/mlp NNS_SHOTS=$BUILD/screenshots \
	NNS_CHROMIUM=$CHROMIUM NNS_ROOT=$ROOT node tests/browser/live_cluster.test.mjs || rc=1
fi
for n in $SERVERS; do
	if [ -s "$TMP/serve-$n.err" ]; then echo "--- server $n stderr:"; tail -20 "$TMP/serve-$n.err"; fi
done
exit $rc
