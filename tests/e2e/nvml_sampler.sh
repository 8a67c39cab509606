#!/usr/bin/env bash
# nvml_sampler.sh - the NVML sampler (owner: the collector), without a GPU:
# tests/e2e/fake_nvml.c, built here as a shared library and loaded through
# NNSCOPE_NVML_LIB, answers with fixed values (2 devices; device i:
# utilization 37+i %, memory used 2^30+i bytes, SM clock 1410+i MHz, power
# 250000+1000i mW). build/examples/mlp (uninstrumented: --no-profile) runs
# under `nnscope run` with a 20 ms sampling period; the timeline of
# `nnscope analyse --timeline` must hold exactly the counters
# gpu<i>.utilization_pct / memory_used_bytes / sm_clock_mhz / power_w with
# those values, at least 5 samples each, spaced by at least 15 ms, on the
# sampler thread's track (named nnscope-sampler), and NVML
# must be initialised and shut down once. No NVML (library absent, a
# symbol missing, nvmlInit failing, no device, sampler off) gives no GPU
# counter, exit status 0 and nothing on stderr about NVML; a device whose
# calls fail is skipped while the other is recorded.
#
#   NNSCOPE=build/nnscope bash tests/e2e/nvml_sampler.sh
set -euo pipefail

# shellcheck source=lib/common.bash
. "$(dirname "$0")/lib/common.bash"
SRC=$(cd "$(dirname "$0")" && pwd)/fake_nvml.c
BIN=$(cd "$(dirname "$NNSCOPE")" && pwd)
MLP=$BIN/examples/mlp
CHECK=$BIN/tests/collector_check
e2e_setup nvml_sampler.sh nnscope-nvml
e2e_need jq cc
e2e_built "make examples e2e" "$MLP" "$CHECK" "$BIN/libnnscope.so"
e2e_clean_env
unset NNSCOPE_NVML_LIB FAKE_NVML_INIT_FAIL FAKE_NVML_BAD_DEVICE FAKE_NVML_COUNT FAKE_NVML_LOG

FAKE=$TMP/libfake_nvml.so
cc -std=c11 -shared -fPIC -Wall -Wextra -Werror "$SRC" -o "$FAKE" ||
	{ fail "fake_nvml.c does not build"; e2e_summary nvml_sampler.sh; exit 1; }
# the same fake without nvmlDeviceGetPowerUsage (the symbol renamed)
NOPOWER=$TMP/libfake_nopower.so
cc -std=c11 -shared -fPIC -DnvmlDeviceGetPowerUsage=fakeNoPower "$SRC" -o "$NOPOWER"
cd "$TMP"

# profile NAME [ENV=VALUE...]: mlp under nnscope run into $TMP/NAME, its
# Chrome-trace JSON in $TMP/NAME.json (nnscope export); exit status checked
profile() {
	local name=$1
	shift
	run_rc 0 "$name: mlp under nnscope run" env "$@" "$NNSCOPE" run -q -o "$TMP/$name" \
		--options '{"cpu_sampling_interval_ms":20}' -- \
		"$MLP" --no-profile --quiet --steps 25 --stall-ms 10
	cp "$TMP/err.txt" "$TMP/$name.err"
	"$NNSCOPE" export "$TMP/$name" --out "$TMP/$name.json" >/dev/null 2>&1 ||
		fail "$name: export"
}
# gpu_names FILE: the sorted distinct names of the gpu* counters
gpu_names() {
	jq -r '[.traceEvents[] | select(.ph=="C" and (.name|startswith("gpu"))) | .name]
		| unique | join(",")' "$1"
}
meta() { "$CHECK" "$(ls "$TMP/$1"/*.nnst | head -1)" | sed -n "s/^meta\.$2=//p" | tail -1; }
no_nvml_noise() {
	if grep -qi nvml "$TMP/$1.err"; then fail "$1: NVML on stderr: $(cat "$TMP/$1.err")"
	else pass "$1: nothing on stderr about NVML"; fi
}

# ---- the fake's two devices ---------------------------------------------------
profile ok NNSCOPE_NVML_LIB="$FAKE" FAKE_NVML_LOG="$TMP/ok.log"
"$NNSCOPE" analyse "$TMP/ok" --out "$TMP/ok.out" -q --timeline ||
	fail "ok: analyse --timeline"
TL=$(find "$TMP/ok.out" -name timeline.json | head -1)
want="gpu0.memory_used_bytes,gpu0.power_w,gpu0.sm_clock_mhz,gpu0.utilization_pct"
want="$want,gpu1.memory_used_bytes,gpu1.power_w,gpu1.sm_clock_mhz,gpu1.utilization_pct"
got=$(gpu_names "$TL")
[ "$got" = "$want" ] && pass "ok: exactly the 8 GPU counters in timeline.json" \
	|| fail "ok: GPU counters: $got"
# counter NAME VALUE: every sample equals VALUE, at least 5 of them, >= 15 ms apart
counter() {
	local r
	r=$(jq -r --arg n "$1" '[.traceEvents[] | select(.ph=="C" and .name==$n)] | sort_by(.ts)
		| [length, (map(.args.value) | unique | map(tostring) | join("/")),
		   ([range(1; length) as $i | .[$i].ts - .[$i-1].ts] | min // 0)] | @tsv' "$TL")
	local n v gap
	read -r n v gap <<<"$r"
	if [ "$v" = "$2" ] && [ "$n" -ge 5 ] && awk "BEGIN{exit !($gap >= 15000)}"; then
		pass "ok: $1 = $2 ($n samples, min gap $gap us)"
	else
		fail "ok: $1: values $v (want $2), $n samples, min gap $gap us"
	fi
}
counter gpu0.utilization_pct 37
counter gpu1.utilization_pct 38
counter gpu0.memory_used_bytes 1073741824
counter gpu1.memory_used_bytes 1073741825
counter gpu0.sm_clock_mhz 1410
counter gpu1.sm_clock_mhz 1411
counter gpu0.power_w 250
counter gpu1.power_w 251
th=$(jq -r '[.traceEvents[] | select(.ph=="C" and (.name|startswith("gpu"))) | .tid] | unique
	| map(tostring) | join(",")' "$TL")
tn=$(jq -r --arg t "$th" '[.traceEvents[] | select(.ph=="M" and .name=="thread_name"
	and (.tid|tostring)==$t) | .args.name] | join(",")' "$TL")
[ "$tn" = nnscope-sampler ] && pass "ok: the GPU counters are on the thread nnscope-sampler" \
	|| fail "ok: GPU counters on thread(s) $th named '$tn'"
[ "$(meta ok nvml)" = "2 devices" ] && pass "ok: META nvml = 2 devices" \
	|| fail "ok: META nvml = $(meta ok nvml)"
[ "$(meta ok gpu1.name)" = "Fake GPU 1" ] && pass "ok: META gpu1.name" \
	|| fail "ok: META gpu1.name = $(meta ok gpu1.name)"
[ "$(tr '\n' ' ' <"$TMP/ok.log")" = "init shutdown " ] && pass "ok: nvmlInit_v2 once, nvmlShutdown once" \
	|| fail "ok: NVML calls: $(tr '\n' ' ' <"$TMP/ok.log")"
no_nvml_noise ok

# ---- a device whose calls fail is skipped, the other recorded ------------------
profile bad NNSCOPE_NVML_LIB="$FAKE" FAKE_NVML_BAD_DEVICE=0
got=$(gpu_names "$TMP/bad.json")
[ "$got" = "gpu1.memory_used_bytes,gpu1.power_w,gpu1.sm_clock_mhz,gpu1.utilization_pct" ] &&
	pass "bad: gpu0 skipped, gpu1 recorded" || fail "bad: GPU counters: $got"
v=$(jq -r '[.traceEvents[] | select(.ph=="C" and .name=="gpu1.power_w") | .args.value]
	| unique | map(tostring) | join("/")' "$TMP/bad.json")
[ "$v" = 251 ] && pass "bad: gpu1.power_w = 251" || fail "bad: gpu1.power_w = $v"
[ -z "$(meta bad gpu0.name)" ] && [ "$(meta bad gpu1.name)" = "Fake GPU 1" ] &&
	pass "bad: only gpu1 named in META" || fail "bad: META names"

# ---- no NVML: no counter, exit 0, quiet ------------------------------------------
# case NAME META-PREFIX ENV...: no GPU counter, META nvml starts with the prefix
nothing() {
	local name=$1 prefix=$2
	shift 2
	profile "$name" "$@"
	got=$(gpu_names "$TMP/$name.json")
	[ -z "$got" ] && pass "$name: no GPU counter" || fail "$name: GPU counters: $got"
	case "$(meta "$name" nvml)" in
	"$prefix"*) pass "$name: META nvml = $(meta "$name" nvml)" ;;
	*) fail "$name: META nvml = '$(meta "$name" nvml)', wanted '$prefix...'" ;;
	esac
	no_nvml_noise "$name"
}
nothing absent "unavailable: $TMP/none/libnvidia-ml.so.1:" NNSCOPE_NVML_LIB="$TMP/none/libnvidia-ml.so.1"
nothing initfail "unavailable: nvmlInit_v2 returned 999" NNSCOPE_NVML_LIB="$FAKE" FAKE_NVML_INIT_FAIL=1
nothing nodevice "unavailable: no device" NNSCOPE_NVML_LIB="$FAKE" FAKE_NVML_COUNT=0
nothing nosymbol "unavailable: NVML has no nvmlDeviceGetPowerUsage" NNSCOPE_NVML_LIB="$NOPOWER"

# the sampler off: NVML is not even loaded
run_rc 0 "off: cpu_sampling_interval_ms 0" env NNSCOPE_NVML_LIB="$FAKE" FAKE_NVML_LOG="$TMP/off.log" \
	"$NNSCOPE" run -q -o "$TMP/off" --options '{"cpu_sampling_interval_ms":0}' -- \
	"$MLP" --no-profile --quiet --steps 5
[ ! -s "$TMP/off.log" ] && [ -z "$(meta off nvml)" ] && pass "off: NVML not loaded" \
	|| fail "off: NVML was initialised"

# this machine's own NVML (none without a GPU): whatever it is, exit 0
profile system
e2e_summary nvml_sampler.sh
