"""Intervals per horizon: adaptive conformal inference on each horizon's own scores,
locally weighted by the horizon's recent error scale.

The scores logic of :class:`kernelstream.Conformal` (Gibbs and Candes 2021, eq. (2)), one
copy per horizon ``k``: the interval for ``y[o + k]`` made at origin ``o`` is

    [f - q, f + q],  q = d_o Quantile_{1 - alpha_k}(|y[u + k] - f_{u,k}| / d_u, u + k < o),

the scores of the horizon's forecasts whose labels were seen before ``o`` (the last
``window`` of them), with the rank ``ceil((1 - alpha_k)(n + 1))``; once ``y[o + k]`` is
seen, ``alpha_k += gamma (alpha - 1{y[o + k] not in the interval})``. Each interval is
thus made before its label, from labels seen before it.

``d_o`` is the median of the last ``scale_window`` absolute errors of the horizon seen
before ``o`` (a forecast made before any is not scored: no scale of the series' units
exists yet): the locally weighted scores of Lei, G'Sell, Rinaldo,
Tibshirani and Wasserman (2018, "locally-weighted conformal inference"), with a local scale that moves with the stream,
so that after a change of the noise level or of the level the scores' quantile does not
have to wait for ``window`` new scores, and ACI's ``alpha_k`` has less to correct (ACI's
guarantee holds for any score: over ``T`` rounds the miss frequency is ``alpha`` up to
the change of ``alpha_k`` over them divided by ``gamma T``). The median, not the mean, so that
one heavy-tailed error does not widen the next ``scale_window`` intervals
(``docs/forecasting.md``, "What each horizon's interval means").
"""

from __future__ import annotations

import bisect
import math
from collections import deque

import numpy as np

from ..learners.conformal import _rank_quantile

#: ACI's step (Gibbs and Candes 2021, eq. (2))
GAMMA = 0.015
#: the scores kept per horizon
WINDOW = 500
#: the absolute errors whose median is the local scale ``d_o``
SCALE_WINDOW = 100


class HorizonConformal:
    """Adaptive conformal state of one horizon (scores, local scale and ``alpha_k``)."""

    def __init__(
        self,
        alpha: float,
        gamma: float = GAMMA,
        window: int = WINDOW,
        scale_window: int = SCALE_WINDOW,
    ):
        self.alpha, self.gamma, self.window = alpha, gamma, window
        self.alpha_t = alpha
        self.scores: deque = deque()
        self.sorted: list = []
        self.errors: deque = deque(maxlen=scale_window)
        self.sorted_errors: list = []  # ``errors`` in order, for their median
        self.n_nan = 0  # NaN errors in ``errors`` (their order is undefined)
        self.n_covered = 0
        self.n_scored = 0

    def __setstate__(self, state) -> None:
        # a state pickled before ``sorted_errors`` existed: rebuilt from ``errors``
        self.__dict__.update(state)
        if "sorted_errors" not in state:
            e = list(self.errors)
            self.n_nan = sum(math.isnan(v) for v in e)
            self.sorted_errors = sorted(v for v in e if not math.isnan(v))

    def scale(self):
        """``d_o``: the median of the last absolute errors (their mean if that is 0, 1 if
        every one is 0); None before any error."""
        if not self.errors:
            return None
        n, srt = len(self.sorted_errors), self.sorted_errors
        if self.n_nan:
            d = math.nan
        else:  # np.median's value: the middle one, or the mean (a + b) / 2 of the two
            d = srt[n // 2] if n % 2 else (srt[n // 2 - 1] + srt[n // 2]) / 2.0
        if d <= 0.0:
            e = np.fromiter(self.errors, float, len(self.errors))
            d = float(np.mean(e))
        return d if d > 0.0 else 1.0

    def half_width(self) -> tuple:
        """``(q, d)``: the half-width of the next interval (``inf`` with too few scores)
        and the local scale it was made with (for :meth:`update`)."""
        d = self.scale()
        return _rank_quantile(self.sorted, 1.0 - self.alpha_t) * (1.0 if d is None else d), d

    def update(self, forecast: float, lower: float, upper: float, y: float, d=1.0) -> None:
        """The label ``y`` of a forecast made with the interval ``[lower, upper]`` and the
        local scale ``d`` (the second value of :meth:`half_width`; None: not scored)."""
        miss = not (lower <= y <= upper)
        self.n_scored += 1
        self.n_covered += not miss
        # eq. (2) of Gibbs and Candes: alpha_{t+1} = alpha_t + gamma (alpha - err_t)
        self.alpha_t += self.gamma * (self.alpha - float(miss))
        err = abs(y - forecast)
        if len(self.errors) == self.errors.maxlen:
            old = self.errors[0]
            if math.isnan(old):
                self.n_nan -= 1
            else:
                del self.sorted_errors[bisect.bisect_left(self.sorted_errors, old)]
        self.errors.append(err)
        if math.isnan(err):
            self.n_nan += 1
        else:
            bisect.insort(self.sorted_errors, err)
        if d is None:
            return
        score = err / d
        self.scores.append(score)
        bisect.insort(self.sorted, score)
        if len(self.scores) > self.window:
            old = self.scores.popleft()
            del self.sorted[bisect.bisect_left(self.sorted, old)]
