#!/usr/bin/env bash
# tests/gpu/build_bare.sh - builds what the GPU check must build on the
# machine it runs on, with nothing but a C compiler, the C library, Python
# and (optionally) zlib's and torch's headers: no make, no -dev package of
# the server or test dependencies (libmicrohttpd, SQLite, ISA-L, cmocka,
# jansson, ...). tests/gpu/device_check.sh runs it on the bare GPU machine;
# tests/e2e/bare_build.sh runs it here with those -dev packages hidden, so CI
# tests the very build the GPU machine does.
#
#   bash tests/gpu/build_bare.sh OUT [KIT]
#
# Into OUT (created; existing files there are replaced):
#   libnnscope.so       the collector (src/collector, src/format, src/common)
#                       built here; without zlib.h, or when that build fails,
#                       KIT/libnnscope.so.prebuilt (scripts/gpukit.sh) instead;
#   python/nnscope/     the Python package: _nnscope<EXT_SUFFIX> built for
#                       $PYTHON against OUT/libnnscope.so (rpath $ORIGIN/../..),
#                       the .py files, and the RecordFunction shim built against
#                       $PYTHON's torch by python/torch_shim/build.py (which
#                       says why when it skips: no torch, no headers);
#   python/nnscope_site/ the zero-code hook (sitecustomize.py) that an
#                       OUT/nnscope program puts on PYTHONPATH under
#                       `nnscope run` (src/cli/cmd_run.c torch_site);
# then imports nnscope (and nnscope.torch when torch imports) from OUT.
# One line per part says what was built and how. Environment: PYTHON
# (python3), NO_SHIM=1 (do not build the shim), JOBS (parallel compiles,
# default nproc). Exit 0, or 2 when a part could not be built or imported.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
B=${1:?usage: build_bare.sh OUT [KIT]}
KIT=${2:-$ROOT/.gpukit}
PYTHON=${PYTHON:-python3}
JOBS=${JOBS:-$(nproc)}
mkdir -p "$B/obj" "$B/python/nnscope" || exit 2
B=$(cd "$B" && pwd)
cd "$ROOT" || exit 2

FLAGS="-std=c11 -O2 -g -pthread -Iinclude -Isrc -D_GNU_SOURCE -Wall -Wno-unused-parameter"
rm -f "$B/libnnscope.so" "$B"/obj/*.o
if echo '#include <zlib.h>' | cc -E -x c - >/dev/null 2>&1; then
	ls src/collector/*.c src/format/*.c src/common/*.c | xargs -P "$JOBS" -I{} sh -c \
		'o='"$B"'/obj/$(echo {} | tr / _).o; cc '"$FLAGS"' -fPIC -fvisibility=hidden -DNNS_BUILDING_LIB -c {} -o $o || echo "FAIL {}"' \
		>"$B/cc.log" 2>&1
	grep -E 'FAIL|error' "$B/cc.log" | head -5
	if cc -shared -Wl,-soname,libnnscope.so -Wl,-z,defs -o "$B/libnnscope.so" "$B"/obj/*.o -lz -ldl -lm -pthread; then
		echo "libnnscope.so built here"
	elif cp "$KIT/libnnscope.so.prebuilt" "$B/libnnscope.so"; then
		echo "libnnscope.so: the kit's (build failed)"
	fi
elif cp "$KIT/libnnscope.so.prebuilt" "$B/libnnscope.so"; then
	echo "libnnscope.so: the kit's (no zlib.h here)"
fi
[ -f "$B/libnnscope.so" ] || { echo "FAIL: no libnnscope.so (no build, no $KIT/libnnscope.so.prebuilt)"; exit 2; }

PY_INC=$("$PYTHON" -c 'import sysconfig; print(sysconfig.get_paths()["include"])')
EXT=$("$PYTHON" -c 'import sysconfig; print(sysconfig.get_config_var("EXT_SUFFIX"))')
cc -std=c11 -O2 -g -D_GNU_SOURCE -fPIC -shared -fvisibility=hidden -Iinclude -I"$PY_INC" \
	-o "$B/python/nnscope/_nnscope$EXT" python/_nnscope.c -L"$B" -lnnscope -Wl,-rpath,'$ORIGIN/../..' ||
	{ echo "FAIL: the Python extension does not build for $PYTHON"; exit 2; }
echo "python extension built: _nnscope$EXT"
cp python/nnscope/*.py python/torch_shim/nnscope_rf.cpp "$B/python/nnscope/" || exit 2
mkdir -p "$B/python/nnscope_site" &&
	cp python/nnscope_site/sitecustomize.py "$B/python/nnscope_site/" || exit 2
if [ "${NO_SHIM:-0}" = 1 ]; then
	echo "torch shim: not built (NO_SHIM=1)"
else
	PYTHONPATH=$B/python "$PYTHON" python/torch_shim/build.py "$B/python/nnscope"
fi
ls "$B/python/nnscope"
PYTHONPATH=$B/python "$PYTHON" -c 'import nnscope; print("nnscope", nnscope.__file__)' ||
	{ echo "FAIL: nnscope does not import"; exit 2; }
if "$PYTHON" -c 'import torch' >/dev/null 2>&1; then
	PYTHONPATH=$B/python "$PYTHON" -c 'import nnscope.torch as nt; print("shim", nt._torch_tag())' ||
		{ echo "FAIL: nnscope.torch does not import"; exit 2; }
else
	echo "nnscope.torch: not imported (torch does not import in $PYTHON)"
fi
exit 0
