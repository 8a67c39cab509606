#!/usr/bin/env bash
# cli.sh - end-to-end test of the nnscope command line on the shared sample
# traces: `analyse` writes the SPEC §4 JSON contract for every worker/span
# (checked with jq), `report` prints tables, `diff` compares spans, every
# subcommand has --help, usage errors exit 2, input errors exit 1 with one
# line, and a truncated trace still gives results with a warning.
#
#   NNSCOPE=build/nnscope NNS_SHARED=../shared bash tests/e2e/cli.sh
set -euo pipefail

# shellcheck source=lib/common.bash
. "$(dirname "$0")/lib/common.bash"
here=$(cd "$(dirname "$0")" && pwd)
SHARED=${NNS_SHARED:-$here/../../../shared}
DATA=$SHARED/data/kineto
[ -d "$DATA" ] || e2e_skip "$DATA not found (set NNS_SHARED to the shared/ directory)"
e2e_need jq
e2e_setup cli.sh nnscope-e2e

all_exist() { # every path exists and is not empty (directories: exist)
	local p
	for p in "$@"; do
		[ -s "$p" ] || { echo "    missing $p"; return 1; }
	done
}
one_line_err() { # stderr is exactly one line starting with "nnscope: $1"
	[ "$(wc -l <"$TMP/err.txt")" -eq 1 ] && grep -q "^nnscope: $1" "$TMP/err.txt"
}

# jq helpers: contract keys of each file (SPEC §4)
JQ_DEFS='
def has_all($k): . as $o | all($k[]; . as $x | $o | has($x));
def abs: if . < 0 then -. else . end;
["name","total_us","kernel_us","memcpy_us","memset_us","communication_us","runtime_us",
 "dataloader_us","cpu_exec_us","other_us"] as $step |
["id","name","memory_bytes","compute_capability","utilization","sm_efficiency",
 "achieved_occupancy","tensor_core_ratio"] as $gpu |
["name","calls","host_self_us","host_total_us","device_self_us","device_total_us",
 "tc_eligible","tc_self_ratio","tc_total_ratio"] as $op |
["name","calls","total_us","mean_us","min_us","max_us","mean_blocks_per_sm",
 "mean_occupancy","tensor_core"] as $kern |
["name","calls","size_increase","self_size_increase","alloc_count","self_alloc_count",
 "alloc_size","self_alloc_size"] as $mem |
["worker","computation_us","overlap_us","communication_us","other_us","transfer_us",
 "synchronizing_us"] as $dw |
["worker","name","calls","total_bytes","total_latency_us","transfer_us"] as $dc |
["name","start_us","end_us","iteration_interval_us","fp_bp_us","tail_us","total_us"] as $st |
'
jqt() { # jqt FILE EXPR: true when EXPR holds (with JQ_DEFS; not lib's jqt)
	jq -e "$JQ_DEFS $2" "$1" >/dev/null 2>&1
}

check_profile_dir() { # all four contract files with their keys
	local d=$1 ok=0
	for f in overview operators kernels memory; do
		[ -s "$d/$f.json" ] || { echo "    missing $d/$f.json"; return 1; }
	done
	jqt "$d/overview.json" '(.steps|type=="array") and (.steps|all(has_all($step)))
		and (.average|has_all($step[1:])) and (.gpus|type=="array")
		and (.gpus|all(has_all($gpu))) and (.recommendations|type=="array")
		and (.recommendations|all(has_all(["id","text"])))' || { echo "    $d/overview.json keys"; ok=1; }
	jqt "$d/overview.json" '.steps|all(([.kernel_us,.memcpy_us,.memset_us,.communication_us,
		.runtime_us,.dataloader_us,.cpu_exec_us,.other_us]|add) - .total_us | abs < 0.01)' ||
		{ echo "    $d/overview.json: roles do not sum to total_us"; ok=1; }
	jqt "$d/operators.json" '(.by_name|type=="array") and (.by_name|all(has_all($op)))
		and (.by_name_shape|type=="array") and (.by_name_shape|all(has_all($op + ["input_shape"])))' ||
		{ echo "    $d/operators.json keys"; ok=1; }
	jqt "$d/kernels.json" '(.by_name|type=="array") and (.by_name|all(has_all($kern)))
		and (.by_properties|type=="array") and (.by_properties|all(has_all($kern +
		["op_name","grid","block","registers_per_thread","shared_memory"])))' ||
		{ echo "    $d/kernels.json keys"; ok=1; }
	jqt "$d/memory.json" '(.devices|type=="object") and (.devices|to_entries|all(.value |
		has("peak_allocated_bytes") and (.ops|all(has_all($mem))) and (.curve|type=="array")
		and (.events|type=="array")))' || { echo "    $d/memory.json keys"; ok=1; }
	jqt "$d/steptrace.json" '(.steps|length) >= 1 and (.steps|all(has_all($st) and
		.iteration_interval_us >= 0 and .fp_bp_us >= 0 and .tail_us >= 0 and
		((.iteration_interval_us + .fp_bp_us + .tail_us - .total_us)|abs) < 0.01))
		and (.average|has_all($st[3:]))' || { echo "    $d/steptrace.json keys or sums"; ok=1; }
	return $ok
}

echo "== nnscope e2e: $NNSCOPE on $DATA"

# ---- analyse: every worker/span of every run -----------------------------
run_rc 0 "analyse $DATA" "$NNSCOPE" analyse "$DATA" --out "$TMP/all"
dirs=$(find "$TMP/all" -name overview.json -printf '%h\n' | sort)
ndirs=$(printf '%s\n' "$dirs" | grep -c . || true)
# 4 tb_plugin spans + modern/{before,after}_fix_trace.json, found by content
check "analyse wrote one directory per worker/span (found $ndirs, want 6)" [ "$ndirs" -eq 6 ]
for d in $dirs; do
	check "contract keys in ${d#"$TMP"/all/}" check_profile_dir "$d"
done
d0="$TMP/all/resnet50_num_workers_0/worker0.1"
check "span directories named <worker>.<n>" all_exist "$d0" "$TMP/all/resnet50_num_workers_0/worker0.2"
check "overview has steps and a GPU" jqt "$d0/overview.json" \
	'(.steps|length) > 0 and (.gpus|length) > 0 and (.gpus[0].compute_capability|type=="string")'
check "operators and kernels are not empty" jqt "$d0/operators.json" '(.by_name|length) > 0'
check "kernels by_name not empty" jqt "$d0/kernels.json" '(.by_name|length) > 0'
check "modules.json written" [ -s "$d0/modules.json" ]
check "CSV tables written" all_exist "$d0/step_trace.csv" "$d0/op_statistics.csv" \
	"$d0/kernel_statistics.csv" "$d0/memory_ops.csv"
check "step_trace.csv header" grep -q '^step,start_us,end_us,total_us,kernel_us' "$d0/step_trace.csv"
check "no temporary files left" [ -z "$(find "$TMP/all" -name '*.tmp.*')" ]

run_rc 0 "analyse --no-csv of one file" "$NNSCOPE" analyse --no-csv -q \
	"$DATA/resnet50_num_workers_4/worker0.1623212756351.pt.trace.json.gz" --out "$TMP/one"
check "--no-csv writes JSON" all_exist "$TMP/one/worker0.1/overview.json"
check "--no-csv writes no CSV" [ ! -e "$TMP/one/worker0.1/step_trace.csv" ]

if [ -d "$DATA/modern" ]; then
	run_rc 0 "analyse a directory of plain *.json traces" "$NNSCOPE" analyse -q "$DATA/modern" --out "$TMP/modern"
	check "plain json workers analysed" check_profile_dir "$TMP/modern/after_fix_trace"
fi

# ---- several workers: distributed.json ------------------------------------
mkdir -p "$TMP/dist/run"
src0=$(ls "$DATA"/resnet50_num_workers_0/*.pt.trace.json.gz | head -1)
src1=$(ls "$DATA"/resnet50_num_workers_0/*.pt.trace.json.gz | tail -1)
ln -s "$src0" "$TMP/dist/run/node_1.pt.trace.json.gz"
ln -s "$src1" "$TMP/dist/run/node_2.pt.trace.json.gz"
run_rc 0 "analyse a run with two workers" "$NNSCOPE" analyse -q "$TMP/dist/run" --out "$TMP/dist/out"
check "distributed.json has the contract keys" jqt "$TMP/dist/out/distributed.json" \
	'(.workers|length)==2 and (.workers|all(has_all($dw))) and (.comm_ops|type=="array")
	 and (.comm_ops|all(has_all($dc)))'
check "both workers analysed" check_profile_dir "$TMP/dist/out/node_2"
run_rc 0 "report --view distributed" "$NNSCOPE" report "$TMP/dist/run" --view distributed
check "distributed table printed" grep -q 'node_2' "$TMP/out.txt"

# ---- report ---------------------------------------------------------------
run_rc 0 "report --view all" "$NNSCOPE" report "$DATA/resnet50_num_workers_0" --view all --span 1
for s in "Step time breakdown" "Average" "GPU summary" "Recommendations" "Operators (top" \
	"GPU kernels" "Memory" "Modules"; do
	check "report shows '$s'" grep -qF "$s" "$TMP/out.txt"
done
check "report without a tty has no colours" [ -z "$(grep -l $'\033\\[' "$TMP/out.txt" || true)" ]
run_rc 0 "report --view kernels --top 3" "$NNSCOPE" report "$DATA/resnet50_num_workers_0" \
	--view kernels --worker worker0 --span 2 --top 3
check "top-N limits the rows" grep -q 'more kernels' "$TMP/out.txt"
run_rc 2 "report --span that does not exist" "$NNSCOPE" report "$DATA/resnet50_num_workers_0" --span 9
run_rc 2 "report --worker that does not exist" "$NNSCOPE" report "$DATA/resnet50_num_workers_0" --worker nobody

# ---- diff -----------------------------------------------------------------
run_rc 0 "diff span 1 vs span 2 of a run" "$NNSCOPE" diff "$DATA/resnet50_num_workers_0" --out "$TMP/diff.json"
check "diff prints step and operator deltas" grep -q 'Step time' "$TMP/out.txt"
check "diff --out JSON" jqt "$TMP/diff.json" \
	'has_all(["base","exp","steps","ops"]) and (.steps.delta|has_all($step[1:])) and (.ops|length) > 0'
run_rc 0 "diff two files" "$NNSCOPE" diff "$src0" "$src1" --top 3

# ---- help and version -----------------------------------------------------
run_rc 0 "--version" "$NNSCOPE" --version
check "version printed" grep -q '^nnscope [0-9]' "$TMP/out.txt"
run_rc 0 "--help" "$NNSCOPE" --help
for c in analyse report diff export serve run collect; do
	run_rc 0 "$c --help" "$NNSCOPE" "$c" --help
	check "$c --help prints usage" grep -q "^Usage: nnscope $c" "$TMP/out.txt"
done
run_rc 0 "help report" "$NNSCOPE" help report

# ---- usage errors: exit 2 -------------------------------------------------
run_rc 2 "no arguments" "$NNSCOPE"
run_rc 2 "unknown command" "$NNSCOPE" frobnicate
run_rc 2 "analyse unknown option" "$NNSCOPE" analyse --bogus "$src0" --out "$TMP/x"
check "unknown option names the option" grep -q "unknown option '--bogus'" "$TMP/err.txt"
run_rc 2 "analyse without --out" "$NNSCOPE" analyse "$src0"
run_rc 2 "analyse --out without a value" "$NNSCOPE" analyse "$src0" --out
run_rc 2 "analyse --threads bad" "$NNSCOPE" analyse "$src0" --out "$TMP/x" --threads many
run_rc 2 "report unknown view" "$NNSCOPE" report "$src0" --view nope
run_rc 2 "report --top 0" "$NNSCOPE" report "$src0" --top 0
run_rc 2 "diff with three paths" "$NNSCOPE" diff a b c
run_rc 2 "report unknown short option" "$NNSCOPE" report -Z "$src0"
# the option table (cli_parse_options): one message shape for every command
usage_err() { # the one usage line, then the hint
	[ "$(head -n1 "$TMP/err.txt")" = "nnscope $1" ] && grep -q "^Try 'nnscope " "$TMP/err.txt"
}
run_rc 2 "report --top x" "$NNSCOPE" report "$src0" --top x
check "a bad value names the option and the range" usage_err "report: --top wants a positive number, not 'x'"
run_rc 2 "serve --port 70000" "$NNSCOPE" serve --port 70000 "$TMP"
check "serve's range is its own" usage_err "serve: --port wants 0..65535, not '70000'"
run_rc 2 "export --limit-mb without a value" "$NNSCOPE" export "$src0" --out "$TMP/x.json" --limit-mb
check "a missing value names the option" usage_err "export: option '--limit-mb' needs a value"
run_rc 2 "a long-only option as a letter" "$NNSCOPE" report -C "$src0"
check "...is an unknown option" usage_err "report: unknown option '-C'"
run_rc 2 "a flag given a value" "$NNSCOPE" analyse "$src0" --out "$TMP/x" --pretty=3
check "...is an unknown option" usage_err "analyse: unknown option '-P'"
run_rc 0 "--help before a bad option wins" "$NNSCOPE" collect --help --bogus
run_rc 2 "a bad option before --help wins" "$NNSCOPE" collect --bogus --help
run_rc 0 "an unambiguous abbreviation" "$NNSCOPE" report "$src0" --no-col --vi kernels
check "...is the option" grep -q 'GPU kernels' "$TMP/out.txt"
run_rc 2 "run: the command's own options are not nnscope's" "$NNSCOPE" run --bogus -- true
run_rc 127 "run: options end at CMD" "$NNSCOPE" run -q -- "$TMP/no-such-cmd" --bogus

# ---- input errors: exit 1, one line ---------------------------------------
run_rc 1 "analyse a missing file" "$NNSCOPE" analyse "$TMP/missing.json" --out "$TMP/x"
check "missing file: one line naming the file" one_line_err "$TMP/missing.json"
printf '{"traceEvents": [\n garbage ]}' >"$TMP/bad.json"
run_rc 1 "analyse malformed JSON" "$NNSCOPE" analyse "$TMP/bad.json" --out "$TMP/x"
check "malformed JSON: one line naming the file" one_line_err "$TMP/bad.json"
mkdir -p "$TMP/emptydir"
run_rc 1 "analyse a directory without traces" "$NNSCOPE" analyse "$TMP/emptydir" --out "$TMP/x"
check "empty directory: one line" one_line_err "$TMP/emptydir"

# ---- truncated trace: warning, results from what was read -----------------
gzip -dc "$src0" | head -c 2000000 >"$TMP/trunc.pt.trace.json" || true
run_rc 0 "analyse a truncated trace" "$NNSCOPE" analyse "$TMP/trunc.pt.trace.json" --out "$TMP/trunc"
check "truncated: warning on stderr" grep -q '^nnscope: warning: .*trunc' "$TMP/err.txt"
check "truncated: overview.json written" [ -s "$TMP/trunc/trunc/overview.json" ]
check "truncated: contract keys" check_profile_dir "$TMP/trunc/trunc"
check "truncated: diagnostics say so" jqt "$TMP/trunc/trunc/overview.json" '.diagnostics.truncated == true'
run_rc 0 "report a truncated trace" "$NNSCOPE" report "$TMP/trunc.pt.trace.json"

e2e_summary "== cli.sh"
