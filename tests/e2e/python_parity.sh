#!/usr/bin/env bash
# python_parity.sh - MindSpore Profiler parity of the Python module (issue
# 9, seed 004): analyse(step_list=...) analyses only those steps (values
# equal to the full analysis's), pretty=True indents the JSON, mode="async"
# returns at once and finishes in a child process, an unknown mode warns and
# runs sync, bad step_list values raise; analyse() on a live profiler stops
# and flushes first (no "crashed" warning); op_analyse() returns the operator
# rows by name and refuses bad arguments; offline_analyse(step_list=...).
# The `nnscope analyse --steps/--pretty` options underneath are checked too.
#
#   NNSCOPE=build/nnscope bash tests/e2e/python_parity.sh
set -euo pipefail

# shellcheck source=lib/common.bash
. "$(dirname "$0")/lib/common.bash"
BUILD=$(cd "$(dirname "$NNSCOPE")" && pwd)
PYTHON=${PYTHON:-/usr/bin/python3}
e2e_python "$BUILD"
e2e_setup python_parity.sh nnscope-parity
unset NNSCOPE_OPTIONS MS_PROFILER_OPTIONS NNSCOPE_BIN
cd "$TMP"
"$PYTHON" - "$TMP" "$NNSCOPE" <<'PY'
import glob, json, os, subprocess, sys, time, warnings
import nnscope

tmp, nns = sys.argv[1], sys.argv[2]
fails = 0
def check(name, cond, detail=""):
    global fails
    print(("PASS " if cond else "FAIL ") + name + ("" if cond else " " + str(detail)))
    fails += 0 if cond else 1
def raises(exc, fn, *a, **k):
    try:
        fn(*a, **k)
    except exc:
        return True
    except Exception as e:
        print("   raised", type(e).__name__, e)
    return False
def overview(out):
    f = sorted(glob.glob(out + "/**/overview.json", recursive=True))
    return (json.load(open(f[0])), f[0]) if f else (None, None)

def record(path, n=8):
    # step i sleeps 2*(i+1) ms inside an operator-like range
    p = nnscope.Profiler(output_path=path, cpu_sampling_interval_ms=0)
    for i in range(n):
        with nnscope.range("aten::mm"):
            time.sleep(0.002 * (i + 1))
        p.step()
    return p

# full analysis of a closed run, for reference
p = record(os.path.join(tmp, "full"))
p.close()
full = subprocess.run([nns, "analyse", os.path.join(tmp, "full"), "--out", os.path.join(tmp, "full.out"), "-q"], check=True)
fdoc, _ = overview(os.path.join(tmp, "full.out"))
fsteps = {s["name"]: s["total_us"] for s in fdoc["steps"]}
check("full analysis: 8 steps", len(fsteps) == 8, fsteps)

# analyse(step_list) on a live profiler
p = record(os.path.join(tmp, "live"))
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    out = p.analyse(step_list=[5, 3, 4], pretty=True)
doc, path = overview(out)
names = [s["name"] for s in doc["steps"]]
check("analyse(step_list=[5,3,4]): steps 3, 4, 5 only", names == ["3", "4", "5"], names)
# step N sleeps 2*(N+1) ms (steps are numbered from 0): 8, 10, 12 ms at least
check("analyse(step_list): each step at least its sleep",
      all(s["total_us"] >= 2000 * (int(s["name"]) + 1) for s in doc["steps"]), doc["steps"])
ops = json.load(open(os.path.join(os.path.dirname(path), "operators.json")))
mm = [r for r in ops["by_name"] if r["name"] == "aten::mm"]
check("analyse(step_list): aten::mm called 3 times in steps 3-5", mm and mm[0]["calls"] == 3, mm)
check("analyse(pretty=True): steptrace.json indented at every level",
      '\n      "name"' in open(os.path.join(os.path.dirname(path), "steptrace.json")).read())
check("analyse() on a live profiler: no 'crashed' warning",
      not any("crash" in str(x.message) or "END chunk" in str(x.message) for x in w),
      [str(x.message) for x in w])
check("analyse() closed the profiler", not p.started)
# op_analyse
r = p.op_analyse(["aten::mm", "aten::nothing"])
check("op_analyse: the aten::mm row, nothing else", list(r) == ["aten::mm"] and r["aten::mm"]["calls"] == 3, r)
r = p.op_analyse("aten::mm")
check("op_analyse(str)", "aten::mm" in r)
check("op_analyse(5): TypeError", raises(TypeError, p.op_analyse, 5))
check("op_analyse([]): TypeError", raises(TypeError, p.op_analyse, []))
check("op_analyse(device_id='0'): TypeError", raises(TypeError, p.op_analyse, "aten::mm", "0"))
check("op_analyse(device_id=7): ValueError (no such worker)", raises(ValueError, p.op_analyse, "aten::mm", 7))
check("op_analyse(device_id=0) on a one-worker run without ranks: that worker",
      p.op_analyse("aten::mm", 0)["aten::mm"]["calls"] == 3)
# a run with rank metadata: device_id picks it
r2 = nnscope.Profiler(output_path=os.path.join(tmp, "ranked"), cpu_sampling_interval_ms=0)
r2.set_metadata("rank", "3")
with nnscope.range("aten::add"):
    pass
r2.step()
r2.analyse()
check("op_analyse(device_id=3) with rank metadata 3", "aten::add" in r2.op_analyse("aten::add", 3))
check("op_analyse(device_id=0) with rank metadata 3: ValueError", raises(ValueError, r2.op_analyse, "aten::add", 0))

# bad step_list
q = nnscope.Profiler(output_path=os.path.join(tmp, "bad"), cpu_sampling_interval_ms=0)
q.step()
check("step_list=(1,2): TypeError", raises(TypeError, q.analyse, step_list=(1, 2)))
check("step_list=[1,'2']: TypeError", raises(TypeError, q.analyse, step_list=[1, "2"]))
check("step_list=[1,3]: ValueError (not consecutive)", raises(ValueError, q.analyse, step_list=[1, 3]))
check("step_list=[40,41]: RuntimeError naming the steps the run has",
      raises(RuntimeError, q.analyse, step_list=[40, 41]))
q.close()

# async
p = record(os.path.join(tmp, "async"), n=4)
t0 = time.time()
out = p.analyse(mode="async")
check("analyse(mode='async') returns a running process", p.analysis_process is not None)
rc = p.analysis_process.wait(timeout=60)
check("async analysis exits 0", rc == 0, rc)
doc, _ = overview(out)
check("async analysis wrote overview.json with 4 steps", doc and len(doc["steps"]) == 4)

# unknown mode
p = record(os.path.join(tmp, "mode"), n=2)
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    out = p.analyse(mode="later")
check("analyse(mode='later') warns and runs sync",
      any("mode" in str(x.message) for x in w) and overview(out)[0] is not None)

# offline_analyse with step_list and pretty
out = nnscope.Profiler.offline_analyse(os.path.join(tmp, "full"), pretty=False, step_list=[6, 7])
doc, path = overview(out)
names = [s["name"] for s in doc["steps"]]
check("offline_analyse(step_list=[6,7]): steps 6, 7", names == ["6", "7"], names)
check("offline_analyse(step_list): step values equal the full analysis's",
      all(abs(s["total_us"] - fsteps[s["name"]]) < 1e-6 for s in doc["steps"]),
      (doc["steps"], fsteps))
# the default layout indents the top level only; --pretty every level
steptrace = os.path.join(os.path.dirname(path), "steptrace.json")
check("offline_analyse(pretty=False): steptrace.json rows on one line each", '\n      "name"' not in open(steptrace).read())
sys.exit(1 if fails else 0)
PY
rc=$?

# the CLI underneath
fails=0
"$NNSCOPE" analyse "$TMP/full" --out "$TMP/o1" --steps 2,3,4 -q
n=$(jq '[.steps[].name] == ["2","3","4"]' "$TMP"/o1/*/overview.json)
[ "$n" = true ] && echo "PASS analyse --steps 2,3,4" || { echo "FAIL analyse --steps 2,3,4"; fails=1; }
set +e
"$NNSCOPE" analyse "$TMP/full" --out "$TMP/o2" --steps 4-2 2>"$TMP/e"; r=$?
[ $r -eq 2 ] && grep -q "before the first" "$TMP/e" && echo "PASS --steps 4-2: usage error" || { echo "FAIL --steps 4-2 ($r)"; fails=1; }
"$NNSCOPE" analyse "$TMP/full" --out "$TMP/o2" --steps x 2>"$TMP/e"; r=$?
[ $r -eq 2 ] && echo "PASS --steps x: usage error" || { echo "FAIL --steps x ($r)"; fails=1; }
"$NNSCOPE" analyse "$TMP/full" --out "$TMP/o2" --steps 50-60 2>"$TMP/e"; r=$?
[ $r -eq 1 ] && grep -q "has steps 0-7" "$TMP/e" && echo "PASS --steps 50-60: names the steps the trace has" || { echo "FAIL --steps 50-60 ($r): $(cat "$TMP/e")"; fails=1; }
set -e
[ $rc -eq 0 ] && [ $fails -eq 0 ]
