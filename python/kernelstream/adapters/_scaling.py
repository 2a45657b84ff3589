"""Online standardization: the adapters' ``scale=True`` (their default), also used by the
command line.

The learners' defaults (``sigma = 1``, ``lam = 1``) assume inputs whose distances are of
order one and targets of order one. ``scale=True`` makes that true of any stream, online:
each feature is centred and divided by its running standard deviation and by
``sqrt(d)`` (so that two independent standardized rows are at squared distance about 2
whatever the dimension ``d``), and the regression target is centred and divided by its
running standard deviation (predictions are mapped back). As in river's
``preprocessing.StandardScaler``, a row is scaled with the statistics of the stream up to
and including itself; prediction uses the current statistics. A constant feature (zero
variance so far) scales to 0.

Features already of order one pass unchanged (``keep_unit=True``, the adapters' choice for
inputs): a feature whose running root mean square ``sqrt(mean^2 + var)`` lies in
``[1/4, 4]`` is left as it is (then divided by ``sqrt(d)`` like the others). So a stream
standardized upstream (river's or scikit-learn's ``StandardScaler`` in a pipeline) is not
standardized twice: on a drifting stream a second running standardization is not the
identity (it re-centres the drift and magnifies near-constant columns), and it costs
accuracy (TrumpApproval: MAE 0.89 instead of 0.61, ``docs/adapters.md``).

Use (the whole API)::

    xs = OnlineStandardizer(per_dimension=True, keep_unit=True)  # features
    ys = OnlineStandardizer(per_dimension=False)                 # a target: shape (k, 1)
    Z = xs.learn_transform(X)     # update with the rows of X (k, d), in order; scaled rows
    z = ys.learn_transform(y[:, None])[:, 0]
    Zq = xs.transform(Xq)         # scale with the current statistics (no update)
    y_hat = ys.inverse(f)         # a prediction f in scaled units, back in the target's units
    xs.copy()                     # an independent copy (to commit only after success)
    z, after = xs.learned_row(x)  # one row (d,): scaled, and the standardizer after it
    z = xs.transform_row(x)       # one row with the current statistics

The one-row methods are the block methods' arithmetic for a block of one row, bit for
bit, done in the core (``src/scaling.rs``): a serving loop's per-round cost.
    xs.running_moments(X)         # (n, mean, m2) after each row of X, state unchanged

``learn_transform`` raises :class:`~kernelstream.InputError` (state unchanged) on NaN,
infinite values or values whose squares overflow.

The running moments are Welford's, computed for a block of rows at once with Chan,
Golub and LeVeque's pairwise combination (prefix sums of the block, shifted by the
current mean for accuracy).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .. import _core
from ..errors import InputError


def _check_finite(X: np.ndarray, what: str) -> None:
    if not np.all(np.isfinite(X)):
        raise InputError(f"{what} contains NaN or infinite values")


#: Row-sized float64 buffers an adapter holds or makes for one row of ``d`` features: the
#: row, the scaler's ``mean`` and ``m2`` and their successors, the scaled row.
ROW_BUFFERS = 6


def check_row_buffers(size: int, what: str, error: type[Exception]) -> None:
    """Raises ``error`` (before anything is allocated) if the buffers of rows of ``size``
    features need more than the memory ceiling (:func:`kernelstream.set_memory_limit`)."""
    need, limit = 8 * ROW_BUFFERS * int(size), int(_core.get_memory_limit())
    if need > limit:
        raise error(
            f"{what}: rows of {size} features need about {need / 2**20:.1f} MiB of buffers, "
            f"above the memory limit of {limit / 2**20:.1f} MiB (kernelstream.set_memory_limit)"
        )


#: ``keep_unit``: a feature whose running root mean square is in this range passes unchanged
UNIT_RANGE = (0.25, 4.0)


class OnlineStandardizer:
    """Running mean and (population) variance of a stream of ``d``-vectors.

    ``per_dimension=True`` divides the scaled vector by ``sqrt(d)`` (features); ``False``
    leaves it (targets). ``keep_unit=True`` passes the features already of order one
    unchanged (see the module's docstring).
    """

    def __init__(self, per_dimension: bool, keep_unit: bool = False):
        self.per_dimension = per_dimension
        self.keep_unit = keep_unit
        self.n = 0
        self.mean: Any = None  # np.ndarray once a row was seen
        self.m2: Any = None

    def copy(self) -> OnlineStandardizer:
        new = OnlineStandardizer(self.per_dimension, self.keep_unit)
        new.n = self.n
        new.mean = None if self.mean is None else self.mean.copy()
        new.m2 = None if self.m2 is None else self.m2.copy()
        return new

    def _scale(self, X, mean, var):
        std = np.sqrt(var)
        # zero variance (or only rounding noise around a constant): the feature scales to 0
        live = std > 1e-12 * np.abs(mean)
        Z = np.where(live, (X - mean) / np.where(live, std, 1.0), 0.0)
        if self.keep_unit:
            rms = np.sqrt(mean * mean + var)
            Z = np.where((rms >= UNIT_RANGE[0]) & (rms <= UNIT_RANGE[1]), X, Z)
        return Z / np.sqrt(X.shape[1]) if self.per_dimension else Z

    def running_moments(self, X: np.ndarray):
        """``(n, mean, m2)`` after each row of ``X`` (k, d), as arrays of k rows: the
        statistics of everything up to and including row i. The state is unchanged."""
        _check_finite(X, "the rows to standardize")
        k = X.shape[0]
        shift = self.mean if self.n else X[0]
        with np.errstate(over="ignore", invalid="ignore"):  # overflow is refused just below
            D = X - shift
            S1 = np.cumsum(D, axis=0)
            S2 = np.cumsum(D * D, axis=0)
            i = np.arange(1, k + 1, dtype=float)[:, None]
            block_mean = S1 / i
            block_m2 = np.maximum(S2 - S1 * S1 / i, 0.0)
            n0 = self.n
            n = n0 + i
            if n0:  # combine with the stream so far (whose mean is `shift`)
                mean = shift + block_mean * (i / n)
                m2 = self.m2 + block_m2 + block_mean**2 * (n0 * i / n)
            else:
                mean = shift + block_mean
                m2 = block_m2
        if not (np.all(np.isfinite(m2)) and np.all(np.isfinite(mean))):
            raise InputError(
                "values too large to standardize (their squares overflow float64); "
                "rescale them first"
            )
        return n, mean, m2

    def learn_transform(self, X: np.ndarray) -> np.ndarray:
        """Update with the rows of ``X`` (k, d) in order; row i is scaled with the
        statistics of everything up to and including row i."""
        n, mean, m2 = self.running_moments(X)
        Z = self._scale(X, mean, m2 / n)
        self.n, self.mean, self.m2 = self.n + X.shape[0], mean[-1].copy(), m2[-1].copy()
        return Z

    def transform(self, X: np.ndarray) -> np.ndarray:
        """Scale the rows of ``X`` with the current statistics (state unchanged)."""
        _check_finite(X, "the rows to standardize")
        if not self.n:
            return self._scale(X, np.zeros(X.shape[1]), np.zeros(X.shape[1]))
        return self._scale(X, self.mean, self.m2 / self.n)

    def learned_row(self, x: np.ndarray):
        """``(z, after)``: the row ``x`` (d,) scaled as :meth:`learn_transform` scales it,
        and a new standardizer with ``x`` learned (this one unchanged)."""
        z, mean, m2 = _core._standardize_row(x, self, True)
        after = OnlineStandardizer(self.per_dimension, self.keep_unit)
        after.n, after.mean, after.m2 = self.n + 1, mean, m2
        return z, after

    def transform_row(self, x: np.ndarray) -> np.ndarray:
        """The row ``x`` (d,) scaled with the current statistics (:meth:`transform`)."""
        return _core._standardize_row(x, self, False)[0]

    def inverse_one(self, z: float) -> float:
        """:meth:`inverse` of one finite value, as a float (the same arithmetic)."""
        if not self.n:
            return 0.0
        mean = float(self.mean[0])
        std = math.sqrt(self.m2[0] / self.n)
        return z * std + mean if std > 1e-12 * abs(mean) else mean

    def std(self) -> np.ndarray:
        """The running standard deviation of each column (the factor :meth:`inverse`
        multiplies by; 0 for a constant column, and before any row)."""
        if not self.n:
            return np.zeros(1)
        std = np.sqrt(self.m2 / self.n)
        return np.where(std > 1e-12 * np.abs(self.mean), std, 0.0)

    def inverse(self, z: np.ndarray) -> np.ndarray:
        """Map scaled values back: ``z std + mean``, for one quantity (``z`` of any
        shape) or ``K`` columns (``z`` of shape ``(n, K)``, each with its own)."""
        if not self.n:
            return np.zeros_like(z)
        std = np.sqrt(self.m2 / self.n)
        live = std > 1e-12 * np.abs(self.mean)
        if self.mean.size == 1:  # one quantity: a scalar mean and std
            mean, s = self.mean[0], std[0]
            return z * s + mean if live[0] else np.full_like(z, mean)
        return np.where(live, z * std + self.mean, self.mean)
