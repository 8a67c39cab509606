#!/usr/bin/env bash
# hostile_corpus.sh - the standing hostile-input corpus (issue 20, item 8).
# tests/hostile/gen.py writes ~20 bad, odd or hostile inputs into $TMP (bombs
# as small .gz files; ~120 MB in all, removed at exit); each case below runs
# `nnscope analyse CASE --out DIR` and `nnscope report CASE --view all` under
# `ulimit -v` (a memory blow-up is a failure here, not the machine's) and
# `timeout` (a hang is a failure), and is checked for
#   - its exit code and the message it must give (extended regexes over
#     stderr, all of which must match; a leading ! forbids one in stdout or
#     stderr),
# and, for every case and command:
#   - no crash (exit < 128) and no hang (ends within $LIMIT s),
#   - no output holds the canary NNS_CANARY_7f3a that gen.py puts wherever
#     content could be echoed, and no message quotes a byte ("got 'r'"),
#   - a message on stderr names the file,
#   - analyse leaves no empty --out directory behind, and what it writes
#     on exit 0 is strict JSON (UTF-8, no NaN/Infinity).
# The time and peak memory of the same cases (the bombs at full size with
# the default limits) are measured by bench/hostile_rss, not here.
#
#   NNSCOPE=build/nnscope bash tests/e2e/hostile_corpus.sh [CASE...]
#   NNS_HOSTILE_MAX_INPUT=64M    the --max-input value of the bomb case
#   NNS_HOSTILE_VMEM_GB=6        the ulimit -v of every run
#   NNS_HOSTILE_TIMEOUT=120      the time limit of every run (s)
set -euo pipefail

# shellcheck source=lib/common.bash
. "$(dirname "$0")/lib/common.bash"
here=$(cd "$(dirname "$0")" && pwd)
e2e_need python3 timeout
e2e_setup hostile_corpus.sh nnscope-hostile

CANARY=NNS_CANARY_7f3a
LIMIT=${NNS_HOSTILE_TIMEOUT:-120}
VMEM_KB=$((${NNS_HOSTILE_VMEM_GB:-6} * 1024 * 1024))
MAX_INPUT=${NNS_HOSTILE_MAX_INPUT:-64M}
ONLY=" $* "
C=$TMP/corpus
python3 "$here/../hostile/gen.py" "$C" "$@" || { echo "FAIL hostile_corpus.sh: gen.py failed"; exit 1; }

case_path() { awk -F '\t' -v c="$1" '$1 == c { print $2 }' "$C/MANIFEST"; }

# strict_json DIR: every *.json under DIR is UTF-8 JSON without NaN/Infinity
strict_json() {
	python3 - "$1" <<'PY'
import json, os, sys
def no_const(c):
    raise ValueError("non-JSON constant " + c)
bad = 0
for root, _, files in os.walk(sys.argv[1]):
    for f in files:
        if f.endswith(".json"):
            p = os.path.join(root, f)
            try:
                with open(p, "rb") as fh:
                    json.loads(fh.read().decode("utf-8"), parse_constant=no_const)
            except Exception as e:
                print("    %s: %s" % (os.path.relpath(p, sys.argv[1]), str(e)[:100]))
                bad = 1
sys.exit(bad)
PY
}

n=0
# t CASE "COMMAND [OPTIONS]" EXIT [REGEX...]: run one case and check it.
# COMMAND is analyse (with --out DIR) or report (with --view all); EXIT an
# ERE over the exit code ("0", "1", "0|1"); each REGEX (ERE, case-insensitive)
# must match stderr (warnings and errors), a REGEX starting with ! must match
# neither stdout nor stderr.
t() {
	local name=$1 cmd=$2 want_rc=$3 rel path base out so se rc=0 re
	shift 3
	[ "$ONLY" = "  " ] || [[ $ONLY == *" $name "* ]] || return 0
	rel=$(case_path "$name")
	[ -n "$rel" ] || { fail "$name: not in gen.py's MANIFEST"; return; }
	path=$C/$rel
	base=$(basename "$rel")
	n=$((n + 1))
	out=$TMP/out.$n
	so=$TMP/so.$n
	se=$TMP/se.$n
	local -a argv
	read -r -a argv <<<"$cmd"
	if [ "${argv[0]}" = analyse ]; then
		argv=(analyse "$path" --out "$out" "${argv[@]:1}")
	else
		argv=(report "$path" --view all --no-color "${argv[@]:1}")
	fi
	(
		ulimit -v "$VMEM_KB"
		exec timeout -k 5 "$LIMIT" "$NNSCOPE" "${argv[@]}"
	) >"$so" 2>"$se" || rc=$?

	local -a why=()
	if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
		why+=("did not end within ${LIMIT}s (exit $rc)")
	elif [ "$rc" -ge 128 ]; then
		why+=("crashed: exit $rc (signal $((rc - 128)))")
	fi
	[[ $rc =~ ^($want_rc)$ ]] || why+=("exit $rc, wanted $want_rc")
	grep -aq "$CANARY" "$so" "$se" && why+=("output quotes the file (the canary $CANARY)")
	grep -Eaq "got '.{1,4}'" "$se" && why+=("a message quotes the file's bytes: $(grep -Eao "got '.{1,4}'" "$se" | head -1)")
	if [ -s "$se" ] && ! grep -aqF "$base" "$se"; then
		why+=("stderr does not name the file $base")
	fi
	# the messages, with the temporary directory's random name taken out
	# (gen.py's file names hold none of the words looked for)
	sed "s|$TMP|TMP|g" "$se" >"$TMP/msg.$n"
	for re in "$@"; do
		if [ "${re:0:1}" = "!" ]; then
			sed "s|$TMP|TMP|g" "$so" | cat - "$TMP/msg.$n" | grep -Eaqi -- "${re:1}" && why+=("says /${re:1}/")
		else
			grep -Eaqi -- "$re" "$TMP/msg.$n" || why+=("no message matching /$re/")
		fi
	done
	if [ "${argv[0]}" = analyse ]; then
		if [ -d "$out" ] && [ -z "$(find "$out" -type f -print -quit)" ]; then
			why+=("left an empty --out directory")
		fi
		if [ "$rc" -eq 0 ] && ! strict_json "$out" >"$TMP/strict.$n"; then
			why+=("wrote invalid JSON: $(head -1 "$TMP/strict.$n")")
		fi
	fi
	if declare -F "post_$name" >/dev/null; then
		"post_$name" "${argv[0]}" "$rc" "$out" "$so" "$se" || true
	fi
	if [ "${#why[@]}" -eq 0 ]; then
		pass "$name: ${argv[0]} (exit $rc)"
	else
		fail "$name: ${argv[0]}: $(IFS=';'; echo "${why[*]}")"
		head -c 600 "$se" | head -3 | sed 's/^/    stderr: /'
	fi
	rm -rf "$out"
}

# case hooks: post_CASE COMMAND RC OUT STDOUT STDERR, adding to why[]
post_control() {
	if [ "$1" = analyse ] && ! jqt "$3/control/overview.json" '(.steps | length) == 3'; then
		why+=("control: overview.json does not hold the 3 steps")
	fi
	if [ "$1" = report ] && ! grep -q 'aten::mm' "$4"; then why+=("control: report lists no aten::mm"); fi
}
post_legacy() { # read it (its operators), or say the format is not supported
	grep -Eaqi 'legacy|export_chrome_trace' "$4" "$5" && return 0
	if [ "$2" -eq 0 ] && { [ "$1" = analyse ] && jqt "$3/autograd_trace/operators.json" \
		'any(.by_name[]; .name == "aten::addmm" and .calls >= 6)' ||
		{ [ "$1" = report ] && grep -q 'aten::addmm' "$4"; }; }; then
		return 0
	fi
	why+=("legacy torch.profiler array: neither its operators nor a word that the format is legacy")
}

e2e_clean_env
OFF='byte [0-9]+' # an error or warning about the content names its byte offset
for cmd in analyse report; do
	t control "$cmd" 0
	t passwd "$cmd" 1 "$OFF" 'expected'
	t garbage "$cmd" 1 "$OFF" 'expected'
	t empty "$cmd" 1 'empty'
	t truncated "$cmd" 0 "$OFF" 'truncated|ends early'
	t truncated_gz "$cmd" 0 "$OFF" 'truncated|ends early'
	t gz_no_trailer "$cmd" 0 'truncated|ends early|trailer|CRC'
	t corrupt_gz "$cmd" 0 "$OFF" 'corrupt|invalid|unexpected' 'kept'
	t bomb_events "$cmd --max-input $MAX_INPUT" 1 'max-input' 'limit|exceed|larger|more than' \
		'[0-9]+ ?([KMGT]i?B|[KMGT]\b|bytes)'
	t bomb_ws "$cmd" 1 "$OFF" 'whitespace'
	t bomb_events "$cmd" 1 'expands more than 200x' 'max-ratio'
	t bomb_events "$cmd --max-ratio 0" 1 'memory budget' 'max-memory' '[0-9]+ events'
	t deep_nesting "$cmd" 0 "$OFF" 'nest|depth'
	t huge_string "$cmd" 0
	t dur_bad "$cmd" 0 "$OFF" '"dur"|duration' 'negative|range|large|overflow'
	t ts_huge "$cmd" 0 "$OFF" '"ts"|timestamp' 'range|large|overflow|finite' '!non-numeric'
	t dup_keys "$cmd" 0 "$OFF" 'duplicate|repeated'
	t nan_inf "$cmd" 0 "$OFF" 'NaN|Infinity|expected .*number|not a number|non-numeric'
	t bad_utf8 "$cmd" 0
	t legacy "$cmd" '0|1'
	t nnst_truncated "$cmd" 0 "$OFF" 'truncated|ends (early|inside)'
	t nnst_badmagic "$cmd" 1 "$OFF" 'magic|NNSTRACE'
	t deep_dir "$cmd" 1 '\b64\b' 'deep|depth|level'
	t mindspore "$cmd" 1 'line [0-9]+|byte [0-9]+'
done
e2e_summary hostile_corpus.sh
