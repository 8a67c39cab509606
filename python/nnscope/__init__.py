"""nnscope: a deep-learning training profiler (Python binding).

A MindSpore-style profiler on top of libnnscope.so::

    import nnscope

    with nnscope.Profiler(output_path="./data") as prof:
        for batch in loader:
            with nnscope.range("forward"):
                ...
            prof.step()
    nnscope.Profiler.offline_analyse("./data")  # or prof.analyse()

Conditional collection: ``Profiler(start=False)`` then ``start()``/``stop()``
at any step, ``start_step``/``stop_step`` (MindSpore's StopAtStep), a
``schedule`` (torch.profiler.schedule's wait/warmup/active/repeat), or the
``StopAtStep`` / ``StopAtEpoch`` helpers. Event calls (``range``, ``mark``,
``counter``, ``queue``, ``mem_alloc``/``mem_free``) cost a C call when
collecting and one branch inside the library when not.

Options come from, in order: the library defaults, the ``NNSCOPE_OPTIONS``
(else ``MS_PROFILER_OPTIONS``) environment variable, then the arguments that
differ from their defaults. Bad options raise ValueError with the reason.
PyTorch integration: ``nnscope.torch`` (see docs/PYTHON.md).
"""

import functools
import json
import os
import shutil
import subprocess
import warnings

from . import _nnscope

__all__ = [
    "Profiler", "range", "schedule", "StopAtStep", "StopAtEpoch", "mark",
    "counter", "queue", "mem_alloc", "mem_free", "name", "offline_analyse",
    "op_analyse",
    "version", "__version__",
]

__version__ = _nnscope.VERSION
version = _nnscope.VERSION

_HERE = os.path.dirname(os.path.abspath(__file__))

# In the build tree (build/python/nnscope/), the nnscope program is
# build/nnscope: let nns_analyse() and offline_analyse() find it.
_BUILD_BIN = os.path.normpath(os.path.join(_HERE, "..", "..", "nnscope"))
if not os.environ.get("NNSCOPE_BIN") and os.access(_BUILD_BIN, os.X_OK):
    os.environ["NNSCOPE_BIN"] = _BUILD_BIN

# Called when a Profiler of the program marks a step: `nnscope run`'s
# zero-code PyTorch steps (nnscope/zero.py) then stop.
_on_step = None

# ---- names and events -------------------------------------------------------

_ids = {}
_intern = _nnscope.name
_push = _nnscope.push
_pop = _nnscope.pop


def name(text):
    """Interns ``text`` once and returns its id (cached in Python)."""
    i = _ids.get(text)
    if i is None:
        if not isinstance(text, str):
            raise TypeError("nnscope: a name must be a str, not %s"
                            % type(text).__name__)
        i = _ids[text] = _intern(text)
    return i


class range:  # noqa: A001 - the public name mirrors torch/nvtx ranges
    """A named range on the calling thread: context manager and decorator.

    ``with nnscope.range("forward"): ...`` or ``@nnscope.range("load")``.
    With no argument as a decorator, the function's qualified name is used.
    """

    __slots__ = ("name", "_id")

    def __init__(self, name_or_fn=None):
        if callable(name_or_fn) and not isinstance(name_or_fn, str):
            raise TypeError("nnscope.range: use @nnscope.range() or "
                            "@nnscope.range('name')")
        self.name = name_or_fn
        self._id = None if name_or_fn is None else name(name_or_fn)

    def __enter__(self):
        _push(self._id)
        return self

    def __exit__(self, exc_type, exc, tb):
        _pop()
        return False

    def __call__(self, fn):
        rid = self._id if self._id is not None else name(fn.__qualname__)

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            _push(rid)
            try:
                return fn(*args, **kwargs)
            finally:
                _pop()
        return wrapper

    def __repr__(self):
        return "nnscope.range(%r)" % (self.name,)


def mark(text):
    """An instant event named ``text``."""
    _nnscope.mark(name(text))


def counter(text, value):
    """A sample of the counter ``text``."""
    _nnscope.counter(name(text), float(value))


def queue(text, size, capacity):
    """A data-queue sample: the input of the data-pipeline analysis."""
    _nnscope.queue(name(text), int(size), int(capacity))


def mem_alloc(ptr, nbytes, device=-1, total_allocated=-1, total_reserved=-1):
    """An allocation (device -1 = host; totals -1 when unknown)."""
    _nnscope.mem_alloc(ptr, nbytes, device, total_allocated, total_reserved)


def mem_free(ptr, nbytes, device=-1, total_allocated=-1, total_reserved=-1):
    """A free (device -1 = host; totals -1 when unknown)."""
    _nnscope.mem_free(ptr, nbytes, device, total_allocated, total_reserved)


# ---- options ----------------------------------------------------------------


class schedule:
    """Collection schedule, as ``torch.profiler.schedule``.

    After ``skip_first`` steps, cycles of ``wait`` steps off, ``warmup``
    steps collected and discarded, ``active`` steps kept; ``repeat`` cycles
    (0 = forever). Driven by ``Profiler.step()``.
    """

    __slots__ = ("wait", "warmup", "active", "repeat", "skip_first")

    def __init__(self, *, wait=0, warmup=0, active=1, repeat=0, skip_first=0):
        for k, v in (("wait", wait), ("warmup", warmup), ("active", active),
                     ("repeat", repeat), ("skip_first", skip_first)):
            if isinstance(v, bool) or not isinstance(v, int) or v < 0:
                raise ValueError("nnscope.schedule: %s must be an int >= 0, "
                                 "got %r" % (k, v))
        if active < 1:
            raise ValueError("nnscope.schedule: active must be >= 1")
        self.wait, self.warmup, self.active = wait, warmup, active
        self.repeat, self.skip_first = repeat, skip_first

    def _json(self):
        return {"sched_skip_first": self.skip_first, "sched_wait": self.wait,
                "sched_warmup": self.warmup, "sched_active": self.active,
                "sched_repeat": self.repeat}

    def __repr__(self):
        return ("nnscope.schedule(wait=%d, warmup=%d, active=%d, repeat=%d, "
                "skip_first=%d)" % (self.wait, self.warmup, self.active,
                                    self.repeat, self.skip_first))


# MindSpore arguments that only mean something on Ascend: accepted with a
# warning, as MindSpore does for parameters a device does not support.
_IGNORED = frozenset((
    "profiler_level", "parallel_strategy", "aicore_metrics", "l2_cache",
    "hbm_ddr", "pcie", "data_simplification", "host_stack", "analyse_only",
    "rank_id", "env_enable", "ascend_job_id",
))

_FRAMEWORKS = ("all", "time", "memory", None)


def _bool(key, v):
    if not isinstance(v, bool):
        raise ValueError("nnscope.Profiler: %s must be True or False, got %r"
                         % (key, v))
    return v


def _int(key, v, lo):
    if isinstance(v, bool) or not isinstance(v, int) or v < lo:
        raise ValueError("nnscope.Profiler: %s must be an int >= %d, got %r"
                         % (key, lo, v))
    return v


def _options_json(output_path, profile_memory, start, sched, start_step,
                  stop_step, cpu_sampling_interval_ms, timeline_limit,
                  profile_framework, data_process, op_time,
                  profile_communication, sync_enable, buffer_kb_per_thread,
                  max_buffer_mb):
    """The JSON options for the library: only what differs from defaults."""
    o = {}
    if output_path != "./data":
        if not isinstance(output_path, (str, os.PathLike)):
            raise ValueError("nnscope.Profiler: output_path must be a path, "
                             "got %r" % (output_path,))
        output_path = os.fspath(output_path)
        if not output_path:
            raise ValueError("nnscope.Profiler: output_path is empty")
        o["output_path"] = os.path.abspath(output_path)
    if _bool("profile_memory", profile_memory):
        o["profile_memory"] = True
    if not _bool("start", start):
        o["start"] = False
    if not _bool("data_process", data_process):
        o["data_process"] = False
    if not _bool("op_time", op_time):
        o["op_time"] = False
    if _bool("profile_communication", profile_communication):
        o["profile_communication"] = True
    if _bool("sync_enable", sync_enable):
        o["sync_enable"] = True  # the library refuses it, saying why
    if _int("cpu_sampling_interval_ms", cpu_sampling_interval_ms, 0) != 1000:
        o["cpu_sampling_interval_ms"] = cpu_sampling_interval_ms
    if _int("timeline_limit", timeline_limit, 1) != 500:
        o["timeline_limit_mb"] = timeline_limit
    if profile_framework not in _FRAMEWORKS:
        raise ValueError("nnscope.Profiler: profile_framework must be one of "
                         "'all', 'time', 'memory' or None, got %r"
                         % (profile_framework,))
    if profile_framework is not None:
        o["profile_framework"] = profile_framework
    if start_step is not None or stop_step is not None:
        if start_step is None:
            start_step = 1
        _int("start_step", start_step, 0)
        if stop_step is not None:
            _int("stop_step", stop_step, 0)
            if stop_step < start_step:
                raise ValueError("nnscope.Profiler: stop_step (%d) is before "
                                 "start_step (%d)" % (stop_step, start_step))
        o["start_step"] = start_step
        o["stop_step"] = -1 if stop_step is None else stop_step
    if sched is not None:
        if isinstance(sched, dict):
            sched = schedule(**sched)
        if not isinstance(sched, schedule):
            raise ValueError("nnscope.Profiler: schedule must be an "
                             "nnscope.schedule(...) or a dict of its "
                             "arguments, got %r" % (sched,))
        if "start_step" in o:
            raise ValueError("nnscope.Profiler: give schedule or "
                             "start_step/stop_step, not both")
        o.update(sched._json())
    if buffer_kb_per_thread is not None:
        o["buffer_kb_per_thread"] = _int("buffer_kb_per_thread",
                                         buffer_kb_per_thread, 1)
    if max_buffer_mb is not None:
        o["max_buffer_mb"] = _int("max_buffer_mb", max_buffer_mb, 1)
    return json.dumps(o)


# ---- Profiler ---------------------------------------------------------------


class Profiler:
    """Collects a trace of this process into ``output_path``.

    Arguments mirror MindSpore's ``Profiler`` (``start_profile`` is accepted
    as an alias of ``start``; Ascend-only arguments are ignored with a
    warning; anything else unknown raises ValueError):

    output_path (``"./data"``), profile_memory (False), start (True: collect
    from construction), schedule (None, an ``nnscope.schedule``), start_step
    / stop_step (None: MindSpore StopAtStep, inclusive, steps count from 1),
    cpu_sampling_interval_ms (1000, 0 = off), timeline_limit (MB, 500: the
    cap of the Chrome-trace timeline ``nnscope export`` / ``analyse
    --timeline`` write of this trace), profile_framework (None | "all" |
    "time" | "memory": host_info CSV), data_process (True), op_time (True),
    profile_communication (False: True records NCCL collectives through the
    NCCL profiler plugin, which ``nnscope run`` loads), sync_enable (False;
    True, MindSpore's synchronous GPU operator timing, is refused with a
    ValueError: CUPTI times kernels on the device exactly without
    synchronising), buffer_kb_per_thread, max_buffer_mb.

    As a context manager, entering starts collection (if not started) and
    leaving stops it and closes the trace.
    """

    def __init__(self, output_path="./data", profile_memory=False, start=True,
                 schedule=None, start_step=None, stop_step=None,
                 cpu_sampling_interval_ms=1000, timeline_limit=500,
                 profile_framework=None, data_process=True, op_time=True,
                 profile_communication=False, sync_enable=False,
                 buffer_kb_per_thread=None, max_buffer_mb=None, **kwargs):
        self._h = None
        if "start_profile" in kwargs:
            start = kwargs.pop("start_profile")
        for k in list(kwargs):
            if k in _IGNORED:
                warnings.warn("nnscope.Profiler: %s has no effect here "
                              "(Ascend only); ignored" % k, stacklevel=2)
                kwargs.pop(k)
        if kwargs:
            raise ValueError("nnscope.Profiler: unknown argument(s): %s"
                             % ", ".join(sorted(kwargs)))
        opts = _options_json(output_path, profile_memory, start, schedule,
                             start_step, stop_step, cpu_sampling_interval_ms,
                             timeline_limit, profile_framework, data_process,
                             op_time, profile_communication, sync_enable,
                             buffer_kb_per_thread, max_buffer_mb)
        self._h = _nnscope.Handle(opts)
        self.output_path = self._h.output_path
        self._started = bool(_nnscope.parse_options(opts, True)["start"])
        self._steps = 0
        self._analysis = None
        self.analysis_process = None

    # -- lifecycle --

    def _handle(self):
        if self._h is None or self._h.closed:
            raise RuntimeError("nnscope.Profiler: the profiler is closed")
        return self._h

    @property
    def started(self):
        """True while collecting (as far as start()/stop() go)."""
        return self._started

    @property
    def step_num(self):
        """Steps marked so far with step()."""
        return self._steps

    def start(self):
        """Starts collecting; RuntimeError if already started (MindSpore)."""
        h = self._handle()
        if self._started:
            raise RuntimeError("nnscope.Profiler: the profiler has already "
                               "started; do not start it again while it is on")
        h.start()
        self._started = True

    def stop(self):
        """Stops collecting; RuntimeError if not started (MindSpore)."""
        h = self._handle()
        if not self._started:
            raise RuntimeError("nnscope.Profiler: the profiler has not "
                               "started, so it cannot stop; call start() "
                               "before stop()")
        h.stop()
        self._started = False

    def step(self):
        """Marks a step boundary (ends step N, begins N+1); drives the
        schedule and start_step/stop_step."""
        if _on_step is not None:  # the program marks its own steps
            _on_step()
        self._handle().step()
        self._steps += 1

    def analyse(self, offline_path=None, pretty=False, step_list=None,
                mode="sync"):
        """Stops collection, flushes, and writes the analysis into
        ``<output_path>/analysis``; returns that directory (MindSpore's
        ``Profiler.analyse``). ``offline_path`` analyses another run
        directory instead. ``pretty`` indents the JSON files;
        ``step_list`` (consecutive step numbers, e.g. ``[3, 4, 5]``)
        restricts the analysis to those steps (``nnscope analyse --steps``);
        ``mode="async"`` runs the analysis in a child process and returns at
        once (``self.analysis_process`` is its ``subprocess.Popen``; the
        directory is complete when it exits; its messages are in
        ``<run>/analysis.log``, and no pipe is held open). An unknown mode warns and runs
        "sync", as MindSpore does. Bad ``step_list`` values raise TypeError /
        ValueError (MindSpore only logs them)."""
        steps = _steps_arg(step_list)
        if mode not in ("sync", "async"):
            warnings.warn("nnscope.Profiler.analyse: mode must be 'sync' or "
                          "'async', not %r; using 'sync'" % (mode,),
                          stacklevel=2)
            mode = "sync"
        if offline_path is not None:
            path = os.fspath(offline_path)
        else:
            path = self.output_path
            # stop, flush and close first: the trace on disk is complete,
            # so the analysis never takes it for a crashed run
            self.close()
        out = os.path.join(path, "analysis")
        if mode == "async":
            self.analysis_process = _spawn_analyse(path, out, pretty, steps)
        else:
            offline_analyse(path, out=out, pretty=pretty, step_list=step_list)
        self._analysis = out
        return out

    def op_analyse(self, op_name, device_id=None):
        """Operator performance data (MindSpore's ``Profiler.op_analyse``):
        ``op_name`` a name or a list of names; returns a dict name -> row of
        the operator table (calls, host/device self and total time in us,
        tensor-core use) for every name found; on a MindSpore device a
        primitive operator type ("MatMul") gives its AI Core by-type row with
        ``ops``, the operators of that type. A name found nowhere is a
        ValueError naming it (a warning when others were found). Runs ``analyse()`` first when
        it has not run. ``device_id`` picks the worker of that rank (the
        ``rank`` metadata, else the worker file names ending in it);
        default: the only or first worker."""
        if isinstance(op_name, str):
            names = [op_name]
        elif isinstance(op_name, list):
            names = op_name
        else:
            raise TypeError("nnscope.Profiler.op_analyse: op_name must be str "
                            "or list, not %s" % type(op_name).__name__)
        if not names or any(not isinstance(n, str) or not n for n in names):
            raise TypeError("nnscope.Profiler.op_analyse: op_name cannot be "
                            "empty and must hold non-empty strings")
        if device_id is not None and (not isinstance(device_id, int)
                                      or isinstance(device_id, bool)):
            raise TypeError("nnscope.Profiler.op_analyse: device_id must be "
                            "int, not %s" % type(device_id).__name__)
        out = getattr(self, "_analysis", None)
        proc = getattr(self, "analysis_process", None)
        if proc is not None:
            _wait_analyse(proc)
        if not out or not os.path.isdir(out):
            out = self.analyse()
        return op_analyse(out, names, device_id)

    def close(self):
        """Stops, flushes and closes the trace. Idempotent."""
        if self._h is not None:
            self._h.close()
            self._started = False

    def set_metadata(self, key, value):
        """Run metadata (rank, world_size, host, anything): str -> str."""
        self._handle().set_metadata(str(key), str(value))

    def lost_events(self):
        """Events dropped so far because buffers were full."""
        return self._handle().lost_events()

    def __enter__(self):
        if not self._started:
            self.start()
        return self

    def __exit__(self, exc_type, exc, tb):
        self.close()
        return False

    def __del__(self):
        h = getattr(self, "_h", None)
        if h is not None:
            h.close()

    def __repr__(self):
        state = ("closed" if self._h is None or self._h.closed else
                 "collecting" if self._started else "stopped")
        return "<nnscope.Profiler %s %s>" % (self.output_path, state)

    @classmethod
    def offline_analyse(cls, path, pretty=False, step_list=None, out=None):
        """Analyses a run directory written earlier (also one left by a
        crashed process): runs ``nnscope analyse PATH --out PATH/analysis``
        (``--pretty`` / ``--steps`` from ``pretty`` / ``step_list``) and
        returns the output directory. Raises FileNotFoundError when the
        path or the nnscope program is missing, RuntimeError when the
        analysis fails (with nnscope's message)."""
        return offline_analyse(path, out=out, pretty=pretty,
                               step_list=step_list)


def _nnscope_bin():
    b = os.environ.get("NNSCOPE_BIN")
    if b:
        return b
    for cand in (os.path.join(_HERE, "..", "..", "nnscope"),
                 os.path.join(_HERE, "nnscope")):
        if os.access(cand, os.X_OK):
            return os.path.normpath(cand)
    found = shutil.which("nnscope")
    if not found:
        raise FileNotFoundError("nnscope: the nnscope program was not found "
                                "(set NNSCOPE_BIN or put it on PATH)")
    return found


def _steps_arg(step_list):
    """MindSpore's step_list rules: None, or a list of consecutive ints;
    returns the ``--steps`` value or None."""
    if step_list is None:
        return None
    if not isinstance(step_list, list):
        raise TypeError("nnscope: step_list must be a list of step numbers, "
                        "not %s" % type(step_list).__name__)
    if not step_list:
        return None
    if not all(isinstance(s, int) and not isinstance(s, bool) and s >= 0
               for s in step_list):
        raise TypeError("nnscope: the elements of step_list must be "
                        "non-negative integers")
    steps = sorted(step_list)
    if steps[-1] - steps[0] != len(steps) - 1 or len(set(steps)) != len(steps):
        raise ValueError("nnscope: the elements of step_list must be "
                         "consecutive integers, got %r" % (step_list,))
    return "%d-%d" % (steps[0], steps[-1])


def _analyse_argv(path, out, pretty, steps):
    argv = [_nnscope_bin(), "analyse", path, "--out", out]
    if pretty:
        argv.append("--pretty")
    if steps is not None:
        argv += ["--steps", steps]
    return argv


def _spawn_analyse(path, out, pretty, steps):
    """The analysis as a child process whose messages go to
    ``<path>/analysis.log``: no pipe is left open in this process (a pipe
    nobody reads would also block the child once it filled)."""
    if not os.path.exists(path):
        raise FileNotFoundError("nnscope: no such run directory: %s" % path)
    log = os.path.join(path, "analysis.log")
    with open(log, "wb") as f:
        proc = subprocess.Popen(_analyse_argv(path, out, pretty, steps) + ["--quiet"],
                                stdin=subprocess.DEVNULL,
                                stdout=subprocess.DEVNULL, stderr=f)
    proc.nnscope_log = log
    return proc


def _wait_analyse(proc):
    """Waits for an async analysis; RuntimeError with its message when it
    failed."""
    rc = proc.wait()
    if rc != 0:
        try:
            with open(proc.nnscope_log, errors="replace") as f:
                lines = f.read().strip().splitlines()
        except OSError:
            lines = []
        raise RuntimeError("nnscope analyse failed (exit %d): %s"
                           % (rc, lines[-1] if lines else ""))


def offline_analyse(path, out=None, pretty=False, step_list=None):
    """``nnscope analyse PATH --out OUT`` (OUT defaults to PATH/analysis;
    ``pretty`` adds ``--pretty``, ``step_list`` ``--steps A-B``)."""
    path = os.fspath(path)
    steps = _steps_arg(step_list)
    if not os.path.exists(path):
        raise FileNotFoundError("nnscope: no such run directory: %s" % path)
    if out is None:
        out = os.path.join(path, "analysis")
    r = subprocess.run(_analyse_argv(path, out, pretty, steps),
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True, check=False)
    if r.returncode != 0:
        msg = (r.stderr.strip() or r.stdout.strip()).splitlines()
        raise RuntimeError("nnscope analyse %s failed (exit %d): %s"
                           % (path, r.returncode, msg[-1] if msg else ""))
    for line in r.stderr.splitlines():
        if line.strip():
            warnings.warn(line.strip(), stacklevel=2)
    return out


def _worker_dirs(out):
    """The per-worker directories of an analysis output (overview.json)."""
    dirs = []
    for root, _sub, files in os.walk(out):
        if "overview.json" in files and "operators.json" in files:
            dirs.append(root)
    return sorted(dirs)


def op_analyse(out, op_name, device_id=None):
    """Rows of the operator table of analysis directory ``out`` for the
    names in ``op_name`` (str or list): dict name -> row."""
    names = [op_name] if isinstance(op_name, str) else list(op_name)
    dirs = _worker_dirs(out)
    if not dirs:
        raise RuntimeError("nnscope: no analysed worker under %s" % out)
    pick = dirs[0]
    if device_id is not None:
        pick = None
        ranks = []
        for d in dirs:
            with open(os.path.join(d, "overview.json")) as f:
                rank = json.load(f).get("rank")
            ranks.append(rank)
            if rank == device_id:
                pick = d
                break
        # a single-worker run without rank information is device 0
        if pick is None and len(dirs) == 1 and ranks == [None] and device_id == 0:
            pick = dirs[0]
        if pick is None:
            raise ValueError("nnscope: no worker for device_id %d under %s "
                             "(workers: %s)" % (device_id, out, ", ".join(
                                 os.path.basename(d) for d in dirs)))
    with open(os.path.join(pick, "operators.json")) as f:
        ops = json.load(f)
    rows = {r["name"]: r for r in ops.get("by_name", [])}
    found = {n: rows[n] for n in names if n in rows}
    # a MindSpore device: op_name is a primitive operator type, as
    # MindSpore's op_analyse takes it ("MatMul"): its AI Core by-type row
    # with the operators of that type (ms_ops.json / ms_op_detail.json)
    types, by_op = _ms_op_types(pick)
    for n in names:
        if n not in found and n in types:
            found[n] = dict(types[n], ops=[r for r in by_op
                                          if r.get("kernel_type") == n])
    missing = [n for n in names if n not in found]
    if missing:
        known = sorted(rows) or sorted(types)
        msg = ("nnscope: no operator%s %s in %s (op_name is an operator name "
               "of the operator table%s; %d known%s)"
               % ("s" if len(missing) > 1 else "", ", ".join(map(repr, missing)),
                  pick, " or a MindSpore operator type" if types else "",
                  len(known), ", e.g. " + ", ".join(known[:5]) if known else ""))
        if not found:
            raise ValueError(msg)
        warnings.warn(msg, stacklevel=3)
    return found


def _ms_op_types(d):
    """A MindSpore worker's AI Core by-type rows (by kernel_type) and by-op
    rows, or ({}, [])."""
    types, by_op = {}, []
    try:
        with open(os.path.join(d, "ms_ops.json")) as f:
            doc = json.load(f)
        types = {r["kernel_type"]: r for r in doc.get("by_type") or []}
    except (OSError, ValueError, KeyError, TypeError):
        return {}, []
    try:
        with open(os.path.join(d, "ms_op_detail.json")) as f:
            by_op = json.load(f).get("by_op") or []
    except (OSError, ValueError):
        by_op = []
    return types, by_op


# ---- step and epoch helpers ------------------------------------------------


def _cur(run_context, attr, fallback):
    """MindSpore's run_context.original_args().<attr>, else fallback."""
    if run_context is not None:
        try:
            return int(getattr(run_context.original_args(), attr))
        except (AttributeError, TypeError, ValueError):
            pass
    return fallback


class StopAtStep:
    """Collects steps ``start_step`` .. ``stop_step`` (inclusive, counted
    from 1), as MindSpore's StopAtStep callback example. The steps keep
    their numbers: step N is ``ProfilerStep#N-1`` in the trace (steps are
    numbered from 0 there, as torch's), so ``StopAtStep(3, 5)`` records
    steps 2, 3, 4 and ``analyse(step_list=[3, 4])`` selects the last two.

    Works as a MindSpore-style callback (``step_begin``/``step_end``/``end``
    and the ``on_train_*`` spellings, reading ``cur_step_num`` from the run
    context when one is given) or by hand in a plain loop::

        cb = nnscope.StopAtStep(10, 20, output_path="./data")
        for batch in loader:
            cb.step_begin()
            train(batch)
            cb.step_end()
        cb.end()           # analyses unless analyse=False

    Extra keyword arguments go to ``Profiler`` (created with start=False).
    """

    def __init__(self, start_step, stop_step, analyse=True, **profiler_kwargs):
        _int("start_step", start_step, 1)
        _int("stop_step", stop_step, 1)
        if stop_step < start_step:
            raise ValueError("nnscope.StopAtStep: stop_step (%d) is before "
                             "start_step (%d)" % (stop_step, start_step))
        self.start_step, self.stop_step = start_step, stop_step
        self._analyse = analyse
        self._n = 0
        profiler_kwargs["start"] = False
        self.profiler = Profiler(**profiler_kwargs)

    def step_begin(self, run_context=None):
        self._n = _cur(run_context, "cur_step_num", self._n + 1)
        # the profiler counts every step, collected or not, so that step
        # N (from 1) is recorded as ProfilerStep#N-1 as without the
        # callback, and step_list / --steps name the steps by those numbers
        while self.profiler.step_num < self._n - 1:
            self.profiler.step()
        if self._n == self.start_step and not self.profiler.started:
            self.profiler.start()

    def step_end(self, run_context=None):
        n = _cur(run_context, "cur_step_num", self._n)
        started = self.profiler.started
        if self.profiler.step_num < n:
            self.profiler.step()
        if started and n >= self.stop_step:
            self.profiler.stop()

    def end(self, run_context=None):
        if self.profiler.started:
            self.profiler.stop()
        if self._analyse:
            self.profiler.analyse()
        self.profiler.close()

    on_train_step_begin = step_begin
    on_train_step_end = step_end
    on_train_end = end


class StopAtEpoch:
    """Collects epochs ``start_epoch`` .. ``stop_epoch`` (inclusive, from 1),
    as MindSpore's StopAtEpoch example: ``epoch_begin``/``epoch_end``/``end``
    (and ``on_train_epoch_*``). ``step_end`` marks steps inside collected
    epochs, so call it each iteration to get per-step results."""

    def __init__(self, start_epoch, stop_epoch, analyse=True,
                 **profiler_kwargs):
        _int("start_epoch", start_epoch, 1)
        _int("stop_epoch", stop_epoch, 1)
        if stop_epoch < start_epoch:
            raise ValueError("nnscope.StopAtEpoch: stop_epoch (%d) is before "
                             "start_epoch (%d)" % (stop_epoch, start_epoch))
        self.start_epoch, self.stop_epoch = start_epoch, stop_epoch
        self._analyse = analyse
        self._n = 0
        profiler_kwargs["start"] = False
        self.profiler = Profiler(**profiler_kwargs)

    def epoch_begin(self, run_context=None):
        self._n = _cur(run_context, "cur_epoch_num", self._n + 1)
        if self._n == self.start_epoch and not self.profiler.started:
            self.profiler.start()

    def step_end(self, run_context=None):
        if self.profiler.started:
            self.profiler.step()

    def epoch_end(self, run_context=None):
        n = _cur(run_context, "cur_epoch_num", self._n)
        if self.profiler.started and n >= self.stop_epoch:
            self.profiler.stop()

    def end(self, run_context=None):
        if self.profiler.started:
            self.profiler.stop()
        if self._analyse:
            self.profiler.analyse()
        self.profiler.close()

    on_train_epoch_begin = epoch_begin
    on_train_epoch_end = epoch_end
    on_train_step_end = step_end
    on_train_end = end
