"""Intervals per horizon: adaptive conformal inference on each horizon's own scores.

The scores logic of :class:`kernelstream.Conformal` (Gibbs and Candes 2021, eq. (2)), one
copy per horizon ``k``: the interval for ``y[o + k]`` made at origin ``o`` is

    [f - q, f + q],  q = Quantile_{1 - alpha_k}(|y[u + k] - f_{u,k}|, u + k < o),

the scores of the horizon's forecasts whose labels were seen before ``o`` (the last
``window`` of them), with the rank ``ceil((1 - alpha_k)(n + 1))``; once ``y[o + k]`` is
seen, ``alpha_k += gamma (alpha - 1{y[o + k] not in the interval})``. Each interval is
thus made before its label, from labels seen before it.
"""

from __future__ import annotations

import bisect
from collections import deque

from ..learners.conformal import _rank_quantile


class HorizonConformal:
    """Adaptive conformal state of one horizon (scores and ``alpha_k``)."""

    def __init__(self, alpha: float, gamma: float = 0.015, window: int = 500):
        self.alpha, self.gamma, self.window = alpha, gamma, window
        self.alpha_t = alpha
        self.scores: deque = deque()
        self.sorted: list = []
        self.n_covered = 0
        self.n_scored = 0

    def half_width(self) -> float:
        """``q``: the half-width of the next interval (``inf`` with too few scores)."""
        return _rank_quantile(self.sorted, 1.0 - self.alpha_t)

    def update(self, forecast: float, lower: float, upper: float, y: float) -> None:
        """The label ``y`` of a forecast made with the interval ``[lower, upper]``."""
        miss = not (lower <= y <= upper)
        self.n_scored += 1
        self.n_covered += not miss
        # eq. (2) of Gibbs and Candes: alpha_{t+1} = alpha_t + gamma (alpha - err_t)
        self.alpha_t += self.gamma * (self.alpha - float(miss))
        score = abs(y - forecast)
        self.scores.append(score)
        bisect.insort(self.sorted, score)
        if len(self.scores) > self.window:
            old = self.scores.popleft()
            del self.sorted[bisect.bisect_left(self.sorted, old)]
