#!/usr/bin/env bash
# profiler_options.sh - the MindSpore profiler options that used to be
# accepted with no effect (issue 23 item 6; owner: the collector and the
# exporters). Checks:
#   - timeline_limit: a trace collected with timeline_limit=1 (MB) and ~4.5 MB
#     of events is exported (`nnscope export`, `nnscope analyse --timeline`)
#     capped at 1 MiB: valid JSON, nnscopeCut {omitted_events, from_ts_us,
#     limit_bytes = 1048576}, the "nnscope: timeline cut" instant last, and a
#     warning naming the trace's timeline_limit option; --limit-mb 0 gives
#     every range; the analysis still counts every call (only the timeline
#     file is capped, as MindSpore);
#   - sync_enable: true is refused with its reason by `nnscope run` (exit 2),
#     MS_PROFILER_OPTIONS and nnscope.Profiler (ValueError); false is accepted;
#   - profile_communication: `nnscope run` records collectives by default
#     (NNSCOPE_OPTIONS holds "profile_communication":true, NCCL_PROFILER_PLUGIN
#     is set); with it false NCCL_PROFILER_PLUGIN is not set, and a plugin
#     loaded anyway (tests/e2e/nccl_harness.c plays NCCL) answers activation
#     mask 0 and records no collective (the process then leaves no file;
#     a file, if any, says "off" in META nccl_profiler).
#
#   NNSCOPE=build/nnscope bash tests/e2e/profiler_options.sh
set -euo pipefail

# shellcheck source=lib/common.bash
. "$(dirname "$0")/lib/common.bash"
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
BIN=$(cd "$(dirname "$NNSCOPE")" && pwd)
LIB=$BIN/libnnscope.so
e2e_setup profiler_options.sh nnscope-opts
e2e_need cc jq python3
e2e_built "make" "$LIB"
e2e_python "$BIN"
e2e_clean_env
unset NCCL_PROFILER_PLUGIN
cd "$TMP"

# ---- timeline_limit ---------------------------------------------------------------
N=40000
python3 - "$N" <<'EOF'
import sys, nnscope
n = int(sys.argv[1])
with nnscope.Profiler(output_path="tl", timeline_limit=1, cpu_sampling_interval_ms=0):
    for i in range(n):
        with nnscope.range("aten::op%d" % (i % 50)):
            pass
EOF
f=$(ls tl/*.nnst)
[ "$(stat -c %s "$f")" -gt 1048576 ] && pass "timeline_limit=1: the trace is larger than 1 MiB" ||
	fail "the trace is only $(stat -c %s "$f") bytes"
# cut FILE LABEL: capped at 1 MiB and says so
cut_ok() {
	local f=$1 l=$2 size
	size=$(stat -c %s "$f")
	[ "$size" -le 1048576 ] && pass "$l: $size bytes <= 1 MiB" || fail "$l: $size bytes > 1 MiB"
	jqt "$f" '.nnscopeCut.limit_bytes == 1048576 and .nnscopeCut.omitted_events > 0 and
		(.nnscopeCut.from_ts_us > 0)' && pass "$l: nnscopeCut says the limit, what and from when" ||
		fail "$l: nnscopeCut $(jq -c .nnscopeCut "$f" 2>&1 | head -c 200)"
	jqt "$f" '.traceEvents[-1].name == "nnscope: timeline cut" and
		.traceEvents[-1].args.omitted_events == .nnscopeCut.omitted_events' &&
		pass "$l: the last event is the cut instant" || fail "$l: no cut instant last"
	jqt "$f" "([.traceEvents[] | select(.ph == \"X\" and (.name | startswith(\"aten::op\")))] | length)
		+ .nnscopeCut.omitted_events >= $N" && pass "$l: written + omitted cover the $N ranges" ||
		fail "$l: written + omitted < $N"
}
run_rc 0 "export with no --limit-mb" "$NNSCOPE" export tl --out cut.json
cut_ok cut.json "export"
grep -q "cut at the 1 MB limit (the trace's timeline_limit option), from [0-9.]* s into the trace" "$TMP/err.txt" &&
	pass "export: the warning names the trace's timeline_limit and where it cut" ||
	fail "export warning: $(cat "$TMP/err.txt")"
run_rc 0 "export --limit-mb 0" "$NNSCOPE" export tl --out all.json --limit-mb 0
jqt all.json "(.nnscopeCut == null) and ([.traceEvents[] | select(.ph == \"X\" and (.name | startswith(\"aten::op\")))] | length) == $N" &&
	pass "--limit-mb 0: every one of the $N ranges, no cut" || fail "--limit-mb 0: not all ranges"
run_rc 0 "export --limit-mb 2 (the command line wins)" "$NNSCOPE" export tl --out two.json --limit-mb 2
s2=$(stat -c %s two.json)
[ "$s2" -gt 1048576 ] && [ "$s2" -le 2097152 ] && jqt two.json '.nnscopeCut.limit_bytes == 2097152' &&
	! grep -q "timeline_limit option" "$TMP/err.txt" && pass "--limit-mb 2: $s2 bytes, cut at 2 MiB" ||
	fail "--limit-mb 2: $s2 bytes, $(jq -c .nnscopeCut two.json)"
run_rc 0 "analyse --timeline" "$NNSCOPE" analyse tl --out an --timeline
t=$(ls an/*/timeline.json)
cut_ok "$t" "analyse --timeline"
grep -q "timeline.json: cut at the 1 MB limit (the trace's timeline_limit option)" "$TMP/err.txt" &&
	pass "analyse: the warning names the trace's timeline_limit" || fail "analyse warning: $(cat "$TMP/err.txt")"
calls=$(jq '[.by_name[] | select(.name | startswith("aten::op")) | .calls] | add' \
	"$(dirname "$t")/operators.json")
[ "$calls" = "$N" ] && pass "the analysis still counts all $N calls (only the timeline is capped)" ||
	fail "operator calls in the analysis: $calls, want $N"

# ---- sync_enable ----------------------------------------------------------------------
run_rc 2 "nnscope run: sync_enable true refused" "$NNSCOPE" run -q -o s --options '{"sync_enable":true}' -- true
grep -q "option 'sync_enable' true is refused: nnscope does not synchronise after each GPU operator" "$TMP/err.txt" &&
	pass "nnscope run: the reason is given" || fail "nnscope run: $(cat "$TMP/err.txt")"
run_rc 2 "MS_PROFILER_OPTIONS sync_enable true refused" env MS_PROFILER_OPTIONS='{"sync_enable":true}' \
	"$NNSCOPE" run -q -o s -- true
run_rc 0 "nnscope run: sync_enable false accepted" "$NNSCOPE" run -q -o s --options '{"sync_enable":false}' -- true
got=$(python3 -c '
import nnscope
try:
    nnscope.Profiler(output_path="s2", sync_enable=True)
    print("accepted")
except ValueError as e:
    print("VE", e)
p = nnscope.Profiler(output_path="s3", sync_enable=False)
p.close()
print("false ok")')
grep -q "^VE .*sync_enable' true is refused.*CUPTI times every kernel" <<<"$got" && grep -q "^false ok" <<<"$got" &&
	pass "nnscope.Profiler: sync_enable=True is a ValueError with the reason, False is fine" ||
	fail "nnscope.Profiler sync_enable: $got"

# ---- profile_communication ------------------------------------------------------------
H=$TMP/nccl_harness
C=$TMP/nccl_check
cc -std=c11 -O1 -Wall -Wextra -Werror "$HERE/nccl_harness.c" -o "$H" -ldl -pthread ||
	{ fail "nccl_harness.c does not build"; e2e_summary profiler_options.sh; exit 1; }
cc -std=c11 -D_GNU_SOURCE -O1 -Wall -Wextra -Werror -I"$ROOT/include" -I"$ROOT/src" \
	"$HERE/nccl_check.c" "$ROOT/src/format/nnst_reader.c" "$ROOT/src/format/nnst_clock.c" \
	"$ROOT/src/format/nnst_crc.c" "$ROOT/src/common/vec.c" -o "$C" -lz ||
	{ fail "nccl_check.c does not build"; e2e_summary profiler_options.sh; exit 1; }
got=$("$NNSCOPE" run -q -o env -- sh -c 'echo "${NCCL_PROFILER_PLUGIN:-unset} $NNSCOPE_OPTIONS"')
case "$got" in "$(realpath "$LIB")"' {"profile_communication":true,'*) pass "nnscope run: profile_communication true by default, plugin set" ;;
*) fail "nnscope run default: $got" ;; esac
got=$("$NNSCOPE" run -q -o env --options '{"profile_communication":false}' -- sh -c 'echo "${NCCL_PROFILER_PLUGIN:-unset}"')
[ "$got" = unset ] && pass "profile_communication false: NCCL_PROFILER_PLUGIN not set" ||
	fail "profile_communication false: NCCL_PROFILER_PLUGIN=$got"
# the plugin loaded anyway (a user's NCCL_PROFILER_PLUGIN): mask 0, nothing recorded
rc=0
NCCL_PROFILER_PLUGIN=$LIB "$NNSCOPE" run -q -o off --options '{"profile_communication":false}' -- \
	"$H" script >off.out 2>off.err || rc=$?
[ "$rc" = 0 ] && grep -qx 'mask=0' off.out && pass "off: the harness ran, init gave mask 0" ||
	fail "off: exit $rc, $(cat off.out off.err | head -4 | tr '\n' ' ')"
# with nothing recorded the process leaves no file (docs/ARCHITECTURE.md,
# "Which processes leave a file"); a file, if any, holds no collective
if ls off/*.nnst >/dev/null 2>&1; then
	n=$("$C" off/*.nnst | grep -c '^coll ' || true)
	[ "$n" = 0 ] && pass "off: no collective recorded" || fail "off: $n collectives recorded"
	"$C" off/*.nnst | grep -qx 'meta nccl_profiler=ncclProfiler_v6 off' && pass "off: META nccl_profiler says off" ||
		fail "off: $("$C" off/*.nnst | grep nccl_profiler || echo no nccl_profiler key)"
else
	pass "off: no collective recorded (no trace file: the process recorded nothing)"
fi
rc=0
"$NNSCOPE" run -q -o on --options '{"profile_communication":true}' -- "$H" script >on.out 2>on.err || rc=$?
n=$("$C" on/*.nnst | grep -c '^coll ' || true)
# the harness plays ncclProfiler_v6: its script's 9 collectives and p2p
# calls plus one copy-engine AllGather
[ "$rc" = 0 ] && [ "$n" = 10 ] && pass "on: the script's 10 collectives recorded" ||
	fail "on: exit $rc, $n collectives $(head -3 on.err)"

e2e_summary profiler_options.sh
