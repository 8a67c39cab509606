#!/usr/bin/env bash
# python_torch_mem.sh - nnscope.torch(profile_memory=True) records torch's
# allocator events through the RecordFunction shim (no dispatch mode), the
# way torch.profiler(profile_memory=True) does, on the CPU CNN example
# (examples/pytorch/train_cnn.py's model and data), each run in its own
# process from the same seed:
#   - the backend is record_function, no warning;
#   - the number of allocation and free events equals torch.profiler's
#     "[memory]" events with bytes > 0 / < 0, the sequence of sizes is the
#     same, and the peak of the allocated total (memory.json, and the events'
#     total_allocated) equals the peak of torch.profiler's running sum;
#   - memory.json's per-operator size_increase of aten::conv2d, aten::addmm
#     and aten::max_pool2d_with_indices equals torch.profiler's
#     cpu_memory_usage for them (allocations tied to the operators that made
#     them); that of ConvolutionBackward0 equals the sum of the allocator
#     events on its thread within its calls, from the SQLite export (torch's
#     own figure for it is not the same in every run: 2178560 bytes in most,
#     81408 or -2015744 in some, a free of 2 or 4 MB falling inside it or
#     not, so another run's cannot be the reference);
#   - losses with memory on are bit-identical to losses without a profiler;
#   - with torch.profiler already running on the thread, nnscope.torch
#     refuses the allocator events with a warning and falls back to the
#     dispatch mode's approximate events; and torch.profiler started while
#     nnscope.torch records memory fails with torch's own error.
# Skips (exit 0) with a message when torch does not import for
# /usr/bin/python3 or the shim cannot be built (libtorch-dev missing).
#
#   NNSCOPE=build/nnscope bash tests/e2e/python_torch_mem.sh
set -euo pipefail

# shellcheck source=lib/common.bash
. "$(dirname "$0")/lib/common.bash"
BUILD=$(cd "$(dirname "$NNSCOPE")" && pwd)
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
PYTHON=${PYTHON:-/usr/bin/python3}
"$PYTHON" -c 'import torch' >/dev/null 2>&1 ||
	e2e_skip "torch does not import for $PYTHON (apt-get install python3-torch)"
e2e_python "$BUILD"
e2e_need jq sqlite3

e2e_setup python_torch_mem.sh nnscope-torchmem
e2e_clean_env
unset NNSCOPE_TORCH_OPS NNSCOPE_TORCH_SHIM
export XDG_CACHE_HOME=$TMP/cache
STEPS=4

if ! "$PYTHON" -c 'import nnscope.torch as nt; nt._rf_load()' >"$TMP/shim.log" 2>&1; then
	e2e_skip "RecordFunction shim not available: $(tail -1 "$TMP/shim.log")"
fi

cat >"$TMP/drive.py" <<'PY'
"""drive.py MODE OUT STEPS ROOT: STEPS steps of the CNN example's model from
seed 0. MODE: plain (no profiler), torch (torch.profiler, profile_memory),
nnscope (nnscope.torch, profile_memory), refused (nnscope.torch started
inside torch.profiler), inner (torch.profiler started inside nnscope.torch).
Writes OUT/result.json."""
import importlib.util
import json
import os
import sys
import warnings

import torch

mode, out, steps, root = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
spec = importlib.util.spec_from_file_location(
    "train_cnn", os.path.join(root, "examples/pytorch/train_cnn.py"))
tc = importlib.util.module_from_spec(spec)
spec.loader.exec_module(tc)
import nnscope.torch as nt  # noqa: E402
from torch.profiler import ProfilerActivity, profile  # noqa: E402

torch.manual_seed(0)
torch.set_num_threads(1)
loader = torch.utils.data.DataLoader(tc.make_data(steps * 32), batch_size=32,
                                     shuffle=True)
model = tc.SmallCNN()
opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
loss_fn = torch.nn.CrossEntropyLoss()
res = {"losses": []}


def train(prof):
    it = iter(loader)
    for _ in range(steps):
        x, y = next(it)
        opt.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()
        res["losses"].append(loss.item().hex())
        if prof is not None:
            prof.step()


def nnscope_profiler():
    return nt.Profiler(output_path=os.path.join(out, "run"),
                       profile_memory=True, ops_backend="auto")


os.makedirs(out, exist_ok=True)
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    if mode == "plain":
        train(None)
    elif mode == "torch":
        with profile(activities=[ProfilerActivity.CPU],
                     profile_memory=True) as p:
            train(None)
        mem = sorted((e.start_us(), i, e.nbytes()) for i, e in
                     enumerate(p.profiler.kineto_results.events())
                     if e.name() == "[memory]")
        res["sizes"] = [b for _, _, b in mem]
        run = peak = 0
        for b in res["sizes"]:
            run += b
            peak = max(peak, run)
        res["peak"] = peak
        res["op_mem"] = {e.key: [e.cpu_memory_usage, e.self_cpu_memory_usage]
                         for e in p.key_averages()}
    elif mode == "nnscope":
        prof = nnscope_profiler()
        res["backend"] = prof._instr.backend_used
        train(prof)
        prof.close()
    elif mode == "refused":
        with profile(activities=[ProfilerActivity.CPU], profile_memory=True):
            prof = nnscope_profiler()
            res["backend"] = prof._instr.backend_used
            train(prof)
            prof.close()
    elif mode == "inner":
        prof = nnscope_profiler()
        res["backend"] = prof._instr.backend_used
        try:
            with profile(activities=[ProfilerActivity.CPU],
                         profile_memory=True):
                pass
            res["inner"] = "started"
        except RuntimeError as e:
            res["inner"] = str(e)
        train(prof)
        prof.close()
res["warnings"] = [str(x.message) for x in w]
with open(os.path.join(out, "result.json"), "w") as f:
    json.dump(res, f)
PY

drive() { # drive MODE: runs drive.py MODE into $TMP/MODE
	if ! "$PYTHON" "$TMP/drive.py" "$1" "$TMP/$1" $STEPS "$ROOT" >"$TMP/$1.log" 2>&1; then
		fail "drive.py $1"
		sed 's/^/    /' "$TMP/$1.log" | tail -8
		return 1
	fi
	pass "drive.py $1"
}
for m in plain torch nnscope refused inner; do drive $m || true; done
R=$TMP/nnscope/result.json
T=$TMP/torch/result.json

check "nnscope: memory on uses the record_function backend, no warning" \
	jqt "$R" '.backend == "record_function" and (.warnings | length == 0)'
check "losses with memory on are bit-identical to losses without a profiler" \
	test "$(jq -c .losses "$R")" = "$(jq -c .losses "$TMP/plain/result.json")"

if "$NNSCOPE" export "$TMP/nnscope/run" --format sqlite --out "$TMP/nnscope.db" >"$TMP/exp.log" 2>&1; then
	q() { sqlite3 "$TMP/nnscope.db" "$1"; }
	NA=$(q "SELECT count(*) FROM memory_events WHERE bytes > 0")
	NF=$(q "SELECT count(*) FROM memory_events WHERE bytes < 0")
	TA=$(jq '[.sizes[] | select(. > 0)] | length' "$T")
	TF=$(jq '[.sizes[] | select(. < 0)] | length' "$T")
	echo "NOTE allocations/frees: nnscope $NA/$NF, torch.profiler $TA/$TF"
	check "allocation events: as many as torch.profiler's ($TA)" test "$NA" = "$TA"
	check "free events: as many as torch.profiler's ($TF)" test "$NF" = "$TF"
	check "more than 100 allocations in $STEPS steps" test "$TA" -gt 100
	q "SELECT bytes FROM memory_events ORDER BY ts_ns, rowid" >"$TMP/nnscope.sizes"
	jq '.sizes[]' "$T" >"$TMP/torch.sizes"
	check "the sequence of allocated (+) and freed (-) sizes is torch.profiler's" \
		diff -q "$TMP/torch.sizes" "$TMP/nnscope.sizes"
	check "events are on the host (device -1) with total_reserved 0, as the CPU allocator reports" \
		test "$(q "SELECT count(*) FROM memory_events WHERE device_id = -1 AND total_reserved = 0")" = $((NA + NF))
	TP=$(jq .peak "$T")
	check "peak of total_allocated = peak of torch.profiler's running sum ($TP bytes)" \
		test "$(q "SELECT max(total_allocated) FROM memory_events")" = "$TP"
else
	fail "nnscope export"
	sed 's/^/    /' "$TMP/exp.log" | tail -5
fi

if "$NNSCOPE" analyse "$TMP/nnscope/run" --out "$TMP/an" >"$TMP/an.log" 2>&1 &&
	M=$(find "$TMP/an" -name memory.json | head -1) && [ -n "$M" ]; then
	check "memory.json: CPU peak_allocated_bytes = torch.profiler's peak ($TP)" \
		jqt "$M" ".devices.CPU.peak_allocated_bytes == $TP"
	check "memory.json: allocation curve and per-operator rows are there" \
		jqt "$M" '(.devices.CPU.curve | length) > 100 and (.devices.CPU.ops | length) > 10'
	for op in aten::conv2d aten::addmm aten::max_pool2d_with_indices; do
		want=$(jq -c ".op_mem[\"$op\"][0] // \"missing\"" "$T")
		check "memory.json: $op size_increase = torch.profiler's cpu_memory_usage ($want)" \
			jqt "$M" "any(.devices.CPU.ops[]; .name == \"$op\" and .size_increase == $want)"
	done
	# a backward operator: the sum of the allocator events on its thread
	# within its calls, computed here from the exported rows
	op=ConvolutionBackward0
	want=$(sqlite3 "$TMP/nnscope.db" "SELECT sum(m.bytes) FROM events e JOIN memory_events m
		ON m.worker_id = e.worker_id AND m.thread_id = e.thread_id AND m.ts_ns >= e.ts_ns
		AND m.ts_ns < e.ts_ns + e.dur_ns WHERE e.name = '$op' AND m.device_type = 0")
	echo "NOTE $op: torch.profiler's cpu_memory_usage in its run: $(jq -c ".op_mem[\"$op\"][0]" "$T")"
	check "memory.json: $op size_increase = the allocator events within its calls on its thread (${want:-none})" \
		jqt "$M" "any(.devices.CPU.ops[]; .name == \"$op\" and .size_increase == ${want:-null} and .size_increase != 0)"
else
	fail "nnscope analyse: no memory.json"
	sed 's/^/    /' "$TMP/an.log" | tail -5
fi

# another profiler state on the thread: refused, with a warning, fallback
check "inside torch.profiler: a warning says why, and the dispatch mode is used" \
	jqt "$TMP/refused/result.json" '.backend == "dispatch" and any(.warnings[]; test("allocator.s memory events cannot be recorded.*torch.profiler"))'
check "torch.profiler started while nnscope.torch records memory fails with torch's error" \
	jqt "$TMP/inner/result.json" '.backend == "record_function" and (.inner | test("already enabled"))'

e2e_summary
