#!/usr/bin/env bash
# ms_tables.sh - MindSpore tables read as MindInsight reads them, through the
# CLI and the server (issue 22 item 5, docs/MINDSPORE.md "GPU-mode and host
# CPU op tables", docs/CLI.md `report --view`):
#   - tests/e2e/data/ms_hostops (hand-written GPU and host CPU op CSVs):
#     ms_gpu_ops.json / ms_cpu_ops.json of `analyse` and /api/view hold the
#     hand-computed values (MatMul 1200.5 us, 60 %; Add 0.456789 us; Cast
#     1500 us = 1.5 ms, 75 %); `report --view gpu_ops,cpu_ops` prints them;
#   - run_2 (../shared): the AI Core type CSV with the older header is read
#     (MatMul 20657.74 us, 9 calls), in the default report too;
#   - `report --view X` for every MindSpore view on ../shared's profiler/ and
#     run_2, `--view cluster` on cluster_propose (rank 2 +22.23 %, MindInsight's
#     test_parallel_proposer value); an unknown view is a usage error.
#
#   NNSCOPE=build/nnscope bash tests/e2e/ms_tables.sh
set -uo pipefail

# shellcheck source=lib/common.bash
. "$(dirname "$0")/lib/common.bash"
HERE=$(cd "$(dirname "$0")" && pwd)
SHARED=${NNS_SHARED:-$HERE/../../../shared}
e2e_setup ms_tables.sh nnscope-mst
FIX=$HERE/data/ms_hostops

# ---- GPU / host CPU op tables: analyse ----------------------------------------
"$NNSCOPE" analyse "$FIX" --out "$TMP/a" >"$TMP/a.log" 2>&1
G=$TMP/a/device_0/ms_gpu_ops.json
C=$TMP/a/device_0/ms_cpu_ops.json
check_q "gpu op type: MatMul 1200.5 us, 4 calls, 60 %, avg 300.125" \
	jq -e '.gpu_op_type.object[0] == ["MatMul",1200.5,4,60,300.125]' "$G"
check_q "gpu op type: Add rounded to 6 places below 1 (0.456789, 0.02283 %, 0.045679)" \
	jq -e '.gpu_op_type.object[1] == ["Add",0.456789,10,0.02283,0.045679]' "$G"
check_q "gpu op type: ReLU rounded to 3 places (799.044, 39.977 %, 133.174)" \
	jq -e '.gpu_op_type.object[2] == ["ReLU",799.044,6,39.977,133.174]' "$G"
check_q "gpu op detail: 2 rows, MatMul's cuda time 1180.25 over 8 calls" \
	jq -e '.gpu_op_detail.size == 2 and .gpu_op_detail.object[0][8] == 1180.25 and .gpu_op_detail.object[0][9] == 8' "$G"
check_q "gpu activity: quoted dims kept, avg 147.531, max 200" \
	jq -e '.gpu_activity.object[0][4] == "256,1,1" and .gpu_activity.object[0][8] == 147.531 and .gpu_activity.object[0][9] == 200' "$G"
check_q "cpu op type: Cast 1.5 ms -> 1500 us, avg 50, 75 %" \
	jq -e '.cpu_op_type.object[0] == ["Cast",3,30,1500,50,75]' "$C"
check_q "cpu op detail: full name, 1500 us, subgraph" \
	jq -e '.cpu_op_detail.object[0] == ["Default","Cast","Cast-op3","Default/Cast-op3",30,1500,50,75,"Default"]' "$C"
check_q "no errors" jq -e '.errors == []' "$G"

# a damaged copy names the file and line, the other tables are kept
mkdir -p "$TMP/bad"
cp "$FIX"/*.csv "$TMP/bad/"
printf 'h\nMatMul,x,1,1,1\n' >"$TMP/bad/gpu_op_type_info_0.csv"
"$NNSCOPE" analyse "$TMP/bad" --out "$TMP/b" >/dev/null 2>&1
check_q "damaged gpu op type: null, named with its line; detail kept" \
	jq -e '.gpu_op_type == null and (.errors[0] | test("gpu_op_type_info_0.csv:2: not a number")) and .gpu_op_detail.size == 2' \
	"$TMP/b/device_0/ms_gpu_ops.json"

# ---- report --view ---------------------------------------------------------------
run_rc 0 "report --view gpu_ops,cpu_ops" "$NNSCOPE" report "$FIX" --view gpu_ops,cpu_ops --no-color
check_q "report gpu_ops: the GPU type, op and kernel tables" \
	bash -c "grep -q 'MindSpore GPU operator time by type' '$TMP/out.txt' && grep -q 'MindSpore GPU kernels' '$TMP/out.txt' && grep -Eq 'MatMul +1200.5 +4 +60 +300.125' '$TMP/out.txt'"
check_q "report cpu_ops: Cast 1500 us" grep -Eq 'Cast +3 +30 +1500 +50 +75' "$TMP/out.txt"
run_rc 0 "default report of the GPU/CPU fixture" "$NNSCOPE" report "$FIX" --no-color
check_q "default report: op time by type of GPU and host CPU, not the detail" \
	bash -c "grep -q 'GPU operator time by type' '$TMP/out.txt' && grep -q 'host CPU operator time by type' '$TMP/out.txt' && ! grep -q 'GPU kernels' '$TMP/out.txt'"
run_rc 2 "report --view no_such_view is a usage error" "$NNSCOPE" report "$FIX" --view no_such_view

# ---- the server --------------------------------------------------------------------
mkdir -p "$TMP/log"
cp -r "$FIX" "$TMP/log/gpu"
e2e_serve "$TMP/log"
view() { # view NAME: the document into $TMP/v.json once analysed (202 = not yet)
	for _ in $(seq 600); do
		c=$(curl -s -o "$TMP/v.json" -w '%{http_code}' \
			"http://127.0.0.1:$PORT/api/view?run=gpu&worker=device_0&view=$1")
		[ "$c" = 202 ] || break
		sleep 0.1
	done
}
view ms_gpu_ops
check_q "/api/view ms_gpu_ops: MatMul row" jq -e '.gpu_op_type.object[0][1] == 1200.5' "$TMP/v.json"
view ms_cpu_ops
check_q "/api/view ms_cpu_ops: Cast 1500 us" jq -e '.cpu_op_type.object[0][3] == 1500' "$TMP/v.json"

M=$SHARED/data/mindinsight
if [ ! -d "$M/run_2" ]; then
	echo "SKIP MindInsight fixtures: $M absent (set NNS_SHARED)"
	e2e_summary
	exit
fi

# ---- run_2: the older AI Core type header ------------------------------------------
run_rc 0 "report run_2 (default)" "$NNSCOPE" report "$M/run_2" --no-color
check_q "run_2 default: AI Core types from the older header (MatMul 20657.74 us, 9 calls, 89.47 %)" \
	grep -Eq 'MatMul +20657.74 +9 +2295.304 +89.47%' "$TMP/out.txt"
check_q "run_2 default: AI CPU, MindData and step trace as MindInsight's summary" \
	bash -c "grep -q 'AI CPU operator time by type' '$TMP/out.txt' && grep -q 'MindData' '$TMP/out.txt' && grep -q 'MindSpore step trace' '$TMP/out.txt'"
"$NNSCOPE" analyse "$M/run_2" --out "$TMP/r2" >/dev/null 2>&1
check_q "run_2 ms_ops.json: 21 types, the type file not named in errors" \
	jq -e '(.by_type | length) == 21 and ([.errors[] | select(test("_type.csv"))] == [])' \
	"$TMP/r2/device_1/ms_ops.json"

# ---- every MindSpore view by name ---------------------------------------------------------
for v in steptrace:"MindSpore step trace" ms_ops:"AI Core operator time by type" \
	ms_op_detail:"AI Core operators by average time" aicpu:"AI CPU kernels" \
	flops:"MindSpore FLOPs" minddata:"Pipeline (4 ops)" dynshape:"dynamic shape" \
	gpu_ops:"no gpu_op_type_info"; do
	name=${v%%:*}
	want=${v#*:}
	run_rc 0 "report --view $name" "$NNSCOPE" report "$M/profiler" --view "$name" --no-color
	if [ "$name" = aicpu ] || [ "$name" = steptrace ]; then
		run_rc 0 "report --view $name (run_2)" "$NNSCOPE" report "$M/run_2" --view "$name" --no-color
	fi
	check_q "report --view $name prints '$want'" grep -q "$want" "$TMP/out.txt"
done
run_rc 0 "report --view cluster" "$NNSCOPE" report "$M/cluster_propose" --view cluster --no-color
check_q "cluster: 4 ranks, pipeline-parallel" grep -q 'MindSpore cluster: 4 ranks, pipeline-parallel' "$TMP/out.txt"
check_q "cluster: rank 2 step interval 22.23 % above the average (test_parallel_proposer)" \
	grep -q 'device 2 is 2.4318 ms, which is 22.23% higher' "$TMP/out.txt"
check_q "cluster view alone prints no device headings" bash -c "! grep -q '== device_' '$TMP/out.txt'"

e2e_summary
