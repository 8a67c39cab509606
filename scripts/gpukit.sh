#!/usr/bin/env bash
# scripts/gpukit.sh - packs what the GPU check (tests/gpu/device_check.sh)
# cannot build on a bare GPU machine into one folder that travels with the
# working tree: the nnscope program (server, SQLite, embedded UI), relinked
# so that it finds its libraries in <kit>/lib through DT_RPATH (which, unlike
# LD_LIBRARY_PATH, is not inherited by the profiled program), and every
# shared library it needs apart from glibc's own. Built here on Debian 12
# (glibc 2.36), it runs on any x86-64 Linux with glibc >= 2.36.
#
#   bash scripts/gpukit.sh [KIT]     (default .gpukit; make gpu-kit)
#
# The collector (libnnscope.so), the Python extension and the torch shim are
# built on the GPU machine itself, for its Python and torch.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
KIT=${1:-$ROOT/.gpukit}
BUILD=${BUILD:-$ROOT/build}
cd "$ROOT"
make -s "$BUILD/nnscope" "$BUILD/libnnscope.so"
rm -rf "$KIT"
mkdir -p "$KIT/lib"
# the same link line as the Makefile's (its layer archives, top-down), with
# an rpath to the kit's lib/
CLI_OBJ=$(find "$BUILD/src/cli" -name '*.o' | LC_ALL=C sort)
ARCHIVES=$(make -s --no-print-directory BUILD="$BUILD" print-link-archives)
cc -std=c11 -pthread -o "$KIT/nnscope" $CLI_OBJ $ARCHIVES \
	-lmicrohttpd -lsqlite3 -lisal -lz -lm -pthread \
	-Wl,--disable-new-dtags,-rpath,'$ORIGIN/lib'
# every library but the C library's own (the GPU machine has a newer glibc)
ldd "$KIT/nnscope" | awk '$2 == "=>" && $3 ~ /^\// { print $3 }' |
	grep -v -E '/(libc|libm|libpthread|libdl|librt|ld-linux[^/]*)\.so' |
	while read -r lib; do cp -L "$lib" "$KIT/lib/"; done
# a fallback collector, for a machine without zlib's headers
cp "$BUILD/libnnscope.so" "$KIT/libnnscope.so.prebuilt"
echo "gpukit: $KIT ($(du -sh "$KIT" | cut -f1)):"
ls "$KIT" "$KIT/lib"
