"""build.py - `make python` prebuilds nnscope.torch's RecordFunction shim.

    PYTHONPATH=build/python python3 python/torch_shim/build.py build/python/nnscope

Builds <dir>/_nnscope_rf.torch-<version>-abi<0|1>.so (the name
nnscope.torch looks for first) from <dir>/nnscope_rf.cpp with
nnscope.torch.build_shim, when torch imports and its C++ headers are
installed, and when the .so is older than the source. Otherwise says why
it skipped and exits 0: the shim is optional (nnscope.torch builds it into
a cache at first use, or falls back to its dispatch mode).
"""
import os
import sys


def main():
    d = sys.argv[1]
    try:
        import torch  # noqa: F401
        from nnscope import torch as nt
    except Exception as e:  # noqa: BLE001 - optional: any failure skips
        print("torch shim: skipped (torch does not import: %s)" % e)
        return 0
    ver, abi = nt._torch_tag()
    out = os.path.join(d, "_nnscope_rf.torch-%s-abi%d.so" % (ver, abi))
    src = os.path.join(d, "nnscope_rf.cpp")
    if os.path.isfile(out) and os.path.getmtime(out) >= os.path.getmtime(src):
        return 0
    print("  CXX     %s" % out)
    try:
        nt.build_shim(out, src)
    except nt.ShimError as e:
        print("torch shim: skipped (%s)" % e)
    return 0


if __name__ == "__main__":
    sys.exit(main())
