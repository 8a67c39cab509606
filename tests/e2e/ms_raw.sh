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

if [ -n "${NNSCOPE_BEFORE:-}" ]; then
	"$NNSCOPE_BEFORE" analyse "$D/JOB1" --out "$TMP/before" >"$TMP/before.log" 2>&1
	check_q "before: JOB1 refused (no traces found)" grep -q "no traces found" "$TMP/before.log"
fi
e2e_summary
