#!/usr/bin/env bash
# ms_marey.sh - the Marey view's FLOPs / memory lines, stage / device blocks,
# step chooser and per-step server cache (issue 22 item 2, docs/MINDSPORE.md)
# on the hand-made job of tests/e2e/gen_ms_marey.py, whose docstring computes
# every expected value asserted here:
#   - `nnscope analyse`: ms_marey.json once per job (device_0 only), step 1,
#     steps [1,2], the lines, ranges and blocks;
#   - the server: /api/view?view=ms_marey&step=2 gives step 2's lines (a
#     miss, then a hit of the cache: X-Nnscope-Cache), step=3 / step=x are
#     400 naming the steps.
#
#   NNSCOPE=build/nnscope bash tests/e2e/ms_marey.sh
set -uo pipefail

# shellcheck source=lib/common.bash
. "$(dirname "$0")/lib/common.bash"
e2e_setup ms_marey.sh nnscope-msmarey
jqe() { jq -e "$2" "$1" >/dev/null; }

JOB=$TMP/log/marey_job
python3 "$(dirname "$0")/gen_ms_marey.py" "$JOB" || { echo "FAIL gen_ms_marey.py"; exit 1; }
"$NNSCOPE" analyse "$JOB" --out "$TMP/out" >/dev/null 2>"$TMP/an.err"
M=$TMP/out/device_0/ms_marey.json
check_q "ms_marey.json written once per job: device_0 only" \
	sh -c "[ -f '$M' ] && [ ! -e '$TMP/out/device_1/ms_marey.json' ] && [ ! -e '$TMP/out/device_2/ms_marey.json' ]"
check_q "step 1 of steps [1,2]; stage0 device0,device1, stage1 device2" \
	jqe "$M" '.step == 1 and .steps == [1,2] and .stage_data.stage0.devices == ["device0","device1"] and .stage_data.stage1.devices == ["device2"]'
check_q "FLOPs lines at the aligned middles (Stream*, unknown and '-' rows left out)" \
	jqe "$M" '.flops_lines == {"device0":[[20,100,"Conv2D-op1"],[70,300,"MatMul-op3"]],"device1":[[25,200,"Conv2D-op1"],[65,400,"MatMul-op3"]]} and .flops_range == [100,400]'
check_q "memory lines of graph 1 (Send-op8 not in the map), range [150,3300]" \
	jqe "$M" '.memory_lines == {"device0":[[20,150,"Conv2D-op1"],[70,450,"MatMul-op3"]],"device2":[[22.5,1800,"Receive-op7"],[50,3300,"Add-op4"]]} and .memory_range == [150,3300]'
check_q "device blocks: FLOPs / FLOPS ratios to the largest, peak / capacity" \
	jqe "$M" '[.blocks[] | select(.kind == "device") | [.name, .stage, .flops, .flops_ratio, .flops_per_s_ratio, .peak_mem, .capacity, .mem_ratio]] == [["device0","stage0",400,(400/600),(40/120),450,1000,0.45],["device1","stage0",600,1,0.5,null,null,null],["device2","stage1",300,0.5,1,3300,10000,0.33]]'
check_q "stage blocks: means over the stage's devices with data" \
	jqe "$M" '[.blocks[] | select(.kind == "stage") | [.name, .flops, .flops_ratio, .flops_per_s, .flops_per_s_ratio, .peak_mem, .mem_ratio]] == [["stage0",500,(500/600),50,(50/120),450,0.45],["stage1",300,0.5,120,1,3300,0.33]]'

# ---- the server ---------------------------------------------------------------
e2e_serve "$TMP/log" --cache-dir "$TMP/cache" || { echo "server did not start: $(cat "$SERVE_OUT.err")"; exit 1; }
get() { # PATH -> body in $TMP/body, headers in $TMP/hdr, after 202s
	for _ in $(seq 600); do
		c=$(curl -s -D "$TMP/hdr" -o "$TMP/body" -w '%{http_code}' "http://127.0.0.1:$PORT$1")
		[ "$c" = 202 ] || break
		sleep 0.1
	done
	echo "$c"
}
V="/api/view?view=ms_marey&run=marey_job&worker=device_1"
c=$(get "$V&step=2")
check_q "step=2 (from device_1): step 2's lines, a cache miss" \
	sh -c "[ $c = 200 ] && grep -qi '^X-Nnscope-Cache: miss' '$TMP/hdr' && jq -e '.step == 2 and .flops_lines.device0 == [[125,100,\"Conv2D-op1\"],[175,300,\"MatMul-op3\"]] and .flops_lines.device1 == [[120,200,\"Conv2D-op1\"],[180,400,\"MatMul-op3\"]] and .memory_lines.device2 == [[122.5,1800,\"Receive-op7\"],[140,3300,\"Add-op4\"]]' '$TMP/body' >/dev/null"
cp "$TMP/body" "$TMP/step2.json"
c=$(get "$V&step=2")
check_q "step=2 again: a cache hit with the same document" \
	sh -c "[ $c = 200 ] && grep -qi '^X-Nnscope-Cache: hit' '$TMP/hdr' && cmp -s '$TMP/body' '$TMP/step2.json'"
c=$(get "$V")
check_q "no step: step 1 with its steps and lines, the document analyse wrote" \
	sh -c "[ $c = 200 ] && jq -e --slurpfile a '$M' '. == \$a[0] and .steps == [1,2] and (.flops_lines | keys) == [\"device0\",\"device1\"]' '$TMP/body' >/dev/null"
c=$(get "$V&step=3")
check_q "step=3: 400 naming the job's steps" \
	sh -c "[ $c = 400 ] && jq -e '.error == \"step 3 is not a step of this job (steps: 1, 2)\"' '$TMP/body' >/dev/null"
c=$(get "$V&step=x1")
check_q "step=x1: 400, not a step number" \
	sh -c "[ $c = 400 ] && jq -e '.error | test(\"not a step number\")' '$TMP/body' >/dev/null"
c=$(get "$V&step=0")
check_q "step=0: 400" sh -c "[ $c = 400 ]"
e2e_summary
