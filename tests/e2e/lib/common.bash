# shellcheck shell=bash
# tests/e2e/lib/common.bash - what the end-to-end scripts (tests/e2e/*.sh)
# share. Sourced, never run: `make e2e` runs tests/e2e/*.sh only, and this
# file is neither *.sh nor at that level.
#
#   . "$(dirname "$0")/lib/common.bash"
#   e2e_setup NAME PREFIX   NNSCOPE must be set; TMP is a fresh directory
#                           /tmp/PREFIX.XXXXXX; at exit every process in
#                           E2E_PIDS is killed and waited for, the function
#                           e2e_on_exit runs when the script defines it, and
#                           TMP is removed. NAME (the script's file name)
#                           heads the FAIL/SKIP lines of the helpers below.
#   e2e_need TOOL...        a missing tool: "FAIL NAME: TOOL is not installed
#                           (make deps)" and exit 1
#   e2e_skip MSG            "SKIP NAME: MSG" and exit 0 (nothing to test here)
#   e2e_built HINT PATH...  a missing executable or file: "FAIL NAME: PATH not
#                           built (HINT)" and exit 1
#   e2e_python BUILD        the Python package built under BUILD/python (else
#                           FAIL, exit 1) and on PYTHONPATH
#   e2e_clean_env           unsets the profiler options and launcher rank
#                           variables a developer's shell may hold, so runs
#                           here are plain single-process ones
#   pass MSG / fail MSG     one "PASS MSG" / "FAIL MSG" line; counted in
#                           $passes / $fails
#   check NAME CMD...       PASS NAME when CMD succeeds, else FAIL NAME
#   check_q NAME CMD...     the same with CMD's output hidden
#   jqt FILE EXPR           true when jq -r EXPR FILE prints exactly "true"
#   run_rc WANT NAME CMD... PASS "NAME (exit WANT)" when CMD exits WANT (its
#                           output in $TMP/out.txt and $TMP/err.txt)
#   e2e_free_port           prints a loopback TCP port nothing listens on
#                           (free when asked: bind it at once or retry)
#   e2e_serve LOGDIR ARGS.. starts `nnscope serve LOGDIR --port 0 -q ARGS`
#                           in the background and waits for the address it
#                           prints: sets PORT, SPID (also added to E2E_PIDS)
#                           and SERVE_OUT (its stdout; stderr in .err);
#                           E2E_LOUD=1: without -q (what it says of its
#                           loads is in .err)
#   e2e_summary [LABEL]     "LABEL: N passed, M failed" (no label: "N passed,
#                           M failed"); returns 1 when something failed

: "${NNSCOPE:?set NNSCOPE to the path of the nnscope binary}"
passes=0
fails=0
E2E_PIDS=()
E2E_NAME=${E2E_NAME:-$(basename "$0")}

pass() { echo "PASS $*"; passes=$((passes + 1)); }
fail() { echo "FAIL $*"; fails=$((fails + 1)); }
check() { # check NAME CMD...
	local name=$1
	shift
	if "$@"; then pass "$name"; else fail "$name"; fi
}
check_q() { # check_q NAME CMD...: CMD's stdout and stderr hidden
	local name=$1
	shift
	if "$@" >/dev/null 2>&1; then pass "$name"; else fail "$name"; fi
}
jqt() { [ "$(jq -r "$2" "$1" 2>/dev/null)" = "true" ]; }

e2e_cleanup() {
	local p
	for p in "${E2E_PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
	for p in "${E2E_PIDS[@]}"; do wait "$p" 2>/dev/null || true; done
	if declare -F e2e_on_exit >/dev/null; then e2e_on_exit || true; fi
	[ -n "${TMP:-}" ] && rm -rf "$TMP"
}

e2e_setup() { # NAME PREFIX
	E2E_NAME=$1
	TMP=$(mktemp -d "/tmp/$2.XXXXXX")
	trap e2e_cleanup EXIT
}

e2e_need() { # TOOL...
	local t
	for t in "$@"; do
		command -v "$t" >/dev/null || { echo "FAIL $E2E_NAME: $t is not installed (make deps)"; exit 1; }
	done
}

e2e_built() { # HINT PATH...
	local hint=$1 f
	shift
	for f in "$@"; do
		[ -e "$f" ] || { echo "FAIL $E2E_NAME: $f not built ($hint)"; exit 1; }
	done
}

e2e_python() { # BUILD
	if ! ls "$1"/python/nnscope/_nnscope*.so >/dev/null 2>&1; then
		echo "FAIL $E2E_NAME: $1/python/nnscope is not built (make python)"
		exit 1
	fi
	export PYTHONPATH=$1/python
}

e2e_clean_env() {
	unset NNSCOPE_OPTIONS MS_PROFILER_OPTIONS NNSCOPE_PRELOAD NNS_MLP_DELAY_MS NNSCOPE_LIBMPI \
		RANK WORLD_SIZE LOCAL_RANK OMPI_COMM_WORLD_RANK OMPI_COMM_WORLD_SIZE PMI_RANK PMI_SIZE \
		SLURM_PROCID SLURM_NTASKS PMIX_RANK RANK_ID RANK_SIZE
}

e2e_skip() { # MSG
	echo "SKIP $E2E_NAME: $*"
	exit 0
}

e2e_free_port() {
	local p
	if command -v python3 >/dev/null; then
		python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
		return
	fi
	for _ in $(seq 50); do
		p=$((20000 + RANDOM % 30000))
		(exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null || { echo "$p"; return; }
	done
	return 1
}

e2e_small_trace() { # FILE...: a Kineto trace of one step and two operators into each FILE
	local f
	for f in "$@"; do
		cat >"$f" <<'JSON'
{"schemaVersion": 1, "traceEvents": [
 {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 1, "tid": 1, "ts": 0, "dur": 1000},
 {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 100, "dur": 300},
 {"ph": "X", "cat": "cpu_op", "name": "aten::relu", "pid": 1, "tid": 1, "ts": 500, "dur": 100}
]}
JSON
	done
}

e2e_serve() { # LOGDIR ARGS...
	local dir=$1
	shift
	SERVE_OUT="$TMP/serve.$RANDOM.out"
	local quiet=(-q)
	[ -n "${E2E_LOUD:-}" ] && quiet=()
	"$NNSCOPE" serve --logdir "$dir" --port 0 "${quiet[@]}" "$@" >"$SERVE_OUT" 2>"$SERVE_OUT.err" &
	SPID=$!
	E2E_PIDS+=("$SPID")
	for _ in $(seq 200); do
		grep -q "http://" "$SERVE_OUT" 2>/dev/null && break
		kill -0 "$SPID" 2>/dev/null || break
		sleep 0.05
	done
	PORT=$(sed -n 's|.*http://127.0.0.1:\([0-9]*\)/.*|\1|p' "$SERVE_OUT")
	[ -n "$PORT" ]
}

e2e_summary() { # [LABEL]
	echo "${1:+$1: }$passes passed, $fails failed"
	[ "$fails" -eq 0 ]
}

run_rc() { # run_rc WANT NAME CMD...: CMD's output in $TMP/out.txt, err.txt;
	# PASS "NAME (exit RC)" when it exits with WANT, else FAIL with its stderr
	local want=$1 name=$2 rc=0
	shift 2
	"$@" >"$TMP/out.txt" 2>"$TMP/err.txt" || rc=$?
	if [ "$rc" -eq "$want" ]; then
		pass "$name (exit $rc)"
	else
		fail "$name: exit $rc, wanted $want"
		sed 's/^/    /' "$TMP/err.txt" | head -5
	fi
}
