#!/usr/bin/env bash
# serve_args.sh - `nnscope serve` reports what is wrong with its arguments
# before it touches the network: with a real listener holding a port (as
# `make demo` holds 8080), `serve MISSING --port THAT_PORT` names the
# missing logdir, not the port; likewise a logdir that is a file, an
# unreadable logdir, an unwritable --cache-dir and a bad --host. A good
# logdir on the held port still says the port is in use; usage errors exit
# 2, input errors 1, each in one line (docs/CLI.md "Exit codes").
#
#   NNSCOPE=build/nnscope bash tests/e2e/serve_args.sh
set -euo pipefail
# shellcheck source=lib/common.bash
. "$(dirname "$0")/lib/common.bash"
e2e_setup serve_args.sh nnscope-serve-args

mkdir -p "$TMP/logdir" "$TMP/empty"
echo "not a directory" >"$TMP/afile"

# a real listener on a port: a second `nnscope serve` (what `make demo` is)
e2e_serve "$TMP/empty" || { echo "FAIL serve_args.sh: the holding server did not start: $(cat "$SERVE_OUT.err")"; exit 1; }
HELD=$PORT
check "a server holds 127.0.0.1:$HELD" bash -c "exec 3<>/dev/tcp/127.0.0.1/$HELD"

# serve_rc ARGS...: runs serve in the foreground (it must not start: a
# limit of 10 s turns a server that started into a failure); rc in RC,
# stderr in $TMP/err
serve_rc() {
	set +e
	timeout 10 "$NNSCOPE" serve "$@" >"$TMP/out" 2>"$TMP/err"
	RC=$?
	set -e
}
not_port() { ! grep -q -e 'in use' -e 'cannot listen' -e "port $HELD" "$TMP/err"; }

serve_rc "$TMP/missing" --port "$HELD"
check "missing logdir on a held port: exit 1" [ "$RC" = 1 ]
check "missing logdir on a held port: names the logdir, in one line" \
	bash -c "grep -q '$TMP/missing: no such directory' '$TMP/err' && [ \$(wc -l <'$TMP/err') = 1 ]"
check "missing logdir on a held port: says nothing about the port" not_port

serve_rc --logdir "$TMP/missing" --port "$HELD" --cache-dir "$TMP/cache"
check "missing --logdir DIR on a held port: exit 1 naming it, not the port" \
	bash -c "[ $RC = 1 ] && grep -q '$TMP/missing: no such directory' '$TMP/err'"
check "missing logdir: the --cache-dir was not created" test ! -e "$TMP/cache"

serve_rc "$TMP/afile" --port "$HELD"
check "a file as logdir on a held port: exit 1, 'not a directory', not the port" \
	bash -c "[ $RC = 1 ] && grep -q '$TMP/afile: not a directory' '$TMP/err'"
check "a file as logdir: says nothing about the port" not_port

if [ "$(id -u)" != 0 ]; then
	mkdir -p "$TMP/locked"
	chmod 000 "$TMP/locked"
	serve_rc "$TMP/locked" --port "$HELD"
	chmod 755 "$TMP/locked"
	check "an unreadable logdir on a held port: exit 1 naming it" \
		bash -c "[ $RC = 1 ] && grep -q '$TMP/locked: cannot read this directory' '$TMP/err'"
	check "an unreadable logdir: says nothing about the port" not_port
else
	echo "SKIP unreadable logdir: running as root, every directory is readable"
fi

serve_rc "$TMP/logdir" --cache-dir "$TMP/afile/cache" --port "$HELD"
check "an unwritable --cache-dir on a held port: exit 1 naming it" \
	bash -c "[ $RC = 1 ] && grep -q -- '--cache-dir $TMP/afile/cache: cannot write there' '$TMP/err'"
check "an unwritable --cache-dir: says nothing about the port" not_port

serve_rc "$TMP/logdir" --host not-an-ip --port "$HELD"
check "--host not-an-ip on a held port: exit 1, 'not a numeric', not the port" \
	bash -c "[ $RC = 1 ] && grep -q 'not a numeric' '$TMP/err'"

serve_rc --port "$HELD"
check "no logdir on a held port: usage error, exit 2" bash -c "[ $RC = 2 ] && grep -q 'missing --logdir' '$TMP/err'"
serve_rc "$TMP/missing" --port "$HELD" --threads 0
check "a bad option value beside a missing logdir: usage error, exit 2" \
	bash -c "[ $RC = 2 ] && grep -q -- '--threads' '$TMP/err'"
serve_rc "$TMP/missing" "$TMP/logdir" --port "$HELD"
check "two logdirs: usage error, exit 2" bash -c "[ $RC = 2 ] && grep -q 'unexpected argument' '$TMP/err'"

# everything right but the port: the port is named
serve_rc "$TMP/logdir" --port "$HELD" --cache-dir "$TMP/cache2"
check "a good logdir on the held port: exit 1, 'in use', in one line" \
	bash -c "[ $RC = 1 ] && grep -q 'port $HELD: .*in use' '$TMP/err' && [ \$(wc -l <'$TMP/err') = 1 ]"

# the holder is untouched by all of this
check "the holding server still answers" \
	bash -c "[ \"\$(curl -s -o /dev/null -w '%{http_code}' http://127.0.0.1:$HELD/api/runs)\" = 200 ]"

e2e_summary serve_args.sh
