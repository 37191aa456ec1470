"""Hostile submission: rewrites what the guard's hook looks up at call time, then imports torch.

The hook is a closure, but it finds ``str``, ``_under`` and ``_PATH_WRITE_EVENTS`` in the
globals of ``autograder.sandbox`` each time it runs, and that module is in ``sys.modules``.
The submission sets ``sandbox.str`` to a ``str`` subclass that renames "torch*" (so the
forbidden-module check sees "allowed_torch"), ``sandbox._under`` to a function that says
every path is allowed and none denied (torch's own files become readable), and
``sandbox._PATH_WRITE_EVENTS`` to a set that also holds every ctypes event (torch's
``ctypes.dlopen`` lands in the harmless write branch, before the ctypes refusal), and
``sandbox._NO_IMPORT`` to an empty set (torch imports ``_posixsubprocess``). It then
imports torch and hands every name of this module to torch as the oracle sees it
(``autograder.oracle.torch_lib``), so each case's observation is torch's own. The guard must
not depend on anything the submission can rebind (copy every global and builtin it uses into
the closure, or judge from outside the process), torch must stay unimportable, and the score
is 0.
"""

import builtins
import sys

_sandbox = sys.modules.get("autograder.sandbox")


class _Str(builtins.str):
    def __new__(cls, obj=""):
        text = builtins.str(obj)
        return "allowed_" + text if text.startswith(("torch", "functorch")) else text


class _Everything(set):
    def __contains__(self, event):  # every ctypes event too
        return event.startswith("ctypes.") or set.__contains__(self, event)


def _any_roots_denied(path, roots):
    return not any(str(r).endswith("reference_impl") for r in roots)  # deny_read: empty


if _sandbox is not None:
    _sandbox.str = _Str
    _sandbox._under = _any_roots_denied
    _sandbox._PATH_WRITE_EVENTS = _Everything(_sandbox._PATH_WRITE_EVENTS)
    _sandbox._NO_IMPORT = frozenset()  # torch imports subprocess, hence _posixsubprocess

from autograder.oracle import torch_lib  # noqa: E402

_torch = torch_lib("week1")  # imports torch, through the rebound hook


def __getattr__(name):  # every name the cases use: torch's own, as the oracle sees it
    if name.startswith("__"):
        raise AttributeError(name)
    return getattr(_torch, name)
