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

# ---- the generic overview on Ascend (issue 22) --------------------------------
PROF=$SHARED/data/mindinsight/profiler
# Hand-computed from run_1's files: the step trace's data rows (step_num >= 1)
# and each step's end - start (10 ns counts / 100 = us); the timeline's AI
# Core rows (pid 1) summed and united, its all-reduce stream rows (pid 10000)
# summed, and the union of both.
python3 - "$RUN1" >"$TMP/hand.json" <<'PY'
import csv, json, sys
d = sys.argv[1]
rows = [r for r in csv.DictReader(open(d + "/step_trace_raw_1_detail_time.csv"))
        if r["step_num"].isdigit() and int(r["step_num"]) >= 1]
tl = [e for e in json.load(open(d + "/timeline_display_1.json")) if e.get("ph") == "X"]
def union(iv):
    out = []
    for a, b in sorted(iv):
        if out and a <= out[-1][1]:
            out[-1][1] = max(out[-1][1], b)
        else:
            out.append([a, b])
    return sum(b - a for a, b in out)
ai = [(e["ts"], e["ts"] + e["dur"]) for e in tl if e["pid"] < 9000]
cm = [(e["ts"], e["ts"] + e["dur"]) for e in tl if e["pid"] == 10000]
sel = [r for r in rows if 3 <= int(r["step_num"]) <= 5]
print(json.dumps({
    "steps": len(rows),
    "step1_us": (int(rows[0]["end_point"]) - int(rows[0]["start_point"])) / 100,
    "aicore_us": sum(b - a for a, b in ai),
    "comm_sum_us": sum(b - a for a, b in cm),
    "non_compute_us": union(ai + cm) - union(ai),
    "sel_total_ms": round(sum(int(r["total"]) for r in sel) / len(sel) * 1e-5, 4),
    "sel_fp_bp_ms": round(sum(int(r["fp_and_bp"]) for r in sel) / len(sel) * 1e-5, 4)}))
PY
jh() { jq -e -n --slurpfile h "$TMP/hand.json" --slurpfile d "$1" "\$h[0] as \$h | \$d[0] as \$d | $2"; }
check_q "overview: the step trace's 322 steps, named 1..322" jh "$D/overview.json" \
	'($d.steps | length) == $h.steps and $d.steps[0].name == "1" and $d.steps[-1].name == "\($h.steps)"'
check_q "overview: step 1 is end - start of its step-trace row (284271.18 us)" jh "$D/overview.json" \
	'(($d.steps[0].total_us - $h.step1_us) | fabs) < 0.01'
check_q "AI Core ops are the computation: 1.77 s (temporal compute_us)" jh "$D/temporal.json" \
	'(($d.devices[0].compute_us - $h.aicore_us) | fabs) < 0.05 and ($d.devices | length) == 1'
check_q "the all-reduce streams are communication: 30.1 s beside compute (non_compute_us)" jh "$D/temporal.json" \
	'(($d.devices[0].non_compute_us - $h.non_compute_us) | fabs) < 0.05'
check_q "the all-reduce stream rows sum to 39.1 s (kernels total - compute)" jh "$D/kernels.json" \
	'(($d.total_us - $h.aicore_us - $h.comm_sum_us) | fabs) < 0.1'
check_q "the overview counts communication in every step, kernels 2.7 %" jqt "$D/overview.json" \
	'.average.communication_us > 90000 and .average.kernel_us < 6000 and .has_communication'
check_q "one device, an NPU (Ascend)" jqt "$D/overview.json" \
	'.devices_used == 1 and .device_kind == "NPU" and .device_vendor == "Ascend" and (.gpus | length) == 1 and .gpus[0].kind == "NPU" and .gpus[0].tensor_core_ratio == null'
check_q "no GPU advice on an NPU; MindInsight's pipeline proposals instead" jqt "$D/overview.json" \
	'([.recommendations[].id] | (index("gpu_utilization") == null and index("amp") == null and index("memory") == null and index("minddata_pipeline-general") != null))'
"$NNSCOPE" report "$SHARED/data/mindinsight/run_1" >"$TMP/r1.txt" 2>&1
check_q "report: an NPU summary, no GPU utilization advice" \
	bash -c "grep -q 'NPU summary (Ascend)' '$TMP/r1.txt' && ! grep -q 'GPU summary' '$TMP/r1.txt' && ! grep -q 'low utilization' '$TMP/r1.txt'"
"$NNSCOPE" analyse --steps 3-5 "$SHARED/data/mindinsight/run_1" --out "$TMP/r1s" >"$TMP/r1s.log" 2>&1
check_q "--steps 3-5 on run_1: the overview's steps 3, 4, 5" jqt "$TMP/r1s/device_1/overview.json" '[.steps[].name] == ["3","4","5"]'
check_q "--steps 3-5: the step trace cut, its summary the mean of steps 3-5" jh "$TMP/r1s/device_1/steptrace.json" \
	'($d.steps | length) == 3 and $d.summary.total_steps == 3 and $d.summary.total_ms == $h.sel_total_ms and $d.summary.fp_bp_ms == $h.sel_fp_bp_ms'
"$NNSCOPE" analyse "$PROF" --out "$TMP/prof1" >/dev/null 2>&1
check_q "profiler/device_0 (AI Core pid 1, AI CPU 9000): one device, device 0" jqt "$TMP/prof1/profiler/device_0/overview.json" \
	'.devices_used == 1 and [.gpus[].id] == [0] and .device_kind == "NPU"'

# ---- the other MindSpore documents are views of their devices -------------------
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
