#!/usr/bin/env bash
# tests/gpu/cupti_cost.sh - what each CUPTI activity kind costs in step time:
# the ResNet-18 of resnet_compare.py (train mode, no Python instrumentation)
# run without a profiler, under `nnscope run` with all kinds and with
# subsets (NNSCOPE_CUPTI_KINDS), and under torch.profiler; prints the median
# step time of each and its overhead against the mean of the two plain runs.
#
#   NNSCOPE=build/nnscope bash tests/gpu/cupti_cost.sh [STEPS]
set -uo pipefail
: "${NNSCOPE:?set NNSCOPE to the nnscope binary}"
STEPS=${1:-50}
PYTHON=${PYTHON:-python3}
HERE=$(cd "$(dirname "$0")" && pwd)
TMP=$(mktemp -d /tmp/nnscope-cupti-cost.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
ALL=kernel,memcpy,memset,runtime,driver,sync,memory,extcorr
runs="plain all:$ALL nodriver:kernel,memcpy,memset,runtime,sync,memory,extcorr
noapi:kernel,memcpy,memset,sync,memory,extcorr kernelonly:kernel,extcorr nokinds:nothing torch plain2"
printf '%-12s %-55s %9s %9s\n' run kinds step_ms overhead
for r in $runs; do
	name=${r%%:*}
	kinds=${r#*:}
	[ "$kinds" = "$r" ] && kinds=
	mode=plain
	[ "$name" = torch ] && mode=torch
	cmd=("$PYTHON" "$HERE/resnet_compare.py" train --device cuda --steps "$STEPS" --warmup 5
		--batch 64 --size 224 --classes 1000 --threads 1 --mode "$mode" --out "$TMP/$name")
	mkdir -p "$TMP/$name"
	case $name in plain* | torch) env -u NNSCOPE_CUPTI_KINDS "${cmd[@]}" >"$TMP/$name.log" 2>&1 ;;
	*) NNSCOPE_CUPTI_KINDS=$kinds "$NNSCOPE" run -q --no-torch -o "$TMP/$name/trace" -- "${cmd[@]}" \
		>"$TMP/$name.log" 2>&1 ;;
	esac || { echo "$name: failed: $(tail -3 "$TMP/$name.log")"; continue; }
	"$PYTHON" - "$TMP/$name/result.json" "$name" "${kinds:--}" "$TMP" <<'PY'
import json, statistics, sys, os
res = json.load(open(sys.argv[1]))
med = statistics.median(res["step_ms"])
base = [statistics.median(json.load(open(os.path.join(sys.argv[4], p, "result.json")))["step_ms"])
        for p in ("plain", "plain2") if os.path.isfile(os.path.join(sys.argv[4], p, "result.json"))]
b = sum(base) / len(base) if base else med
print("%-12s %-55s %9.3f %+8.1f%%" % (sys.argv[2], sys.argv[3], med, (med - b) / b * 100))
PY
done
