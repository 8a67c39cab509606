#!/usr/bin/env bash
# collector_procs.sh - which processes of `nnscope run` leave a trace
# (owner: the collector; rule in docs/ARCHITECTURE.md "Which processes
# leave a file"):
#   - a pyenv-style shim (a shell script that runs uname, sed, head in
#     $(...) and execs python) leaves exactly one file, holding python's
#     marks after the shell's META, one START/STOP window, END; the
#     analysis sees one worker;
#   - a process that records nothing (a shell, sleep) leaves none; a
#     forked child that records nothing leaves none, one that records
#     keeps its own file; a child that inherited its parent's RANK is a
#     helper (role helper, no rank), not a second rank;
#   - a failed exec goes on in the same file (all marks, END, readable);
#   - a process killed by SIGSEGV after recording keeps its file;
#   - launchers: `python3 -m torch.distributed.run --nproc_per_node 2`
#     leaves the launcher (role launcher, no rank) and ranks 0 and 1; the
#     cluster table has ranks 0 and 1 only; an "mpirun" (argv[0]) whose
#     children get OMPI_COMM_WORLD_RANK is the same.
# Marks are made through ctypes on the preloaded library.
#
#   NNSCOPE=build/nnscope bash tests/e2e/collector_procs.sh
set -euo pipefail

# shellcheck source=lib/common.bash
. "$(dirname "$0")/lib/common.bash"
BIN=$(cd "$(dirname "$NNSCOPE")" && pwd)
CHECK=$BIN/tests/collector_check
e2e_built "make e2e builds it" "$CHECK" "$BIN/libnnscope.so"
e2e_need jq
e2e_setup collector_procs.sh nnscope-procs
e2e_clean_env
PY=/usr/bin/python3
val() { "$CHECK" "$1" | sed -n "s/^$2=//p" | tail -1; }
count() { find "$1" -maxdepth 1 -name '*.nnst' 2>/dev/null | wc -l; }
N=300

cat >"$TMP/work.py" <<'EOF'
import ctypes, os, signal, subprocess, sys
lib = ctypes.CDLL(None)  # the preloaded libnnscope.so
lib.nns_name.restype = ctypes.c_uint32
name = lib.nns_name(b"procs-mark")
def marks(n):
    for _ in range(n):
        lib.nns_mark(name)
mode, n = sys.argv[1], int(sys.argv[2])
if mode == "marks":
    marks(n)
elif mode == "execfail":
    marks(n)
    try:
        os.execv("/nonexistent/program", ["x"])
    except OSError:
        pass
    marks(n)
elif mode == "segv":
    marks(n)
    os.kill(os.getpid(), signal.SIGSEGV)
elif mode in ("forkidle", "forkwork"):
    pid = os.fork()
    if pid == 0:
        if mode == "forkwork":
            marks(n)
        os._exit(0)
    marks(n)
    os.waitpid(pid, 0)
elif mode == "launch":  # an "mpirun": two ranks by OMPI_COMM_WORLD_RANK
    py = os.path.realpath(sys.executable)  # argv[0] says mpirun
    ps = [subprocess.Popen([py, __file__, "marks", str(n)],
                           env=dict(os.environ, OMPI_COMM_WORLD_RANK=str(r),
                                    OMPI_COMM_WORLD_SIZE="2")) for r in range(2)]
    for p in ps:
        p.wait()
EOF

# ---- a pyenv-style shim: one file ----
cat >"$TMP/shim" <<EOF
#!/bin/bash
set -e
arch=\$(uname -m)
version=\$(echo "3.11.2" | sed 's/\\.[0-9]*\$//')
first=\$(printf 'a\\nb\\n' | head -1)
exec $PY "\$@"
EOF
chmod +x "$TMP/shim"
run_rc 0 "a shim that execs python" "$NNSCOPE" run -q -o "$TMP/shim-out" -- "$TMP/shim" "$TMP/work.py" marks $N
check "the shim leaves one trace" test "$(count "$TMP/shim-out")" = 1
f=$(ls "$TMP"/shim-out/*.nnst | head -1)
[ "$(val "$f" marks)" = $N ] && [ "$(val "$f" end)" = 1 ] && [ "$(val "$f" truncated)" = 0 ] &&
	pass "it holds python's $N marks and END" || fail "marks $(val "$f" marks) END $(val "$f" end)"
[ "$(val "$f" start)" = 1 ] && [ "$(val "$f" stop)" = 1 ] && pass "one window across the exec" \
	|| fail "START $(val "$f" start) STOP $(val "$f" stop)"
val "$f" meta.cmdline | grep -q "work.py marks" && [ "$(val "$f" meta.exec)" = continued ] &&
	pass "python's META comes last (exec=continued)" || fail "META: $(val "$f" meta.cmdline)"
"$NNSCOPE" analyse "$TMP/shim-out" --out "$TMP/shim-an" -q
check "the analysis sees one worker" test "$(find "$TMP/shim-an" -name overview.json | wc -l)" = 1

# ---- what records nothing leaves nothing ----
run_rc 0 "an idle shell and its children" "$NNSCOPE" run -q -o "$TMP/idle" -- \
	/bin/sh -c 'uname >/dev/null; x=$(echo a | sed s/a/b/); sleep 0.2'
check "no trace for processes that record nothing" test "$(count "$TMP/idle")" = 0
run_rc 0 "a forked child that records nothing" "$NNSCOPE" run -q -o "$TMP/forkidle" -- \
	$PY "$TMP/work.py" forkidle $N
check "only the parent's trace" test "$(count "$TMP/forkidle")" = 1
run_rc 0 "a forked child that records" "$NNSCOPE" run -q -o "$TMP/forkwork" -- \
	$PY "$TMP/work.py" forkwork $N
check "parent and child traces" test "$(count "$TMP/forkwork")" = 2
for f in "$TMP"/forkwork/*.nnst; do
	[ "$(val "$f" marks)" = $N ] || fail "$(basename "$f"): marks $(val "$f" marks)"
done

# ---- a failed exec goes on in the same file ----
run_rc 0 "exec fails" "$NNSCOPE" run -q -o "$TMP/execfail" -- $PY "$TMP/work.py" execfail $N
check "one trace after a failed exec" test "$(count "$TMP/execfail")" = 1
f=$(ls "$TMP"/execfail/*.nnst | head -1)
[ "$(val "$f" marks)" = $((2 * N)) ] && [ "$(val "$f" end)" = 1 ] && [ "$(val "$f" ok)" = 1 ] &&
	pass "marks before and after the failed exec, END" ||
	fail "marks $(val "$f" marks) END $(val "$f" end) ok $(val "$f" ok)"
"$NNSCOPE" export "$f" --format chrome --out "$TMP/execfail.json" 2>"$TMP/export.err"
check "the analyzer reads it: $((2 * N)) marks" \
	test "$(jq '[.traceEvents[] | select(.name == "procs-mark")] | length' "$TMP/execfail.json")" = $((2 * N))

# ---- crash safety: a process that recorded keeps its file ----
run_rc 139 "SIGSEGV after recording" "$NNSCOPE" run -q -o "$TMP/segv" -- $PY "$TMP/work.py" segv $N
check "the crashed process's trace is there" test "$(count "$TMP/segv")" = 1
f=$(ls "$TMP"/segv/*.nnst 2>/dev/null | head -1)
[ -n "$f" ] && [ "$(val "$f" marks)" = $N ] && pass "with its $N marks" || fail "marks: $(val "$f" marks)"

# ---- ranks and helpers ----
RANK=0 WORLD_SIZE=1 "$NNSCOPE" run -q -o "$TMP/helper" -- $PY "$TMP/work.py" forkwork $N
for f in "$TMP"/helper/*.nnst; do
	if [ -n "$(val "$f" meta.fork_parent_pid)" ]; then
		[ "$(val "$f" meta.role)" = helper ] && [ -z "$(val "$f" meta.rank)" ] &&
			[ "$(val "$f" meta.parent_rank)" = 0 ] && pass "a forked child of rank 0 is its helper" ||
			fail "child: role $(val "$f" meta.role) rank $(val "$f" meta.rank)"
	else
		[ "$(val "$f" meta.role)" = rank ] && [ "$(val "$f" meta.rank)" = 0 ] &&
			pass "the parent is rank 0" || fail "parent: role $(val "$f" meta.role)"
	fi
done
"$NNSCOPE" analyse "$TMP/helper" --out "$TMP/helper-an" -q
check "the cluster has one rank, not the helper" \
	test "$(jq '.ranks | length' "$TMP/helper-an/cluster.json")" = 1

# an "mpirun" (argv[0]) that starts two ranks with OMPI_COMM_WORLD_RANK
ln -s $PY "$TMP/mpirun"
run_rc 0 "an mpirun" "$NNSCOPE" run -q -o "$TMP/mpi" -- "$TMP/mpirun" "$TMP/work.py" launch $N
ls "$TMP"/mpi/*_rank0_*.nnst "$TMP"/mpi/*_rank1_*.nnst >/dev/null 2>&1 &&
	pass "ranks 0 and 1 from OMPI_COMM_WORLD_RANK name their traces" || fail "mpi: $(ls "$TMP/mpi")"
for f in "$TMP"/mpi/*_rank*.nnst; do
	[ "$(val "$f" meta.rank_source)" = openmpi ] || fail "$(basename "$f"): rank_source $(val "$f" meta.rank_source)"
done
for f in "$TMP"/mpi/*_launcher_*.nnst; do # kept if it used 100 ms of CPU
	[ -f "$f" ] || continue
	[ "$(val "$f" meta.launcher)" = mpirun ] && pass "the launcher is marked mpirun" || fail "launcher META"
done

# ---- torchrun: the launcher and two ranks ----
if ! $PY -c 'import torch.distributed.run' 2>/dev/null; then
	echo "SKIP torchrun: no torch for $PY"
else
	# torch 1.13 on Python 3.11 cannot parse its default --redirects/--tee "0"
	# (IntFlag iteration skips 0): 1 (stdout) works on every version
	port=$(e2e_free_port 2>/dev/null || echo 29517)
	run_rc 0 "torchrun, 2 workers" "$NNSCOPE" run -q -o "$TMP/torchrun" -- $PY -m torch.distributed.run \
		--nproc_per_node 2 --master_port "$port" --redirects 1 --tee 1 "$TMP/work.py" marks $N
	l=$(ls "$TMP"/torchrun/*_launcher_*.nnst 2>/dev/null | head -1)
	[ -n "$l" ] && [ "$(val "$l" meta.role)" = launcher ] && [ "$(val "$l" meta.launcher)" = torchrun ] &&
		[ -z "$(val "$l" meta.rank)" ] && pass "the launcher: role launcher, no rank" ||
		fail "launcher: $(ls "$TMP/torchrun")"
	for r in 0 1; do
		f=$(ls "$TMP"/torchrun/*_rank${r}_*.nnst 2>/dev/null | head -1)
		[ -n "$f" ] && [ "$(val "$f" meta.rank)" = $r ] && [ "$(val "$f" marks)" = $N ] &&
			[ "$(val "$f" meta.local_rank)" = $r ] && pass "rank $r: its trace, $N marks" ||
			fail "rank $r: $(ls "$TMP/torchrun")"
	done
	check "three traces (launcher, ranks 0 and 1)" test "$(count "$TMP/torchrun")" = 3
	"$NNSCOPE" analyse "$TMP/torchrun" --out "$TMP/torchrun-an" -q
	check "the cluster table: ranks 0 and 1" \
		test "$(jq -c '[.ranks[].rank]' "$TMP/torchrun-an/cluster.json")" = "[0,1]"
	check "the distributed view: 2 workers, the launcher left out" \
		test "$(jq '.workers | length' "$TMP/torchrun-an/distributed.json")" = 2
fi

e2e_summary collector_procs.sh
