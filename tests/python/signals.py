"""SIGINT sent to the test process while a call runs (the tests of Ctrl-C)."""

from __future__ import annotations

import os
import signal
import threading

import pytest


def sigint_during(call, delay: float) -> KeyboardInterrupt:
    """The ``KeyboardInterrupt`` of ``call()`` with SIGINT sent ``delay`` seconds after it
    starts; a call that finishes first waits for the signal, which then lands after it
    (an interrupt without ``rounds_completed``)."""
    timer = threading.Timer(delay, lambda: os.kill(os.getpid(), signal.SIGINT))
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt) as info:
            call()
            timer.join()  # finished first: the signal lands here
    finally:
        timer.cancel()
    return info.value
