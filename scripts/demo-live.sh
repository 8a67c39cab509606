#!/bin/bash
# demo-live.sh - the demo's live run: a job of 4 ranks of the C example
# written into OUT_DIR while `make demo` serves, so that the page shows a
# run as it is written (docs/LIVE.md): about 2 minutes of 20 ms steps (the
# loader's stall, so 4 ranks load 2 cores lightly), rank 2 slowed by 40 ms
# a step from step 2000 on, which the Cluster view names live and the
# demo's --alert 'rank_pct > 20' flags. Started in the background; the
# ranks stop with the demo (Ctrl-C) or by themselves.
#
#   scripts/demo-live.sh MLP_BINARY OUT_DIR
set -euo pipefail
[ $# -eq 2 ] || { echo "usage: $0 MLP_BINARY OUT_DIR" >&2; exit 2; }
rm -rf "$2"
export NNSCOPE_OPTIONS='{"cpu_sampling_interval_ms": 100}'
for r in 0 1 2 3; do
	extra=()
	[ $r = 2 ] && extra=(--delay-ms 40 --delay-from-step 2000)
	RANK=$r WORLD_SIZE=4 LOCAL_RANK=$r "$1" --steps 3600 --stall-ms 20 --batch 32 --in 64 \
		--hidden 64 --quiet --out "$2" "${extra[@]}" >/dev/null 2>&1 &
done
