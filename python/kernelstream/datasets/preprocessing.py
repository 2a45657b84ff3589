"""The papers' preprocessing, as explicit functions."""

from __future__ import annotations

import numpy as np

from .. import _core
from ..errors import InputError


def _minmax(a: np.ndarray, lo: float, hi: float) -> np.ndarray:
    amin = np.nanmin(a, axis=0)
    amax = np.nanmax(a, axis=0)
    span = amax - amin
    const = span == 0
    span = np.where(const, 1.0, span)
    out = lo + (hi - lo) * (a - amin) / span
    # A constant column carries no information: put it in the middle of the range.
    if np.any(const):
        out[..., const] = (lo + hi) / 2.0
    return out


def scale(X, y=None, x_range=(-1.0, 1.0), y_range=None, row_norm: bool = False):
    """Per-feature min-max scaling of ``X`` (and optionally ``y``), as the papers do.

    Parameters
    ----------
    X : (n, d) array
    y : (n,) array or None
    x_range : (lo, hi) or None
        Target interval of each column of ``X`` (``(-1, 1)``: PKAWV; ``(0, 1)``: PROS-N-KONS).
        ``None`` leaves ``X`` unchanged. Constant columns map to the middle of the interval.
    y_range : (lo, hi) or None
        Target interval of ``y`` (``None``: unchanged).
    row_norm : bool
        After min-max, divide ``X`` by its largest row norm (so that ``max_t ||x_t|| = 1``).

    Returns
    -------
    (Xs, ys) with ``ys = None`` if ``y`` is None. Scaling uses the whole dataset (min and max
    over all rows), the papers' convention; NaNs are ignored in the min/max and kept.

    Examples
    --------
    >>> import numpy as np
    >>> from kernelstream.datasets import scale
    >>> Xs, ys = scale(np.array([[0.0, 5.0], [2.0, 5.0]]), np.array([1.0, 3.0]), y_range=(0, 1))
    >>> Xs.tolist(), ys.tolist()
    ([[-1.0, 0.0], [1.0, 0.0]], [0.0, 1.0])
    """
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2 or X.shape[0] == 0:
        raise InputError(f"X must be a non-empty 2-D array, got shape {X.shape}")
    Xs = X.copy() if x_range is None else _minmax(X, *map(float, x_range))
    if row_norm:
        norms = np.sqrt(np.nansum(Xs**2, axis=1))
        top = norms.max()
        if top > 0:
            Xs = Xs / top
    ys = None
    if y is not None:
        y = np.asarray(y, dtype=np.float64)
        if y.shape != (X.shape[0],):
            raise InputError(f"y must have shape ({X.shape[0]},), got {y.shape}")
        ys = y.copy() if y_range is None else _minmax(y[:, None], *map(float, y_range))[:, 0]
    return np.ascontiguousarray(Xs), ys


def shuffle(X, y, seed: int):
    """Rows of ``(X, y)`` in a random order drawn from ``kernelstream._core.Rng(seed)``."""
    X = np.asarray(X)
    perm = np.asarray(_core.Rng(int(seed)).permutation(X.shape[0]), dtype=np.int64)
    return np.ascontiguousarray(X[perm]), np.ascontiguousarray(np.asarray(y)[perm])


def drop_missing(X, y):
    """Drops the rows with a missing value (NaN) in ``X`` or ``y``; returns ``(X, y, n_dropped)``."""
    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    keep = ~(np.isnan(X).any(axis=1) | np.isnan(y))
    return np.ascontiguousarray(X[keep]), np.ascontiguousarray(y[keep]), int((~keep).sum())


def impute_mean(X, y):
    """Replaces each missing value (NaN) of ``X`` and ``y`` by its column's mean over all rows.

    The OMKL-GF / VAW2 pipeline for Bias (scikit-learn's ``SimpleImputer(strategy="mean")``
    on the whole file, target included); returns ``(X, y, n_imputed)``.

    Examples
    --------
    >>> import numpy as np
    >>> from kernelstream.datasets import impute_mean
    >>> X, y, n = impute_mean(np.array([[1.0, np.nan], [3.0, 4.0]]), np.array([np.nan, 2.0]))
    >>> X.tolist(), y.tolist(), n
    ([[1.0, 4.0], [3.0, 4.0]], [2.0, 2.0], 2)
    """
    X = np.array(X, dtype=np.float64)
    y = np.array(y, dtype=np.float64)
    if X.ndim != 2 or y.shape != (X.shape[0],):
        raise InputError(f"X must be (n, d) and y (n,), got {X.shape} and {y.shape}")
    data = np.column_stack([X, y])
    missing = np.isnan(data)
    if missing.all(axis=0).any():
        raise InputError("a column has no value at all: its mean is undefined")
    means = np.nanmean(data, axis=0)
    data[missing] = np.take(means, np.nonzero(missing)[1])
    return np.ascontiguousarray(data[:, :-1]), np.ascontiguousarray(data[:, -1]), int(missing.sum())
