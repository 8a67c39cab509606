#!/usr/bin/env bash
# input_limits.sh - end-to-end test of the input limits and messages of
# issue 20 through the command line, on small generated files:
#   - a file that is not a trace (passwd-like) fails without quoting it,
#   - --max-input refuses a larger trace before parsing (analyse, report,
#     export, diff), and a bad size is a usage error (exit 2),
#   - --max-memory: 3 MB of tiny events stop on the memory budget (exit 1,
#     the budget and the option named); --max-memory 0 loads them,
#   - 17 MiB of blanks between two events: exit 1 naming the bound,
#   - a .gz cut short: the events before the cut, and the compressed byte,
#   - a negative "dur" and a repeated key: the warnings say which and where,
#   - serve --help lists the limits, serve's loads keep them (--max-memory
#     1M: the tiny-event trace answers an error naming the budget, a small
#     one loads).
#
#   NNSCOPE=build/nnscope bash tests/e2e/input_limits.sh
set -euo pipefail

# shellcheck source=lib/common.bash
. "$(dirname "$0")/lib/common.bash"
command -v python3 >/dev/null || e2e_skip "python3 (used to write the inputs) is not installed"
e2e_setup input_limits.sh nnscope-limits

says() { grep -qF -- "$1" "$TMP/err.txt"; }

python3 - "$TMP" <<'EOF'
import gzip, sys
d = sys.argv[1]
ev = '{"ph":"X","name":"k","pid":1,"tid":1,"ts":%d,"dur":1}'
small = '{"traceEvents": [' + ",\n".join(ev % (10 + 2 * i) for i in range(100)) + "]}\n"
open(d + "/small.pt.trace.json", "w").write(small)
tiny = '{"traceEvents": [' + ",\n".join(ev % (10 + 2 * i) for i in range(52000)) + "]}\n"
open(d + "/tiny.pt.trace.json", "w").write(tiny)
open(d + "/blanks.pt.trace.json", "w").write(
    '{"traceEvents": [' + ev % 1 + "," + " " * (17 << 20) + ev % 5 + "]}")
open(d + "/passwd", "w").write("root:x:0:0:root:/root:/bin/bash\nzqxv:x:1:1::/:/bin/sh\n")
z = gzip.compress(tiny.encode())
open(d + "/cut.pt.trace.json.gz", "wb").write(z[: len(z) // 2])
open(d + "/cut.len", "w").write(str(len(z) // 2))
odd = ('{"traceEvents": [' + ev % 1 + ',{"ph":"X","name":"n","pid":1,"tid":1,"ts":3,"dur":-1000},'
       '{"ph":"X","name":"d","pid":1,"tid":1,"ts":7,"ts":9,"dur":1}]}')
open(d + "/odd.pt.trace.json", "w").write(odd)
EOF

# a file that is not a trace: offset and expectation, nothing of its content
run_rc 1 "passwd-like file" "$NNSCOPE" analyse "$TMP/passwd" --out "$TMP/o1"
check "passwd: byte offset and what was expected" says "byte 0: not a JSON trace: expected '{' or '['"
check "passwd: no character of it" bash -c "! grep -qE \"'r'|root|zqxv|0x72\" '$TMP/err.txt'"

# --max-input
run_rc 1 "analyse --max-input 1K" "$NNSCOPE" analyse "$TMP/small.pt.trace.json" --out "$TMP/o2" --max-input 1K
check "analyse --max-input: names the limit and option" says "more than the --max-input limit of 1 KiB"
run_rc 1 "report --max-input 1K" "$NNSCOPE" report "$TMP/small.pt.trace.json" --max-input 1K
run_rc 1 "export --max-input 1K" "$NNSCOPE" export "$TMP/small.pt.trace.json" --format chrome --out "$TMP/x.json" --max-input 1K
run_rc 1 "diff --max-input 1K" "$NNSCOPE" diff "$TMP/small.pt.trace.json" "$TMP/small.pt.trace.json" --max-input 1K
run_rc 0 "analyse --max-input 1M" "$NNSCOPE" analyse "$TMP/small.pt.trace.json" --out "$TMP/o3" --max-input 1M
run_rc 2 "--max-input 12Q is a usage error" "$NNSCOPE" analyse "$TMP/small.pt.trace.json" --out "$TMP/o4" --max-input 12Q
check "usage error names the option" says "--max-input wants a number"

# --max-memory
run_rc 1 "tiny events over --max-memory 1M" "$NNSCOPE" analyse "$TMP/tiny.pt.trace.json" --out "$TMP/o5" --max-memory 1M
check "budget: names the budget, the events and the option" \
	bash -c "grep -qE 'needs more than the memory budget of .* events at [0-9]+ bytes each.*--max-memory' '$TMP/err.txt'"
run_rc 0 "tiny events, --max-memory 0" "$NNSCOPE" analyse "$TMP/tiny.pt.trace.json" --out "$TMP/o6" --max-memory 0
run_rc 0 "tiny events, default budget" "$NNSCOPE" analyse "$TMP/tiny.pt.trace.json" --out "$TMP/o7"

# whitespace
run_rc 1 "17 MiB of blanks" "$NNSCOPE" analyse "$TMP/blanks.pt.trace.json" --out "$TMP/o8"
check "blanks: names the bound" says "more than 16 MiB of whitespace in a row from byte 70"

# a cut .gz
run_rc 0 "cut .gz analysed up to the cut" "$NNSCOPE" analyse "$TMP/cut.pt.trace.json.gz" --out "$TMP/o9"
check "cut .gz: the compressed byte" says "the gzip stream ends early at compressed byte $(cat "$TMP/cut.len")"

# minor cases
run_rc 0 "negative dur, repeated key" "$NNSCOPE" analyse "$TMP/odd.pt.trace.json" --out "$TMP/o10"
check "negative dur: skipped, where" says "1 event(s) skipped; first: $TMP/odd.pt.trace.json: byte 70: complete event with a negative \"dur\" skipped"
check "repeated key: which, and which is kept" says "byte 127: event with a repeated \"ts\" key: its last occurrence is kept"

# serve takes them, and its loads keep them
check "serve --help lists --max-memory" bash -c "'$NNSCOPE' serve --help | grep -q -- --max-memory"
run_rc 2 "serve --max-ratio x is a usage error" "$NNSCOPE" serve "$TMP" --max-ratio x
if command -v curl >/dev/null && command -v jq >/dev/null; then
	mkdir -p "$TMP/logdir/r"
	cp "$TMP/tiny.pt.trace.json" "$TMP/logdir/r/w0.pt.trace.json"
	cp "$TMP/small.pt.trace.json" "$TMP/logdir/r/w1.pt.trace.json"
	e2e_serve "$TMP/logdir" --cache-dir "$TMP/cache" --max-memory 1M ||
		{ echo "server did not start: $(cat "$SERVE_OUT.err")"; exit 1; }
	view() { # WORKER: polls through 202; the last status, body in $TMP/body
		local c
		for _ in $(seq 300); do
			c=$(curl -s -o "$TMP/body" -w '%{http_code}' \
				"http://127.0.0.1:$PORT/api/view?run=r&worker=$1&view=overview")
			[ "$c" = 202 ] || break
			sleep 0.1
		done
		echo "$c"
	}
	c=$(view w0)
	check "serve --max-memory 1M: the tiny-event trace fails ($c) naming the budget" \
		bash -c "[ '$c' -ge 400 ] && jq -e '.error | test(\"memory budget\")' '$TMP/body' >/dev/null"
	check "serve: the small trace still loads" [ "$(view w1)" = 200 ]
fi

e2e_summary input_limits
