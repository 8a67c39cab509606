#!/usr/bin/env bash
# bare_build.sh - the GPU machine's build (tests/gpu/build_bare.sh, which
# tests/gpu/device_check.sh runs there) on a machine as bare as that one
# (issue 23; owner: the GPU check). The GPU machine has a C compiler, the C
# library, Python with its headers, torch with its headers and perhaps
# zlib.h, and none of the -dev packages scripts/install-deps.sh adds for the
# server and the tests. As root, in a private mount namespace
# (unshare -m --propagation private), every other installed *-dev package
# is hidden: its files under /usr/include and /usr/lib/<multiarch> become
# overlayfs whiteouts (a read-only overlay of the directory on itself), so
# for the compiler and the linker they are not there. Checks:
#   - the probe: before, <sqlite3.h> and <microhttpd.h> compile; inside,
#     they and the other hidden headers do not, -lsqlite3 does not link,
#     <stdio.h>, <Python.h> (and <zlib.h> in the first pass) still do;
#   - pass 1 (zlib.h there): build_bare.sh builds libnnscope.so here (not the
#     kit's copy), linked to no server/test library; the Python extension for
#     /usr/bin/python3 builds and imports; a program profiled through it
#     gives a .nnst that build/nnscope analyses to the right operator counts;
#     the torch shim is built against Debian's torch 1.13 and nnscope.torch
#     imports, or the reason it skipped is printed; with the shim, nnscope
#     copied beside the build (as the GPU check does) runs an unmodified
#     torch script with the zero-code hook: 3 optimizer steps, 3 steps;
#   - pass 2 (zlib.h hidden too): build_bare.sh takes the kit's prebuilt
#     libnnscope.so, says so, and the extension still builds, imports and
#     profiles.
# SKIP when not root, or when unshare or overlayfs is unavailable.
#
#   NNSCOPE=build/nnscope bash tests/e2e/bare_build.sh
set -uo pipefail

# shellcheck source=lib/common.bash
. "$(dirname "$0")/lib/common.bash"
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
BIN=$(cd "$(dirname "$NNSCOPE")" && pwd)
NNS=$BIN/$(basename "$NNSCOPE")
PY=/usr/bin/python3
e2e_setup bare_build.sh nnscope-bare
e2e_need cc dpkg dpkg-query jq
e2e_built "make" "$NNS" "$BIN/libnnscope.so"
e2e_clean_env
[ "$(id -u)" = 0 ] || e2e_skip "needs root: a private mount namespace hides the -dev packages"
command -v unshare >/dev/null || e2e_skip "no unshare (util-linux)"
unshare -m --propagation private true 2>"$TMP/unshare.err" ||
	e2e_skip "unshare -m does not work here: $(head -1 "$TMP/unshare.err")"
[ -x "$PY" ] || e2e_skip "no $PY"
MA=$(cc -print-multiarch 2>/dev/null)
[ -n "$MA" ] && [ -d "/usr/lib/$MA" ] || MA=x86_64-linux-gnu

# ---- what the bare machine has: everything else with -dev is hidden --------
# the C library and compiler, Python's headers, torch's headers (Debian's
# libtorch-dev and the headers it includes: the GPU machine's torch wheel
# carries its own), zlib (hidden in pass 2 only)
KEEP='^(libc6-dev|linux-libc-dev|libcrypt-dev|libnsl-dev|libtirpc-dev|libgcc-[0-9]+-dev|libstdc\+\+-[0-9]+-dev|libclang-common-[0-9]+-dev|python3(\.[0-9]+)?-dev|libpython3(\.[0-9]+)?-dev|libexpat1-dev|zlib1g-dev|libtorch-dev|libgflags-dev|libgoogle-glog-dev|libunwind-dev|libprotobuf-dev|manpages-dev|dpkg-dev|autotools-dev)$'
dpkg-query -W -f='${db:Status-Abbrev} ${Package}\n' '*-dev' 2>/dev/null | awk '$1 == "ii" { print $2 }' |
	sed 's/:.*//' | sort -u >"$TMP/dev.txt"
grep -Ev "$KEEP" "$TMP/dev.txt" >"$TMP/hide.txt"
echo "hiding $(wc -l <"$TMP/hide.txt") -dev packages: $(tr '\n' ' ' <"$TMP/hide.txt" | cut -c1-300)..."
# files (not directories) under the default include and library paths
files() { # PKG...
	local p
	for p in "$@"; do dpkg -L "$p" 2>/dev/null; done | sed 's#^/lib/#/usr/lib/#' |
		grep -E "^(/usr/include/|/usr/lib/$MA/)" | while read -r f; do
		[ -L "$f" ] || [ -f "$f" ] && echo "$f"
	done | sort -u
}
mapfile -t HIDE <"$TMP/hide.txt"
files "${HIDE[@]}" >"$TMP/hide1.txt"
files zlib1g-dev >"$TMP/zlib.txt"
cat "$TMP/hide1.txt" "$TMP/zlib.txt" >"$TMP/hide2.txt"
[ -s "$TMP/hide1.txt" ] && pass "$(wc -l <"$TMP/hide1.txt") files of those packages to hide" ||
	e2e_skip "no -dev package of the server/test dependencies is installed: nothing to hide"

# the probe's reference: what compiles with everything visible
hdr() { echo "#include <$1>" | cc -E -x c - "${@:2}" >/dev/null 2>&1; }
PY_INC=$("$PY" -c 'import sysconfig; print(sysconfig.get_paths()["include"])')
for h in sqlite3.h microhttpd.h; do
	hdr "$h" && pass "outside: <$h> compiles" || fail "outside: <$h> missing (make deps), the probe proves nothing"
done

# a fake kit: the prebuilt collector scripts/gpukit.sh packs (pass 2 needs it)
mkdir -p "$TMP/kit" "$TMP/nokit"
cp "$BIN/libnnscope.so" "$TMP/kit/libnnscope.so.prebuilt"

# ---- inside the namespace ----------------------------------------------------------
# hidden.sh LIST: mounts the overlays (whiteouts for every file of LIST),
# then runs the rest of its arguments
cat >"$TMP/hidden.sh" <<'EOF'
set -u
list=$1
shift
W=$TMP/wh
mkdir -p "$W" && mount -t tmpfs nnscope-wh "$W" || { echo "FAIL mount tmpfs"; exit 1; }
# a whiteout is a 0/0 character device (one Python process makes them all)
"$PY" - "$W" "$list" <<'PYEOF' || echo "FAIL whiteouts"
import os, stat, sys
w, lst = sys.argv[1], sys.argv[2]
for f in open(lst).read().split("\n"):
    if f:
        os.makedirs(os.path.dirname(w + f), exist_ok=True)
        os.mknod(w + f, stat.S_IFCHR | 0o600, os.makedev(0, 0))
PYEOF
for top in /usr/include "/usr/lib/$MA"; do
	mkdir -p "$W$top"
	mount -t overlay nnscope-bare -o "ro,lowerdir=$W$top:$top" "$top" ||
		{ echo "SKIPFS overlayfs cannot be mounted on $top"; exit 0; }
done
exec "$@"
EOF

# inner.sh PASS: the probe and the build, as PASS/FAIL lines
cat >"$TMP/inner.sh" <<'EOF'
set -u
pass=$1
ok() { echo "PASS $pass: $*"; }
no() { echo "FAIL $pass: $*"; }
hdr() { echo "#include <$1>" | cc -E -x c - "${@:2}" >/dev/null 2>&1; }
# the probe
bad=""
for h in sqlite3.h microhttpd.h cmocka.h isa-l.h jansson.h zstd.h gnutls/gnutls.h; do
	hdr "$h" && bad="$bad <$h>"
done
[ -z "$bad" ] && ok "sqlite3.h microhttpd.h cmocka.h isa-l.h jansson.h zstd.h gnutls.h are hidden" ||
	no "still visible:$bad"
printf 'int main(void){return 0;}\n' >"$TMP/m.c"
cc "$TMP/m.c" -o "$TMP/m" -lsqlite3 >/dev/null 2>&1 && no "-lsqlite3 still links" || ok "-lsqlite3 does not link"
hdr stdio.h && hdr Python.h -I"$PY_INC" && ok "<stdio.h> and <Python.h> compile" ||
	no "<stdio.h> or <Python.h> missing"
if [ "$pass" = zlib ]; then
	hdr zlib.h && ok "<zlib.h> compiles" || no "<zlib.h> missing"
	kit=$TMP/nokit noshim=0 want="libnnscope.so built here"
else
	hdr zlib.h && no "<zlib.h> still visible" || ok "<zlib.h> hidden"
	kit=$TMP/kit noshim=1 want="libnnscope.so: the kit's (no zlib.h here)"
fi
# the build
t0=$(date +%s)
out=$TMP/out-$pass
PYTHON=$PY NO_SHIM=$noshim JOBS=2 nice bash "$ROOT/tests/gpu/build_bare.sh" "$out" "$kit" >"$TMP/build-$pass.log" 2>&1
rc=$?
sed 's/^/    | /' "$TMP/build-$pass.log" | head -20
[ "$rc" = 0 ] && ok "build_bare.sh exit 0 ($(($(date +%s) - t0)) s)" || no "build_bare.sh exit $rc"
grep -qx "$want" "$TMP/build-$pass.log" && ok "$want" || no "not: $want"
libs=$(ldd "$out/libnnscope.so" 2>&1 | grep -E -o 'lib(sqlite3|microhttpd|isal|jansson|zstd|gnutls|cmocka)[^ ]*' | tr '\n' ' ')
[ -z "$libs" ] && ok "libnnscope.so needs no server/test library" || no "libnnscope.so needs $libs"
ls "$out"/python/nnscope/_nnscope.*.so >/dev/null 2>&1 && ok "the extension for $PY is built" ||
	no "no extension in $out/python/nnscope"
# profile through the fresh build and analyse
PYTHONPATH=$out/python "$PY" - "$TMP/trace-$pass" <<'PYEOF' >"$TMP/prof-$pass.log" 2>&1
import os, sys, nnscope
assert os.path.dirname(nnscope.__file__).startswith(os.environ["OUTDIR"]), nnscope.__file__
with nnscope.Profiler(output_path=sys.argv[1], cpu_sampling_interval_ms=0):
    for i in range(30):
        with nnscope.range("aten::bare_a"):
            with nnscope.range("aten::bare_b"):
                pass
print("profiled", nnscope.__file__)
PYEOF
[ $? = 0 ] && ok "nnscope (from the bare build) imports and profiles" ||
	no "profiling failed: $(tail -3 "$TMP/prof-$pass.log" | tr '\n' ' ')"
if "$NNS" analyse "$TMP/trace-$pass" --out "$TMP/an-$pass" -q >/dev/null 2>&1; then
	got=$(jq -c '[.by_name[] | select(.name | startswith("aten::bare")) | [.name, .calls]] | sort' \
		"$TMP/an-$pass"/*/operators.json 2>/dev/null)
	[ "$got" = '[["aten::bare_a",30],["aten::bare_b",30]]' ] &&
		ok "build/nnscope reads the trace: 30 + 30 operator calls" || no "operators: $got"
else
	no "build/nnscope analyse of the trace failed"
fi
if [ "$noshim" = 0 ]; then
	so=$(ls "$out"/python/nnscope/_nnscope_rf.torch-*.so 2>/dev/null | head -1)
	if [ -n "$so" ]; then
		ok "torch shim built against Debian's torch: $(basename "$so")"
		grep -q "^shim (" "$TMP/build-$pass.log" && ok "nnscope.torch imports" || no "nnscope.torch did not import"
		# the zero-code hook as the GPU check runs it: the kit's program
		# copied beside the build finds python/nnscope_site there
		[ -f "$out/python/nnscope_site/sitecustomize.py" ] && ok "the zero-code hook is in the build" ||
			no "no python/nnscope_site/sitecustomize.py in $out"
		cp "$NNS" "$out/nnscope"
		"$out/nnscope" run -q -o "$TMP/zero-$pass" -- "$PY" -c '
import torch
m = torch.nn.Linear(8, 4)
opt = torch.optim.SGD(m.parameters(), lr=0.1)
for _ in range(3):
    opt.zero_grad()
    m(torch.ones(2, 8)).sum().backward()
    opt.step()
' >"$TMP/zero-$pass.log" 2>&1 || no "nnscope run of a torch script failed: $(tail -2 "$TMP/zero-$pass.log" | tr '
' ' ')"
		if "$NNS" analyse "$TMP/zero-$pass" --out "$TMP/anz-$pass" -q >/dev/null 2>&1; then
			w=$(dirname "$(find "$TMP/anz-$pass" -name overview.json | head -1)")
			n=$(jq '.steps | length' "$w/overview.json" 2>/dev/null)
			l=$(jq '[.by_name[] | select(.name == "aten::linear") | .calls] | add // 0' "$w/operators.json" 2>/dev/null)
			[ "$n" = 3 ] && ok "zero-code run: 3 steps for 3 optimizer steps" || no "zero-code run: $n steps (want 3)"
			[ "$l" = 3 ] && ok "zero-code run: 3 aten::linear calls" || no "zero-code run: aten::linear $l calls (want 3)"
		else
			no "build/nnscope analyse of the zero-code trace failed"
		fi
	elif grep -q "torch shim: skipped (" "$TMP/build-$pass.log"; then
		echo "SKIPNOTE $pass: $(grep -m1 'torch shim: skipped' "$TMP/build-$pass.log")"
	else
		no "no torch shim and no reason given"
	fi
fi
EOF

export TMP MA ROOT PY PY_INC NNS # for hidden.sh and inner.sh
for pass in zlib nozlib; do
	list=$TMP/hide1.txt
	[ "$pass" = nozlib ] && list=$TMP/hide2.txt
	echo "== pass $pass: $(wc -l <"$list") files hidden"
	OUTDIR=$TMP/out-$pass unshare -m --propagation private bash "$TMP/hidden.sh" "$list" bash "$TMP/inner.sh" "$pass" \
		>"$TMP/pass-$pass.txt" 2>&1
	cat "$TMP/pass-$pass.txt"
	grep -q '^SKIPFS' "$TMP/pass-$pass.txt" && e2e_skip "$(grep -m1 '^SKIPFS' "$TMP/pass-$pass.txt" | cut -c8-)"
	passes=$((passes + $(grep -c '^PASS' "$TMP/pass-$pass.txt")))
	fails=$((fails + $(grep -c '^FAIL' "$TMP/pass-$pass.txt")))
	grep -q '^PASS\|^FAIL' "$TMP/pass-$pass.txt" || fail "pass $pass printed no result"
done
# nothing leaked out of the namespace
hdr sqlite3.h && pass "after: <sqlite3.h> visible again outside" || fail "after: <sqlite3.h> gone outside"
e2e_summary bare_build.sh
