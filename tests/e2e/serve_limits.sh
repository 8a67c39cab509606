#!/usr/bin/env bash
# serve_limits.sh - `nnscope serve` stays reachable whatever one client or
# one file does (issue 20, item 4), on a real server and real sockets
# (tests/e2e/lib/serve_probe.py):
#   - 256 idle connections, or 260 that trickle a header byte every 10 s, do
#     not stop a normal request from being answered within 3 s (the oldest
#     waiting connections are shed before the limit);
#   - a connection trickling a byte a second is closed at --request-timeout
#     (a total deadline, not restarted by each byte);
#   - 250 or 2,000 query parameters, or a 9 KB URI, get their 4xx at once
#     (libmicrohttpd used to hang them 30 s with no answer);
#   - three slow loads (4 GB .gz traces generated here) do not stop a small
#     span's view: it answers 200 while the big ones are still loading, and
#     the 202 answers and /api/loads say which file is slow and why (size,
#     phase, bytes read, elapsed, cause);
#   - a load nobody asks for any more is cancelled (--load-abandon), and one
#     running past --load-timeout fails with a 503 that says so.
#
#   NNSCOPE=build/nnscope bash tests/e2e/serve_limits.sh
set -euo pipefail

# shellcheck source=lib/common.bash
. "$(dirname "$0")/lib/common.bash"
e2e_setup serve_limits.sh nnscope-limits
e2e_need jq curl python3
PROBE="python3 $(dirname "$0")/lib/serve_probe.py"
# at least 300 descriptors for the probe's connections
[ "$(ulimit -n)" -ge 600 ] || ulimit -n 1024 2>/dev/null || e2e_skip "cannot open 600 descriptors"

LOG=$TMP/logdir
mkdir -p "$LOG/small" "$LOG/big"
e2e_small_trace "$LOG/small/w.pt.trace.json"
# three workers of one big run: the same 16 GB trace (hard links: 160 MB on
# disk), several seconds to load even alone on a fast machine
$PROBE mkbig "$LOG/big/w0.pt.trace.json.gz" 16000 >/dev/null
ln "$LOG/big/w0.pt.trace.json.gz" "$LOG/big/w1.pt.trace.json.gz"
ln "$LOG/big/w0.pt.trace.json.gz" "$LOG/big/w2.pt.trace.json.gz"

EXTRA="--request-timeout 3 --load-abandon 3"
# shellcheck disable=SC2086
e2e_serve "$LOG" --cache-dir "$TMP/cache" $EXTRA || { echo "server did not start: $(cat "$SERVE_OUT.err")"; exit 1; }
B=http://127.0.0.1:$PORT
alive() { [ "$(curl -s -o /dev/null -w '%{http_code}' "$B/api/runs")" = 200 ]; }

# ---- connections ----------------------------------------------------------------
$PROBE idle "$PORT" 256 >"$TMP/idle.json"
check "256 idle connections: a normal request answers 200 within 3 s ($(jq -c '{status,seconds,shed}' "$TMP/idle.json"))" \
	jqt "$TMP/idle.json" '.status == 200 and .seconds < 3 and .shed > 0'
$PROBE trickle "$PORT" 260 10 >"$TMP/trickle.json"
check "260 connections trickling a header byte each 10 s: a normal request answers within 3 s ($(jq -c '{status,seconds}' "$TMP/trickle.json"))" \
	jqt "$TMP/trickle.json" '.status == 200 and .seconds < 3'
$PROBE deadline "$PORT" 1 >"$TMP/deadline.json"
check "a request trickling a byte a second is closed at --request-timeout 3 s ($(jq -c .closed_after "$TMP/deadline.json") s)" \
	jqt "$TMP/deadline.json" '.closed_after != null and .closed_after >= 2.5 and .closed_after < 6'
for n in 65 250 2000; do
	$PROBE params "$PORT" $n short >"$TMP/p$n.json"
	check "$n query parameters: 400 at once ($(jq -c '{status,seconds}' "$TMP/p$n.json"))" \
		jqt "$TMP/p$n.json" '.status == 400 and .seconds < 1'
done
$PROBE params "$PORT" 2000 >"$TMP/p2000l.json"
check "2000 query parameters in a 15 KB URI: 414 at once ($(jq -c '{status,seconds}' "$TMP/p2000l.json"))" \
	jqt "$TMP/p2000l.json" '.status == 414 and .seconds < 1'
$PROBE params "$PORT" 64 >"$TMP/p64.json"
check "64 query parameters are still served" jqt "$TMP/p64.json" '.status == 200'
check_q "the server still answers" alive

# ---- loads ----------------------------------------------------------------------
# the three big spans are asked for (and again every 0.3 s) for 2.5 s, then the small one
$PROBE slowload "$PORT" big w0,w1,w2 small w 2.5 >"$TMP/slow.json"
check "a small span's view answers 200 within 5 s while three big ones load ($(jq -c '{small_status,small_seconds,big_status}' "$TMP/slow.json"))" \
	jqt "$TMP/slow.json" '.small_status == 200 and .small_seconds < 5 and .big_status == 202'
jq '.big_last' "$TMP/slow.json" >"$TMP/big202.json"
check "the big span's 202 names its file, size, phase, bytes read and elapsed time" \
	jqt "$TMP/big202.json" '.file == "big/w0.pt.trace.json.gz" and .size > 100000000 and .phase == "parsing" and .bytes_read > 0 and .elapsed_ms >= 2000'
check "... says it is slow and why ($(jq -r .cause "$TMP/big202.json"))" \
	jqt "$TMP/big202.json" '.slow == true and (.cause | test("compressed file: .* read in [0-9]+ s"))'
check "... and lists the other loads under way" \
	# (the small span may still be loading beside them on a busy machine)
	jqt "$TMP/big202.json" '[.loads[].file] | (index("big/w1.pt.trace.json.gz") != null and index("big/w2.pt.trace.json.gz") != null and index("big/w0.pt.trace.json.gz") == null)'
jq '.loads[1]' "$TMP/slow.json" >"$TMP/loads.json"
check "/api/loads lists the three big loads; the two that run for 2 s are slow, with their causes" \
	jqt "$TMP/loads.json" '(.loads | length) == 3 and ([.loads[] | select(.slow and (.cause | length) > 0)] | length) >= 2 and all(.loads[]; .bytes_read > 0)'
# nobody asks any more: cancelled within --load-abandon 3 s (and a tick)
for _ in $(seq 60); do
	curl -s "$B/api/loads" >"$TMP/loads_after.json"
	[ "$(jq '.loads | length' "$TMP/loads_after.json")" = 0 ] && break
	sleep 0.2
done
# cancelled, not finished: asked again, the span starts from the beginning
c=$(curl -s -o "$TMP/again.json" -w '%{http_code}' "$B/api/view?run=big&worker=w0&view=overview")
check "loads nobody asks for are cancelled after --load-abandon (asked again: $c, $(jq -c '{phase,bytes_read,elapsed_ms}' "$TMP/again.json"))" \
	bash -c "[ \"\$(jq '.loads | length' '$TMP/loads_after.json')\" = 0 ] && [ $c = 202 ] && jq -e '.elapsed_ms < 1500' '$TMP/again.json' >/dev/null"
kill "$SPID"
wait "$SPID" 2>/dev/null || true

# ---- the load deadline -------------------------------------------------------------
e2e_serve "$LOG" --cache-dir "$TMP/cache2" --load-timeout 2 || { echo "server did not start"; exit 1; }
B=http://127.0.0.1:$PORT
Q="run=big&worker=w0&view=overview"
for _ in $(seq 100); do
	c=$(curl -s -o "$TMP/to.json" -w '%{http_code}' "$B/api/view?$Q")
	[ "$c" = 202 ] || break
	sleep 0.2
done
check "a load past --load-timeout 2 fails with 503 saying so ($c: $(jq -r .error "$TMP/to.json" | cut -c1-160))" \
	bash -c "[ $c = 503 ] && jq -r .error '$TMP/to.json' | grep -q 'longer than 2 s (--load-timeout)'"
check_q "the small span still loads" bash -c "for i in \$(seq 100); do c=\$(curl -s -o /dev/null -w '%{http_code}' '$B/api/view?run=small&worker=w&view=overview'); [ \$c = 200 ] && exit 0; sleep 0.1; done; exit 1"

e2e_summary serve_limits
