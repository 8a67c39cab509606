#!/usr/bin/env bash
# python_torch_gloo.sh - Gloo collectives on the CPU under nnscope.torch:
# two processes (torch.multiprocessing.spawn, world_size 2, init_method
# file:// in a temporary directory) each run, under nnscope.torch with
# record_shapes, 5 all_reduce of float32[1000], 3 broadcast of int64[250]
# and 2 all_gather of float32[10] into one run directory (RANK/WORLD_SIZE
# set per process), then the same loop under torch.profiler. `nnscope
# analyse` of the run directory must fill the Distributed view:
#   - comm ops gloo:all_reduce / gloo:broadcast / gloo:all_gather on each
#     worker, with the call counts above (= torch.profiler's counts);
#   - total bytes computed by hand from the inputs (comm.c: prod(dims) x
#     dtype size): all_reduce 5 x 1000 x 4 = 20000, broadcast 3 x 250 x 8 =
#     6000, all_gather 2 x 10 x 4 = 80 (its input tensor only, as
#     torch.profiler records it);
#   - cluster.json gives each worker the rank its process had.
# Skips (exit 0) with a message when torch, torch.distributed or gloo is
# unavailable for /usr/bin/python3, or the RecordFunction shim is not.
#
#   NNSCOPE=build/nnscope bash tests/e2e/python_torch_gloo.sh
set -euo pipefail

# shellcheck source=lib/common.bash
. "$(dirname "$0")/lib/common.bash"
BUILD=$(cd "$(dirname "$NNSCOPE")" && pwd)
PYTHON=${PYTHON:-/usr/bin/python3}
"$PYTHON" -c 'import torch' >/dev/null 2>&1 ||
	e2e_skip "torch does not import for $PYTHON (apt-get install python3-torch)"
"$PYTHON" -c 'import torch.distributed as d, sys; sys.exit(not (d.is_available() and d.is_gloo_available()))' \
	>/dev/null 2>&1 || e2e_skip "torch.distributed with the gloo backend is not available for $PYTHON"
e2e_python "$BUILD"
e2e_need jq

e2e_setup python_torch_gloo.sh nnscope-torchgloo
e2e_clean_env
unset NNSCOPE_TORCH_OPS NNSCOPE_TORCH_SHIM
export XDG_CACHE_HOME=$TMP/cache
if ! "$PYTHON" -c 'import nnscope.torch as nt; nt._rf_load()' >"$TMP/shim.log" 2>&1; then
	e2e_skip "RecordFunction shim not available (gloo ranges need it): $(tail -1 "$TMP/shim.log")"
fi

cat >"$TMP/gloo.py" <<'PY'
"""gloo.py OUT: two ranks of known collectives, under nnscope.torch (into
OUT/run) then under torch.profiler; each rank writes OUT/rank<r>.json."""
import json
import os
import sys

import torch
import torch.distributed as dist
import torch.multiprocessing as mp

N_AR, N_BC, N_AG = 5, 3, 2


def loop(prof):
    t = torch.ones(1000, dtype=torch.float32)
    b = torch.arange(250, dtype=torch.int64)
    for i in range(N_AR):
        dist.all_reduce(t)
        if i < N_BC:
            dist.broadcast(b, 0)
        if i < N_AG:
            out = [torch.zeros(10) for _ in range(dist.get_world_size())]
            dist.all_gather(out, torch.ones(10))
        if prof is not None:
            prof.step()


def rank_main(rank, world, out):
    os.environ.update(RANK=str(rank), WORLD_SIZE=str(world), LOCAL_RANK=str(rank))
    import nnscope.torch as nt
    from torch.profiler import ProfilerActivity, profile
    torch.set_num_threads(1)
    dist.init_process_group("gloo", init_method="file://" + os.path.join(out, "init"),
                            rank=rank, world_size=world)
    prof = nt.Profiler(output_path=os.path.join(out, "run"), record_shapes=True)
    res = {"pid": os.getpid(), "rank": rank, "backend": prof._instr.backend_used}
    loop(prof)
    prof.close()
    dist.barrier()
    with profile(activities=[ProfilerActivity.CPU], record_shapes=True) as p:
        loop(None)
    res["torch"] = {e.key: e.count for e in p.key_averages() if e.key.startswith("gloo:")}
    dist.destroy_process_group()
    with open(os.path.join(out, "rank%d.json" % rank), "w") as f:
        json.dump(res, f)


if __name__ == "__main__":
    mp.spawn(rank_main, args=(2, sys.argv[1]), nprocs=2)
PY

if ! timeout 120 "$PYTHON" "$TMP/gloo.py" "$TMP" >"$TMP/gloo.log" 2>&1; then
	fail "gloo.py (2 ranks)"
	sed 's/^/    /' "$TMP/gloo.log" | tail -10
	e2e_summary
	exit 1
fi
pass "gloo.py: two ranks ran"
check "two traces in one run directory" test "$(find "$TMP/run" -name '*.nnst' | wc -l)" = 2
check "both ranks recorded with the record_function backend" \
	test "$(jq -r .backend "$TMP/rank0.json" "$TMP/rank1.json" | sort -u)" = record_function

if ! "$NNSCOPE" analyse "$TMP/run" --out "$TMP/an" >"$TMP/an.log" 2>&1; then
	fail "nnscope analyse"
	sed 's/^/    /' "$TMP/an.log" | tail -5
	e2e_summary
	exit 1
fi
D=$TMP/an/distributed.json
check "distributed.json: available, 2 workers" jqt "$D" '.available == true and (.workers | length) == 2'
for r in 0 1; do
	pid=$(jq .pid "$TMP/rank$r.json")
	W=$(jq -r --arg p "_$pid" '[.workers[].worker | select(endswith($p))][0] // "none"' "$D")
	check "rank $r (pid $pid): worker $W, rank $r in cluster.json" \
		jqt "$TMP/an/cluster.json" "any(.ranks[]; .worker == \"$W\" and .rank == $r)"
	while read -r op calls bytes; do
		tc=$(jq ".torch[\"$op\"] // -1" "$TMP/rank$r.json")
		check "rank $r: $op torch.profiler counts $calls calls" test "$tc" = "$calls"
		check "rank $r: $op, $calls calls, $bytes bytes in the Distributed view" \
			jqt "$D" "any(.comm_ops[]; .worker == \"$W\" and .name == \"$op\" and .calls == $calls and .total_bytes == $bytes)"
	done <<'EOF'
gloo:all_reduce 5 20000
gloo:broadcast 3 6000
gloo:all_gather 2 80
EOF
	check "rank $r: only these three comm ops" \
		test "$(jq --arg w "$W" '[.comm_ops[] | select(.worker == $w)] | length' "$D")" = 3
done

e2e_summary
