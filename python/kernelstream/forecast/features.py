"""The forecaster's inputs: the seasonal period and the lags chosen on a warm-up window,
and the rows each expert learns from (``docs/forecasting.md``, "Inputs").

Every expert of horizon ``k`` (0-based: the target is ``y[o + k]`` at origin ``o``, after
``y[:o]`` was seen) reads its own transform of the series:

- ``"level"``: ``z = y``, target ``y[o + k]``;
- ``"diff"``: ``z[i] = y[i] - y[i - 1]``, target ``y[o + k] - y[o - 1]``;
- ``"sdiff"``: ``z[i] = y[i] - y[i - s]``, target ``y[o + k] - y[o + k - m s]``, with
  ``m = ceil((k + 1) / s)`` the fewest seasons back that are already seen;

and its inputs are ``z[o - 1], ..., z[o - p]``, the seasonal value ``y[o + k - m s]``
relative to the expert's offset (when a period is set), and the exogenous row ``X[o + k]``.
The forecast on the level scale is ``offset + prediction``.
"""

from __future__ import annotations

import math

import numpy as np

#: candidate periods are searched in ``[MIN_SEASON, len(window) // 2]``
MIN_SEASON = 4
#: the largest number of lags chosen from the data
MAX_LAGS = 8
#: the band of :func:`find_season`, in white-noise standard errors
SEASON_Z = 2.5


def acf(z: np.ndarray, max_lag: int) -> np.ndarray:
    """Sample autocorrelations ``r_1..r_max_lag`` (Box and Jenkins' estimator: the lag-``j``
    autocovariance over ``n`` divided by the variance); zeros for a constant ``z``."""
    z = np.asarray(z, float) - np.mean(z)
    n, var = z.size, float(np.dot(z, z))
    if var == 0.0:
        return np.zeros(max_lag)
    return np.array([float(np.dot(z[j:], z[: n - j])) / var for j in range(1, max_lag + 1)])


def pacf(z: np.ndarray, max_lag: int) -> np.ndarray:
    """Partial autocorrelations ``phi_11..phi_LL`` by the Durbin-Levinson recursion
    (Box, Jenkins and Reinsel, eq. (3.2.37)) on :func:`acf`."""
    r = np.concatenate([[1.0], acf(z, max_lag)])
    out, phi = np.zeros(max_lag), np.zeros(0)
    for k in range(1, max_lag + 1):
        den = 1.0 - float(np.dot(phi, r[1:k]))
        a = (r[k] - float(np.dot(phi, r[1:k][::-1]))) / den if den > 1e-12 else 0.0
        phi = np.concatenate([phi - a * phi[::-1], [a]])
        out[k - 1] = a
    return out


def find_season(window: np.ndarray) -> int | None:
    """The period ``s`` of a warm-up window, or None: the lag in ``[MIN_SEASON, n // 2]``
    where the autocorrelation of the linearly detrended window is largest, if that is a local
    peak above ``0.3`` and above ``SEASON_Z / sqrt(n)`` (the white-noise band, widened
    because the largest of some twenty autocorrelations is taken)."""
    w = np.asarray(window, float)
    t = np.arange(w.size, dtype=float)
    d = w - np.polyval(np.polyfit(t, w, 1), t) if w.size >= 2 else w  # detrended
    n, top = d.size, d.size // 2
    if top < MIN_SEASON:
        return None
    r = acf(d, top + 1)
    best, s = -1.0, None
    for lag in range(MIN_SEASON, top + 1):
        v = r[lag - 1]
        if v > best and v >= r[lag - 2] and v >= r[lag]:
            best, s = v, lag
    if s is None or best < max(0.3, SEASON_Z / math.sqrt(n)):
        return None
    return s


def find_lags(window: np.ndarray) -> int:
    """Number of lags: the last partial autocorrelation of the first differences outside
    the band ``2 / sqrt(n)`` among lags ``1..MAX_LAGS``, at least 2."""
    d = np.diff(np.asarray(window, float))
    top = min(MAX_LAGS, d.size // 4)
    if top < 1:
        return 2
    p = pacf(d, top)
    big = np.flatnonzero(np.abs(p) > 2.0 / math.sqrt(d.size))
    return max(2, int(big[-1]) + 1 if big.size else 2)


def seasons_back(k: int, s: int) -> int:
    """``m = ceil((k + 1) / s)``: the fewest whole seasons back from ``y[o + k]`` that are
    already seen at origin ``o``."""
    return -(-(k + 1) // s)


def first_origin(kind: str, p, s, k: int) -> int:
    """The first origin ``o`` at which an expert of this kind has every input."""
    need = p + (1 if kind == "diff" else 0) + (s if kind == "sdiff" else 0)
    if s is not None:
        need = max(need, seasons_back(k, s) * s - k)
    return max(need, 1)


def rows(kind: str, y: np.ndarray, X, origins, k: int, p, s):
    """The inputs ``(len(origins), dim)`` and the offsets of an expert at those origins.

    ``y`` holds at least ``y[:max(origins)]`` (later values are never read: no look-ahead);
    ``X`` (``None`` or an array of rows) at least ``X[:max(origins) + k + 1]``. The same
    operations serve one origin (online) and many (the whole-stream path), so both give
    the same numbers bit for bit.
    """
    o = np.asarray(origins, dtype=np.intp)
    last = y[o - 1]
    J = o[:, None] - np.arange(1, p + 1)  # J[i, j - 1] = o_i - j: the lags' indices
    if kind == "level":
        offset = np.zeros(o.size)
        lags = y[J]
    elif kind == "diff":
        offset = last
        lags = y[J] - y[J - 1]
    else:
        back = seasons_back(k, s) * s
        offset = y[o + k - back]
        lags = y[J] - y[J - s]
    seasonal = s is not None and kind != "sdiff"  # sdiff's offset is the seasonal value itself
    Xk = None if X is None else np.asarray(X, float)[o + k]
    Z = np.empty((o.size, p + seasonal + (0 if Xk is None else Xk.shape[1])))
    Z[:, :p] = lags
    if seasonal:
        sv = y[o + k - seasons_back(k, s) * s]
        Z[:, p] = sv - last if kind == "diff" else sv
    if Xk is not None:
        Z[:, p + seasonal :] = Xk
    return Z, offset


#: the periods whose seasonal-naive forecasts are always experts (besides the period in use)
PERIODS = (4, 7, 12, 24)
#: smoothing rates of the simple exponential smoothing experts (flat forecasts)
SES_ALPHAS = np.array([0.2, 0.5])


def ses_step(level, v):
    """Simple exponential smoothing, ``l <- l + a (v - l)`` for every rate ``a``."""
    return v * np.ones(SES_ALPHAS.size) if level is None else level + SES_ALPHAS * (v - level)


def simple_values(y: np.ndarray, o: int, k: int, periods, level) -> list:
    """The simple experts' forecasts of ``y[o + k]`` at origin ``o``: the last value, the
    smoothed levels ``level`` (after ``y[o - 1]``) and the seasonal naive
    ``y[o + k - m P]`` of every period ``P`` (the last value while that index is negative)."""
    last = float(y[o - 1])
    out = [last, *map(float, level)]
    for P in periods:
        i = o + k - seasons_back(k, P) * P
        out.append(float(y[i]) if i >= 0 else last)
    return out
