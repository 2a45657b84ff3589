"""Rounds that Ctrl-C does not cut in two, for state kept in Python (the Forecaster).

The core stops a long call at a round boundary (``src/interrupt.rs``); a Python object
whose round updates several parts (buffers, learners, scores) would be left with some
updated and some not if ``KeyboardInterrupt`` came in between. :func:`whole_round` holds
SIGINT while its block runs and delivers it to the previous handler once the block is
done, so the interrupt arrives at the round's end. Only the main thread receives
signals; elsewhere (and where no handler can be installed) the block runs as it is.
"""

from __future__ import annotations

import _signal  # type: ignore[import-not-found]  # (no stub: see below)
import os
import signal
import threading

# ``_signal``: the C functions behind ``signal.getsignal`` / ``signal.signal``, the same
# calls without their conversions to and from ``enum`` members, which cost a served
# round (two ``whole_round`` swaps) about 10 us.
_SIGINT = int(signal.SIGINT)
_SIG_DFL = int(signal.SIG_DFL)


class whole_round:  # noqa: N801 (used as ``with whole_round():``, like a function)
    """Runs the block with SIGINT held until it ends (see the module docstring). A
    class, not a generator context manager: a served round enters one, and the
    generator's machinery cost about as much as the swaps."""

    __slots__ = ("held", "previous")

    def __enter__(self) -> None:
        self.previous = None  # (None: the handler was not swapped)
        if threading.current_thread() is not threading.main_thread():
            return
        previous = _signal.getsignal(_SIGINT)
        if previous is None:  # a handler set outside Python: it could not be put back
            return
        held: list = []
        try:
            _signal.signal(_SIGINT, lambda signum, frame: held.append(frame))
        except (ValueError, TypeError, OSError):  # no handler can be set here
            return
        self.previous, self.held = previous, held

    def __exit__(self, *exc) -> None:
        previous = self.previous
        if previous is None:
            return
        _signal.signal(_SIGINT, previous)
        if self.held:
            if callable(previous):
                previous(signal.SIGINT, self.held[0])  # Python's: raises KeyboardInterrupt
            elif previous == _SIG_DFL:
                os.kill(os.getpid(), _SIGINT)
