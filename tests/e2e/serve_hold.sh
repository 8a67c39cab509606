#!/usr/bin/env bash
# serve_hold.sh - long polls (docs/SERVER.md, "X-Nnscope-Wait"; src/server/
# hold.h) on a real server:
#   - without the header, a span not loaded yet is answered 202 at once (as
#     before: scripts that poll keep working);
#   - with it, a small trace's first /api/trace/meta and /api/view answer
#     200 (the server held them until the load settled), as does a cluster
#     of workers (/api/distributed);
#   - a load longer than the wait: 202 after the wait (at least the asked
#     time, never more than the 1 s ceiling); a wait that is not a positive
#     number is ignored;
#   - held requests are answered when the server stops (no hang), and the
#     server exits 0.
#
#   NNSCOPE=build/nnscope bash tests/e2e/serve_hold.sh
set -euo pipefail

# shellcheck source=lib/common.bash
. "$(dirname "$0")/lib/common.bash"
e2e_setup serve_hold.sh nnscope-hold
e2e_need jq curl python3
PROBE="python3 $(dirname "$0")/lib/serve_probe.py"

LOG=$TMP/logdir
mkdir -p "$LOG/small" "$LOG/big"
e2e_small_trace "$LOG"/small/{a,b,c,d}.pt.trace.json
# a trace that takes seconds to load (10 GB of instant markers, 100 MB on
# disk, little memory): about 4 s on a fast machine, 8 s on a slow one
$PROBE mkbig "$LOG/big/w.pt.trace.json.gz" 10000 >/dev/null
# hard links: each name is a worker of its own, loaded only once asked for
for w in w2 wc b1 b2 b3 b4; do ln "$LOG/big/w.pt.trace.json.gz" "$LOG/big/$w.pt.trace.json.gz"; done

e2e_serve "$LOG" --cache-dir "$TMP/cache" || { echo "server did not start: $(cat "$SERVE_OUT.err")"; exit 1; }
B=http://127.0.0.1:$PORT
# get NAME URL [WAIT]: body in $TMP/NAME.json, "status seconds" in $TMP/NAME.st
get() {
	local h=()
	[ $# -ge 3 ] && h=(-H "X-Nnscope-Wait: $3")
	curl -s -o "$TMP/$1.json" -w '%{http_code} %{time_total}' "${h[@]}" "$2" >"$TMP/$1.st"
}
st() { cut -d' ' -f1 "$TMP/$1.st"; }
secs() { cut -d' ' -f2 "$TMP/$1.st"; }
# ge A B: A >= B (decimals)
ge() { python3 -c "import sys; sys.exit(0 if float('$1') >= float('$2') else 1)"; }

get plain "$B/api/trace/meta?run=small&worker=a"
check "no header: a trace not loaded yet answers 202 ($(cat "$TMP/plain.st"))" [ "$(st plain)" = 202 ]
check "no header: the 202 is the progress document" jqt "$TMP/plain.json" '.state != null and .progress != null'

get meta "$B/api/trace/meta?run=small&worker=b" 1000
check "X-Nnscope-Wait: 1000: the first /api/trace/meta of a small trace answers 200 ($(cat "$TMP/meta.st"))" [ "$(st meta)" = 200 ]
check "... with its timeline layout" jqt "$TMP/meta.json" '(.tracks | length) > 0'
get view "$B/api/view?run=small&worker=c&view=overview" 1000
check "X-Nnscope-Wait: 1000: the first overview of a small trace answers 200 ($(cat "$TMP/view.st"))" [ "$(st view)" = 200 ]
check "... with its steps" jqt "$TMP/view.json" '(.steps | length) == 1'
get dist "$B/api/distributed?run=small" 1000
check "X-Nnscope-Wait: 1000: a run's distributed view (every worker loaded) answers 200 ($(cat "$TMP/dist.st"))" [ "$(st dist)" = 200 ]

# w and wc start loading together: they share the two cores, so wc's load
# outlasts the ceiling check below with room to spare
get kick "$B/api/trace/meta?run=big&worker=wc"
get held "$B/api/trace/meta?run=big&worker=w" 300
check "a load longer than the wait: 202 ($(cat "$TMP/held.st"))" [ "$(st held)" = 202 ]
check "... after the 300 ms asked for ($(secs held) s)" ge "$(secs held)" 0.3
check "... with its progress" jqt "$TMP/held.json" '.state == "analysing" and .file != null and .bytes_read != null'
get ceil "$B/api/trace/meta?run=big&worker=wc" 60000
check "a wait over the ceiling holds 1 s at most: 202 after 1 s ($(cat "$TMP/ceil.st"))" \
	bash -c "[ $(st ceil) = 202 ] && python3 -c 'import sys; sys.exit(0 if 1.0 <= $(secs ceil) < 5 else 1)'"
# each ignored wait is the first request for a worker of its own: its load
# has just started, so only a hold could make it answer anything but 202
i=0
for bad in abc 0 -5 "1e9x"; do
	i=$((i + 1))
	get bad "$B/api/trace/meta?run=big&worker=b$i" "$bad"
	check "X-Nnscope-Wait: '$bad' is ignored: 202 without a hold ($(cat "$TMP/bad.st"))" \
		bash -c "[ $(st bad) = 202 ] && python3 -c 'import sys; sys.exit(0 if $(secs bad) < 0.9 else 1)'"
done

# requests held while the server stops: answered or closed, never hung
# "CODE EXIT" per request: curl's exit status 28 is its own 20 s timeout
for i in 1 2 3; do
	(
		rc=0
		code=$(curl -s -o /dev/null -m 20 -w '%{http_code}' -H "X-Nnscope-Wait: 1000" \
			"$B/api/trace/meta?run=big&worker=w2") || rc=$?
		echo "$code $rc" >"$TMP/stop$i.st"
	) &
done
sleep 0.3
t0=$(date +%s%N)
kill -TERM "$SPID"
rc=0
wait "$SPID" || rc=$?
wait
ms=$((($(date +%s%N) - t0) / 1000000))
check "SIGTERM with three requests held: the server exits 0 (rc $rc, in $ms ms)" [ "$rc" = 0 ]
check "... and the held requests end at once, closed (000) or answered 202, not at curl's timeout ($(cat "$TMP"/stop[123].st | tr '\n' ' '))" \
	bash -c "cat $TMP/stop1.st $TMP/stop2.st $TMP/stop3.st | awk '(\$1 != \"000\" && \$1 != \"202\") || \$2 == 28 { bad = 1 } END { exit bad || NR != 3 }'"

e2e_summary serve_hold
