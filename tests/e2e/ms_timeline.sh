#!/usr/bin/env bash
# ms_timeline.sh - MindInsight's cluster (msprof) timeline (issue 22 item 1,
# docs/MINDSPORE.md "Cluster timeline"), on ../shared/data/mindinsight/profiler
# (two PROF_* directories: rank 0 = device_0 with sub-graph 2, rank 1 =
# device_1 with sub-graph 0; 10 iterations, one file of each kind per
# iteration):
#   - discovery: one run profiler/msprof with the workers rank_0 and rank_1
#     (before: 40 workers, one per file);
#   - `nnscope export --summary / detail / --subgraph / --subgraphs-apart /
#     --rank`: the process and thread names of upstream
#     test_msprof_timeline_analyser.py (expected_values.json; "OverLapped" in
#     its never-run test is "Overlapped" in its code and in the files), the
#     option list's ranks [0,1] / sub-graphs [0,2], and per plane and rank the
#     event counts and summed durations computed here from the files with
#     python (hand-checked: 60 Step Trace events = 40 X + 10 s + 10 t; task
#     time 490 and hccl 338 events per iteration file);
#   - ts moved by collectionTimeBegin - clockMonotonicRaw/1000 exactly;
#   - process names from "M" process_name events for any Chrome trace
#     (export, and the Trace view's groups);
#   - steps (issue 22 part 1): one step per "Iteration <k>" of the Step Trace
#     plane (10 per rank on the fixture, counted from the files), the
#     sub-graph with the most iterations when there are several (a hand-made
#     rank), overview steps_from "msprof_step_trace", --steps 3-5;
#   - nnscope serve: /api/trace/meta of rank_0 groups its tracks under
#     "Step Trace rank0", "Overlap Analysis rank0", "Ascend Hardware rank0",
#     "HCCL rank0".
#
#   NNSCOPE=build/nnscope bash tests/e2e/ms_timeline.sh
set -uo pipefail

# shellcheck source=lib/common.bash
. "$(dirname "$0")/lib/common.bash"
SHARED=${NNS_SHARED:-$(cd "$(dirname "$0")/../.." && pwd)/../shared}
e2e_setup ms_timeline.sh nnscope-mstl
jqt() { jq -e "$2" "$1"; }

# ---- process_name metadata of any Chrome trace -------------------------------
cat >"$TMP/pn.json" <<'JSON'
[{"name":"process_name","ph":"M","pid":7,"tid":0,"args":{"name":"My Proc"}},
{"name":"thread_name","ph":"M","pid":7,"tid":1,"args":{"name":"worker"}},
{"name":"a","ph":"X","pid":7,"tid":1,"ts":1,"dur":2}]
JSON
"$NNSCOPE" export "$TMP/pn.json" -o "$TMP/pn.out.json" -q
check_q "export keeps a trace's process name" \
	jqt "$TMP/pn.out.json" '[.traceEvents[] | select(.name == "process_name") | .args.name] == ["My Proc"]'

# ---- steps of a rank with two sub-graphs: the one with the most iterations ----
# a hand-made rank: sub-graph 1 has iterations 1-2, sub-graph 3 has 1-3
# (20, 20, 30 us); an FP_BP row is not an iteration
SG=$TMP/sg/PROF_1/device_0
mkdir -p "$SG/timeline"
echo '{"rank_id":0}' >"$SG/info.json.0"
echo '{"collectionTimeBegin":"0","clockMonotonicRaw":"0"}' >"$SG/start_info.0"
cat >"$SG/timeline/step_trace_0_1_1.json" <<'JSON'
[{"name":"process_name","pid":5,"tid":0,"args":{"name":"Step Trace"},"ph":"M"},
{"name":"thread_name","pid":5,"tid":51,"args":{"name":"Model ID:1"},"ph":"M"},
{"name":"thread_name","pid":5,"tid":53,"args":{"name":"Model ID:3"},"ph":"M"},
{"name":"Iteration 1","pid":5,"tid":51,"ts":100,"dur":50,"ph":"X"},
{"name":"Iteration 2","pid":5,"tid":51,"ts":200,"dur":50,"ph":"X"},
{"name":"Iteration 1","pid":5,"tid":53,"ts":110,"dur":20,"ph":"X"},
{"name":"FP_BP Time 1","pid":5,"tid":53,"ts":110,"dur":10,"ph":"X"},
{"name":"Iteration 2","pid":5,"tid":53,"ts":150,"dur":20,"ph":"X"},
{"name":"Iteration 3","pid":5,"tid":53,"ts":210,"dur":30,"ph":"X"}]
JSON
"$NNSCOPE" analyse "$TMP/sg" --out "$TMP/sgo" >"$TMP/sgo.txt" 2>&1
check_q "two sub-graphs: the steps are sub-graph 3's iterations 1-3 (20, 20, 30 us)" \
	jqt "$TMP/sgo/rank_0/overview.json" '[.steps[] | [.name, .total_us]] == [["1",20],["2",20],["3",30]] and .steps_from == "msprof_step_trace"'

D=$SHARED/data/mindinsight/profiler
EXP=$SHARED/conformance/mindinsight/expected_values.json
if [ ! -d "$D" ] || [ ! -f "$EXP" ] || ! command -v python3 >/dev/null; then
	echo "SKIP msprof timeline: $D, $EXP or python3 absent (set NNS_SHARED)"
	e2e_summary
	exit
fi

# ---- discovery -------------------------------------------------------------------
"$NNSCOPE" analyse "$D" --out "$TMP/a" >"$TMP/a.txt" 2>&1
check "analyse: profiler/msprof has the workers rank_0 and rank_1 only" \
	test "$(ls "$TMP/a/profiler/msprof" | grep -c '^rank_')" = 2 -a ! -e "$TMP/a/profiler/msprof/hccl_0_2_1"
check_q "analyse: no per-file worker (hccl_0_2_1 ...) anywhere" bash -c "! find '$TMP/a' -name 'hccl_*' | grep -q ."

# ---- the rank workers' kernels (issue 22 item 3) -------------------------------------
# hand-computed from the files: the Ascend Hardware ops (task_time events not
# named by a bare task type such as NOTIFY_WAIT) are compute kernels, the
# HCCL "Communication Kernel" collectives communication kernels
python3 - "$D" "$TMP/a/profiler/msprof" >"$TMP/k.txt" 2>&1 <<'PY'
import glob, json, re, sys
D, A = sys.argv[1:3]
ok = True
for prof in sorted(glob.glob(D + "/PROF_*")):
    dev = glob.glob(prof + "/device_*")[0]
    r = max(0, int(json.load(open(glob.glob(dev + "/info.json.*[0-9]")[0]))["rank_id"]))
    tl = dev + "/timeline"
    ops = [e for f in glob.glob(tl + "/task_time_*.json") for e in json.load(open(f))
           if e.get("ph") == "X" and not re.fullmatch(r"[A-Z0-9_]+", e["name"])]
    ck = [e for f in glob.glob(tl + "/hccl_*.json") for e in json.load(open(f)) if e.get("ph") == "X" and e["tid"] == 70000]
    k = json.load(open("%s/rank_%d/kernels.json" % (A, r)))
    ov = json.load(open("%s/rank_%d/overview.json" % (A, r)))
    want_k = round(sum(e["dur"] for e in ops + ck), 3)
    calls = sum(x["calls"] for x in k["by_name"])
    # the steps: one per "Iteration <k>" of the Step Trace plane (every
    # step_trace file of a rank is a copy: 10 iterations on the fixture)
    its = {}
    for f in glob.glob(tl + "/step_trace_*.json"):
        for e in json.load(open(f)):
            if e.get("ph") == "X" and re.fullmatch(r"Iteration \d+", e["name"]):
                its[int(e["name"].split()[1])] = (e["ts"], e["dur"])
    # communication per step: the collectives clipped to the iteration
    # (they never overlap each other), averaged over the steps
    clip = lambda a, b: sum(max(0, min(b, e["ts"] + e["dur"]) - max(a, e["ts"])) for e in ck)
    want_c = round(sum(clip(ts, ts + d) for ts, d in its.values()) / len(its), 3)
    got_steps = [(int(s["name"]), s["total_us"]) for s in ov["steps"]]
    for name, cond in (("rank %d: %d kernels, %.3f us (ops + collectives)" % (r, len(ops) + len(ck), want_k),
                        abs(k["total_us"] - want_k) < 0.01 and calls == len(ops) + len(ck)),
                       ("rank %d: %d steps (%d..%d) from the Step Trace plane, steps_from msprof_step_trace" % (r, len(its), min(its), max(its)),
                        len(its) == 10 and [n for n, _ in got_steps] == sorted(its) and ov.get("steps_from") == "msprof_step_trace"),
                       ("rank %d: each step lasts its iteration (Iteration 1: %.2f us)" % (r, its[1][1]),
                        len(got_steps) == len(its) and all(n in its and abs(t - its[n][1]) < 0.01 for n, t in got_steps)),
                       ("rank %d: overview communication %.3f us per step, NPU" % (r, want_c),
                        abs(ov["average"]["communication_us"] - want_c) < 0.01 and ov["gpus"][0]["kind"] == "NPU"),
                       ("rank %d: the communication advice (%.1f%% of the step) speaks of HCCL and MindSpore, not NCCL" % (r, 100 * want_c / ov["average"]["total_us"]),
                        [x["text"].count("%.1f%% of the step time is in HCCL communication" % (100 * want_c / ov["average"]["total_us"])) + x["text"].count("all_reduce_fusion_config") - x["text"].count("NCCL")
                         for x in ov["recommendations"] if x["id"] == "communication"] == [2])):
        print(("PASS " if cond else "FAIL ") + name)
        ok = ok and cond
sys.exit(0 if ok else 1)
PY
rck=$?
cat "$TMP/k.txt"
passes=$((passes + $(grep -c '^PASS' "$TMP/k.txt")))
fails=$((fails + $(grep -c '^FAIL' "$TMP/k.txt")))
[ "$rck" = 0 ] || [ "$(grep -c '^FAIL' "$TMP/k.txt")" != 0 ] || fail "the kernel checks did not run"

# ---- --steps on the rank workers: the steps are the Step Trace's iterations ------
"$NNSCOPE" analyse "$D" --steps 3-5 --out "$TMP/s35" >"$TMP/s35.txt" 2>&1
for r in 0 1; do
	check_q "analyse --steps 3-5: rank_$r keeps steps 3, 4, 5" \
		jqt "$TMP/s35/profiler/msprof/rank_$r/overview.json" '[.steps[].name] == ["3","4","5"] and .steps_from == "msprof_step_trace"'
done
# Iteration 3 of rank 0 (step_trace_0_2_*.json): dur 15304.02 us
check_q "analyse --steps 3-5: rank_0 step 3 lasts Iteration 3's 15304.02 us" \
	jqt "$TMP/s35/profiler/msprof/rank_0/overview.json" '.steps[0].total_us == 15304.02'

# ---- export: the planes, per rank --------------------------------------------------
"$NNSCOPE" export "$D" -o "$TMP/detail.json" --detail -q
"$NNSCOPE" export "$D" -o "$TMP/summary.json" --summary -q
"$NNSCOPE" export "$D" -o "$TMP/apart.json" --summary --subgraphs-apart -q
"$NNSCOPE" export "$D" -o "$TMP/sg2.json" --subgraph 2 -q
"$NNSCOPE" export "$D" -o "$TMP/r1.json" --rank 1 -q
"$NNSCOPE" export "$D" -o "$TMP/w0.json" --worker rank_0 -q

# the expectations: straight from the files and upstream's asserts
python3 - "$D" "$EXP" "$TMP" >"$TMP/py.txt" 2>&1 <<'PY'
import glob, json, os, re, sys
D, EXP, T = sys.argv[1:4]
ok = True
def check(name, cond):
    global ok
    print(("PASS " if cond else "FAIL ") + name)
    ok = ok and cond
exp = json.load(open(EXP))["st/func/profiler/test_msprof_timeline_analyser.py"]["entries"]
def asserted(fn, what):
    for e in exp:
        if e["function"] == fn and e["assert"].startswith("assert " + what):
            return eval(e["assert"].split("==", 1)[1])
# per rank: the files
ranks = {}
for prof in sorted(glob.glob(D + "/PROF_*")):
    dev = glob.glob(prof + "/device_*")[0]
    info = json.load(open(glob.glob(dev + "/info.json.*[0-9]")[0]))
    st = json.load(open(glob.glob(dev + "/start_info.*[0-9]")[0]))
    off = int(st["collectionTimeBegin"]) * 1000 - int(st["clockMonotonicRaw"])
    ranks[int(info["rank_id"])] = (dev + "/timeline", off)
def load(p): return json.load(open(p))
def names(d, what): return sorted(e["args"]["name"] for e in d if e.get("ph") == "M" and e["name"] == what)
def plane(d, pname):
    pids = {e["pid"] for e in d if e.get("ph") == "M" and e["name"] == "process_name" and e["args"]["name"] == pname}
    ev = [e for e in d if e.get("ph") != "M" and e["pid"] in pids]
    return len(ev), round(sum(e.get("dur", 0) for e in ev), 3)
det, summ, apart = load(T + "/detail.json"), load(T + "/summary.json"), load(T + "/apart.json")
check("detail: upstream's process names", names(det, "process_name") == asserted("test_get_detail_timeline", "process_names"))
fix = lambda l: sorted(x.replace("OverLapped", "Overlapped") for x in l)
check("detail: upstream's thread names", names(det, "thread_name") == fix(asserted("test_get_detail_timeline", "thread_names")))
check("summary: upstream's process names", names(summ, "process_name") == asserted("test_get_summary_timeline", "process_names"))
check("summary: upstream's thread names", names(summ, "thread_name") == fix(asserted("test_get_summary_timeline", "thread_names")))
opt = asserted("test_get_timeline_option", "result")
models = sorted({int(os.path.basename(f).split("_")[3]) for r in ranks.values() for f in glob.glob(r[0] + "/step_trace_*.json")})
check("option values: ranks %s, sub-graphs %s" % (sorted(ranks), models), opt == {"rank_list": sorted(ranks), "model_list": models})
for r, (tl, off) in sorted(ranks.items()):
    st = [e for e in load(sorted(glob.glob(tl + "/step_trace_*.json"))[0]) if e.get("ph") != "M"]
    ms = [e for f in glob.glob(tl + "/msprof_*.json") for e in load(f)
          if e.get("ph") != "M" and e.get("name") in ("Computing", "Communication", "Communication(Not Overlapped)", "Free")]
    tt = [e for f in glob.glob(tl + "/task_time_*.json") for e in load(f) if e.get("ph") != "M"]
    hc = [e for f in glob.glob(tl + "/hccl_*.json") for e in load(f) if e.get("ph") != "M"]
    s = lambda ev: (len(ev), round(sum(e.get("dur", 0) for e in ev), 3))
    for pname, ev in (("Step Trace", st), ("Overlap Analysis", ms), ("Ascend Hardware", tt), ("HCCL", hc)):
        want = s(ev)
        check("rank %d %s: %d events, %.3f us" % (r, pname, want[0], want[1]), plane(det, "%s rank%d" % (pname, r)) == want)
    for k in ("Computing", "Communication", "Communication(Not Overlapped)", "Free"):
        want = s([e for e in ms if e["name"] == k])
        got = s([e for e in det if e.get("ph") != "M" and e["name"] == k and str(e["pid"]).endswith(str(r)) and e["pid"] == int(re.sub(r"\D", "", str(ms[0]["pid"])) + str(r))])
        check("rank %d overlap %s: %d events, %.3f us" % (r, k, want[0], want[1]), got == want)
    check("rank %d summary: Step Trace and Overlap Analysis only, as in detail" % r,
          plane(summ, "Step Trace rank%d" % r) == s(st) and plane(summ, "Ascend Hardware rank%d" % r) == (0, 0))
    # ts moved exactly: the first iteration
    it = [e for e in st if e.get("name") == "Iteration 1"][0]
    want_ts = round(it["ts"] * 1000) + off
    got = [e for e in det if e.get("name", "").endswith(" Iteration 1") and e["pid"] == int("%d%d" % (it["pid"], r))]
    check("rank %d: Iteration 1 at ts %d ns (+ start_info offset), named 'Model ID:<m> Iteration 1'" % (r, want_ts),
          len(got) == 1 and round(got[0]["ts"] * 1000) // 1000 == want_ts // 1000 and got[0]["name"].startswith("Model ID:"))
# sub-graphs apart: the file's own thread names
check("apart: Step Trace threads are 'Model ID:<m>'", [x for x in names(apart, "thread_name") if x.startswith("Model")] == ["Model ID:0", "Model ID:2"])
sg2 = load(T + "/sg2.json")
check("--subgraph 2: rank 1 (sub-graph 0) keeps no event", plane(sg2, "HCCL rank1") == (0, 0) and plane(sg2, "Step Trace rank1") == (0, 0)
      and plane(sg2, "HCCL rank0") == plane(det, "HCCL rank0"))
r1, w0 = load(T + "/r1.json"), load(T + "/w0.json")
check("--rank 1: rank 1 only", names(r1, "process_name") == [x for x in names(det, "process_name") if x.endswith("rank1")])
check("--worker rank_0: rank 0 only", names(w0, "process_name") == [x for x in names(det, "process_name") if x.endswith("rank0")])
sys.exit(0 if ok else 1)
PY
rc=$?
cat "$TMP/py.txt"
passes=$((passes + $(grep -c '^PASS' "$TMP/py.txt")))
fails=$((fails + $(grep -c '^FAIL' "$TMP/py.txt")))
[ "$rc" = 0 ] || [ "$(grep -c '^FAIL' "$TMP/py.txt")" != 0 ] || fail "the python checks did not run"

# ---- nnscope serve: the Trace view of a rank -------------------------------------------
if command -v curl >/dev/null; then
	LOG=$TMP/logdir
	mkdir -p "$LOG"
	cp -r "$D" "$LOG/profiler"
	e2e_serve "$LOG" --cache-dir "$TMP/cache" || echo "    the server did not start: $(cat "$SERVE_OUT.err")"
	for _ in $(seq 300); do
		c=$(curl -s -o "$TMP/meta.json" -w '%{http_code}' \
			"http://127.0.0.1:$PORT/api/trace/meta?run=profiler/msprof&worker=rank_0" || echo 000)
		[ "$c" = 202 ] || break
		sleep 0.2
	done
	check "serve: /api/trace/meta of rank_0 answers 200" test "$c" = 200
	check_q "serve: rank_0's tracks are grouped by the planes' names" \
		jqt "$TMP/meta.json" '([.tracks[].group] | unique) == ["Ascend Hardware rank0","HCCL rank0","Overlap Analysis rank0","Step Trace rank0"]'
	check_q "serve: rank_0's stream tracks keep their names" \
		jqt "$TMP/meta.json" '[.tracks[] | select(.group == "Ascend Hardware rank0") | .name] | index("Thread 2 (Stream 2)") != null'
	# the trace API's timeline views (issue 22 item 1: the Trace view's controls)
	tmeta() {
		for _ in $(seq 300); do
			c=$(curl -s -o "$TMP/meta2.json" -w '%{http_code}' \
				"http://127.0.0.1:$PORT/api/trace/meta?run=profiler/msprof&worker=rank_0&timeline=$1" || echo 000)
			[ "$c" = 202 ] || break
			sleep 0.2
		done
	}
	check_q "serve: the default meta offers rank 0, sub-graph 2, view detail/merged/all" \
		jqt "$TMP/meta.json" '.msprof == {"rank":0,"models":[2],"view":"detail/merged/all"}'
	tmeta summary
	check_q "serve: timeline=summary keeps Step Trace and Overlap Analysis only" \
		jqt "$TMP/meta2.json" '([.tracks[].group] | unique) == ["Overlap Analysis rank0","Step Trace rank0"] and .msprof.view == "summary/merged/all"'
	tmeta summary/apart/2
	check_q "serve: timeline=summary/apart/2: the Step Trace thread 'Model ID:2' and its steps" \
		jqt "$TMP/meta2.json" '[.tracks[] | select(.group == "Step Trace rank0") | .name] == ["Thread 10036 (Model ID:2)","Thread steps (Model ID:2)"]'
	tmeta summary/merged/0
	check_q "serve: timeline=summary/merged/0: rank 0 has no sub-graph 0, so no Overlap Analysis" \
		jqt "$TMP/meta2.json" '[.tracks[] | select(.group == "Overlap Analysis rank0")] == []'
	tmeta bogus
	check "serve: timeline=bogus answers 400" test "$c" = 400
	kill "$SPID" 2>/dev/null || true
	wait "$SPID" 2>/dev/null || true
fi
e2e_summary
