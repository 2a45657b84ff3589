"""Objects of Python state shared by threads: :func:`serialised` methods of one object
run one at a time (a reentrant lock per object), so that two threads never read the same
state and both write their update (a lost round). The core learners refuse a concurrent
call instead (PyO3's borrow: ``RuntimeError``); the wrappers written in Python
(:class:`kernelstream.Conformal`, the river adapters) hold the wrapped learner's calls
under their lock, so those never meet either.

The lock is made on first use and is no part of the object's state: a copy or an
unpickled object gets its own (``LOCK_ATTR`` is left out of ``__getstate__``)."""

from __future__ import annotations

import functools
import threading

#: the attribute holding an object's lock (left out of pickles and copies)
LOCK_ATTR = "_call_lock"
_MAKING = threading.Lock()


def lock_of(obj) -> threading.RLock:
    """``obj``'s lock, made on first use (once, under a module lock)."""
    lock = obj.__dict__.get(LOCK_ATTR)
    if lock is None:
        with _MAKING:
            lock = obj.__dict__.setdefault(LOCK_ATTR, threading.RLock())
    return lock


def serialised(method):
    """``method`` run under its object's lock (see the module docstring)."""

    @functools.wraps(method)
    def wrapper(self, *args, **kwargs):
        with lock_of(self):
            return method(self, *args, **kwargs)

    return wrapper
