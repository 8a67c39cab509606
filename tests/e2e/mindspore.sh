#!/usr/bin/env bash
# mindspore.sh - `nnscope analyse` on MindSpore profiler directories
# (issue 9, docs/MINDSPORE.md):
#   - run_1 (../shared/data/mindinsight): steptrace.json's MindInsight summary
#     equals st/func/profiler/test_analyse.py test_summary_for_step_trace, its
#     point info test_step_trace_point_info, its graph's last line
#     test_graph_api (all parsed from the upstream assert texts in
#     expected_values.json at run time); ms_ops.json's op types equal
#     test_op_analyser.py test_query_aicore_type_1 row for row; the CSV
#     tables hold the same numbers;
#   - a single timeline file given as the input is its device;
#   - a damaged copy (a truncated op-type CSV, a short step-trace row): the
#     analysis still succeeds, names each damaged file and line, keeps the rest;
#   - NNSCOPE_FP_START / NNSCOPE_BP_END (and PROFILING_*) move the step
#     trace's forward start and backward end on a hand-written Kineto trace
#     (hand-computed values).
#
#   NNSCOPE=build/nnscope bash tests/e2e/mindspore.sh
set -uo pipefail

# shellcheck source=lib/common.bash
. "$(dirname "$0")/lib/common.bash"
SHARED=${NNS_SHARED:-$(cd "$(dirname "$0")/../.." && pwd)/../shared}
e2e_setup mindspore.sh nnscope-ms
unset NNSCOPE_FP_START NNSCOPE_BP_END PROFILING_FP_START PROFILING_BP_END
# jq -e: any value but false/null holds (not lib's strict "true"); checks
# here run through check_q, their output hidden
jqt() { jq -e "$2" "$1"; }

# ---- fp/bp overrides on a hand-written Kineto trace -------------------------
# one step [0, 1000] us; operators a 100-200, MyFwd 300-400, MyBwd 500-700,
# d 800-900 (no backward, no optimizer): by default FP starts at the first
# operator (100) and ends with the last (900): interval 100, fp+bp 800,
# tail 100. With FP_START=MyFwd and BP_END=MyBwd: 300 / 400 / 300.
cat >"$TMP/points.pt.trace.json" <<'JSON'
{"traceEvents":[
{"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":1,"tid":1,"ts":0,"dur":1000},
{"ph":"X","cat":"cpu_op","name":"aten::a","pid":1,"tid":1,"ts":100,"dur":100},
{"ph":"X","cat":"cpu_op","name":"MyFwd","pid":1,"tid":1,"ts":300,"dur":100},
{"ph":"X","cat":"cpu_op","name":"MyBwd","pid":1,"tid":1,"ts":500,"dur":200},
{"ph":"X","cat":"cpu_op","name":"aten::d","pid":1,"tid":1,"ts":800,"dur":100}
]}
JSON
st() { jq -c '[.steps[0].iteration_interval_us, .steps[0].fp_bp_us, .steps[0].tail_us]' "$1/steptrace.json"; }
"$NNSCOPE" analyse "$TMP/points.pt.trace.json" --out "$TMP/p0" >/dev/null 2>&1
check_q "default step trace 100/800/100 us" test "$(st "$TMP/p0/points")" = "[100,800,100]"
NNSCOPE_FP_START=MyFwd NNSCOPE_BP_END=MyBwd "$NNSCOPE" analyse "$TMP/points.pt.trace.json" --out "$TMP/p1" >/dev/null 2>&1
check_q "NNSCOPE_FP_START/BP_END: 300/400/300 us" test "$(st "$TMP/p1/points")" = "[300,400,300]"
PROFILING_FP_START=MyFwd PROFILING_BP_END=MyBwd "$NNSCOPE" analyse "$TMP/points.pt.trace.json" --out "$TMP/p2" >/dev/null 2>&1
check_q "PROFILING_FP_START/BP_END accepted: 300/400/300 us" test "$(st "$TMP/p2/points")" = "[300,400,300]"
NNSCOPE_FP_START=NoSuchOp "$NNSCOPE" analyse "$TMP/points.pt.trace.json" --out "$TMP/p3" >/dev/null 2>&1
check_q "an override naming no operator changes nothing" test "$(st "$TMP/p3/points")" = "[100,800,100]"

RUN1=$SHARED/data/mindinsight/run_1/normal_run/profiler
EXP=$SHARED/conformance/mindinsight/expected_values.json
if [ ! -d "$RUN1" ] || [ ! -f "$EXP" ]; then
	echo "SKIP MindInsight fixtures: $RUN1 or $EXP absent (set NNS_SHARED)"
	e2e_summary
	exit
fi

# ---- run_1 -------------------------------------------------------------------
if "$NNSCOPE" analyse "$SHARED/data/mindinsight/run_1" --out "$TMP/r1" >"$TMP/r1.log" 2>&1; then
	pass "nnscope analyse run_1"
else
	fail "nnscope analyse run_1"
	tail -5 "$TMP/r1.log"
fi
D=$TMP/r1/device_1
# the upstream assert texts as JSON (python literals: quotes swapped)
upstream() { # key function marker
	python3 - "$EXP" "$1" "$2" "$3" <<'PY'
import ast, json, sys
exp, key, func, marker = sys.argv[1:]
for e in json.load(open(exp))[key]["entries"]:
    a = e.get("assert", "")
    if e["function"] == func and marker in a:
        print(json.dumps(ast.literal_eval(a.split("== ", 1)[1])))
        break
PY
}
upstream st/func/profiler/test_analyse.py test_summary_for_step_trace summary >"$TMP/sum.json"
upstream st/func/profiler/test_analyse.py test_step_trace_point_info point_info >"$TMP/pi.json"
upstream st/func/profiler/test_analyse.py test_graph_api "graph'][-1]" >"$TMP/graph.json"
check_q "summary = test_summary_for_step_trace" jq -e -n --slurpfile s "$TMP/sum.json" --slurpfile d "$D/steptrace.json" '
	$s[0] as $e | $d[0].summary as $g |
	$g.total_ms == $e.total_time and $g.iteration_interval_ms == $e.iteration_interval and
	$g.fp_bp_ms == $e.fp_and_bp and $g.tail_ms == $e.tail and $g.total_steps == $e.total_steps and
	"\($g.fp_bp_percent)%" == $e.fp_and_bp_percent and "\($g.tail_percent)%" == $e.tail_percent and
	"\($g.iteration_interval_percent)%" == $e.iteration_interval_percent'
check_q "point info = test_step_trace_point_info" jq -e -n --slurpfile s "$TMP/pi.json" --slurpfile d "$D/steptrace.json" '$d[0].point_info == $s[0]'
check_q "graph: 13 lines, the last = test_graph_api" jq -e -n --slurpfile s "$TMP/graph.json" --slurpfile d "$D/steptrace.json" '
	($d[0].graph | length) == 13 and
	($d[0].graph[-1] | map({name, start: .start_ms, duration: .duration_ms})) == $s[0]'
check_q "322 steps" jqt "$D/steptrace.json" '(.steps | length) == 322'
check_q "op types = test_query_aicore_type_1 (every row)" jq -e -n --slurpfile e "$EXP" --slurpfile d "$D/ms_ops.json" '
	($e[0]["st/func/profiler/test_op_analyser.py"].entries[] | select(.function == "test_query_aicore_type_1" and .name == "expect_result") | .value.object) as $want |
	($d[0].by_type | map([.kernel_type, .total_time_us, .execution_frequency, .total_percent, .avg_time_us])) == $want'
check_q "ms_op_type.csv: MatMul 2807.82 us, 25 calls first" grep -qx "MatMul,2807.82,25,112.313" "$D/ms_op_type.csv"
check_q "ms_step_trace.csv: 322 steps and the average" test "$(grep -c . "$D/ms_step_trace.csv")" -eq 324
# the timeline's distinct names on the AI Core (pid 1) and all-reduce (pid 10000) streams, counted here
NAMES=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(len({e["name"] for e in d if e.get("ph") == "X" and e["pid"] in (1, 10000)}))' "$RUN1/timeline_display_1.json")
check_q "the timeline's $NAMES AI Core / all-reduce names are kernels (kernels.json by_name)" jqt "$D/kernels.json" "(.by_name | length) == $NAMES"

check_q "no step-trace proposal at a 0.2038 ms interval (MindInsight: > 0.5 ms)" jqt "$D/steptrace.json" '.proposals == []'
RUN2=$SHARED/data/mindinsight/run_2
"$NNSCOPE" analyse "$RUN2" --out "$TMP/r2" >/dev/null 2>&1
check_q "run_2 (interval 12.4321 ms, test_training_trace_analyse): the iteration-interval proposal" \
	jqt "$TMP/r2/device_1/steptrace.json" '[.proposals[].id] == ["step_trace-iter_interval"] and .summary.iteration_interval_ms == 12.4321'

# ---- the other MindSpore documents are views of their devices -------------------
PROF=$SHARED/data/mindinsight/profiler
# the directory is two runs: profiler (its devices) and profiler/msprof (the
# ranks of its PROF_* timelines, tests/e2e/ms_timeline.sh)
"$NNSCOPE" analyse "$PROF" --out "$TMP/prof" >/dev/null 2>&1
for doc in ms_minddata ms_flops ms_dynshape ms_op_detail ms_aicpu; do
	check_q "profiler/device_0: $doc.json written without errors" jqt "$TMP/prof/profiler/device_0/$doc.json" '.errors == []'
done
check_q "profiler/device_0: the CPU proposal of test_proposer_analyser ([90])" \
	jqt "$TMP/prof/profiler/device_0/ms_minddata.json" '[.proposals[] | select(.id == "minddata_cpu_utilization") | .args] == [[90]]'
check_q "a Kineto worker gets no ms_* documents" test ! -e "$TMP/p0/points/ms_ops.json"

# ---- a single timeline file ----------------------------------------------------
"$NNSCOPE" analyse "$RUN1/timeline_display_1.json" --out "$TMP/one" >/dev/null 2>&1
check_q "a timeline file alone: its device, with the directory's step trace" jqt "$TMP/one/device_1/steptrace.json" '.summary.total_ms == 205.3809'

# ---- a damaged copy ------------------------------------------------------------
cp -r "$RUN1" "$TMP/bad"
chmod -R u+w "$TMP/bad"
head -c 120 "$RUN1/aicore_intermediate_1_type.csv" >"$TMP/bad/aicore_intermediate_1_type.csv"
printf '9,1,2\n' >>"$TMP/bad/step_trace_raw_1_detail_time.csv"
if "$NNSCOPE" analyse "$TMP/bad" --out "$TMP/b" >"$TMP/b.log" 2>&1; then
	pass "a damaged directory is still analysed"
else
	fail "a damaged directory is still analysed"
	tail -5 "$TMP/b.log"
fi
check_q "ms_ops.json names the damaged op-type file" jqt "$TMP/b/device_1/ms_ops.json" '.errors | any(contains("aicore_intermediate_1_type.csv"))'
check_q "ms_ops.json keeps the by-op table" jqt "$TMP/b/device_1/ms_ops.json" '(.by_op | length) == 69'
check_q "steptrace.json names the step-trace file and its line" jqt "$TMP/b/device_1/steptrace.json" '.error | contains("step_trace_raw_1_detail_time.csv:325")'
check_q "the timeline is still read (the same $NAMES kernels)" jqt "$TMP/b/device_1/kernels.json" "(.by_name | length) == $NAMES"

e2e_summary
