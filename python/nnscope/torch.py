"""nnscope.torch: PyTorch integration (written for Debian's torch 1.13, CPU;
the RecordFunction shim uses only API that torch 2.x keeps, untested there).

    import nnscope.torch

    with nnscope.torch.Profiler(output_path="./data", ops=True) as prof:
        for x, y in loader:              # "enumerate(DataLoader)#..." ranges
            loss = loss_fn(model(x), y)  # "nn.Module: Conv2d_0" ... + aten ops
            loss.backward()              # "nn.Module: Conv2d_0.backward" ...
            opt.step()                   # "Optimizer.step#SGD.step"
            prof.step()

What is recorded, and how (all switchable, see ``Instrumentation``):

modules   global forward pre/post hooks
          (``torch.nn.modules.module.register_module_forward_pre_hook`` /
          ``register_module_forward_hook``) push/pop
          ``"nn.Module: <ClassName>_<n>"`` (n counts instances of a class in
          order of first call, as torch's own profiler names them).
backward  torch 1.13 has no module backward *pre* hook (added in 2.0), so a
          module's backward range is built from tensor hooks: it begins when
          the gradient of the module's output arrives (hook on the output
          tensor) and ends when the gradients of all its grad-requiring
          inputs are computed (hooks on the input tensors), or, for modules
          whose inputs need no gradient (the first layer), when
          ``torch.autograd.backward`` returns. Named
          ``"nn.Module: <ClassName>_<n>.backward"``. Hooks on one tensor are
          dispatched by one handler in nesting order (ends inner-first, then
          begins outer-first), so ranges nest. With the RecordFunction
          shim (ops below) the hooks would cross operator ranges, so
          instead each module call registers the autograd sequence numbers
          its forward handed out and the shim opens/closes the module
          backward ranges before each backward node's range (see
          nnscope_rf.cpp).
ops       with ``ops_backend="auto"`` (default) or ``"record_function"``: a
          C++ shim (python/torch_shim/nnscope_rf.cpp, built against the
          installed torch by ``make`` or at first use into
          ``~/.cache/nnscope``, loaded with ctypes) registers a global
          RecordFunction callback on the scopes torch.profiler observes:
          every operator at every level (``aten::linear`` and below it
          ``aten::addmm``), every autograd node (``ConvolutionBackward0``)
          and ``record_function`` scope becomes a range named as
          torch.profiler names it, on every thread. It only observes (same
          kernels). torch's own DataLoader/Optimizer record_function ranges
          then replace the ``dataloader``/``optimizer`` patches below.
          When the shim cannot be built or loaded: a RuntimeWarning with the
          reason, and the fallback ``ops_backend="dispatch"`` (also
          ``NNSCOPE_TORCH_OPS=dispatch``, and with ``memory`` when
          another profiler state is set on the thread): a
          ``TorchDispatchMode`` (``torch.utils._python_dispatch``) that sees
          operators after autograd and after CompositeImplicit
          decomposition, so ``aten::linear`` shows as ``aten::t`` +
          ``aten::addmm``, no autograd nodes, only on the installing
          thread; costs a Python call per operator and may change which
          kernels torch runs. ``Instrumentation.backend_used`` tells which.
record_shapes  with ops: after each operator's push, an instant named
          ``"input_dims:[[16, 3, 32, 32], [8, 3, 3, 3], [], ...]"``
          (Kineto's "Input Dims" text) that the .nnst importer may attach to
          the enclosing operator; off by default (as torch.profiler).
dataloader ``_BaseDataLoaderIter.__next__`` wrapped in a range
          ``"enumerate(DataLoader)#<IterClass>.__next__"`` (the analyzer's
          DataLoader naming).
optimizer ``step`` of every ``torch.optim.Optimizer`` subclass wrapped in
          ``"Optimizer.step#<Class>.step"`` and ``zero_grad`` in
          ``"Optimizer.zero_grad#<Class>.zero_grad"``.
memory    with the shim: torch's allocators report each allocation and free
          to the ``c10::MemoryReportingInfoBase`` set as the thread's
          PROFILER_STATE debug info (as for torch.profiler's
          profile_memory); the shim pushes one on the thread that starts
          the profiler (refused, with a warning and the dispatch fallback,
          when torch.profiler's is already there) and maps the reports to
          ``nns_mem_alloc`` / ``nns_mem_free``. Without the shim, with
          ``ops=True``: each operator output that owns new storage is
          reported with ``nns_mem_alloc`` and freed with ``nns_mem_free``
          when its Python tensor is collected (approximate: storages kept
          alive only by autograd are freed early). Process RSS comes from
          the collector's sampler (cpu_sampling_interval_ms). On CUDA, each
          ``step()`` also records counters ``cuda:<i>.allocated_bytes`` and
          ``cuda:<i>.reserved_bytes``.

Under ``nnscope run`` a script that never imports nnscope gets this
instrumentation at ``import torch``, with steps derived from its optimizer
steps (``step_begin`` / ``step_end`` below; nnscope/zero.py); an
Instrumentation the program installs itself replaces that one.

Ranges the hooks open are tracked on a per-thread stack, so an exception
inside a module's forward does not leave ranges open: its parent's post hook,
the end of backward, or the next ``step()`` closes them.
"""

import ctypes
import threading
import warnings
import weakref

import torch
from torch.utils._python_dispatch import TorchDispatchMode

import nnscope
from nnscope import _nnscope

__all__ = ["Profiler", "Instrumentation", "instrument"]

_push = _nnscope.push
_pop = _nnscope.pop
_mark = _nnscope.mark
_name = nnscope.name
_Tensor = torch.Tensor

# ---- per-thread stack of the ranges the hooks opened ------------------------

_tls = threading.local()


def _stack():
    s = getattr(_tls, "stack", None)
    if s is None:
        s = _tls.stack = []
    return s


def _open(token):
    _push(token.rid)
    _stack().append(token)


def _close(token):
    """Pops token and anything opened above it (left open by an exception
    or a hook that never fired). No-op if token is not open."""
    s = _stack()
    if token not in s:
        return
    while s:
        t = s.pop()
        _pop()
        if t is token:
            return


def _close_all():
    s = _stack()
    while s:
        s.pop()
        _pop()


def _close_backward():
    """Closes the backward ranges still open (and what is above them)."""
    for t in _stack():
        if t.backward:
            _close(t)
            return


class _Token:
    __slots__ = ("rid", "backward", "pending", "done", "__weakref__")

    def __init__(self, rid, backward=False, pending=0):
        self.rid = rid
        self.backward = backward
        self.pending = pending
        self.done = False


# ---- module names -----------------------------------------------------------

_module_ids = weakref.WeakKeyDictionary()  # module -> (fwd id, bwd id)
_class_count = {}


def _module_names(mod):
    ids = _module_ids.get(mod)
    if ids is None:
        cls = type(mod).__name__
        n = _class_count.get(cls, 0)
        _class_count[cls] = n + 1
        base = "nn.Module: %s_%d" % (cls, n)
        ids = _module_ids[mod] = (_name(base), _name(base + ".backward"))
    return ids


def _tensors(obj, out):
    """Tensors of obj (a tensor, or a tuple/list/dict of them, one level)."""
    if isinstance(obj, _Tensor):
        out.append(obj)
    elif isinstance(obj, (tuple, list)):
        for o in obj:
            if isinstance(o, _Tensor):
                out.append(o)
    elif isinstance(obj, dict):
        for o in obj.values():
            if isinstance(o, _Tensor):
                out.append(o)
    return out


# ---- backward: one dispatching hook per tensor ------------------------------


class _TensorHooks:
    """Backward events due when a tensor's gradient is computed: ends of the
    modules that consumed it (inner first), then begins of the modules that
    produced it (outer first)."""

    __slots__ = ("ends", "begins")

    def __init__(self):
        self.ends = []
        self.begins = []

    def __call__(self, grad):
        for tok in self.ends:
            if not tok.done:
                tok.pending -= 1
                if tok.pending <= 0:
                    tok.done = True
                    _close(tok)
        for tok in reversed(self.begins):
            if not tok.done and tok not in _stack():
                _open(tok)
        self.ends = []
        self.begins = []
        return None


def _hooks_of(t):
    h = getattr(t, "_nnscope_hooks", None)
    if h is None or not (h.ends or h.begins):
        h = _TensorHooks()
        try:
            t._nnscope_hooks = h
            t.register_hook(h)
        except (RuntimeError, AttributeError):
            return None
    return h


# ---- the TorchDispatchMode for operators ------------------------------------


def _dims(a):
    return str(list(a.shape)) if isinstance(a, _Tensor) else "[]"


class _OpMode(TorchDispatchMode):
    def __init__(self, record_shapes=False, memory=False):
        super().__init__()
        self._ids = {}
        self._shape_ids = {}
        self._shapes = record_shapes
        self._memory = memory

    def _op_id(self, func):
        name = func._schema.name
        if name.startswith("profiler::"):
            rid = -1  # torch's own record_function ops: not operators
        else:
            if "::" not in name:
                name = "aten::" + name
            rid = _name(name)
        self._ids[func] = rid
        return rid

    def _shape_id(self, key, args):
        sid = _name("input_dims:[" + ", ".join(_dims(a) for a in args) + "]")
        self._shape_ids[key] = sid
        return sid

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        rid = self._ids.get(func)
        if rid is None:
            rid = self._op_id(func)
        if rid < 0:
            return func(*args, **(kwargs or {}))
        _push(rid)
        try:
            if self._shapes:
                key = (rid, tuple(a.shape if isinstance(a, _Tensor) else None
                                  for a in args))
                sid = self._shape_ids.get(key)
                _mark(sid if sid is not None else self._shape_id(key, args))
            out = func(*args, **(kwargs or {}))
            if self._memory:
                _report_alloc(out)
            return out
        finally:
            _pop()


_live = {}  # data_ptr -> bytes, for the totals of approximate memory events
_live_total = [0]


def _freed(ptr, nbytes, device):
    if _live.pop(ptr, None) is not None:
        _live_total[0] -= nbytes
    _nnscope.mem_free(ptr, nbytes, device, _live_total[0], -1)


def _report_alloc(out):
    for t in _tensors(out, []):
        try:
            if t._base is not None or t.is_sparse:
                continue
            ptr = t.data_ptr()
            if not ptr or ptr in _live:
                continue
            nbytes = t.element_size() * t.nelement()
            dev = t.device.index if t.is_cuda else -1
            _live[ptr] = nbytes
            _live_total[0] += nbytes
            _nnscope.mem_alloc(ptr, nbytes, dev, _live_total[0], -1)
            weakref.finalize(t, _freed, ptr, nbytes, dev)
        except (RuntimeError, TypeError):
            continue


# ---- the RecordFunction shim (python/torch_shim/nnscope_rf.cpp): torch_rf.py

from nnscope.torch_rf import (  # noqa: F401 (re-exported: zero.py, tests)
    ShimError, _MemoryRefused, _RFOps, _libnnscope_path, _ops_backend, _rf_load, _torch_tag,
    build_shim)


# ---- instrumentation --------------------------------------------------------

# The instrumentation `nnscope run` installed in this process with no code
# change (nnscope/zero.py's AutoSteps), if any: one the program installs
# (instrument(), a Profiler) replaces it: one Instrumentation at a time.
_auto = None


def _take_over():
    global _auto
    if _auto is not None:
        a, _auto = _auto, None
        a.stop()


def _exhausted(it):
    """True when a DataLoader iterator of known length has yielded all its
    batches (its next __next__ only raises StopIteration: no step)."""
    try:
        return it._num_yielded >= len(it)
    except Exception:  # noqa: BLE001 - unsized (IterableDataset): unknown
        return False


class Instrumentation:
    """Installs the hooks and patches described in the module docstring.
    ``install()`` / ``remove()``, or use as a context manager. Patches are
    process-wide (except the operator mode, which is per thread: the thread
    that calls ``install()``); install one Instrumentation at a time."""

    def __init__(self, modules=True, backward=True, ops=True,
                 record_shapes=False, dataloader=True, optimizer=True,
                 memory=False, ops_backend="auto"):
        self.modules, self.backward, self.ops = modules, backward, ops
        self.record_shapes, self.dataloader = record_shapes, dataloader
        self.optimizer, self.memory = optimizer, memory
        self.ops_backend = _ops_backend(ops_backend)
        self.backend_used = None  # "record_function" | "dispatch" | None
        # steps derived from the program (nnscope/zero.py): step_end is
        # called after every optimizer step; step_begin, while not None,
        # before each module's forward range, DataLoader batch and
        # optimizer step (set them before install())
        self.step_begin = None
        self.step_end = None
        self._handles = []
        self._patches = []  # (owner, attr, original)
        self._mode = None
        self._rfl = None  # the shim, when it builds module backward ranges
        self._installed = False
        self._opt_ranges = self._opt_hooks = False

    # -- hooks --

    def _fwd_pre(self, mod, inputs):
        if self.step_begin is not None:
            self.step_begin()
        fid, _ = _module_names(mod)
        tok = _Token(fid)
        _open(tok)
        st = _tls.__dict__.setdefault("fwd", [])
        if self._rfl is not None:  # backward by autograd sequence numbers
            st.append((mod, tok, self._rfl.nnscope_rf_seq()))
        else:
            st.append((mod, tok, inputs if self.backward else None))

    def _fwd_post(self, mod, inputs, output):
        st = getattr(_tls, "fwd", None)
        # the matching pre-hook entry is the innermost one for mod
        while st:
            m, tok, ins = st.pop()
            _close(tok)
            if m is mod:
                break
        else:
            return
        if self.backward and torch.is_grad_enabled():
            if self._rfl is not None:
                self._rfl.nnscope_rf_module(_module_names(mod)[1], ins,
                                            self._rfl.nnscope_rf_seq())
            else:
                self._setup_backward(mod, ins, output)

    def _setup_backward(self, mod, inputs, output):
        outs = [t for t in _tensors(output, []) if t.requires_grad]
        if not outs:
            return
        ins = [t for t in _tensors(inputs, []) if t.requires_grad]
        tok = _Token(_module_names(mod)[1], backward=True, pending=len(ins))
        for t in outs:
            h = _hooks_of(t)
            if h is not None:
                h.begins.append(tok)
        for t in ins:
            h = _hooks_of(t)
            if h is not None:
                h.ends.append(tok)
            else:
                tok.pending -= 1

    # -- patches --

    def _patch(self, owner, attr, new):
        self._patches.append((owner, attr, owner.__dict__[attr]))
        setattr(owner, attr, new)

    def _patch_autograd(self):
        orig = torch.autograd.backward

        def backward(*args, **kwargs):
            try:
                return orig(*args, **kwargs)
            finally:
                _close_backward()
                if self._rfl is not None:
                    self._rfl.nnscope_rf_backward_end()
        backward.__wrapped__ = orig
        self._patches.append((torch.autograd, "backward", orig))
        torch.autograd.backward = backward

    def _patch_dataloader(self, ranges=True):
        """Wraps DataLoader batches: in a range (without the shim), and
        after step_begin."""
        from torch.utils.data import dataloader as dl
        base = dl._BaseDataLoaderIter
        orig = base.__next__
        ids = {}
        inst = self

        def __next__(it):
            if inst.step_begin is not None and not _exhausted(it):
                inst.step_begin()
            if not ranges:
                return orig(it)
            cls = type(it)
            rid = ids.get(cls)
            if rid is None:
                rid = ids[cls] = _name("enumerate(DataLoader)#%s.__next__"
                                       % cls.__name__)
            _push(rid)
            try:
                return orig(it)
            finally:
                _pop()
        __next__.__wrapped__ = orig
        self._patch(base, "__next__", __next__)

    def _wrap_optimizer_class(self, cls):
        """Wraps the step/zero_grad that cls defines: in a range named
        after the class of the optimizer object (so the inherited
        Optimizer.zero_grad shows as "Optimizer.zero_grad#SGD.zero_grad")
        when self._opt_ranges; the outermost step call of a thread between
        step_begin and step_end when self._opt_hooks."""
        meths = ("step", "zero_grad") if self._opt_ranges else ("step",)
        inst = self
        for meth in meths:
            fn = cls.__dict__.get(meth)
            if fn is None or getattr(fn, "_nnscope", False):
                continue
            ids = {}

            def wrapper(opt, *args, _fn=fn, _meth=meth, _ids=ids, **kwargs):
                hooks = _meth == "step" and inst._opt_hooks
                if hooks:
                    depth = _tls.__dict__.get("opt_depth", 0)
                    _tls.opt_depth = depth + 1
                    if depth == 0 and inst.step_begin is not None:
                        inst.step_begin()
                if not inst._opt_ranges:
                    try:
                        return _fn(opt, *args, **kwargs)
                    finally:
                        if hooks:
                            _tls.opt_depth = depth
                            if depth == 0 and inst.step_end is not None:
                                inst.step_end()
                c = type(opt)
                rid = _ids.get(c)
                if rid is None:
                    rid = _ids[c] = _name("Optimizer.%s#%s.%s"
                                          % (_meth, c.__name__, _meth))
                _push(rid)
                try:
                    return _fn(opt, *args, **kwargs)
                finally:
                    _pop()
                    if hooks:
                        _tls.opt_depth = depth
                        if depth == 0 and inst.step_end is not None:
                            inst.step_end()
            wrapper._nnscope = True
            # torch 1.13 hooks step once per class for its profiler
            wrapper.hooked = getattr(fn, "hooked", None)
            wrapper.__wrapped__ = fn
            wrapper.__name__ = getattr(fn, "__name__", meth)
            wrapper.__doc__ = getattr(fn, "__doc__", None)
            self._patch(cls, meth, wrapper)

    def _patch_optimizers(self):
        base = torch.optim.Optimizer
        todo, seen = [base], set()
        while todo:
            c = todo.pop()
            if c in seen:
                continue
            seen.add(c)
            self._wrap_optimizer_class(c)
            todo.extend(c.__subclasses__())
        orig_init = base.__init__
        inst = self

        def __init__(self, *args, **kwargs):
            if type(self) not in seen:
                seen.add(type(self))
                inst._wrap_optimizer_class(type(self))
            return orig_init(self, *args, **kwargs)
        __init__.__wrapped__ = orig_init
        self._patch(base, "__init__", __init__)

    def _global_step_hooks(self):
        """torch >= 2.0: step_begin / step_end as torch's global optimizer
        step hooks (they run inside the "Optimizer.step#..." range);
        False when torch has none (1.13: the class patch does it)."""
        from torch.optim import optimizer as om
        pre = getattr(om, "register_optimizer_step_pre_hook", None)
        post = getattr(om, "register_optimizer_step_post_hook", None)
        if pre is None or post is None:
            return False
        inst = self

        def before(opt, args, kwargs):
            if inst.step_begin is not None:
                inst.step_begin()

        def after(opt, args, kwargs):
            if inst.step_end is not None:
                inst.step_end()
        self._handles.append(pre(before))
        self._handles.append(post(after))
        return True

    # -- public --

    def install(self):
        if self._installed:
            return self
        if _auto is not None and _auto.instr is not self:
            _take_over()  # the program instruments itself
        from torch.nn.modules import module as mm
        try:
            rf = self._ops_rf() if self.ops else None
            # module backward ranges: with the shim, from the autograd
            # sequence numbers of each module call (nnscope_rf.cpp), else
            # from tensor hooks
            self._rfl = rf._lib if rf is not None and self.backward else None
            if self.modules:
                self._handles.append(
                    mm.register_module_forward_pre_hook(self._fwd_pre))
                self._handles.append(
                    mm.register_module_forward_hook(self._fwd_post))
                if self.backward:
                    self._patch_autograd()
            # torch's DataLoader and Optimizer open record_function ranges
            # of these very names: the shim records them, do not twice
            steps = self.step_begin is not None or self.step_end is not None
            if (self.dataloader and rf is None) or steps:
                self._patch_dataloader(ranges=self.dataloader and rf is None)
            self._opt_ranges = self.optimizer and rf is None
            self._opt_hooks = steps and not self._global_step_hooks()
            if self._opt_ranges or self._opt_hooks:
                self._patch_optimizers()
            if self.ops:
                if rf is None:
                    rf = _OpMode(self.record_shapes, self.memory)
                    self.backend_used = "dispatch"
                rf.__enter__()
                self._mode = rf
        except Exception:
            self.remove()
            raise
        self._installed = True
        return self

    def _ops_rf(self):
        """The shim's operator recorder, or None (dispatch mode), with a
        warning saying why when the shim was wanted but is not there."""
        if self.ops_backend == "dispatch":
            return None
        try:
            rf = _RFOps(_rf_load(), self.record_shapes, self.memory)
            rf.__enter__()
            rf.__exit__()  # proves the shim starts; install() enters it
        except _MemoryRefused as e:
            warnings.warn("nnscope.torch: the allocator's memory events "
                          "cannot be recorded (%s); recording operators and "
                          "approximate memory events with a "
                          "TorchDispatchMode instead" % e,
                          RuntimeWarning, stacklevel=4)
            return None
        except ShimError as e:
            warnings.warn("nnscope.torch: the RecordFunction shim is not "
                          "available (%s); recording operators with a "
                          "TorchDispatchMode instead (lowest-level operators "
                          "of this thread only, and it may change which "
                          "kernels torch runs)" % e,
                          RuntimeWarning, stacklevel=4)
            return None
        self.backend_used = "record_function"
        return rf

    def remove(self):
        if self._rfl is not None:
            self._rfl.nnscope_rf_backward_end()
            self._rfl = None
        if self._mode is not None:
            try:
                self._mode.__exit__(None, None, None)
            finally:
                self._mode = None
        for h in self._handles:
            h.remove()
        self._handles = []
        for owner, attr, orig in reversed(self._patches):
            setattr(owner, attr, orig)
        self._patches = []
        _close_all()
        self._installed = False
        self.backend_used = None

    def step(self):
        """Closes ranges left open by exceptions; CUDA memory counters."""
        if self._rfl is not None:
            self._rfl.nnscope_rf_backward_end()
        _close_all()
        st = getattr(_tls, "fwd", None)
        if st:
            st.clear()
        if torch.cuda.is_available() and torch.cuda.is_initialized():
            for i in range(torch.cuda.device_count()):
                nnscope.counter("cuda:%d.allocated_bytes" % i,
                                torch.cuda.memory_allocated(i))
                nnscope.counter("cuda:%d.reserved_bytes" % i,
                                torch.cuda.memory_reserved(i))

    def __enter__(self):
        return self.install()

    def __exit__(self, exc_type, exc, tb):
        self.remove()
        return False


def instrument(**kwargs):
    """An installed ``Instrumentation(**kwargs)``; ``remove()`` it after."""
    return Instrumentation(**kwargs).install()


_INSTR_KEYS = ("modules", "backward", "ops", "record_shapes", "dataloader",
               "optimizer")


def enable_cuda():
    """Turns on GPU collection through CUPTI in this process (kernels,
    copies, memsets, CUDA API calls, synchronisation, device memory: what
    ``nnscope run`` records through CUDA_INJECTION64_PATH). Returns None,
    or why it could not (no libcupti, another CUPTI client such as
    torch.profiler or Nsight holds it). Calling it again is harmless."""
    path = _libnnscope_path()
    if path is None:
        return "libnnscope.so not found"
    try:
        lib = ctypes.CDLL(path)
        fn = lib.nns_cupti_enable
    except (OSError, AttributeError) as e:
        return "libnnscope has no CUPTI backend (%s)" % e
    fn.argtypes = (ctypes.c_char_p, ctypes.c_size_t)
    fn.restype = ctypes.c_int
    buf = ctypes.create_string_buffer(512)
    if fn(buf, len(buf)) != 0:
        return buf.value.decode(errors="replace") or "nns_cupti_enable failed"
    return None


class Profiler(nnscope.Profiler):
    """``nnscope.Profiler`` plus the PyTorch instrumentation, installed
    while collecting (from start() to stop()). Keyword arguments
    ``modules``, ``backward``, ``ops``, ``record_shapes``, ``dataloader``,
    ``optimizer`` (all True except record_shapes) choose what is hooked,
    ``ops_backend`` ("auto", "record_function" or "dispatch") how;
    ``profile_memory=True`` also records the allocator's memory events
    (needs ops). ``cuda`` ("auto": when torch sees a CUDA device; True;
    False) turns on GPU collection through CUPTI at the first start()
    (``enable_cuda``; a RuntimeWarning says why when it cannot). Everything
    else is ``nnscope.Profiler``'s."""

    def __init__(self, *args, modules=True, backward=True, ops=True,
                 record_shapes=False, dataloader=True, optimizer=True,
                 ops_backend="auto", cuda="auto", **kwargs):
        if cuda not in ("auto", True, False):
            raise ValueError("nnscope.torch: cuda must be 'auto', True or "
                             "False, not %r" % (cuda,))
        self._cuda = cuda
        self.cuda_error = None  # why GPU collection could not start
        self._instr = Instrumentation(
            modules=modules, backward=backward, ops=ops,
            record_shapes=record_shapes, dataloader=dataloader,
            optimizer=optimizer, memory=bool(kwargs.get("profile_memory")),
            ops_backend=ops_backend)
        super().__init__(*args, **kwargs)
        if self.started:
            self._start_cuda()
            self._instr.install()

    def _start_cuda(self):
        if self._cuda is False or getattr(self, "_cuda_done", False):
            return
        self._cuda_done = True
        if self._cuda == "auto" and not torch.cuda.is_available():
            return
        why = enable_cuda()
        if why is not None:
            self.cuda_error = why
            warnings.warn("nnscope.torch: no GPU collection: %s" % why,
                          RuntimeWarning, stacklevel=3)

    def start(self):
        super().start()
        self._start_cuda()
        self._instr.install()

    def stop(self):
        self._instr.remove()
        super().stop()

    def step(self):
        self._instr.step()
        super().step()

    def analyse(self, *args, **kwargs):
        self._instr.remove()
        return super().analyse(*args, **kwargs)

    def close(self):
        instr = getattr(self, "_instr", None)
        if instr is not None:
            instr.remove()
        super().close()
