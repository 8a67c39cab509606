"""nnscope.torch_rf: the RecordFunction shim of nnscope.torch (the C++ of
python/torch_shim/nnscope_rf.cpp): where it is found or built (beside this
file, prebuilt by ``make`` for the installed torch, else compiled at first
use into ``~/.cache/nnscope``), loading it with ctypes (once per process;
the reason it failed is kept and raised again as ShimError), and _RFOps,
the operator ranges, shapes and memory reports it records while an
Instrumentation is installed. nnscope.torch re-exports what it and its
callers use (ShimError, build_shim, _rf_load, _RFOps, _torch_tag).
"""

import ctypes
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile

import torch

from nnscope import _nnscope

_HERE = os.path.dirname(os.path.abspath(__file__))
_RF_SRC_NAMES = (os.path.join(_HERE, "nnscope_rf.cpp"),  # installed / build
                 os.path.join(_HERE, "..", "torch_shim", "nnscope_rf.cpp"))
_rf_lib = None      # the loaded shim (ctypes.CDLL), once loaded
_rf_failed = None   # why it could not be loaded, once tried


class ShimError(Exception):
    """The RecordFunction shim cannot be built or loaded (the reason)."""


def _rf_source():
    for p in _RF_SRC_NAMES:
        if os.path.isfile(p):
            return p
    raise ShimError("its source nnscope_rf.cpp is not beside %s" % __file__)


def _torch_tag():
    abi = int(bool(getattr(torch._C, "_GLIBCXX_USE_CXX11_ABI", True)))
    ver = "".join(c if c.isalnum() or c in ".+-" else "_"
                  for c in torch.__version__)
    return ver, abi


def _rf_prebuilt():
    """``make`` prebuilds the shim beside this file for the torch it saw,
    named after that torch's version and ABI."""
    ver, abi = _torch_tag()
    p = os.path.join(_HERE, "_nnscope_rf.torch-%s-abi%d.so" % (ver, abi))
    return p if os.path.isfile(p) else None


def _cache_dir():
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(
        os.path.expanduser("~"), ".cache")
    return os.path.join(base, "nnscope")


def _torch_build_flags():
    """Include and library directories of the installed torch."""
    # what torch.utils.cpp_extension.include_paths() / library_paths()
    # give on a CPU build (asked only when these lack the headers: its
    # import probes for CUDA and prints about it)
    tdir = os.path.dirname(os.path.abspath(torch.__file__))
    incs = [os.path.join(tdir, "include"),
            os.path.join(tdir, "include", "torch", "csrc", "api", "include"),
            "/usr/include/torch/csrc/api/include"]
    libs = [os.path.join(tdir, "lib")]

    def have(dirs):
        return any(os.path.isfile(os.path.join(d, "ATen", "record_function.h"))
                   for d in dirs)
    if not have(incs):
        try:
            from torch.utils import cpp_extension
            incs += list(cpp_extension.include_paths())
            libs += list(cpp_extension.library_paths())
        except Exception:  # noqa: BLE001 - then the headers are missing
            pass
    incs = [d for i, d in enumerate(incs)
            if os.path.isdir(d) and d not in incs[:i]]
    libs = [d for i, d in enumerate(libs)
            if os.path.isdir(d) and d not in libs[:i]]
    if not have(incs):
        raise ShimError("torch's C++ headers (ATen/record_function.h) are "
                        "not installed (Debian: apt-get install libtorch-dev)")
    return incs, libs


def _compiler():
    for c in (os.environ.get("CXX"), "c++", "g++", "clang++"):
        if c and shutil.which(c):
            return shutil.which(c)
    raise ShimError("no C++ compiler (c++, g++ or clang++; or set CXX)")


def build_shim(out, src=None):
    """Compiles the shim into ``out`` (atomically: a temporary file renamed)
    against the installed torch; raises ShimError with the compiler's
    message on failure. Returns out."""
    src = src or _rf_source()
    incs, libs = _torch_build_flags()
    _, abi = _torch_tag()
    d = os.path.dirname(os.path.abspath(out))
    os.makedirs(d, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".rf-", suffix=".so", dir=d)
    os.close(fd)
    cmd = [_compiler(), "-O2", "-std=c++17", "-w", "-shared", "-fPIC",
           "-fvisibility=hidden", "-DNDEBUG",
           "-D_GLIBCXX_USE_CXX11_ABI=%d" % abi]
    cmd += ["-I" + i for i in incs]
    cmd += [src, "-o", tmp]
    for lib in libs:
        cmd += ["-L" + lib, "-Wl,-rpath," + lib]
    cmd += ["-ltorch_cpu", "-lc10", "-ldl"]
    try:
        r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           universal_newlines=True)
        if r.returncode != 0:
            msg = [ln for ln in r.stdout.splitlines() if "error" in ln]
            raise ShimError("compiling the shim failed: %s"
                            % ("; ".join(msg[:3]) or r.stdout[-300:].strip()))
        os.chmod(tmp, 0o755)  # mkstemp made it 0600
        os.replace(tmp, out)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    return out


def _rf_path():
    p = os.environ.get("NNSCOPE_TORCH_SHIM")  # a shim built elsewhere
    if p:
        if not os.path.isfile(p):
            raise ShimError("NNSCOPE_TORCH_SHIM=%s: no such file" % p)
        return p
    p = _rf_prebuilt()
    if p:
        return p
    src = _rf_source()
    with open(src, "rb") as f:
        h = hashlib.sha256(f.read()).hexdigest()[:16]
    ver, abi = _torch_tag()
    p = os.path.join(_cache_dir(), "nnscope_rf-torch%s-abi%d-%s.so"
                     % (ver, abi, h))
    if not os.path.isfile(p):
        sys.stderr.write("nnscope.torch: building the RecordFunction shim "
                         "for torch %s (once) into %s\n" % (ver, p))
        build_shim(p, src)
    return p


def _libnnscope_path():
    """The libnnscope.so this process loaded (through _nnscope)."""
    try:
        with open("/proc/self/maps") as f:
            for ln in f:
                parts = ln.split()
                if len(parts) >= 6 and os.path.basename(
                        parts[-1]).startswith("libnnscope.so"):
                    return parts[-1]
    except OSError:
        pass
    p = os.path.normpath(os.path.join(os.path.dirname(_nnscope.__file__),
                                      "..", "..", "libnnscope.so"))
    return p if os.path.isfile(p) else None


def _rf_load():
    """The loaded shim; raises ShimError with the reason it is not there."""
    global _rf_lib, _rf_failed
    if _rf_lib is not None:
        return _rf_lib
    if _rf_failed is not None:
        raise ShimError(_rf_failed)
    try:
        lib = ctypes.CDLL(_rf_path())
        lib.nnscope_rf_start.argtypes = [ctypes.c_int, ctypes.c_char_p]
        lib.nnscope_rf_start.restype = ctypes.c_int
        lib.nnscope_rf_stop.restype = ctypes.c_int
        lib.nnscope_rf_error.restype = ctypes.c_char_p
        lib.nnscope_rf_seq.restype = ctypes.c_uint64
        lib.nnscope_rf_seq.argtypes = []
        lib.nnscope_rf_module.argtypes = [ctypes.c_uint32, ctypes.c_uint64,
                                          ctypes.c_uint64]
        lib.nnscope_rf_module.restype = None
        lib.nnscope_rf_backward_end.restype = None
        try:
            mem = lib.nnscope_rf_memory
            mem.argtypes = [ctypes.c_int]
            mem.restype = ctypes.c_int
        except AttributeError:  # a shim built elsewhere, before it existed
            mem = None
        lib.nnscope_rf_memory = mem
        nl = _libnnscope_path()
        lib.nnscope_rf_path = (nl or "").encode()
    except ShimError as e:
        _rf_failed = str(e)
        raise
    except Exception as e:  # noqa: BLE001 - never break the user's script
        _rf_failed = "loading the shim failed: %s: %s" % (type(e).__name__, e)
        raise ShimError(_rf_failed) from None
    _rf_lib = lib
    return lib


class _MemoryRefused(ShimError):
    """The shim runs but cannot observe the allocator (another profiler
    state, e.g. torch.profiler's, is set on the thread, or the shim or
    libnnscope is too old)."""


class _RFOps:
    """Operators through the shim's global RecordFunction callback; with
    ``memory``, the allocators' memory events through the shim's
    MemoryReportingInfoBase, pushed on the entering thread."""

    def __init__(self, lib, record_shapes, memory=False):
        self._lib = lib
        self._shapes = record_shapes
        self._memory = memory

    def __enter__(self):
        lib = self._lib
        if lib.nnscope_rf_start(int(self._shapes), lib.nnscope_rf_path) != 0:
            raise ShimError(lib.nnscope_rf_error().decode(errors="replace"))
        if self._memory:
            if lib.nnscope_rf_memory is None:
                why = "the shim predates nnscope_rf_memory"
            elif lib.nnscope_rf_memory(1) != 0:
                why = lib.nnscope_rf_error().decode(errors="replace")
            else:
                why = None
            if why is not None:
                lib.nnscope_rf_stop()
                raise _MemoryRefused(why)
        return self

    def __exit__(self, *exc):
        if self._memory and self._lib.nnscope_rf_memory is not None:
            self._lib.nnscope_rf_memory(0)
        self._lib.nnscope_rf_stop()
        return False


_BACKENDS = ("auto", "record_function", "dispatch")


def _ops_backend(choice):
    """The backend to use: ``NNSCOPE_TORCH_OPS`` (if set) overrides the
    option."""
    env = os.environ.get("NNSCOPE_TORCH_OPS")
    if env:
        choice = env
    if choice not in _BACKENDS:
        raise ValueError("nnscope.torch: ops_backend must be one of %s, not %r"
                         % (", ".join(_BACKENDS), choice))
    return choice
