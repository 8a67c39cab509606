#!/usr/bin/env bash
# ms_hostinfo.sh - MindSpore's host_info split out and device memory named in
# the report (issue 22 items 5 and 6; docs/MINDSPORE.md "Host information" and
# "Device memory"):
#   - tests/e2e/data/ms_hostinfo (hand-written host_info/host_info_0.csv beside
#     a host CPU op table): `analyse` writes device_0/host_memory.csv (the 2
#     rows with memory, 2048 and 3072 kB), device_0/host_timeline.json (Parse
#     1000 us + 500, Optimize 1600 us + 1000 with its custom_info, the instant
#     Batch::Get at 1700, 2 memory counters; the last Parse end has no start)
#     and ms_host.json (peak 3072 kB); /api/view?view=ms_host gives the same;
#   - `report --view ms_memory`: on a device without memory_usage_0.pb it says
#     so; on tests/browser/gen_ms_memory.py's file it prints the device memory
#     section (peak 6313 MiB = 6.17 GiB) and `analyse` writes
#     ms_memory_nodes.csv (4 nodes; ReLU-op2's usage 6313 MiB).
#
#   NNSCOPE=build/nnscope bash tests/e2e/ms_hostinfo.sh
set -uo pipefail

# shellcheck source=lib/common.bash
. "$(dirname "$0")/lib/common.bash"
HERE=$(cd "$(dirname "$0")" && pwd)
e2e_setup ms_hostinfo.sh nnscope-mshi
FIX=$HERE/data/ms_hostinfo
MIB=1048576

# ---- host_info split ---------------------------------------------------------------
"$NNSCOPE" analyse "$FIX" --out "$TMP/a" >"$TMP/a.log" 2>&1
D=$TMP/a/device_0
check_q "host_memory.csv: the header and the 2 rows with memory" \
	diff <(printf '%s\n' \
		'tid,pid,parent_pid,module_name,event,stage,level,start_end,custom_info,memory_usage(kB),time_stamp(us)' \
		'11,100,1,Framework,Compile,Parse,1,0,,2048,1000' \
		'11,100,1,Framework,Compile,Parse,1,1,,3072,1500') "$D/host_memory.csv"
T=$D/host_timeline.json
check_q "host timeline: Compile::Parse 1000 us, 500 us long, cat Framework, pid 100 tid 11" \
	jq -e '[.traceEvents[] | select(.ph == "X" and .name == "Compile::Parse")] == [{"name":"Compile::Parse","cat":"Framework","ph":"X","pid":100,"tid":11,"ts":1000,"dur":500,"args":{"module_name":"Framework","level":1}}]' "$T"
check_q "host timeline: Compile::Optimize 1600 us + 1000, custom_info kept" \
	jq -e '[.traceEvents[] | select(.name == "Compile::Optimize")][0] | .ts == 1600 and .dur == 1000 and .args.custom_info == "{{pass:1}{n:2}}" and .args.level == 0' "$T"
check_q "host timeline: start_end 2 is an instant (Batch::Get at 1700 on tid 12)" \
	jq -e '[.traceEvents[] | select(.ph == "i")] | length == 1 and .[0].name == "Batch::Get" and .[0].ts == 1700 and .[0].tid == 12' "$T"
check_q "host timeline: 2 memory counters (2048, 3072 kB)" \
	jq -e '[.traceEvents[] | select(.ph == "C") | .args["memory_usage(kB)"]] == [2048, 3072]' "$T"
check_q "ms_host.json: 6 rows, 2 with memory, peak 3072 kB, 2 spans, 1 instant, 1 unmatched end" \
	jq -e '.rows == 6 and .memory.size == 2 and .memory.peak_kb == 3072 and .timeline.spans == 2 and .timeline.instants == 1 and .timeline.unmatched_ends == 1 and .timeline.unmatched_starts == 0' "$D/ms_host.json"
check_q "ms_host.json: dataset_<rank>.csv not split out, and says why" \
	jq -e '.dataset == null and (.dataset_note | test("not found"))' "$D/ms_host.json"
check_q "a MindSpore device without host_info writes no host files" \
	bash -c "'$NNSCOPE' analyse '$HERE/data/ms_hostops' --out '$TMP/b' >/dev/null 2>&1 && [ ! -e '$TMP/b/device_0/host_timeline.json' ] && [ ! -e '$TMP/b/device_0/host_memory.csv' ]"

# ---- report --view ms_memory --------------------------------------------------------
run_rc 0 "report --view ms_memory (no .pb)" "$NNSCOPE" report "$FIX" --view ms_memory --no-color
check_q "report --view ms_memory without the file says so" grep -q '(no memory_usage_0.pb)' "$TMP/out.txt"
if command -v python3 >/dev/null 2>&1; then
	mkdir -p "$TMP/mem"
	python3 "$HERE/../browser/gen_ms_memory.py" "$TMP/mem" 0 >/dev/null
	run_rc 0 "report --view ms_memory" "$NNSCOPE" report "$TMP/mem" --view ms_memory --no-color
	check_q "report --view ms_memory prints the device memory section" \
		grep -q 'MindSpore device memory' "$TMP/out.txt"
	check_q "report --view ms_memory prints no other section" \
		bash -c "! grep -q 'MindSpore step trace\|Step time breakdown' '$TMP/out.txt'"
	"$NNSCOPE" analyse "$TMP/mem" --out "$TMP/m" >"$TMP/m.log" 2>&1
	C=$TMP/m/device_0/ms_memory_nodes.csv
	check_q "ms_memory_nodes.csv: header" \
		bash -c "head -1 '$C' | grep -qx 'graph_id,index,node_id,name,fullname,allocations,size_bytes,allocated_bytes,usage_bytes'"
	check_q "ms_memory_nodes.csv: 4 nodes" bash -c "[ \$(tail -n +2 '$C' | wc -l) = 4 ]"
	check_q "ms_memory_nodes.csv: ReLU-op2 (index 1) uses 6313 MiB, the peak" \
		bash -c "awk -F, '\$2 == 1 && \$4 == \"ReLU-op2\" && \$9 == 6313 * $MIB' '$C' | grep -q ."
	check_q "ms_memory_nodes.csv: Conv2D-op1 uses 6163 MiB" \
		bash -c "awk -F, '\$2 == 0 && \$4 == \"Conv2D-op1\" && \$9 == 6163 * $MIB' '$C' | grep -q ."
else
	echo "SKIP report --view ms_memory on a .pb: no python3"
fi

# ---- the server ---------------------------------------------------------------------
mkdir -p "$TMP/log"
cp -r "$FIX" "$TMP/log/hi"
e2e_serve "$TMP/log"
for _ in $(seq 600); do
	c=$(curl -s -o "$TMP/v.json" -w '%{http_code}' \
		"http://127.0.0.1:$PORT/api/view?run=hi&worker=device_0&view=ms_host")
	[ "$c" = 202 ] || break
	sleep 0.1
done
check_q "/api/view ms_host: 2 memory rows, the first 2048 kB at 1000 us" \
	jq -e '.memory.size == 2 and .memory.object[0][9] == 2048 and .memory.object[0][10] == 1000' "$TMP/v.json"

e2e_summary
