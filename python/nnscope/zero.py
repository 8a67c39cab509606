"""nnscope.zero: PyTorch with no code change, under ``nnscope run``.

``nnscope run`` puts ``nnscope_site/`` (beside this package) on PYTHONPATH;
its ``sitecustomize`` calls ``start()`` in every Python process of the
command right after ``import torch`` finishes. ``start()`` attaches to the
profiler the preloaded library already runs in the process
(``_nnscope.has_current()``: events go to ``nns_current()``, so operators
land in the same ``.nnst`` file as the process's CPU samples) and installs
``nnscope.torch.Instrumentation``: every operator through the
RecordFunction shim (torch.profiler's names and scopes), module forward and
backward ranges, torch's own ``"enumerate(DataLoader)#..."`` and
``"Optimizer.step#..."`` ranges, and, when the run's options ask for
``profile_memory``, the allocator's events. No TorchDispatchMode fallback:
it could change which kernels run; when the shim cannot be built or loaded,
one line on stderr and no operators (modules, DataLoader, optimizer and
steps are still recorded).

Steps (``AutoSteps``): each optimizer step ends one. Step k is a range
``"ProfilerStep#k"`` (k from 0, as torch.profiler numbers them) on the
thread that trains, plus ``nns_step()`` on the profiler (its schedule and
start_step/stop_step options count these steps). It opens at the first
DataLoader batch, module call or optimizer step after the previous step
ended (so the model's construction is in no step), and closes after the
optimizer's step: torch's global optimizer step hooks (torch >= 2.0), else
a wrapper of every ``Optimizer`` subclass's ``step`` (torch 1.13). Work
after the last optimizer step that starts a step (an evaluation loop) is
one last step, closed at exit. With several optimizers each one's step
ends a step. Steps stop being derived as soon as the program marks its own:
``nnscope.Profiler.step()``, ``torch.profiler.profile`` started or stepped;
an ``nnscope.torch.Profiler`` of the program replaces this instrumentation.

Processes: a forked child (DataLoader workers, multiprocessing fork) keeps
the instrumentation and records its operators into its own trace file but
derives no steps; a spawned child is a new Python process and starts its
own (its optimizer steps, if any, are its steps).

Environment: ``NNSCOPE_TORCH=0`` (what ``nnscope run --no-torch`` sets)
turns all of this off; ``NNSCOPE_TORCH=shapes`` also records input shapes
(torch.profiler's record_shapes).
"""

import atexit
import os
import sys
import threading

import nnscope
import nnscope.torch as nt
from nnscope import _nnscope

__all__ = ["start", "enabled", "AutoSteps"]

_active = None  # the AutoSteps of this process, once started


def enabled(environ=None):
    """False when NNSCOPE_TORCH says off (0, off, no, false)."""
    v = (environ if environ is not None else os.environ).get("NNSCOPE_TORCH", "1")
    return v.strip().lower() not in ("0", "off", "no", "false")


def _say(msg):
    sys.stderr.write("nnscope: %s\n" % msg)
    sys.stderr.flush()


class AutoSteps:
    """Steps derived from optimizer steps on an Instrumentation (see the
    module docstring). ``stop()`` removes the instrumentation."""

    def __init__(self, instr):
        self.instr = instr
        self.k = 0            # the number of the next step
        self._tok = None      # the open ProfilerStep range (torch.py token)
        self._thread = None   # the thread it is open on
        self.on = True        # deriving steps (off once the program marks)
        instr.step_begin = self._begin
        instr.step_end = self._end

    def _begin(self):
        """Opens step k (step_begin is unset while a step is open)."""
        if not self.on or self._tok is not None:
            return
        self._tok = nt._Token(nnscope.name("ProfilerStep#%d" % self.k))
        self._thread = threading.get_ident()
        nt._open(self._tok)
        self.instr.step_begin = None

    def _close(self):
        """Closes the open step (and ranges left open above it) on its
        thread; False when none is open there."""
        if self._tok is None or self._thread != threading.get_ident():
            return False
        tok, self._tok = self._tok, None
        if self.instr._rfl is not None:
            self.instr._rfl.nnscope_rf_backward_end()
        nt._close(tok)
        return True

    def _end(self):
        """After an optimizer step: ends step k, begins counting k + 1."""
        if not self.on or not self._close():
            return
        _nnscope.current_step()
        self.k += 1
        self.instr.step_begin = self._begin

    def program_marks_steps(self):
        """The program marks its own steps: derive no more."""
        if self.on:
            self.on = False
            self._close()
            self.instr.step_begin = None
            self.instr.step_end = None

    def at_exit(self):
        """A step still open at exit (work after the last optimizer step)
        ends here."""
        if self.on and self._close():
            _nnscope.current_step()
            self.k += 1

    def in_child(self):
        """After fork: the child records, derives no steps."""
        self.on = False
        self._tok = None
        self.instr.step_begin = None
        self.instr.step_end = None

    def stop(self):
        self.program_marks_steps()
        self.instr.remove()


def _patch_torch_profiler(steps):
    """torch.profiler.profile.start / step mean the program marks steps."""
    try:
        from torch.profiler import profiler as tp
        cls = tp.profile
    except (ImportError, AttributeError):
        return
    for meth in ("start", "step"):
        orig = cls.__dict__.get(meth)
        if orig is None:
            continue

        def wrapper(self, *args, _orig=orig, **kwargs):
            steps.program_marks_steps()
            return _orig(self, *args, **kwargs)
        wrapper.__wrapped__ = orig
        wrapper.__name__ = getattr(orig, "__name__", meth)
        wrapper.__doc__ = getattr(orig, "__doc__", None)
        setattr(cls, meth, wrapper)


def _shim_ok(shapes, memory):
    """None when the RecordFunction shim starts (and observes the
    allocator if memory), else why not."""
    try:
        rf = nt._RFOps(nt._rf_load(), shapes, memory)
        rf.__enter__()
        rf.__exit__()
    except nt.ShimError as e:
        return str(e)
    return None


def start():
    """Instruments this process (once); returns its AutoSteps, or None when
    off or when no profiler collects here. Raises on failure (the site
    hook reports it in one line)."""
    global _active
    if _active is not None or not enabled():
        return _active
    if not _nnscope.has_current():
        return None  # no collector here (the library said why, if it failed)
    shapes = os.environ.get("NNSCOPE_TORCH", "").strip().lower() == "shapes"
    memory = bool(_nnscope.parse_options(None, True).get("profile_memory"))
    why = _shim_ok(shapes, memory)
    if why is not None and memory:
        memory = False
        why2 = _shim_ok(shapes, False)
        if why2 is None:
            _say("PyTorch allocator events not recorded: %s" % why)
            why = None
        else:
            why = why2
    ops = why is None
    if not ops:
        _say("PyTorch operators not recorded (modules, DataLoader, optimizer "
             "and steps are): %s" % why)
    instr = nt.Instrumentation(ops=ops, record_shapes=shapes, memory=memory,
                               ops_backend="record_function")
    steps = AutoSteps(instr)
    instr.install()
    _active = steps
    nt._auto = steps
    nnscope._on_step = steps.program_marks_steps
    _patch_torch_profiler(steps)
    atexit.register(steps.at_exit)
    os.register_at_fork(after_in_child=steps.in_child)
    return steps
