"""Stream sizes by time, not by count: for tests that must keep a learner busy for a
while (Ctrl-C tests), whatever the learner's per-round cost and its growth."""

from __future__ import annotations

import math
import time


def rows_for_seconds(run, seconds: float, start: int = 256, cap: int = 3_000_000) -> int:
    """Rows that keep ``run(n)`` (a fresh learner over ``n`` rows) busy for about
    ``seconds``.

    Runs prefixes of doubling length until one takes at least ``seconds / 8``, fits
    ``t(n) = a n^b`` through the last two (``b`` is 1 for a constant cost per round,
    up to 2 for a learner whose rounds cost O(t) such as AveragedKernelSGD: measured
    where the stream is long, so that the growth the target size will see dominates)
    and solves ``t(n) = seconds``; at most ``cap``. Calibration costs a quarter to a half
    of ``seconds``."""
    n, prev = start, None
    while True:
        t0 = time.perf_counter()
        run(n)
        t = max(time.perf_counter() - t0, 1e-6)
        # (at least two sizes: the first run also pays one-off costs)
        if prev is not None and (t >= seconds / 8 or n >= cap):
            break
        prev, n = (n, t), 2 * n
    b = 1.0
    if prev is not None and prev[1] > 2e-3:
        b = min(max(math.log(t / prev[1]) / math.log(n / prev[0]), 1.0), 3.0)
    return int(min(cap, max(start, n * (seconds / t) ** (1.0 / b))))
