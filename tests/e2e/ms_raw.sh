#!/usr/bin/env bash
# ms_raw.sh - `nnscope analyse` on raw Ascend job directories (issue 22 item
# 3, docs/MINDSPORE.md "Raw job directories"), on ../shared/data/mindinsight:
#   - JOB3 (run_1's raw data): exit 0, steptrace.json's summary is
#     st/func/profiler/test_analyse.py's (205.3809 ms, 322 steps), the point
#     info Cast-op6 / TransData-op7, ms_ops.json has the AI Core tables from
#     hwts (199 ops, 29 types; GatherV2-op55 42220.212 us, hand-computed);
#   - JOB1, JOB4, ERROR_JOB, container, JOB_AICPU: each a run (exit 0);
#     JOB1's step trace has MindInsight's 20 steps, ERROR_JOB's 40;
#     JOB_AICPU's AICPU table has its 3 calls (InitData, GetNext,
#     TruncatedNormal);
#   - a damaged copy of JOB1 (its training trace cut 7 bytes short of a
#     record): exit 0, a warning naming the file and the offset, the steps
#     before the damage kept;
#   - JOB3's hwts executions as kernels: 2817 runs of 199 ops on 11
#     streams, their total = the AI Core tables' (1771382.85 us), the 322
#     steps on the same clock (step 1 at 89.55 us), in the overview, the
#     kernel and device-time views and the exported Chrome trace;
#   - JOB2 (only pipeline_profiling_0.json) analysed with the framework
#     files of ../container/0/data, as MindInsight finds them;
#   - every raw warning (3) in the CLI, ms_ops.json errors and the report;
#   - no framework files (ERROR_JOB, JOB_AICPU, JOB3's hwts and training
#     trace alone): one warning naming the directories and file names
#     searched, the steps / AICPU calls still analysed;
#   - the binary before this change refused JOB1 ("no traces found") when
#     NNSCOPE_BEFORE is set.
#
#   NNSCOPE=build/nnscope bash tests/e2e/ms_raw.sh
set -uo pipefail

# shellcheck source=lib/common.bash
. "$(dirname "$0")/lib/common.bash"
SHARED=${NNS_SHARED:-$(cd "$(dirname "$0")/../.." && pwd)/../shared}
e2e_setup ms_raw.sh nnscope-msraw
jqt() { jq -e "$2" "$1" >/dev/null 2>&1; }
D="$SHARED/data/mindinsight"
if [ ! -d "$D/JOB3" ]; then
	echo "SKIP: $D/JOB3 absent, raw jobs not checked"
	e2e_summary
	exit 0
fi

ana() { # ana NAME DIR: analyse into $TMP/NAME, log in $TMP/NAME.log
	"$NNSCOPE" analyse "$2" --out "$TMP/$1" >"$TMP/$1.log" 2>&1
}

check "JOB3 analysed (exit 0)" ana j3 "$D/JOB3"
S="$TMP/j3/device_1/steptrace.json"
check_q "JOB3 step trace = run_1's summary (test_analyse.py)" jqt "$S" \
	'.summary.total_ms == 205.3809 and .summary.iteration_interval_ms == 0.2038 and .summary.fp_bp_ms == 118.054 and .summary.tail_ms == 87.1231 and .summary.total_steps == 322'
check_q "JOB3 point info from the point file" jqt "$S" \
	'.point_info.fp_start == "Default/Cast-op6" and .point_info.bp_end == "Default/TransData-op7"'
O="$TMP/j3/device_1/ms_ops.json"
check_q "JOB3 AI Core by type from hwts: 29 types" jqt "$O" '(.by_type | length) == 29 and .by_type[0].kernel_type == "UnsortedSegmentSum" and .by_type[0].total_time_us == 624509.57'
check_q "JOB3 AI Core by op: GatherV2-op55 first" jqt "$TMP/j3/device_1/ms_op_detail.json" \
	'(.by_op | length) == 199 and .by_op[0].kernel_name == "GatherV2-op55" and .by_op[0].avg_execution_time_us == 42220.212 and .by_op[0].op_info != null'
check_q "JOB3: no warning" test "$(grep -c warning "$TMP/j3.log")" = 0
# the hwts executions as the model's kernels (python mirror of optime_parser:
# 2817 executions, 177138285 counts = 1771382.85 us = the AI Core tables'
# total above, 199 ops, 11 streams) and the step trace's 322 steps
V="$TMP/j3/device_1"
check_q "JOB3 kernels: 199 ops, 2817 runs, total = Σ AI Core by type" jqt "$V/kernels.json" \
	'(.by_name | length) == 199 and ([.by_name[].calls] | add) == 2817 and .total_us == 1771382.85'
check_q "JOB3 kernels: GatherV2-op55 14 x 42220.212 us" jqt "$V/kernels.json" \
	'[.by_name[] | select(.name | endswith("/GatherV2-op55"))][0] | .calls == 14 and (.mean_us * 1000 | round) == 42220212'
check_q "JOB3 overview: 322 steps, step 1 from 89.55 us with 126386.93 us of kernels, one NPU" jqt "$V/overview.json" \
	'(.steps | length) == 322 and .steps[0].start_us == 89.55 and .steps[0].kernel_us == 126386.93 and .devices_used == 1 and .gpus[0].kind == "NPU"'
check_q "JOB3 device time: compute = the kernels' total" jqt "$V/temporal.json" '.devices[0].compute_us == 1771382.85'
check_q "JOB3 the summary line counts them" grep -q "322 steps, 0 operators, 199 kernels" "$TMP/j3.log"
check "JOB3 exported as a Chrome trace" "$NNSCOPE" export "$D/JOB3" --format chrome --out "$TMP/j3.json"
check_q "JOB3 trace: 2817 kernels on 11 named streams of AI Core Op, 322 steps" jqt "$TMP/j3.json" \
	'([.traceEvents[] | select(.ph == "X" and .cat == "kernel")] | length) == 2817
	 and ([.traceEvents[] | select(.ph == "X" and .cat == "user_annotation")] | length) == 322
	 and ([.traceEvents[] | select(.name == "thread_name" and (.args.name | startswith("Stream #")))] | length) == 11
	 and ([.traceEvents[] | select(.name == "process_name")][0].args.name) == "AI Core Op"'

# JOB2 holds only MindData's pipeline_profiling_0.json: MindInsight takes its
# framework files from ../container/0/data (Framework.host.vm.*.0.JOB2.*)
check "JOB2 analysed (its framework files in ../container/0/data)" ana j2 "$D/JOB2"
check_q "JOB2: no warning" test "$(grep -c warning "$TMP/j2.log")" = 0

check "JOB1 analysed" ana j1 "$D/JOB1"
check_q "JOB1: 20 steps (profiler/step_trace_raw_0)" jqt "$TMP/j1/device_0/steptrace.json" '.summary.total_steps == 20'
check "ERROR_JOB analysed" ana ej "$D/ERROR_JOB"
check_q "ERROR_JOB: 40 steps (profiler/step_trace_raw_10)" jqt "$TMP/ej/device_10/steptrace.json" '.summary.total_steps == 40'
check "JOB4 analysed" ana j4 "$D/JOB4"
check "container analysed" ana ct "$D/container"
check "JOB_AICPU analysed" ana ja "$D/JOB_AICPU"
check_q "JOB_AICPU: 3 AICPU calls" jqt "$TMP/ja/data/device_0/ms_aicpu.json" \
	'.calls == 3 and ([.by_type[].kernel_type] | sort) == ["GetNext","InitData","TruncatedNormal"]'

# a damaged copy: JOB1's training trace less its last 13 bytes
mkdir -p "$TMP/bad"
cp "$D/JOB1/"Framework* "$TMP/bad/"
T=training_trace.46.dev.profiler_default_tag.0.slice_0
head -c 4787 "$D/JOB1/$T" >"$TMP/bad/$T"
check "damaged job still analysed (exit 0)" ana bad "$TMP/bad"
check_q "the warning names the file and offset 4780" grep -q "warning: .*$T: offset 4780: 7 trailing bytes" "$TMP/bad.log"
check_q "the steps before the damage are kept (19: the last end record is cut)" jqt "$TMP/bad/device_0/steptrace.json" '.summary.total_steps == 19'
# every warning, not only the first: a graph line with a bad token and
# an op without a task beside the cut training trace (3 in all)
mkdir -p "$TMP/in3"
cp "$D/JOB1/"Framework* "$TMP/in3/"
head -c 4787 "$D/JOB1/$T" >"$TMP/in3/$T"
printf 'op_name:Default/X bad\n' >"$TMP/in3/Framework.host.vm.graph_desc_info.0.slice_1"
check "damaged job (3 warnings) analysed" ana bad3 "$TMP/in3"
check_q "CLI: the 3 warnings" test "$(grep -c "warning: $TMP/in3/" "$TMP/bad3.log")" = 3
check_q "ms_ops.json errors: the 3 warnings" jqt "$TMP/bad3/device_0/ms_ops.json" \
	'(.errors | length) == 3 and (.errors | map(select(test("offset 4780: 7 trailing"))) | length) == 1'
"$NNSCOPE" report "$TMP/in3" >"$TMP/bad3.report" 2>&1
check_q "report's Input problems: the 3 warnings" test "$(sed -n '/Input problems/,$p' "$TMP/bad3.report" | grep -c "$TMP/in3/")" = 3

# no framework files (issue 22 part 3): one warning naming the places looked
# in (the job, its data/, ../container/<dev>/data) and the file names, and
# the rest still analysed. ERROR_JOB has only a training trace (device 10),
# JOB_AICPU only data/DATA_PREPROCESS.dev.AICPU.0; a copy of JOB3's hwts log
# and training trace without its framework files warns once, not twice.
nofw() { # nofw NAME JOBDIR DEV: the log has exactly one warning, the no-framework one
	local log=$TMP/$1.log job=$2 dev=$3
	test "$(grep -c warning "$log")" = 1 &&
		grep -qF "warning: $job: no framework files of device $dev (Framework.host.[vm.]{task_desc_info,graph_desc_info,point}.$dev[.<job>].slice_<n>) in $job, $job/data or $(dirname "$job")/container/$dev/data (those of job $(basename "$job"))" "$log"
}
check_q "ERROR_JOB: one warning naming the places and names searched for framework files" nofw ej "$D/ERROR_JOB" 10
check_q "ERROR_JOB: the warning is in ms_ops.json's errors too" jqt "$TMP/ej/device_10/ms_ops.json" \
	'[.errors[] | select(test("no framework files of device 10"))] | length == 1'
check_q "ERROR_JOB: its 40 steps still analysed" jqt "$TMP/ej/device_10/steptrace.json" '.summary.total_steps == 40'
check_q "JOB_AICPU: one warning naming the places searched" nofw ja "$D/JOB_AICPU" 0
check_q "JOB_AICPU: its 3 AICPU calls still analysed" jqt "$TMP/ja/data/device_0/ms_aicpu.json" '.calls == 3'
mkdir -p "$TMP/nofw"
cp "$D/JOB3/"hwts.log.* "$D/JOB3/data/"training_trace.* "$TMP/nofw/"
check "hwts + training trace without framework files analysed (exit 0)" ana nofw3 "$TMP/nofw"
check_q "hwts without framework files: one warning (not a second for the hwts log)" nofw nofw3 "$TMP/nofw" 1
check_q "hwts without framework files: JOB3's 322 steps kept" jqt "$TMP/nofw3/device_1/steptrace.json" '.summary.total_steps == 322'

if [ -n "${NNSCOPE_BEFORE:-}" ]; then
	"$NNSCOPE_BEFORE" analyse "$D/JOB1" --out "$TMP/before" >"$TMP/before.log" 2>&1
	check_q "before: JOB1 refused (no traces found)" grep -q "no traces found" "$TMP/before.log"
	"$NNSCOPE_BEFORE" analyse "$D/JOB2" --out "$TMP/before2" >"$TMP/before2.log" 2>&1
	check_q "before: JOB2 refused (no traces found)" grep -q "no traces found" "$TMP/before2.log"
fi
e2e_summary
