"""sitecustomize of ``nnscope run``: PyTorch with no code change.

``nnscope run`` puts this directory first on PYTHONPATH (not with
``--no-torch``). In a process the collector profiles (NNSCOPE_PRELOAD=1)
and unless NNSCOPE_TORCH=0, it adds a finder to ``sys.meta_path`` that
waits for ``import torch``; when torch's ``__init__`` has run, it calls
``nnscope.zero.start()`` from the nnscope package beside this directory
(see python/nnscope/zero.py). Until then the cost is one string
comparison per top-level module imported for the first time; a program
that never imports torch gets nothing else. Nothing raises into the
program: a failure is one line on stderr and the program runs on.

Then it runs the ``sitecustomize`` that Python would have run without this
one (the next on sys.path, e.g. Debian's /usr/lib/python3.X/sitecustomize.py)
as the ``sitecustomize`` module; its errors are reported by ``site`` as
they would have been.
"""

import os
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))


def _say(msg):
    try:
        sys.stderr.write("nnscope: %s\n" % msg)
        sys.stderr.flush()
    except Exception:  # noqa: BLE001 - no stderr: nothing to say it on
        pass


def _start_torch():
    """nnscope.zero.start() with the package beside this directory."""
    try:
        if "nnscope" not in sys.modules:
            pkg = os.path.dirname(_HERE)
            sys.path.insert(0, pkg)
            try:
                import nnscope.zero as zero
            finally:
                try:
                    sys.path.remove(pkg)
                except ValueError:
                    pass
        else:
            import nnscope.zero as zero
        zero.start()
    except Exception as e:  # noqa: BLE001 - never break the program
        _say("PyTorch is not instrumented in this process (%s: %s)"
             % (type(e).__name__, e))


class _TorchFinder:
    """Finds nothing itself: on the first ``import torch`` it asks the
    finders after it for torch's spec and makes its loader call
    _start_torch() once torch's module has executed."""

    def __init__(self):
        self.done = False

    def find_spec(self, name, path=None, target=None):
        if name != "torch" or self.done:
            return None
        self.done = True  # (removing itself here would skip a finder)
        try:
            spec = None
            for f in list(sys.meta_path):
                find = getattr(f, "find_spec", None)
                if f is self or find is None:
                    continue
                spec = find(name, path, target)
                if spec is not None:
                    break
            loader = getattr(spec, "loader", None)
            if loader is None or not hasattr(loader, "exec_module"):
                return spec
            run = loader.exec_module

            def exec_module(module):
                try:
                    del loader.exec_module  # back to the class's method
                except AttributeError:
                    pass
                try:
                    sys.meta_path.remove(self)
                except ValueError:
                    pass
                run(module)
                _start_torch()
            loader.exec_module = exec_module
            return spec
        except Exception as e:  # noqa: BLE001 - the import goes on without us
            _say("PyTorch is not instrumented in this process (%s: %s)"
                 % (type(e).__name__, e))
            return None


def _install():
    if os.environ.get("NNSCOPE_PRELOAD") != "1":
        return
    if os.environ.get("NNSCOPE_TORCH", "1").strip().lower() in (
            "0", "off", "no", "false"):
        return
    if "torch" in sys.modules:  # imported before site ran: start now
        _start_torch()
        return
    sys.meta_path.insert(0, _TorchFinder())


def _chain():
    """Runs the next sitecustomize on sys.path as ``sitecustomize``."""
    import importlib.machinery
    import importlib.util
    path = []
    for p in sys.path:
        try:
            if os.path.realpath(p or os.curdir) == os.path.realpath(_HERE):
                continue
        except (OSError, ValueError, TypeError):
            pass
        path.append(p)
    spec = importlib.machinery.PathFinder.find_spec("sitecustomize", path)
    if spec is None or spec.loader is None:
        return
    mod = importlib.util.module_from_spec(spec)
    sys.modules["sitecustomize"] = mod  # the import of this one returns it
    spec.loader.exec_module(mod)


try:
    _install()
except Exception as _e:  # noqa: BLE001 - never break the program
    _say("PyTorch is not instrumented in this process (%s: %s)"
         % (type(_e).__name__, _e))
_chain()
