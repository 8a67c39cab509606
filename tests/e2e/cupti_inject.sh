#!/usr/bin/env bash
# cupti_inject.sh - the CUPTI backend (owner: the collector) without a GPU.
# build/tests/libfake_cupti.so (tests/e2e/fake_cupti.c) stands in for
# libcupti and libcuda (NNSCOPE_CUPTI_LIB, NNSCOPE_CUDA_LIB); cuda_app
# (tests/e2e/cuda_app.c) loads $CUDA_INJECTION64_PATH and calls
# InitializeInjection as libcuda does, then launches N kernels on thread A
# (inside nns ranges "aten::mm") and N kernels + N host-to-device copies of
# 4096*(i+1) bytes on thread B, and exits without flushing. Under
# `nnscope run` the .nnst file must hold exactly: 2N kernels with their
# launch parameters, 3N runtime API records (on the app's two tids, its
# pid), N copies (sum of bytes, kinds HtoD pinned->device), 2 device
# records with the fake's properties, NNST_GPUF_HOSTCLOCK on every timed
# record, >= 2 ordered GPUCLOCK points, META cupti "collecting ...". The
# fake delivers records only at a forced flush by default, so all of them
# prove the exit path's forced flush; with small buffers (records delivered
# during the run) the counts are the same, and with NNSCOPE_CUPTI_DUMP the
# saved buffers replay (cupti_check --replay, the collector's decoder) to
# the same records. Without the timestamp callback:
# no HOSTCLOCK flag, clock points still. Another subscriber, a missing
# libcupti: the META message, no GPU record, exit 0, nothing on stderr.
# An abort, like a SIGTERM (no atexit), still gets every record (the
# collector's fatal-signal flush makes the writer flush CUPTI),
# and the writer's tick adds a clock point about every second. A
# user's CUDA_INJECTION64_PATH is kept; without a profiler
# InitializeInjection does nothing. `nnscope analyse` of the runs: kernels.json
# holds the 2N kernels with grid, block, registers, shared memory, blocks per
# SM (64/132 on the fake's 132 SMs), the sgemm kernels tied to aten::mm
# through their runtime record's correlation id (operators.json: aten::mm
# holds their device time), the GPUs in overview.json; with CUPTI's clock
# the fake's 2 us kernels last 2 us after the clock-point mapping.
#
#   NNSCOPE=build/nnscope bash tests/e2e/cupti_inject.sh
set -euo pipefail

# shellcheck source=lib/common.bash
. "$(dirname "$0")/lib/common.bash"
BIN=$(cd "$(dirname "$NNSCOPE")" && pwd)
APP=$BIN/tests/cuda_app
FAKE=$BIN/tests/libfake_cupti.so
CHECK=$BIN/tests/cupti_check
LIB=$BIN/libnnscope.so
e2e_setup cupti_inject.sh nnscope-cupti
e2e_built "make e2e" "$APP" "$FAKE" "$CHECK" "$LIB"
e2e_clean_env
unset CUDA_INJECTION64_PATH NNSCOPE_CUPTI_LIB NNSCOPE_CUDA_LIB NNSCOPE_CUPTI_DUMP \
	NNSCOPE_CUPTI_HOSTCLOCK FAKE_CUPTI_SUBSCRIBED FAKE_CUPTI_NO_TS FAKE_CUPTI_LOG \
	FAKE_CUPTI_BUF_RECORDS FAKE_CUPTI_HOOK FAKE_CUDA_COUNT
cd "$TMP"
N=50

# profile NAME WANT-RC [ENV=VALUE...] [-- APP-ARGS]: cuda_app under nnscope
# run into $TMP/NAME; cupti_check's output in $TMP/NAME.txt, the app's
# stdout in $TMP/NAME.out, stderr in $TMP/NAME.err
profile() {
	local name=$1 want=$2 envs=() args=()
	shift 2
	while [ $# -gt 0 ] && [ "$1" != -- ]; do envs+=("$1"); shift; done
	[ $# -gt 0 ] && shift && args=("$@")
	run_rc "$want" "$name: cuda_app under nnscope run" env NNSCOPE_CUPTI_LIB="$FAKE" \
		NNSCOPE_CUDA_LIB="$FAKE" "${envs[@]}" "$NNSCOPE" run -q -o "$TMP/$name" -- \
		"$APP" --n "$N" "${args[@]}"
	cp "$TMP/out.txt" "$TMP/$name.out"
	cp "$TMP/err.txt" "$TMP/$name.err"
	"$CHECK" "$(ls "$TMP/$name"/*.nnst | head -1)" >"$TMP/$name.txt" ||
		fail "$name: cupti_check cannot read the file"
}
val() { sed -n "s/^$2=//p" "$TMP/$1.txt" | tail -1; }
expect() { # NAME KEY WANT
	local got
	got=$(val "$1" "$2")
	[ "$got" = "$3" ] && pass "$1: $2 = $3" || fail "$1: $2 = '$got', wanted '$3'"
}
quiet() {
	if grep -qi cupti "$TMP/$1.err"; then fail "$1: CUPTI on stderr: $(cat "$TMP/$1.err")"
	else pass "$1: nothing on stderr about CUPTI"; fi
}

# the full set, for cases ok and small
full() {
	local name=$1 ta tb pid
	expect "$name" gpu $((6 * N + 2))
	expect "$name" gpu.KERNEL $((2 * N))
	expect "$name" gpu.RUNTIME $((3 * N))
	expect "$name" gpu.MEMCPY "$N"
	expect "$name" gpu.DEVICE 2
	expect "$name" kernel.ampere_sgemm_128x64_nn \
		"$N grid=64,1,1 block=256,1,1 regs=32 ssmem=256 dsmem=0 device=0 stream=7"
	expect "$name" kernel.vectorized_elementwise_kernel \
		"$N grid=8,1,1 block=128,1,1 regs=32 ssmem=256 dsmem=0 device=0 stream=7"
	expect "$name" kernel_linked $((2 * N))
	expect "$name" runtime.cudaLaunchKernel $((2 * N))
	expect "$name" runtime.cudaMemcpy "$N"
	ta=$(sed -n 's/^tid A //p' "$TMP/$name.out")
	tb=$(sed -n 's/^tid B //p' "$TMP/$name.out")
	expect "$name" "runtime.tid.$ta" "$N"
	expect "$name" "runtime.tid.$tb" $((2 * N))
	pid=$(val "$name" meta.pid)
	expect "$name" runtime.pid "$pid"
	expect "$name" memcpy.bytes $((4096 * N * (N + 1) / 2))
	expect "$name" memcpy.kinds 1/2/3
	expect "$name" device.0 "Fake GPU 0|85899345920|233472|9,0,132,2048,1024,65536,32,32"
	expect "$name" device.1 "Fake GPU 1|85899345921|233472|9,0,132,2048,1024,65536,32,32"
	expect "$name" ordered 1
	expect "$name" gpuclock_ordered 1
	[ "$(val "$name" gpuclock)" -ge 2 ] && pass "$name: $(val "$name" gpuclock) GPU clock points" ||
		fail "$name: $(val "$name" gpuclock) GPU clock points"
	expect "$name" meta.cupti_records_dropped 0
	quiet "$name"
}

# ---- only the forced flush at exit delivers ---------------------------------------
profile ok 0 FAKE_CUPTI_LOG="$TMP/ok.log"
full ok
expect ok hostclock $((6 * N))
expect ok meta.cupti "collecting (CUPTI version 130001, host clock)"
# the fake saw: subscribe, the timestamp callback, the 8 kinds, one forced
# flush and one delivery of every record (6N) after it
got=$(grep -v -e '^enable' -e '_api_' "$TMP/ok.log" | tr '\n' ' ')
[ "$got" = "subscribe register_ts flush 1 delivered $((6 * N)) " ] &&
	pass "ok: every record came with the forced flush at exit" || fail "ok: fake log: $got"
got=$(sed -n 's/^enable //p' "$TMP/ok.log" | sort -n | tr '\n' ' ')
[ "$got" = "1 2 4 5 10 38 39 49 " ] && pass "ok: kinds enabled: $got" || fail "ok: kinds enabled: $got"
# the quiet API calls (cupti.c quiet_apis): 12 runtime and 13 driver ids
# turned off after the kinds, cudaGetDevice (17) among them, so the fake's
# cudaGetDevice before each launch left no record (the counts above)
got=$(grep -c '^runtime_api_off ' "$TMP/ok.log")/$(grep -c '^driver_api_off ' "$TMP/ok.log")
[ "$got" = 12/13 ] && pass "ok: quiet API calls turned off (runtime/driver: $got)" ||
	fail "ok: quiet API calls turned off: $got, wanted 12/13"
grep -qx 'runtime_api_off 17' "$TMP/ok.log" && pass "ok: cudaGetDevice is not recorded" ||
	fail "ok: cudaGetDevice (17) was not turned off"
expect ok meta.cupti_quiet_apis 25
expect ok runtime.cudaGetDevice ""
# NNSCOPE_CUPTI_QUIET=0, or a libcupti without per-call filters: every call
profile loud 0 NNSCOPE_CUPTI_QUIET=0
expect loud runtime.cudaGetDevice $((2 * N))
expect loud meta.cupti_quiet_apis 0
profile nofilter 0 FAKE_CUPTI_NO_API_FILTER=1
expect nofilter runtime.cudaGetDevice $((2 * N))
expect nofilter meta.cupti_quiet_apis 0
expect nofilter runtime.cudaLaunchKernel $((2 * N))
grep -q '^InitializeInjection 1$' "$TMP/ok.out" && pass "ok: InitializeInjection returned 1" ||
	fail "ok: InitializeInjection: $(cat "$TMP/ok.out")"

# ---- the analysis: kernels with launch parameters, tied to aten::mm ----------------------
# analysed NAME CLOCK-NOTE: kernels.json / operators.json / overview.json of
# the run NAME; mean_us WANT ("" = any positive value)
analysed() {
	local name=$1 mean=$2 d kj oj r
	if ! "$NNSCOPE" analyse "$TMP/$name" --out "$TMP/$name.analysis" -q >/dev/null 2>"$TMP/$name.aerr"; then
		fail "$name: nnscope analyse: $(head -3 "$TMP/$name.aerr")"
		return
	fi
	d=$(dirname "$(find "$TMP/$name.analysis" -name kernels.json | head -1)")
	kj=$d/kernels.json oj=$d/operators.json
	r=$(jq -r '[.by_name[] | "\(.name)=\(.calls)"] | sort | join(" ")' "$kj")
	[ "$r" = "ampere_sgemm_128x64_nn=$N vectorized_elementwise_kernel=$N" ] &&
		pass "$name: kernels.json: $r" || fail "$name: kernels.json by_name: $r"
	r=$(jq -r '[.by_properties[] | select(.name=="ampere_sgemm_128x64_nn") |
		"\(.op_name) \(.grid) \(.block) \(.registers_per_thread) \(.shared_memory) \(.calls)"] | join(";")' "$kj")
	[ "$r" = "aten::mm [64, 1, 1] [256, 1, 1] 32 256 $N" ] &&
		pass "$name: the sgemm kernels are aten::mm's, with their launch parameters" ||
		fail "$name: sgemm by_properties: $r"
	# blocks per SM: 64 blocks on the fake's 132 SMs
	r=$(jq -r '.by_name[] | select(.name=="ampere_sgemm_128x64_nn") | .mean_blocks_per_sm' "$kj")
	awk -v v="$r" 'BEGIN{exit !(v > 64/132 - 1e-6 && v < 64/132 + 1e-6)}' &&
		pass "$name: mean_blocks_per_sm = 64/132" || fail "$name: mean_blocks_per_sm = $r"
	r=$(jq -r '.by_name[] | select(.name=="ampere_sgemm_128x64_nn") | .mean_us' "$kj")
	if [ -n "$mean" ]; then
		awk -v v="$r" -v w="$mean" 'BEGIN{exit !(v > w * 0.99 && v < w * 1.01)}' &&
			pass "$name: kernel mean_us = $r (want $mean +-1 %)" ||
			fail "$name: kernel mean_us = $r, wanted $mean"
	else
		awk -v v="$r" 'BEGIN{exit !(v > 0)}' && pass "$name: kernel mean_us = $r > 0" ||
			fail "$name: kernel mean_us = $r"
	fi
	r=$(jq -r --slurpfile k "$kj" '.by_name[] | select(.name=="aten::mm") |
		"\(.calls) \(.device_total_us == ([$k[0].by_name[] | select(.name=="ampere_sgemm_128x64_nn") | .total_us][0]))"' "$oj")
	[ "$r" = "$N true" ] && pass "$name: aten::mm holds the device time of its kernels" ||
		fail "$name: operators.json aten::mm: $r"
	r=$(jq -r '[.gpus[] | "\(.id):\(.name):\(.compute_capability):\(.num_sms):\(.memory_bytes)"] | join(" ")' "$d/overview.json")
	# (the GPUs that ran kernels: the fake launches on device 0 only)
	[ "$r" = "0:Fake GPU 0:9.0:132:85899345920" ] &&
		pass "$name: overview gpus from the device records" || fail "$name: overview gpus: $r"
}
e2e_need jq
analysed ok ""

# ---- small buffers: records delivered during the run, same result --------------------
profile small 0 FAKE_CUPTI_BUF_RECORDS=16
full small

# ---- raw buffer dumps replay to the same records ---------------------------------------
profile dump 0 FAKE_CUPTI_BUF_RECORDS=16 NNSCOPE_CUPTI_DUMP="$TMP/dumps"
n=$(ls "$TMP/dumps"/cupti_*.buf 2>/dev/null | wc -l)
[ "$n" -eq 19 ] && pass "dump: 19 buffer files ($((6 * N)) records, 16 a buffer)" ||
	fail "dump: $n buffer files"
# cupti_check --replay decodes them with the collector's decoder
if NNSCOPE_CUPTI_LIB="$FAKE" "$CHECK" --replay $(ls -v "$TMP/dumps"/cupti_*.buf) >"$TMP/replay.txt"; then
	expect replay gpu $((6 * N))
	strip() { grep -v '^meta\.\|^device\.\|^gpu\.DEVICE\|^gpuclock\|^gpu=' "$1" | sort; }
	if diff <(strip "$TMP/replay.txt") <(strip "$TMP/dump.txt") >"$TMP/replay.diff"; then
		pass "replay: the dumps decode to the records of the trace"
	else
		fail "replay: differs from the trace: $(head -5 "$TMP/replay.diff")"
	fi
else
	fail "replay: cupti_check --replay failed"
fi

# ---- CUPTI's clock: no flag, clock points written -------------------------------------
profile cuptiClock 0 FAKE_CUPTI_NO_TS=1 FAKE_CUPTI_DROPPED=7
# (and CUPTI's dropped-record count: 7 for the one buffer delivered)
expect cuptiClock meta.cupti_records_dropped 7
expect cuptiClock gpu $((6 * N + 2))
expect cuptiClock hostclock 0
expect cuptiClock meta.cupti "collecting (CUPTI version 130001, CUPTI clock)"
[ "$(val cuptiClock gpuclock)" -ge 2 ] && pass "cuptiClock: GPU clock points" ||
	fail "cuptiClock: $(val cuptiClock gpuclock) GPU clock points"
expect cuptiClock gpuclock_ordered 1
# CUPTI ns mapped through the clock points: the fake's 2 us kernels stay 2 us
analysed cuptiClock 2

# ---- unavailable: a message, no record, no crash ----------------------------------------
profile busy 0 FAKE_CUPTI_SUBSCRIBED=1
expect busy meta.cupti "unavailable: another CUPTI client (torch.profiler, Nsight...) is subscribed"
expect busy gpu 0
quiet busy
profile nolib 0 NNSCOPE_CUPTI_LIB="$TMP/none/libcupti.so.13" FAKE_CUPTI_HOOK="$FAKE"
case "$(val nolib meta.cupti)" in
"unavailable: libcupti not found ($TMP/none/libcupti.so.13:"*) pass "nolib: META cupti = $(val nolib meta.cupti)" ;;
*) fail "nolib: META cupti = '$(val nolib meta.cupti)'" ;;
esac
expect nolib gpu 0
quiet nolib

# ---- a crash keeps every record ------------------------------------------------------------
# 16-record buffers: 18 full ones (288 records) before the abort, and the
# 19th (12 records) forced out by the SIGABRT flush
profile crash 134 FAKE_CUPTI_BUF_RECORDS=16 -- --abort
expect crash gpu 300
expect crash meta.cupti "collecting (CUPTI version 130001, host clock)"

# ---- SIGTERM: the writer forces CUPTI's flush (no atexit runs) -------------------------------
env NNSCOPE_CUPTI_LIB="$FAKE" NNSCOPE_CUDA_LIB="$FAKE" "$NNSCOPE" run -q -o "$TMP/term" -- \
	"$APP" --n "$N" --wait >"$TMP/term.out" 2>"$TMP/term.err" &
tpid=$!
E2E_PIDS+=("$tpid")
for _ in $(seq 200); do grep -q '^ready' "$TMP/term.out" 2>/dev/null && break; sleep 0.05; done
sleep 2.6 # the writer's tick adds a clock point about every second
kill -TERM "$tpid"
rc=0
wait "$tpid" || rc=$?
[ "$rc" -eq 143 ] && pass "term: exit 143 after SIGTERM" || fail "term: exit $rc, wanted 143"
"$CHECK" "$(ls "$TMP/term"/*.nnst | head -1)" >"$TMP/term.txt" || fail "term: cupti_check"
expect term gpu.KERNEL $((2 * N))
expect term gpu.RUNTIME $((3 * N))
expect term gpu.MEMCPY "$N"
[ "$(val term gpuclock)" -ge 3 ] && pass "term: $(val term gpuclock) clock points in ~2.6 s" ||
	fail "term: $(val term gpuclock) clock points in ~2.6 s, wanted >= 3"

# ---- the user's CUDA_INJECTION64_PATH is kept ----------------------------------------------
profile userinj 0 CUDA_INJECTION64_PATH=
expect userinj gpu 0
[ -z "$(val userinj meta.cupti)" ] && pass "userinj: an empty CUDA_INJECTION64_PATH is kept" ||
	fail "userinj: META cupti = $(val userinj meta.cupti)"

# ---- no profiler: InitializeInjection does nothing -----------------------------------------
run_rc 0 "noprof: InitializeInjection without a profiler" env CUDA_INJECTION64_PATH="$LIB" \
	NNSCOPE_CUPTI_LIB="$FAKE" FAKE_CUPTI_LOG="$TMP/noprof.log" "$APP" --n 5
[ ! -s "$TMP/noprof.log" ] && pass "noprof: CUPTI not touched" ||
	fail "noprof: fake log: $(tr '\n' ' ' <"$TMP/noprof.log")"

e2e_summary cupti_inject.sh
