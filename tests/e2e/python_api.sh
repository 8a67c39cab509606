#!/usr/bin/env bash
# python_api.sh - end-to-end test of the Python module without torch
# (build/python/nnscope for /usr/bin/python3): Profiler as a context
# manager, nnscope.range as context manager and decorator, step(),
# analyse() and Profiler.offline_analyse() produce the analysis files,
# start/stop rules, StopAtStep, and bad options raise ValueError with the
# reason, never crash the interpreter.
#
#   NNSCOPE=build/nnscope bash tests/e2e/python_api.sh
set -euo pipefail

# shellcheck source=lib/common.bash
. "$(dirname "$0")/lib/common.bash"
BUILD=$(cd "$(dirname "$NNSCOPE")" && pwd)
PYTHON=${PYTHON:-/usr/bin/python3}
e2e_python "$BUILD"
e2e_need jq

e2e_setup python_api.sh nnscope-py
unset NNSCOPE_OPTIONS MS_PROFILER_OPTIONS NNSCOPE_BIN

SHARED=${NNS_SHARED:-$(cd "$(dirname "$0")/../.." && pwd)/../shared}
export MS_RUN1=$SHARED/data/mindinsight/run_1
cd "$TMP"
rc=0
"$PYTHON" - "$TMP" <<'PY' || rc=$?
import glob
import json
import os
import subprocess
import sys
import time
import warnings

import nnscope

tmp = sys.argv[1]
passes = fails = 0


def check(name, cond, detail=""):
    global passes, fails
    if cond:
        passes += 1
        print("PASS", name)
    else:
        fails += 1
        print("FAIL", name, detail)


def raises(exc, fn, *a, **kw):
    try:
        fn(*a, **kw)
    except exc as e:
        return str(e)
    except Exception as e:  # the wrong exception type
        return None if exc is None else "WRONG %s: %s" % (type(e).__name__, e)
    return None


def overview(d):
    f = sorted(glob.glob(os.path.join(d, "**", "overview.json"),
                         recursive=True))
    return json.load(open(f[0])) if f else None


check("NNSCOPE_BIN points at the build tree",
      os.environ.get("NNSCOPE_BIN", "").endswith("nnscope"),
      os.environ.get("NNSCOPE_BIN"))

# ---- context manager, ranges, steps, analyse ---------------------------
STEPS = 5
run1 = os.path.join(tmp, "run1")


@nnscope.range("load_batch")
def load_batch(i):
    time.sleep(0.002)
    return i


@nnscope.range()
def compute(i):
    s = 0
    for k in range(20000):
        s += k * i
    return s


with nnscope.Profiler(output_path=run1, cpu_sampling_interval_ms=20) as prof:
    check("started inside with", prof.started)
    for i in range(STEPS):
        with nnscope.range("enumerate(DataLoader)#PyLoader.__next__"):
            load_batch(i)
        with nnscope.range("aten::compute"):
            compute(i)
        nnscope.queue("py_queue", i % 3, 4)
        nnscope.counter("loss", 1.0 / (i + 1))
        nnscope.mark("tick")
        prof.step()
    check("step_num counts steps", prof.step_num == STEPS, prof.step_num)
    check("no events lost", prof.lost_events() == 0)
    out = prof.analyse()
    check("analyse() returns <output_path>/analysis",
          out == os.path.join(run1, "analysis"), out)
    ov = overview(out)
    check("analyse() wrote overview.json", ov is not None)
    if ov:
        check("overview has %d steps" % STEPS, len(ov["steps"]) == STEPS,
              len(ov["steps"]))
        check("DataLoader time from the range",
              ov["average"]["dataloader_us"] > 1000, ov["average"])
    check("analyse() stopped collection", not prof.started)
check("closed after with", "closed" in repr(prof))
check("a closed profiler raises RuntimeError",
      raises(RuntimeError, prof.step) is not None)
check("trace file written", glob.glob(os.path.join(run1, "**", "*.nnst"),
                                      recursive=True) != [])

# ---- offline_analyse --------------------------------------------------------
out2 = nnscope.Profiler.offline_analyse(run1)
check("offline_analyse() wrote overview.json", overview(out2) is not None)
check("offline_analyse() of a missing directory: FileNotFoundError",
      raises(FileNotFoundError, nnscope.Profiler.offline_analyse,
             os.path.join(tmp, "nope")) is not None)

# ---- start/stop rules (MindSpore) ------------------------------------------------
p = nnscope.Profiler(output_path=os.path.join(tmp, "run2"), start=False)
check("start=False: not collecting", not p.started)
check("stop() before start(): RuntimeError",
      raises(RuntimeError, p.stop) is not None)
p.start()
check("start() twice: RuntimeError", raises(RuntimeError, p.start) is not None)
with nnscope.range("aten::only_while_on"):
    pass
p.step()
p.stop()
p.close()
p.close()  # idempotent
check("start_profile alias", not nnscope.Profiler(
    output_path=os.path.join(tmp, "run3"), start_profile=False).started)

# ---- StopAtStep: steps 3..5 of 8 --------------------------------------------------
cb = nnscope.StopAtStep(3, 5, output_path=os.path.join(tmp, "run4"))
for i in range(8):
    cb.step_begin()
    with nnscope.range("aten::work"):
        time.sleep(0.001)
    cb.step_end()
cb.end()
ov = overview(os.path.join(tmp, "run4", "analysis"))
check("StopAtStep(3, 5) collected 3 steps",
      ov is not None and len(ov["steps"]) == 3,
      ov and [s["name"] for s in ov["steps"]])

# the steps keep their numbers (issue 22): step N is ProfilerStep#N-1, so
# StopAtStep(3, 5) records 2, 3, 4 and step_list=[3, 4] selects two of them
check("StopAtStep(3, 5) keeps the step numbers 2-4",
      ov is not None and [s["name"] for s in ov["steps"]] == ["2", "3", "4"],
      ov and [s["name"] for s in ov["steps"]])
with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # run4/analysis's files are not traces
    sel = nnscope.Profiler.offline_analyse(os.path.join(tmp, "run4"), step_list=[3, 4],
                                           out=os.path.join(tmp, "run4sel"))
ov = overview(sel)
check("step_list=[3, 4] after StopAtStep(3, 5): steps 3 and 4",
      ov is not None and [s["name"] for s in ov["steps"]] == ["3", "4"],
      ov and [s["name"] for s in ov["steps"]])

# op_analyse of a name no table has: a ValueError naming it, not {}
msg = raises(ValueError, nnscope.op_analyse, os.path.join(tmp, "run4", "analysis"),
             "forward")
check("op_analyse('forward'): ValueError naming it",
      msg is not None and "'forward'" in msg and "aten::work" in msg, msg)
rows = nnscope.op_analyse(os.path.join(tmp, "run4", "analysis"), "aten::work")
check("op_analyse('aten::work'): its row (3 calls)",
      rows.get("aten::work", {}).get("calls") == 3, rows)


# analyse(mode="async") leaves no pipe open in this process
def pipes():
    n = 0
    for fd in os.listdir("/proc/self/fd"):
        try:
            n += os.readlink("/proc/self/fd/" + fd).startswith("pipe:")
        except OSError:
            pass
    return n


p = nnscope.Profiler(output_path=os.path.join(tmp, "run7"))
with nnscope.range("aten::work"):
    time.sleep(0.001)
p.step()
before = pipes()
with warnings.catch_warnings():
    warnings.simplefilter("error", ResourceWarning)
    out = p.analyse(mode="async")
    during = pipes()
    rc7 = p.analysis_process.wait()
    del p
check("analyse(mode='async'): no pipe left open (%d before, %d during)"
      % (before, during), during == before and rc7 == 0)
check("analyse(mode='async'): the analysis is written",
      overview(out) is not None)

# MindSpore's op_analyse takes a primitive operator type: on run_1 MatMul is
# the AI Core by-type row (2807.82 us, 25 calls, test_op_analyser.py's
# first row) with its operators
ms = os.environ.get("MS_RUN1")
if ms and os.path.isdir(ms):
    out = nnscope.offline_analyse(ms, out=os.path.join(tmp, "ms1"))
    rows = nnscope.op_analyse(out, "MatMul")
    r = rows.get("MatMul", {})
    check("op_analyse('MatMul') on run_1: 2807.82 us, 25 calls, its ops",
          r.get("total_time_us") == 2807.82 and r.get("execution_frequency") == 25
          and len(r.get("ops", [])) > 0
          and all(o["kernel_type"] == "MatMul" for o in r["ops"]), r)
    out = nnscope.offline_analyse(ms, out=os.path.join(tmp, "ms2"), step_list=[3, 4])
    ov = overview(out)
    check("step_list=[3, 4] on MindSpore run_1: steps 3 and 4",
          ov is not None and [s["name"] for s in ov["steps"]] == ["3", "4"],
          ov and [s["name"] for s in ov["steps"]])
else:
    print("SKIP MindSpore op_analyse: no shared/data/mindinsight/run_1")

# ---- bad options: ValueError with the reason ----------------------------------
bad = [dict(bogus=1), dict(timeline_limit=0), dict(timeline_limit="big"),
       dict(profile_framework="everything"), dict(start="yes"),
       dict(cpu_sampling_interval_ms=-5), dict(start_step=5, stop_step=2),
       dict(schedule=dict(wait=-1)), dict(output_path="")]
for kw in bad:
    msg = raises(ValueError, nnscope.Profiler, **kw)
    check("ValueError for %r" % (kw,), msg is not None and
          not msg.startswith("WRONG"), msg)
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    nnscope.Profiler(output_path=os.path.join(tmp, "run5"), l2_cache=True,
                     start=False).close()
check("Ascend-only argument: a warning, not an error", len(w) == 1)

# options the library rejects (from the environment): ValueError too
env = dict(os.environ, NNSCOPE_OPTIONS='{"timeline_limit": "many"}')
r = subprocess.run([sys.executable, "-c",
                    "import nnscope\ntry:\n nnscope.Profiler()\n"
                    "except ValueError as e:\n print('VE', e)"],
                   env=env, capture_output=True, text=True, cwd=tmp)
check("bad NNSCOPE_OPTIONS: ValueError with the library's reason",
      r.returncode == 0 and r.stdout.startswith("VE "), r.stdout + r.stderr)

# an unwritable output path: an exception, not a crash
msg = raises(Exception, nnscope.Profiler, output_path="/proc/nnscope/x")
check("unwritable output_path raises", msg is not None, msg)

# analyse() without the nnscope program: FileNotFoundError, no crash
env = dict(os.environ, NNSCOPE_BIN=os.path.join(tmp, "no-such-nnscope"),
           PATH="/usr/bin:/bin")
code = ("import nnscope\np = nnscope.Profiler(output_path='run6')\n"
        "p.step()\ntry:\n p.analyse()\nexcept FileNotFoundError as e:\n"
        " print('FNF', e)\n")
r = subprocess.run([sys.executable, "-c", code], env=env,
                   capture_output=True, text=True, cwd=tmp)
check("analyse() without nnscope: FileNotFoundError",
      r.returncode == 0 and "FNF" in r.stdout, r.stdout + r.stderr)

# event calls with wrong arguments: TypeError, not a crash
check("push(str): TypeError",
      raises(TypeError, nnscope._nnscope.push, "x") is not None)
check("range(42): TypeError", raises(TypeError, nnscope.range, 42) is not None)

print("%d passed, %d failed" % (passes, fails))
sys.exit(1 if fails else 0)
PY
exit $rc
