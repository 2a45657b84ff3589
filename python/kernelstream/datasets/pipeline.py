"""The one preprocessing pipeline of the command line and the experiments:
load -> drop incomplete rows -> labels or scaling -> shuffle -> truncate."""

from __future__ import annotations

import numpy as np

from .loaders import load
from .preprocessing import drop_missing, scale, shuffle


def prepare_arrays(
    X,
    y,
    x_range=(-1.0, 1.0),
    y_range=(-1.0, 1.0),
    classification: bool = False,
    seed: int | None = None,
    limit: int | None = None,
    rescale: bool = True,
):
    """Scales (inputs to ``x_range``; targets to ``y_range`` unless ``None``), shuffles with
    ``seed`` and keeps the first ``limit`` rows. For classification the labels become -1/+1
    (the larger value is +1) and are not scaled. Returns contiguous ``(X, y)``."""
    if classification:
        y = np.where(y == np.max(y), 1.0, -1.0)
        if rescale:
            X, _ = scale(X, None, x_range=x_range)
    elif rescale:
        X, y = scale(X, y, x_range=x_range, y_range=y_range)
    if seed is not None:
        X, y = shuffle(X, y, seed)
    if limit is not None:
        X, y = X[:limit], y[:limit]
    return np.ascontiguousarray(X), np.ascontiguousarray(y)


def prepare(
    name: str,
    data_home=None,
    x_range=(-1.0, 1.0),
    y_range=(-1.0, 1.0),
    classification: bool = False,
    seed: int | None = None,
    limit: int | None = None,
    drop_incomplete: bool = True,
):
    """Loads the dataset ``name``, drops rows with missing values, then
    :func:`prepare_arrays`. Returns ``(X, y, rows_dropped)``."""
    X, y = load(name, data_home)
    dropped = 0
    if drop_incomplete:
        X, y, dropped = drop_missing(X, y)
    X, y = prepare_arrays(X, y, x_range, y_range, classification, seed, limit)
    return X, y, dropped
