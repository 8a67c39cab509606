#!/usr/bin/env bash
# ms_hostinfo.sh - MindSpore's host_info outputs and device memory named in
# the report (issue 22 items 5 and 6; docs/MINDSPORE.md "Host information"
# and "Device memory"):
#   - `analyse` writes <out>/host_info/{timeline,host_memory,dataset}_<rank>
#     byte-identical to MindSpore's (gen_ms_host.py runs MindSpore's code on
#     the same inputs: tests/e2e/data/ms_hostds, ms_hostone, ms_hostinfo and
#     40 random ones from gen_ms_host_rand.py), with hand-computed values
#     checked too (averages, quoting, the B items, where MindSpore raises);
#     ms_host.json and /api/view?view=ms_host carry
#     the dataset table; `report --view cpu` prints it;
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

# ---- host_info split: MindSpore's own outputs, byte for byte -------------------------
# The expected files come from gen_ms_host.py: MindSpore's _parse_host_info and
# _calculate_dataset_execution_time copied from its source, run by python3 on
# the same host_info CSVs (ms_hostds: ranks 0-3 = devices 0-3; ms_hostone: a
# lone host_info_3.csv that device 0 takes).
same_files() { # same_files EXPECTED_DIR GOT_DIR: the same names, each byte-identical
	[ -d "$2" ] && [ "$(cd "$1" && ls | sort)" = "$(cd "$2" && ls | sort)" ] || return 1
	local f
	for f in $(cd "$1" && ls); do cmp -s "$1/$f" "$2/$f" || return 1; done
}
if command -v python3 >/dev/null 2>&1; then
	for fx in ms_hostds ms_hostone ms_hostinfo; do
		python3 "$HERE/gen_ms_host.py" "$HERE/data/$fx/host_info" "$TMP/exp_$fx" 2>"$TMP/gen_$fx.log"
		"$NNSCOPE" analyse "$HERE/data/$fx" --out "$TMP/$fx" >"$TMP/$fx.log" 2>&1
		check_q "$fx: host_info/ has MindSpore's files ($(cd "$TMP/exp_$fx" && ls | tr '\n' ' ')), each byte-identical" \
			same_files "$TMP/exp_$fx" "$TMP/$fx/host_info"
	done
	for f in dataset_0.csv dataset_1.csv host_memory_0.csv host_memory_1.csv host_memory_2.csv timeline_0.json timeline_1.json; do
		check_q "ms_hostds: $f byte-identical to MindSpore's" cmp "$TMP/exp_ms_hostds/$f" "$TMP/ms_hostds/host_info/$f"
	done
	# 40 random host_info files (gen_ms_host_rand.py): every output of each byte-identical
	bad=""
	for seed in $(seq 1 40); do
		R=$TMP/rand$seed
		python3 "$HERE/gen_ms_host_rand.py" "$seed" "$R/in"
		python3 "$HERE/gen_ms_host.py" "$R/in/host_info" "$R/exp" 2>/dev/null
		"$NNSCOPE" analyse "$R/in" --out "$R/out" -q >/dev/null 2>&1
		mkdir -p "$R/out/host_info"
		same_files "$R/exp" "$R/out/host_info" || bad="$bad $seed"
	done
	check "40 random host_info files: nnscope's outputs are MindSpore's, byte for byte${bad:+ (differ: seeds$bad)}" \
		test -z "$bad"
else
	echo "SKIP the byte comparison with MindSpore's code: no python3"
fi
H=$TMP/ms_hostds/host_info
# the values, hand-computed (they hold whether or not python3 is here)
check_q "dataset_0.csv: header and Batch::Get 3 x (100, 250, 50 us) = 133.33333333333334 (Python's float repr)" \
	diff <(printf '%s\r\n' 'Operation,Stage,Occurrences,Avg. time (us),Custom Info' \
		'Batch,Get,3,133.33333333333334,') <(head -2 "$H/dataset_0.csv")
check_q "dataset_0.csv: custom_info with quotes and a comma quoted as Python's csv does" \
	grep -qF 'Map,Run,1,10.0,"op=""resize"",size=2"' "$H/dataset_0.csv"
check_q "dataset_0.csv: 2e16 us is written 2e+16; Repeat::Next (3, 1, 1) 1.6666666666666667" \
	bash -c "grep -qF 'Sink,Push,1,2e+16,' '$H/dataset_0.csv' && grep -qF 'Repeat,Next,3,1.6666666666666667,' '$H/dataset_0.csv'"
check_q "dataset_1.csv: an end before its start averages negative (-5.0), Shuffle::Next 7.5" \
	bash -c "grep -qF 'Late,End,1,-5.0,' '$H/dataset_1.csv' && grep -qF 'Shuffle,Next,2,7.5,' '$H/dataset_1.csv'"
check_q "timeline_0.json: the repeated start keeps its first place with the later time (Map::读取 at 5100, 250 us, ensure_ascii)" \
	grep -qF '{"name": "Map::\u8bfb\u53d6", "cat": "Dataset", "ts": 5100, "dur": 250, "ph": "X", "pid": "100", "tid": "14", "args": {"parent_pid": "1"}}' "$H/timeline_0.json"
check_q "timeline_0.json: open starts as B items, split at the last two '_' (E_S_t / tid 1 from tid t_1)" \
	jq -e '[.[] | select(.ph == "B")] == [{"name":"Compile_Graph_Build_1","pid":"100","tid":"11","ph":"B","ts":1200},{"name":"E_S_t","pid":"100","tid":"1","ph":"B","ts":6000},{"name":"Open_Start","pid":"100","tid":"17","ph":"B","ts":9000}]' "$H/timeline_0.json"
check_q "host_memory_2.csv: a foreign column makes MindSpore's DictWriter raise: the header only, no timeline_2 / dataset_2" \
	bash -c "[ \"\$(cat '$H/host_memory_2.csv')\" = \"\$(printf 'tid,pid,parent_pid,module_name,event,stage,level,start_end,custom_info,memory_usage(kB),time_stamp(us)\r')\" ] && [ ! -e '$H/timeline_2.json' ] && [ ! -e '$H/dataset_2.csv' ]"
check_q "host_info_3.csv with time_stamp 12a: MindSpore raises, nothing for rank 3 (ranks 0-2 written)" \
	bash -c "[ -s '$H/timeline_0.json' ] && ! ls '$H' | grep -q '_3\.'"
O=$TMP/ms_hostone/host_info
check_q "ms_hostone: the lone host_info_3.csv goes to device 0, files named by rank 3" \
	bash -c "[ -s '$O/timeline_3.json' ] && [ -s '$O/host_memory_3.csv' ]"
check_q "ms_hostone: a Dataset end without custom_info (None): no dataset_3.csv, as MindSpore" \
	bash -c "[ -s '$O/timeline_3.json' ] && [ ! -e '$O/dataset_3.csv' ]"
D=$TMP/ms_hostds/device_0
check_q "ms_host.json (device 0): rank 0, 28 rows (the blank line skipped), 2 memory rows (peak 5120 kB), 15 timeline items (3 unfinished)" \
	jq -e '.rank == 0 and .rows == 28 and .memory.size == 2 and .memory.peak_kb == 5120 and .timeline.items == 15 and .timeline.unfinished == 3' "$D/ms_host.json"
check_q "ms_host.json (device 0): the dataset table, 6 rows, Batch::Get 3 x 133.333 us" \
	jq -e '.dataset.size == 6 and .dataset.object[0] == ["Batch","Get",3,133.33333333333334,""] and .dataset.unmatched_starts == 1' "$D/ms_host.json"
check_q "ms_host.json (device 3): no output, and says why (row 3 raises)" \
	jq -e '.memory == null and .timeline == null and .dataset == null and (.notes[0] | test("row 3"))' "$TMP/ms_hostds/device_3/ms_host.json"
check_q "the old approximations are gone (ms_hostinfo: host_info/ written, no device_0/host_memory.csv, host_timeline.json)" \
	bash -c "\"$NNSCOPE\" analyse '$FIX' --out '$TMP/old' >/dev/null 2>&1 && [ -s '$TMP/old/host_info/timeline_0.json' ] && [ ! -e '$TMP/old/device_0/host_memory.csv' ] && [ ! -e '$TMP/old/device_0/host_timeline.json' ]"
check_q "a MindSpore device without host_info writes no host files" \
	bash -c "'$NNSCOPE' analyse '$HERE/data/ms_hostops' --out '$TMP/b' >/dev/null 2>&1 && [ ! -e '$TMP/b/host_info' ] && jq -e 'has(\"rank\") and .rank == null and .rows == 0 and .dataset == null' '$TMP/b/device_0/ms_host.json'"

# ---- report --view cpu: the dataset table ------------------------------------------
run_rc 0 "report --view cpu (MindSpore, host_info)" "$NNSCOPE" report "$HERE/data/ms_hostds" --view cpu --no-color
check_q "report --view cpu prints MindSpore's dataset table (dataset_0.csv)" \
	grep -q 'MindSpore dataset execution time (dataset_0.csv)' "$TMP/out.txt"
check_q "report --view cpu: Batch Get 3 133.333" \
	grep -Eq 'Batch +Get +3 +133\.333' "$TMP/out.txt"

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
check_q "/api/view ms_host: 2 memory rows, the first 2048 kB at 1000 us, the (empty) dataset table" \
	jq -e '.memory.size == 2 and .memory.object[0][9] == "2048" and .memory.object[0][10] == "1000" and .dataset.size == 0' "$TMP/v.json"

e2e_summary
