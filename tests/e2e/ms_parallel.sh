#!/usr/bin/env bash
# ms_parallel.sh - MindSpore's parallel strategy and stage timeline (Marey)
# through the CLI and the server (issue 22 item 2, docs/MINDSPORE.md):
#   - parallel_strategy (../shared/data/mindinsight): a MindSpore run with
#     devices 0 and 1 instead of "not a trace"; ms_parallel.json equals
#     MindInsight's tests/st/func/profiler/parallel_strategy_result answer on
#     its op nodes (values written here); `nnscope report` prints the stage
#     and Conv2D-op2's strategy;
#   - marey_graph: a MindSpore run; ms_marey.json's maps / stage_data /
#     minT / maxT equal the saved ascend_marey_timeline_1.json; report prints
#     the two stages;
#   - the server answers /api/view?view=ms_parallel and ms_marey for them.
#
#   NNSCOPE=build/nnscope bash tests/e2e/ms_parallel.sh
set -uo pipefail

# shellcheck source=lib/common.bash
. "$(dirname "$0")/lib/common.bash"
SHARED=${NNS_SHARED:-$(cd "$(dirname "$0")/../.." && pwd)/../shared}
e2e_setup ms_parallel.sh nnscope-mspar
MI=$SHARED/data/mindinsight
if [ ! -d "$MI/parallel_strategy" ] || [ ! -d "$MI/marey_graph" ]; then
	echo "SKIP MindInsight fixtures: $MI/parallel_strategy or marey_graph absent (set NNS_SHARED)"
	e2e_summary
	exit
fi
jqe() { jq -e "$2" "$1" >/dev/null; }

"$NNSCOPE" analyse "$MI/parallel_strategy" --out "$TMP/ps" >"$TMP/ps.out" 2>"$TMP/ps.err"
check_q "parallel_strategy analysed (exit 0), no 'not a trace'" \
	sh -c "[ -f '$TMP/ps/device_0/ms_parallel.json' ] && [ -f '$TMP/ps/device_1/ms_parallel.json' ] && ! grep -q 'not a trace' '$TMP/ps.err'"
P=$TMP/ps/device_0/ms_parallel.json
check_q "metadata parallel_type auto_parallel, stage 0 ranks [0,1]" \
	jqe "$P" '.metadata.parallel_type == "auto_parallel" and .graphs["0"].rank_ids == [0,1]'
check_q "GetNext-op767 as MindInsight: attr, output_shape, output_data_type" \
	jqe "$P" '.graphs["0"].op_nodes[0] | .node_id == "1" and .name == "Default/GetNext-op767" and .attr.shapes == "[[32, 3, 224, 224], [32]]" and .attr.types == "[\u0027DT_BASE_FLOAT\u0027, \u0027DT_BASE_INT\u0027]" and .output_shape == "[[32, 3, 224, 224], [32]]" and .output_data_type == "DT_TUPLE[\u0027DT_TENSOR[DT_FLOAT32]\u0027, \u0027DT_TENSOR[DT_INT32]\u0027]" and .parallel_group == [] and .parallel_shard == []'
check_q "Conv2D-op2 as MindInsight: input [1], parallel_group [0,1], attr without gen_strategy" \
	jqe "$P" '.graphs["0"].op_nodes[1] | .node_id == "2" and .input == ["1"] and .parallel_group == ["0","1"] and .attr == {"pad_list":"[2, 3, 2, 3]","group":"0","stride":"[1, 1, 2, 2]"} and .output_shape == [] and .strategy == "[[2, 1, 1, 1], [1, 1, 1, 1]]"'
check_q "const cst1 first" jqe "$P" '.graphs["0"].const_nodes[0].node_id == "cst1" and .graphs["0"].const_nodes[0].type == "Const"'
"$NNSCOPE" report "$MI/parallel_strategy" >"$TMP/ps.rep" 2>&1
check_q "report: parallel strategy section once, Conv2D strategy and groups 0,1" \
	sh -c "[ \$(grep -c 'MindSpore parallel strategy (auto_parallel, 2 ranks)' '$TMP/ps.rep') = 1 ] && grep -q 'Conv2D  \[\[2, 1, 1, 1\], \[1, 1, 1, 1\]\]  0,1' '$TMP/ps.rep'"

"$NNSCOPE" analyse "$MI/marey_graph" --out "$TMP/mg" >/dev/null 2>"$TMP/mg.err"
M=$TMP/mg/device_0/ms_marey.json
check_q "marey_graph analysed: ms_marey.json from the saved answer, step 1" jqe "$M" '.source == "file" and .step == 1'
check_q "maps, stage_data, minT, maxT equal the saved ascend_marey_timeline_1.json" \
	jq -e --slurpfile s "$MI/marey_graph/ascend_marey_timeline_1.json" '.maps == $s[0].maps and .stage_data == $s[0].stage_data and .minT == $s[0].minT and .maxT == $s[0].maxT' "$M"
check_q "scope_map read (6571 operators)" jqe "$M" '(.scope_map | length) == 6571'
"$NNSCOPE" report "$MI/marey_graph" >"$TMP/mg.rep" 2>&1
check_q "report: Marey section with stage0 device0,device1 2937 operators" \
	sh -c "grep -q 'MindSpore stage timeline (Marey, step 1' '$TMP/mg.rep' && grep -Eq 'stage0 +device0,device1 +2937' '$TMP/mg.rep'"

# ---- the server ---------------------------------------------------------------
LOG=$TMP/log
mkdir -p "$LOG"
cp -r "$MI/parallel_strategy" "$LOG/parallel_strategy"
cp -r "$MI/marey_graph" "$LOG/marey_graph"
chmod -R u+w "$LOG"
e2e_serve "$LOG" --cache-dir "$TMP/cache" || { echo "server did not start: $(cat "$SERVE_OUT.err")"; exit 1; }
get() { # PATH -> body in $TMP/body after 202s
	for _ in $(seq 600); do
		c=$(curl -s -o "$TMP/body" -w '%{http_code}' "http://127.0.0.1:$PORT$1")
		[ "$c" = 202 ] || break
		sleep 0.1
	done
	echo "$c"
}
get /api/runs >/dev/null
check_q "/api/runs: parallel_strategy is a mindspore run with device_0, device_1" \
	jqe "$TMP/body" '.runs[] | select(.name == "parallel_strategy") | .kind == "mindspore" and ([.workers[].name] | sort) == ["device_0","device_1"]'
check_q "/api/runs: marey_graph is a mindspore run" jqe "$TMP/body" '.runs[] | select(.name == "marey_graph") | .kind == "mindspore"'
c=$(get "/api/view?view=ms_parallel&run=parallel_strategy&worker=device_1")
check_q "/api/view ms_parallel 200, Conv2D-op2 groups [0,1]" \
	sh -c "[ $c = 200 ] && jq -e '.graphs[\"0\"].op_nodes[1].parallel_group == [\"0\",\"1\"]' '$TMP/body' >/dev/null"
c=$(get "/api/view?view=ms_marey&run=marey_graph&worker=device_0")
check_q "/api/view ms_marey 200, two stages" \
	sh -c "[ $c = 200 ] && jq -e '(.stage_data | keys) == [\"stage0\",\"stage1\"] and .stage_data.stage1.devices == [\"device2\",\"device3\"]' '$TMP/body' >/dev/null"
c=$(get "/api/view?view=ms_marey&run=parallel_strategy&worker=device_0")
check_q "/api/view ms_marey without data: 200 with an error line, empty maps" \
	sh -c "[ $c = 200 ] && jq -e '.maps == {} and (.error | test(\"no ascend_timeline_display\"))' '$TMP/body' >/dev/null"
e2e_summary
