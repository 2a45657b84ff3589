"""A learner behind online scaling, answering in the target's units.

:class:`OnlineScaled` feeds a learner inputs scaled with the statistics of the rows seen
so far (standardized, as the adapters' ``scale=True``, or min-max to an interval for the
learners whose basis lives on a box), and regression targets standardized the same way;
its predictions are mapped back to the target's units with the statistics of the targets
before the round (the target of round t is not known when it is predicted). Nothing is
taken from later rows, so a prediction does not depend on the rest of the stream, nor on
how the stream is cut into chunks.
"""

from __future__ import annotations

import numpy as np

from ..adapters._scaling import OnlineStandardizer
from ..errors import ParameterError


class OnlineMinMax:
    """Per-feature running minimum and maximum; row t maps to ``[lo, hi]`` with those of
    rows ``1..t`` (a feature constant so far maps to the middle)."""

    def __init__(self, lo: float, hi: float):
        self.lo, self.hi = float(lo), float(hi)
        self.min = None
        self.max = None

    def learn_transform(self, X: np.ndarray) -> np.ndarray:
        mins = np.minimum.accumulate(X, axis=0)
        maxs = np.maximum.accumulate(X, axis=0)
        if self.min is not None:
            mins = np.minimum(mins, self.min)
            maxs = np.maximum(maxs, self.max)
        self.min, self.max = mins[-1].copy(), maxs[-1].copy()
        span = maxs - mins
        live = span > 0
        Z = (X - mins) / np.where(live, span, 1.0)
        return np.where(live, self.lo + (self.hi - self.lo) * Z, (self.lo + self.hi) / 2.0)


class OnlineScaled:
    """``learner`` seen through online scaling (see the module docstring).

    Parameters
    ----------
    learner : a kernelstream learner
    inputs : {"standardize", "minmax", None}
        Standardize each feature (and divide by ``sqrt(d)``), map it to ``x_range`` with
        its running minimum and maximum, or leave it.
    x_range : (lo, hi), for ``inputs="minmax"``
    targets : bool
        Standardize regression targets (predictions are mapped back).
    """

    def __init__(self, learner, inputs="standardize", x_range=(-1.0, 1.0), targets=True):
        if inputs not in ("standardize", "minmax", None):
            raise ParameterError(f"inputs must be 'standardize', 'minmax' or None, got {inputs!r}")
        self.learner = learner
        self.task = getattr(learner, "task", "regression")
        self.inputs = inputs
        if inputs == "standardize":
            self.x_scaler = OnlineStandardizer(per_dimension=True)
        elif inputs == "minmax":
            self.x_scaler = OnlineMinMax(*x_range)
        else:
            self.x_scaler = None
        self.y_scaler = OnlineStandardizer(per_dimension=False) if targets else None

    @property
    def dim(self) -> int:
        return self.learner.dim

    def get_params(self, deep: bool = True) -> dict:
        return self.learner.get_params(deep)

    def __repr__(self) -> str:
        return repr(self.learner)

    def progressive_predict(self, X, y, sample_weight=None) -> np.ndarray:
        """The learner's progressive predictions on the scaled rows, in the target's units
        (``sample_weight``: the learner's; the scaling counts each row once)."""
        X = np.asarray(X, dtype=np.float64)
        y = np.asarray(y, dtype=np.float64)
        Z = X if self.x_scaler is None else self.x_scaler.learn_transform(X)
        ys = self.y_scaler
        kw = {} if sample_weight is None else {"sample_weight": sample_weight}
        if ys is None:
            return self.learner.progressive_predict(Z, y, **kw)
        n0, mean0 = ys.n, (0.0 if ys.mean is None else float(ys.mean[0]))
        var0 = 0.0 if not ys.n else float(ys.m2[0]) / ys.n
        n, mean, m2 = ys.running_moments(y[:, None])
        zy = ys.learn_transform(y[:, None])[:, 0]
        p = self.learner.progressive_predict(Z, zy, **kw)
        # round t is mapped back with the targets of rounds < t
        prev_n = np.r_[n0, n[:-1, 0]]
        prev_mean = np.r_[mean0, mean[:-1, 0]]
        prev_var = np.r_[var0, (m2[:-1, 0] / n[:-1, 0]) if y.size > 1 else []]
        std = np.sqrt(prev_var)
        live = std > 1e-12 * np.abs(prev_mean)
        out = np.where(live, p * std + prev_mean, prev_mean)
        return np.where(prev_n > 0, out, 0.0)
