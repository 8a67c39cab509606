#!/usr/bin/env bash
# python_torch_zero.sh - `nnscope run` on a PyTorch script that does not
# import nnscope (zero-code PyTorch: python/nnscope_site/sitecustomize.py
# starts python/nnscope/zero.py when torch is imported):
#   - the losses are bit-identical to a plain run's (an observer only);
#   - the analysis shows one step per optimizer step (ProfilerStep#k);
#   - the operator names and call counts in those steps equal what
#     torch.profiler records over the same steps of the same script, run
#     separately; the expectation is computed here from torch.profiler's
#     exported trace with python, by the rules named below;
#   - the DataLoader waits (a dataset that sleeps 2 ms per sample) are in
#     the data-pipeline view, every step;
#   - the script runs with `python -m`, with a sitecustomize of its own on
#     PYTHONPATH (it still runs: it writes a marker), and with forking
#     DataLoader workers (same losses and steps; the workers record their
#     operators in their own traces and no steps);
#   - --no-torch records no operator; a program that never imports torch
#     gets no torch event, no nnscope import and no message.
# Skips (exit 0) with a message when torch does not import for
# /usr/bin/python3 (Debian's python3-torch 1.13, CPU).
#
#   NNSCOPE=build/nnscope bash tests/e2e/python_torch_zero.sh
set -euo pipefail

# shellcheck source=lib/common.bash
. "$(dirname "$0")/lib/common.bash"
BUILD=$(cd "$(dirname "$NNSCOPE")" && pwd)
PY=${PY:-/usr/bin/python3}
"$PY" -c 'import torch' >/dev/null 2>&1 ||
	e2e_skip "torch does not import for $PY (apt-get install python3-torch)"
e2e_built "make python" "$BUILD/python/nnscope_site/sitecustomize.py"
e2e_need jq sqlite3
e2e_setup python_torch_zero.sh nnscope-torchzero
e2e_clean_env
unset NNSCOPE_TORCH NNSCOPE_TORCH_OPS NNSCOPE_TORCH_SHIM PYTHONPATH
export XDG_CACHE_HOME=$TMP/cache # a shim built here stays here
STEPS=5

mkdir -p "$TMP/app" "$TMP/usersite"
cat >"$TMP/app/train.py" <<'PY'
"""A small training run that knows nothing of nnscope: a tiny MLP, SGD with
momentum, a DataLoader over a dataset that sleeps 2 ms per sample (4 per
batch). argv: STEPS [WORKERS [TRACE]]: with TRACE, torch.profiler (CPU)
records the loop, prof.step() after each optimizer step, and exports its
trace to TRACE. Prints the losses (hex)."""
import sys
import time

import torch


class Slow(torch.utils.data.Dataset):
    def __init__(self, n):
        g = torch.Generator().manual_seed(1)
        self.x = torch.randn(n, 16, generator=g)
        self.y = torch.randint(0, 4, (n,), generator=g)

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        time.sleep(0.002)
        return self.x[i], self.y[i]


steps = int(sys.argv[1])
workers = int(sys.argv[2]) if len(sys.argv) > 2 else 0
trace = sys.argv[3] if len(sys.argv) > 3 else None
torch.manual_seed(0)
torch.set_num_threads(1)
loader = torch.utils.data.DataLoader(Slow(steps * 4), batch_size=4,
                                     num_workers=workers)
model = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.ReLU(),
                            torch.nn.Linear(32, 4))
opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
loss_fn = torch.nn.CrossEntropyLoss()
losses = []
prof = None
it = iter(loader)
if trace:
    from torch.profiler import ProfilerActivity, profile
    prof = profile(activities=[ProfilerActivity.CPU])
    prof.start()
for x, y in it:
    opt.zero_grad()
    loss = loss_fn(model(x), y)
    loss.backward()
    losses.append(loss.item())
    opt.step()
    if prof is not None:
        prof.step()
if prof is not None:
    prof.stop()
    prof.export_chrome_trace(trace)
print(" ".join(v.hex() for v in losses))
PY
cat >"$TMP/usersite/sitecustomize.py" <<PY
open("$TMP/usersite.marker", "a").write("ran\n")
PY
# it works for 0.3 s of CPU, so that its process keeps a trace (a process
# that records nothing and uses under 100 ms of CPU leaves no file)
cat >"$TMP/app/notorch.py" <<'PY'
import json
import sys
import time
t = time.process_time()
while time.process_time() - t < 0.3:
    sum(range(1000))
print(json.dumps({"nnscope": "nnscope" in sys.modules, "torch": "torch" in sys.modules}))
PY

# zrun NAME [ENV=V...] -- NNSCOPE_RUN_ARGS... -- PYTHON_ARGS...: $PY under
# `nnscope run -o $TMP/NAME/run` from $TMP/app; stdout in $TMP/NAME.out,
# stderr in $TMP/NAME.err
zrun() {
	local name=$1 envs=() rargs=()
	shift
	while [ "$1" != -- ]; do envs+=("$1"); shift; done
	shift
	while [ "$1" != -- ]; do rargs+=("$1"); shift; done
	shift
	mkdir -p "$TMP/$name"
	if (cd "$TMP/app" && env "${envs[@]}" "$NNSCOPE" run -q -o "$TMP/$name/run" "${rargs[@]}" -- \
		"$PY" "$@" >"$TMP/$name.out" 2>"$TMP/$name.err"); then
		pass "$name: ran"
	else
		fail "$name: exit $?"
		sed 's/^/    /' "$TMP/$name.err" | tail -5
	fi
}
# analyse NAME [ARGS...]: the analysis of $TMP/NAME/run into $TMP/NAME/an;
# prints the (first) worker directory
analyse() {
	local name=$1
	shift
	"$NNSCOPE" analyse "$TMP/$name/run" --out "$TMP/$name/an" -q "$@" >"$TMP/$name.an" 2>&1 || return 1
	dirname "$(find "$TMP/$name/an" -name operators.json | sort | head -1)"
}

# (a) plain; (b) under nnscope run, with python -m and a sitecustomize of
# the user's; (c) under torch.profiler, separately
(cd "$TMP/app" && "$PY" train.py $STEPS >"$TMP/plain.out" 2>"$TMP/plain.err") ||
	fail "plain run: exit $?"
(cd "$TMP/app" && PYTHONPATH=$TMP/usersite "$PY" -c 'import sitecustomize' 2>/dev/null) &&
	check "control: the user's sitecustomize runs without nnscope" test -s "$TMP/usersite.marker"
rm -f "$TMP/usersite.marker"
zrun zero PYTHONPATH="$TMP/usersite" -- -- -m train $STEPS
check "sitecustomize on PYTHONPATH still runs under nnscope run" test -s "$TMP/usersite.marker"
check "zero: nothing on stderr" test ! -s "$TMP/zero.err"
check "losses under nnscope run are bit-identical to the plain run's" \
	test "$(cat "$TMP/zero.out")" = "$(cat "$TMP/plain.out")"
check "losses are $STEPS numbers" test "$(wc -w <"$TMP/plain.out")" = $STEPS
check "one trace file" test "$(find "$TMP/zero/run" -name '*.nnst' | wc -l)" = 1

W=$(analyse zero) || fail "nnscope analyse zero: $(tail -1 "$TMP/zero.an")"
if [ -n "${W:-}" ]; then
	check "$STEPS steps for $STEPS optimizer steps (overview)" jqt "$W/overview.json" "(.steps | length) == $STEPS"
	check "steps are named 0..$((STEPS - 1)) (ProfilerStep#k)" \
		jqt "$W/overview.json" "[.steps[].name] == [range($STEPS) | tostring]"
	check "data pipeline: DataLoader ranges seen" jqt "$W/datapipe.json" '.has_dataloader == true'
	check "data pipeline: every step waits >= 8 ms on the DataLoader (4 samples x 2 ms)" \
		jqt "$W/datapipe.json" "(.steps | length) == $STEPS and all(.steps[]; .wait_us >= 8000)"
	check "overview: DataLoader time in every step" \
		jqt "$W/overview.json" 'all(.steps[]; .dataloader_us >= 8000)'
fi

# torch.profiler's operators over the same steps. Rules, each one a known
# difference of where the steps are cut, not of what is recorded:
#   window  nnscope's steps run from the first batch request to the end of
#           the last optimizer step: the expectation counts the events that
#           start in [first enumerate(DataLoader) range, end of the last
#           Optimizer.step range] (the DataLoader's seed ops of iter() before
#           it and the last, StopIteration, request after it are in no step);
#   rf-handle torch 1.13's record_function() creates its handle with
#           torch.zeros(1) before the range begins: the aten::zeros (and its
#           aten::empty / aten::zero_) just before the first DataLoader
#           range is in nnscope's first step (it opens before __next__ runs);
#   steps   torch.profiler's own ProfilerStep#N ranges are not operators;
#   flake   torch 1.13's profiler now and then misses an operator event
#           (python_torch_rf.sh): when a count differs, two more
#           torch.profiler runs and the largest count of each name.
tprof() { # tprof K: torch.profiler run K; its trace $TMP/torch$K.json
	(cd "$TMP/app" && "$PY" train.py $STEPS 0 "$TMP/torch$1.json" >"$TMP/torch$1.out" 2>"$TMP/torch$1.err")
}
expect() { # expect TRACE...: "name<TAB>count" of the steps, largest over the traces
	"$PY" - "$@" <<'PY'
import collections
import json
import sys

best = collections.Counter()
for path in sys.argv[1:]:
    with open(path) as f:
        t = json.load(f)
    # Kineto's operator and record_function events (torch 2.x), or all
    # the events of the legacy profiler's trace (Debian's torch 1.13: no
    # categories)
    ev = [e for e in (t["traceEvents"] if isinstance(t, dict) else t)
          if e.get("ph") == "X"
          and e.get("cat") in (None, "cpu_op", "user_annotation")]
    dl = min((e for e in ev if e["name"].startswith("enumerate(DataLoader)#")),
             key=lambda e: e["ts"])
    lo = dl["ts"]
    hi = max(e["ts"] + e["dur"] for e in ev
             if e["name"].startswith("Optimizer.step#"))
    # rf-handle: the last aten::zeros before the first DataLoader range,
    # when nothing but its children starts between it and the range
    zs = [e for e in ev if e["name"] == "aten::zeros" and e["ts"] < lo]
    if zs:
        z = max(zs, key=lambda e: e["ts"])
        if not any(z["ts"] + z["dur"] + 1 < e["ts"] < lo for e in ev):
            lo = z["ts"]
    c = collections.Counter(e["name"] for e in ev if lo <= e["ts"] <= hi
                            and not e["name"].startswith("ProfilerStep#"))
    for k, v in c.items():
        best[k] = max(best[k], v)
for k in sorted(best):
    print("%s\t%d" % (k, best[k]))
PY
}
tprof 1 || fail "torch.profiler run: exit $?"
check "losses under torch.profiler are the plain run's too" \
	test "$(cat "$TMP/torch1.out")" = "$(cat "$TMP/plain.out")"
if [ -n "${W:-}" ] && [ -s "$TMP/torch1.json" ]; then
	# nnscope: operators.json of the steps (--steps), plus the DataLoader
	# and optimizer ranges the analysis shows in their own views, counted
	# in the steps' ProfilerStep ranges of the exported events
	"$NNSCOPE" analyse "$TMP/zero/run" --out "$TMP/zero/an_steps" -q --steps 0-$((STEPS - 1)) \
		>"$TMP/zero_steps.an" 2>&1 || fail "nnscope analyse --steps: $(tail -1 "$TMP/zero_steps.an")"
	Ws=$(dirname "$(find "$TMP/zero/an_steps" -name operators.json | head -1)")
	"$NNSCOPE" export "$TMP/zero/run" --format sqlite --out "$TMP/zero.db" >"$TMP/zero.exp" 2>&1 ||
		fail "nnscope export zero"
	{
		jq -r '.by_name[] | "\(.name)\t\(.calls)"' "$Ws/operators.json"
		sqlite3 -separator $'\t' "$TMP/zero.db" "SELECT e.name, count(*) FROM events e WHERE (e.name LIKE 'Optimizer.%' OR e.name LIKE 'enumerate(DataLoader)#%') AND EXISTS (SELECT 1 FROM events s WHERE s.name LIKE 'ProfilerStep#%' AND s.worker_id = e.worker_id AND s.ts_ns <= e.ts_ns AND e.ts_ns < s.ts_ns + s.dur_ns) GROUP BY e.name"
	} | LC_ALL=C sort >"$TMP/nnscope.ops"
	expect "$TMP/torch1.json" | LC_ALL=C sort >"$TMP/torch.ops"
	if ! diff -q "$TMP/torch.ops" "$TMP/nnscope.ops" >/dev/null; then
		echo "NOTE counts differ from torch.profiler run 1; two more runs (rule: flake)"
		tprof 2 || true
		tprof 3 || true
		expect "$TMP"/torch[123].json | LC_ALL=C sort >"$TMP/torch.ops"
	fi
	if diff "$TMP/torch.ops" "$TMP/nnscope.ops" >"$TMP/ops.diff"; then
		pass "operator names and call counts in the $STEPS steps equal torch.profiler's ($(wc -l <"$TMP/torch.ops") names)"
	else
		fail "operators differ from torch.profiler's (< torch.profiler, > nnscope):"
		grep '^[<>]' "$TMP/ops.diff" | sed 's/^/    /'
	fi
	for op in aten::linear aten::addmm AddmmBackward0 "Optimizer.step#SGD.step" \
		"enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__"; do
		check "$op: $STEPS or more calls in the steps" \
			awk -F'\t' -v n="$op" -v s=$STEPS '$1 == n && $2 >= s {ok = 1} END {exit !ok}' "$TMP/nnscope.ops"
	done
fi

# forking DataLoader workers: same losses and steps; the workers' traces
# hold their operators (the dataset's indexing) and no step
zrun workers -- -- train.py $STEPS 2
check "workers: losses bit-identical to the plain run's" \
	test "$(cat "$TMP/workers.out")" = "$(cat "$TMP/plain.out")"
check "workers: nothing on stderr" test ! -s "$TMP/workers.err"
if "$NNSCOPE" export "$TMP/workers/run" --format sqlite --out "$TMP/workers.db" >"$TMP/workers.exp" 2>&1; then
	main=$(sqlite3 "$TMP/workers.db" "SELECT worker_id FROM events WHERE name = 'Optimizer.step#SGD.step' LIMIT 1")
	check "workers: $STEPS ProfilerStep ranges in the training process" \
		test "$(sqlite3 "$TMP/workers.db" "SELECT count(*) FROM events WHERE name LIKE 'ProfilerStep#%' AND worker_id = '$main'")" = "$STEPS"
	# a process that marks no step is one step 0 from its start to its
	# end (the importer's default, from the collector's START bound)
	check "workers: no step derived in the worker processes (at most the default ProfilerStep#0)" \
		test "$(sqlite3 "$TMP/workers.db" "SELECT count(*) FROM events WHERE name LIKE 'ProfilerStep#%' AND name != 'ProfilerStep#0' AND worker_id != '$main'")" = 0
	check "workers: there are worker processes" \
		test "$(sqlite3 "$TMP/workers.db" "SELECT count(DISTINCT worker_id) FROM events WHERE worker_id != '$main'")" -ge 2
	check "workers: the worker processes recorded operators (aten::select of the dataset)" \
		test "$(sqlite3 "$TMP/workers.db" "SELECT count(DISTINCT worker_id) FROM events WHERE name = 'aten::select' AND worker_id != '$main'")" -ge 1
else
	fail "nnscope export workers"
fi

# a program that instruments itself (nnscope.torch.instrument(), as
# tests/gpu/resnet_compare.py does under `nnscope run`) replaces the
# zero-code instrumentation: each operator once, its own steps only
cat >"$TMP/app/self.py" <<PY
import sys
sys.path.insert(0, "$BUILD/python")
import torch
import nnscope
import nnscope.torch as nt
instr = nt.instrument(ops=True)
lin = torch.nn.Linear(4, 4)
opt = torch.optim.SGD(lin.parameters(), lr=0.1)
for _ in range(3):
    lin(torch.ones(2, 4)).sum().backward()
    opt.step()
instr.remove()
PY
zrun self -- -- self.py
check "self-instrumented: nothing on stderr" test ! -s "$TMP/self.err"
if "$NNSCOPE" export "$TMP/self/run" --format sqlite --out "$TMP/self.db" >"$TMP/self.exp" 2>&1; then
	check "self-instrumented: aten::linear recorded once per call (3)" \
		test "$(sqlite3 "$TMP/self.db" "SELECT count(*) FROM events WHERE name = 'aten::linear'")" = 3
	check "self-instrumented: no step derived from its optimizer" \
		test "$(sqlite3 "$TMP/self.db" "SELECT count(*) FROM events WHERE name LIKE 'ProfilerStep#%' AND name != 'ProfilerStep#0'")" = 0
else
	fail "nnscope export self"
fi

# --no-torch: no operator
zrun notorch_flag -- --no-torch -- train.py $STEPS
check "--no-torch: losses still the plain run's" test "$(cat "$TMP/notorch_flag.out")" = "$(cat "$TMP/plain.out")"
Wn=$(analyse notorch_flag) || fail "nnscope analyse notorch_flag"
[ -n "${Wn:-}" ] && check "--no-torch: 0 operators" jqt "$Wn/operators.json" '(.by_name | length) == 0'
# NNSCOPE_TORCH=0 in the environment does the same
zrun notorch_env NNSCOPE_TORCH=0 -- -- -c 'import torch, sys; print("nnscope" in sys.modules)'
check "NNSCOPE_TORCH=0: nnscope not imported with torch" test "$(cat "$TMP/notorch_env.out")" = False

# a program that never imports torch: no torch event, no import, no message
zrun plainpy -- -- notorch.py
check "no torch: the program imported neither nnscope nor torch" \
	test "$(cat "$TMP/plainpy.out")" = '{"nnscope": false, "torch": false}'
check "no torch: nothing on stderr" test ! -s "$TMP/plainpy.err"
Wp=$(analyse plainpy) || fail "nnscope analyse plainpy"
[ -n "${Wp:-}" ] && check "no torch: 0 operators, no steps" \
	jqt "$Wp/operators.json" '(.by_name | length) == 0'

e2e_summary
