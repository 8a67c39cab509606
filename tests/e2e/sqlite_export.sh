#!/usr/bin/env bash
# sqlite_export.sh - end-to-end test of the SQLite export (issue 11):
# `nnscope export --format sqlite` and `analyse --sqlite` on the shared
# Kineto samples (PyTorch 1.8 ResNet-50 and a modern two-worker trace),
# with SQL answers checked against the JSON analysis of the same trace read
# with jq: event counts, kernel time, kernel time per operator, kernels by
# name, the device events of each step, the result tables (steps,
# operators, kernels); every ```sql block of docs/SQL.md runs and its result
# tables are `nnscope export --schema`; bad inputs
# (format, unwritable --out, malformed and truncated traces) exit as
# docs/CLI.md says and leave no half-written database.
#
#   NNSCOPE=build/nnscope NNS_SHARED=../shared bash tests/e2e/sqlite_export.sh
set -euo pipefail

# shellcheck source=lib/common.bash
. "$(dirname "$0")/lib/common.bash"
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
SHARED=${NNS_SHARED:-$here/../../../shared}
DATA=$SHARED/data/kineto
[ -d "$DATA" ] || e2e_skip "$DATA not found (set NNS_SHARED to the shared/ directory)"
e2e_need jq sqlite3
e2e_setup sqlite_export.sh nnscope-sqlite

q() { sqlite3 -batch -noheader -separator '|' "$@"; }
# same_rows NAME A B: two files of "key|number|number..." lines hold the same
# keys with numbers equal to 0.01
same_rows() {
	local name=$1 a=$2 b=$3
	sort "$a" >"$a.s"
	sort "$b" >"$b.s"
	if awk -F'|' 'NR == FNR { v[$1] = $0; n++; next }
		{ m++; if (!($1 in v)) { print "    only in the SQL: " $0; bad = 1; next }
		  split(v[$1], x, "|"); if (length(x) != NF) { print "    columns differ: " $0; bad = 1 }
		  for (i = 2; i <= NF; i++) { d = x[i] - $i; if (d < 0) d = -d
			if (d > 0.01) { print "    " $1 ": JSON " v[$1] ", SQL " $0; bad = 1; break } }
		  delete v[$1] }
		END { for (k in v) { print "    only in the JSON: " v[k]; bad = 1 }
		      if (n == 0) { print "    no rows"; bad = 1 }
		      exit bad }' "$a.s" "$b.s"; then
		pass "$name ($(wc -l <"$a.s") rows)"
	else
		fail "$name"
	fi
}
near() { awk -v a="$1" -v b="$2" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= 0.01) }'; }
no_debris() { # no database and no temporary file named after $1
	! ls "$1"* >/dev/null 2>&1
}

# check_trace LABEL TRACE: analyse --sqlite and export, SQL vs JSON
check_trace() {
	local label=$1 trace=$2 db=$TMP/$1.db edb=$TMP/$1.export.db out=$TMP/$1.out
	local dirs wid=0 d
	run_rc 0 "$label: analyse --sqlite" "$NNSCOPE" analyse "$trace" --out "$out" --sqlite "$db"
	run_rc 0 "$label: export --format sqlite" "$NNSCOPE" export "$trace" --format sqlite --out "$edb"
	check "$label: export prints the rows written" grep -q "rows" "$TMP/err.txt"
	check "$label: integrity" [ "$(q "$db" 'PRAGMA integrity_check')" = ok ]
	check "$label: meta names the version" [ "$(q "$db" "SELECT value FROM meta WHERE key = 'format_version'")" = 2 ]
	check "$label: export and analyse --sqlite hold the same events" \
		[ "$(q "$db" 'SELECT count(*), sum(dur_ns), sum(op_id) FROM events')" = \
		"$(q "$edb" 'SELECT count(*), sum(dur_ns), sum(op_id) FROM events')" ]
	mapfile -t dirs < <(find "$out" -name overview.json -printf '%h\n' | sort)
	check "$label: one workers row per analysed worker/span" \
		[ "$(q "$db" 'SELECT count(*) FROM workers')" -eq "${#dirs[@]}" ]
	for d in "${dirs[@]}"; do
		local name w s
		wid=$((wid + 1))
		name=$(basename "$d")
		w=$(jq -r .worker "$d/overview.json")
		s=$(jq -r '.span // ""' "$d/overview.json")
		wid=$(q "$db" "SELECT id FROM workers WHERE worker = '$w' AND coalesce(span, '') = '$s'")
		check "$label/$name: workers row" [ -n "$wid" ]
		[ -n "$wid" ] || continue
		check "$label/$name: count(events) = diagnostics.events" \
			[ "$(q "$db" "SELECT count(*) FROM events WHERE worker_id = $wid")" = "$(jq .diagnostics.events "$d/overview.json")" ]
		check "$label/$name: workers.events = diagnostics.events" \
			[ "$(q "$db" "SELECT events FROM workers WHERE id = $wid")" = "$(jq .diagnostics.events "$d/overview.json")" ]
		check "$label/$name: workers.truncated = diagnostics.truncated" \
			[ "$(q "$db" "SELECT truncated FROM workers WHERE id = $wid")" = "$(jq '.diagnostics.truncated | if . then 1 else 0 end' "$d/overview.json")" ]
		check "$label/$name: kernel time of events = kernels.json total" \
			near "$(q "$db" "SELECT coalesce(sum(dur_ns), 0) / 1000.0 FROM events WHERE worker_id = $wid AND kind = 'kernel'")" \
			"$(jq '[.by_name[].total_us] | add // 0' "$d/kernels.json")"
		check "$label/$name: kernel events = kernels.json calls" \
			[ "$(q "$db" "SELECT count(*) FROM events WHERE worker_id = $wid AND kind = 'kernel'")" = "$(jq '[.by_name[].calls] | add // 0' "$d/kernels.json")" ]
		jq -r '.by_name[] | "\(.name)|\(.calls)|\(.total_us)|\(.min_us)|\(.max_us)"' "$d/kernels.json" >"$TMP/j.txt"
		q "$db" "SELECT name, calls, total_us, min_us, max_us FROM top_kernels WHERE worker_id = $wid" >"$TMP/s.txt"
		if [ -s "$TMP/j.txt" ]; then
			same_rows "$label/$name: top_kernels = kernels.json by_name" "$TMP/j.txt" "$TMP/s.txt"
			jq -r '.by_properties | group_by(.op_name)[] | "\(.[0].op_name)|\(map(.calls) | add)|\(map(.total_us) | add)"' \
				"$d/kernels.json" >"$TMP/j.txt"
			q "$db" "SELECT op_name, kernels, kernel_us FROM kernel_time_per_operator WHERE worker_id = $wid" >"$TMP/s.txt"
			same_rows "$label/$name: kernel_time_per_operator = kernels.json by_properties per op_name" "$TMP/j.txt" "$TMP/s.txt"
		fi
		# the device events launched inside each step's host range
		if [ "$(q "$db" "SELECT count(*) FROM step_time WHERE worker_id = $wid")" -gt 0 ]; then
			jq -r '.steps[] | "ProfilerStep#\(.name)|\(.device_nodes)|\(.host_start_us | round)"' "$d/overview.json" >"$TMP/j.txt"
			q "$db" "SELECT step, device_events, CAST(round(host_start_us) AS INTEGER) FROM step_time WHERE worker_id = $wid AND step IN ($(jq -r '[.steps[] | "'"'"'ProfilerStep#\(.name)'"'"'"] | join(",")' "$d/overview.json"))" >"$TMP/s.txt"
			same_rows "$label/$name: step_time device_events = overview device_nodes" "$TMP/j.txt" "$TMP/s.txt"
		fi
		# result tables (schema_sql.c)
		jq -r '.steps[] | "\(.name)|\(.total_us)|\(.kernel_us)|\(.device_nodes)"' "$d/overview.json" >"$TMP/j.txt"
		q "$db" "SELECT name, total_us, kernel_us, device_nodes FROM steps WHERE worker_id = $wid" >"$TMP/s.txt"
		same_rows "$label/$name: steps table = overview.json steps" "$TMP/j.txt" "$TMP/s.txt"
		jq -r '.by_name[] | "\(.name)|\(.calls)|\(.host_self_us)|\(.host_total_us)|\(.device_self_us)|\(.device_total_us)"' "$d/operators.json" >"$TMP/j.txt"
		q "$db" "SELECT name, calls, host_self_us, host_total_us, device_self_us, device_total_us FROM operators WHERE worker_id = $wid" >"$TMP/s.txt"
		same_rows "$label/$name: operators table = operators.json by_name" "$TMP/j.txt" "$TMP/s.txt"
		jq -r '.by_name[] | "\(.name)|\(.calls)|\(.total_us)|\(.mean_us)|\(.max_us)"' "$d/kernels.json" >"$TMP/j.txt"
		if [ -s "$TMP/j.txt" ]; then
			q "$db" "SELECT name, calls, total_us, mean_us, max_us FROM kernels WHERE worker_id = $wid" >"$TMP/s.txt"
			same_rows "$label/$name: kernels table = kernels.json by_name" "$TMP/j.txt" "$TMP/s.txt"
			q "$db" "SELECT op_name, sum(calls), sum(total_us) FROM kernels_by_properties WHERE worker_id = $wid GROUP BY op_name" >"$TMP/j.txt"
			q "$db" "SELECT op_name, kernels, kernel_us FROM kernel_time_per_operator WHERE worker_id = $wid" >"$TMP/s.txt"
			same_rows "$label/$name: kernels_by_properties table = kernel_time_per_operator view" "$TMP/j.txt" "$TMP/s.txt"
		fi
	done
}

# ---- one trace of each Kineto generation ---------------------------------
old=$(find "$DATA/resnet50_num_workers_0" -name '*.pt.trace.json.gz' | sort | head -1)
check_trace resnet50 "$old"
check "resnet50: kernels attributed to operators" \
	[ "$(q "$TMP/resnet50.db" "SELECT count(*) FROM events WHERE kind = 'kernel' AND op_id IS NOT NULL")" -gt 0 ]
check "resnet50: op_id names the operator event" \
	[ "$(q "$TMP/resnet50.db" "SELECT count(*) FROM events k JOIN events o ON o.worker_id = k.worker_id AND o.id = k.op_id WHERE k.kind = 'kernel' AND (o.kind <> 'cpu_op' OR o.name <> k.op_name)")" = 0 ]
check "resnet50: launch_id names a runtime call with the same correlation" \
	[ "$(q "$TMP/resnet50.db" "SELECT count(*) FROM events d JOIN events l ON l.worker_id = d.worker_id AND l.id = d.launch_id WHERE l.correlation <> d.correlation OR l.kind <> 'cuda_runtime'")" = 0 ]
check "resnet50: memory records exported" \
	[ "$(q "$TMP/resnet50.db" 'SELECT count(*) FROM memory_events')" -gt 0 ]
if [ -d "$DATA/modern" ]; then
	check_trace modern "$DATA/modern"
	check "modern: two workers" [ "$(q "$TMP/modern.db" 'SELECT count(*) FROM workers')" = 2 ]
	check "modern: cuda_sync events keep their kind" \
		[ "$(q "$TMP/modern.db" "SELECT count(*) FROM events WHERE kind = 'cuda_sync'")" -gt 0 ]
fi
if [ -d "$DATA/resnet50_num_workers_4" ]; then
	check_trace spans "$DATA/resnet50_num_workers_4"
	check "spans: one row per span" [ "$(q "$TMP/spans.db" 'SELECT count(DISTINCT span) FROM workers')" = 2 ]
	run_rc 0 "export --span picks one span" "$NNSCOPE" export "$DATA/resnet50_num_workers_4" --format sqlite --span 2 --out "$TMP/span2.db"
	check "--span: one workers row" [ "$(q "$TMP/span2.db" 'SELECT span FROM workers')" = 2 ]
fi

# ---- every ```sql block of docs/SQL.md runs --------------------------------
awk -v dir="$TMP" '/^```sql/ { n++; f = sprintf("%s/doc%02d.sql", dir, n); on = 1; next }
	/^```/ { on = 0; next } on { print > f }' "$root/docs/SQL.md"
nblocks=$(find "$TMP" -maxdepth 1 -name 'doc*.sql' | wc -l)
check "docs/SQL.md has example queries" [ "$nblocks" -ge 6 ]
for f in "$TMP"/doc*.sql; do
	title=$(head -1 "$f" | cut -c1-60)
	if q -bail "$TMP/resnet50.db" <"$f" >"$TMP/q.txt" 2>"$TMP/q.err" && [ ! -s "$TMP/q.err" ]; then
		pass "docs/SQL.md query '$title' ($(wc -l <"$TMP/q.txt") rows)"
	else
		fail "docs/SQL.md query '$title'"
		sed 's/^/    /' "$TMP/q.err" | head -3
	fi
done

# ---- a MindSpore device: its AI Core tables ------------------------------------
MS=$SHARED/data/mindinsight/run_1
if [ -d "$MS" ]; then
	run_rc 0 "mindspore: analyse --sqlite" "$NNSCOPE" analyse "$MS" --out "$TMP/ms" --sqlite "$TMP/ms.db"
	msj=$(find "$TMP/ms" -name ms_ops.json | head -1)
	wid=$(q "$TMP/ms.db" "SELECT id FROM workers WHERE worker = 'device_1'")
	jq -r '.by_type[] | "\(.kernel_type)|\(.total_time_us)|\(.execution_frequency)|\(.avg_time_us)"' "$msj" >"$TMP/ms_types.json.txt"
	q "$TMP/ms.db" "SELECT kernel_type, total_time_us, execution_frequency, avg_time_us FROM ms_op_types WHERE worker_id = $wid" >"$TMP/ms_types.sql.txt"
	same_rows "mindspore: ms_op_types = ms_ops.json by_type" "$TMP/ms_types.json.txt" "$TMP/ms_types.sql.txt"
	jq -r '.by_op[] | "\(.op_name)|\(.avg_execution_time_us)|\(.execution_frequency)"' "$msj" >"$TMP/ms_ops.json.txt"
	q "$TMP/ms.db" "SELECT op_name, avg_execution_time_us, execution_frequency FROM ms_ops WHERE worker_id = $wid" >"$TMP/ms_ops.sql.txt"
	same_rows "mindspore: ms_ops = ms_ops.json by_op" "$TMP/ms_ops.json.txt" "$TMP/ms_ops.sql.txt"
else
	echo "SKIP mindspore checks: $MS not found"
fi

# ---- docs/SQL.md's result tables are `export --schema` ----------------------
sed -n '/^<!-- BEGIN nnscope export --schema -->$/,/^<!-- END nnscope export --schema -->$/p' "$root/docs/SQL.md" |
	sed '1d;$d' >"$TMP/doc_schema.md"
run_rc 0 "export --schema" "$NNSCOPE" export --schema
check "docs/SQL.md result tables = export --schema" cmp -s "$TMP/out.txt" "$TMP/doc_schema.md"
check "export --schema lists steps and comm_ops" grep -q "^### \`comm_ops\`" "$TMP/out.txt"
check "every result table of the database is in export --schema" \
	[ -z "$(q "$TMP/resnet50.db" "SELECT name FROM sqlite_schema WHERE type = 'table' AND sql LIKE '%worker_id%' OR sql LIKE '%span TEXT%'" |
		grep -vxE 'workers|worker_meta|threads|events_raw|counters|memory_events|flows|devices|instants|queues|samples' |
		while read -r t; do grep -q "^### \`$t\`" "$TMP/out.txt" || echo "$t"; done)" ]

# ---- bad input -------------------------------------------------------------
run_rc 2 "export --format xml" "$NNSCOPE" export "$old" --format xml --out "$TMP/x.db"
check "bad format: says which formats exist" grep -q "chrome, sqlite" "$TMP/err.txt"
check "bad format: no file" no_debris "$TMP/x.db"
run_rc 2 "export --format sqlite --out -" "$NNSCOPE" export "$old" --format sqlite --out -
printf 'not a directory' >"$TMP/file"
run_rc 1 "export into an unwritable place" "$NNSCOPE" export "$old" --format sqlite --out "$TMP/file/x.db"
check "unwritable: one line naming the path" \
	[ "$(wc -l <"$TMP/err.txt")" -eq 1 -a -n "$(grep -F "$TMP/file/x.db" "$TMP/err.txt")" ]
mkdir -p "$TMP/adir.db"
run_rc 1 "export onto a directory" "$NNSCOPE" export "$old" --format sqlite --out "$TMP/adir.db"
check "onto a directory: one line naming it" \
	[ "$(wc -l <"$TMP/err.txt")" -eq 1 -a -n "$(grep -F "$TMP/adir.db: is a directory" "$TMP/err.txt")" ]
check "onto a directory: no temporary file" [ -z "$(ls "$TMP"/adir.db.tmp.* 2>/dev/null)" ]
run_rc 1 "analyse --sqlite into an unwritable place" "$NNSCOPE" analyse "$old" --out "$TMP/u" --sqlite "$TMP/file/x.db"
check "analyse --sqlite unwritable: names the path" grep -qF "$TMP/file/x.db" "$TMP/err.txt"
run_rc 2 "analyse --sqlite with --mpi" "$NNSCOPE" analyse "$old" --out "$TMP/u" --sqlite "$TMP/m.db" --mpi
mkdir -p "$TMP/bad"
printf '%s' '{"traceEvents": [{"ph": "X", "name": nope}]}' >"$TMP/bad/bad.pt.trace.json"
printf '%s' 'this is not json' >"$TMP/bad/worse.json"
run_rc 1 "export a malformed trace" "$NNSCOPE" export "$TMP/bad/worse.json" --format sqlite --out "$TMP/bad.db"
check "malformed: the error names the file" grep -qF "worse.json" "$TMP/err.txt"
check "malformed: no database, no temporary file" no_debris "$TMP/bad.db"
printf 'old contents' >"$TMP/keep.db"
run_rc 1 "export a malformed trace over an existing file" "$NNSCOPE" export "$TMP/bad/worse.json" --format sqlite --out "$TMP/keep.db"
check "malformed: the existing file is untouched" [ "$(cat "$TMP/keep.db")" = "old contents" ]
check "malformed: no temporary file" [ -z "$(ls "$TMP"/keep.db.tmp.* 2>/dev/null)" ]
run_rc 0 "export over an existing file" "$NNSCOPE" export "$old" --format sqlite --out "$TMP/keep.db"
check "existing file replaced" [ "$(q "$TMP/keep.db" 'SELECT count(*) FROM workers')" = 1 ]
gzip -dc "$old" | head -c 2000000 >"$TMP/trunc.pt.trace.json" || true
run_rc 0 "export a truncated trace" "$NNSCOPE" export "$TMP/trunc.pt.trace.json" --format sqlite --out "$TMP/trunc.db"
check "truncated: warning on stderr" grep -q '^nnscope: warning: .*trunc' "$TMP/err.txt"
check "truncated: workers.truncated = 1 with the first problem" \
	[ "$(q "$TMP/trunc.db" "SELECT truncated, first_problem IS NOT NULL FROM workers")" = "1|1" ]
"$NNSCOPE" analyse "$TMP/trunc.pt.trace.json" --out "$TMP/trunc" >/dev/null 2>&1
check "truncated: the events kept = diagnostics.events" \
	[ "$(q "$TMP/trunc.db" 'SELECT count(*) FROM events')" = "$(jq .diagnostics.events "$TMP/trunc/trunc/overview.json")" ]
check "truncated: no temporary file" [ -z "$(ls "$TMP"/trunc.db.tmp.* 2>/dev/null)" ]
run_rc 1 "analyse --sqlite with a bad trace in the run" "$NNSCOPE" analyse "$TMP/bad" --out "$TMP/badout" --sqlite "$TMP/bad2.db"
check "analyse --sqlite failure: no database, no temporary file" no_debris "$TMP/bad2.db"

# ---- the source's categories, the kernel class, device and stream from the
# model's index (issue 18: MTIA records were exported as cuda_runtime/kernel)
cat >"$TMP/mtia.json" <<'EOF'
{"traceEvents":[{"ph":"X","cat":"cpu_op","name":"aten::add","pid":7,"tid":7,"ts":100,"dur":10,"args":{}},
{"ph":"X","cat":"mtia_runtime","name":"launch","pid":7,"tid":7,"ts":101,"dur":2,"args":{"correlation":9}},
{"ph":"X","cat":"mtia_ccp_events","name":"dma_request","pid":2,"tid":5,"ts":104,"dur":2,"args":{"correlation":9}}]}
EOF
run_rc 0 "export an MTIA trace" "$NNSCOPE" export "$TMP/mtia.json" --format sqlite --out "$TMP/mtia.db"
got=$(q "$TMP/mtia.db" "SELECT group_concat(x, ' ') FROM (SELECT name || ':' || kind || ':' || category || ':' || coalesce(class, '-') || ':' || coalesce(device, '-') || ':' || coalesce(stream, '-') || ':' || coalesce(op_name, '-') AS x FROM events ORDER BY ts_ns)")
check "MTIA: categories kept, dma_request is memory on device 2 stream 5, in aten::add ($got)" \
	[ "$got" = "aten::add:cpu_op:cpu_op:-:-:-:- launch:cuda_runtime:mtia_runtime:-:-:-:aten::add dma_request:kernel:mtia_ccp_events:memory:2:5:aten::add" ]

e2e_summary sqlite_export.sh
