"""``Forecaster.progressive_forecast``: a whole series at once, with the online rounds'
semantics.

On a fresh forecaster the warm-up runs round by round; after it, each expert's rows are
built for the whole series in one call (:func:`.features.rows` reads ``y[:o]`` only).
With ``horizon=1`` the learners run through ``progressive_predict`` (the core's
whole-stream call); with more horizons the horizon-1 learners run in the rounds' loop
(the recursive expert reads their state at every origin) and those of horizon ``h > 1``
learn each pair ``h - 1`` rounds after predicting it (as online); the combination and
intervals replay the rounds in order. The results equal ``forecast`` then ``learn_one``
round by round up to the whole-stream call's rounding (``tests/python/test_forecast.py``
checks ``1e-9`` relative).
"""

from __future__ import annotations

import numpy as np

from .._validation import _to_float_array
from ..errors import InputError
from . import features as F
from .limits import Y_LIMIT, too_large


def _series(y) -> np.ndarray:
    arr = _to_float_array(y, "y")
    if arr.ndim != 1:
        raise InputError(f"y must be a 1-D series, got an array of shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise InputError(
            f"y has a value that is not finite (at index {int(np.argmin(np.isfinite(arr)))})"
        )
    big = np.abs(arr) > Y_LIMIT
    if big.any():
        i = int(np.argmax(big))
        raise too_large(f"y[{i}]", float(arr[i]))
    return arr


def progressive_forecast(fc, y, X=None) -> tuple:
    y = _series(y)
    n, H = y.size, fc.horizon
    if X is not None:
        X = fc._check_rows(X, "X")
        if X.shape[0] != n:
            raise InputError(f"X has {X.shape[0]} rows, y has {n}")
    elif fc._dx:
        fc._check_rows(None, "X")
    out = np.full((3, n, H), np.nan)  # forecasts, lower, upper
    lr0 = fc._params["learner"]
    fast = fc.n_seen == 0 and (lr0 is None or hasattr(lr0, "progressive_predict"))
    W = fc.warmup
    stop = min(W, n) if fast else n
    for t in range(stop):
        h = min(H, n - t)
        if fc.n_seen >= 1:
            out[:, t, :h] = fc._forecast(h, None if X is None else X[t : t + h])
        fc.learn_one(y[t], None if X is None else X[t])
    if fast and n > W:
        _batch(fc, y, X, out)
    return out[0], out[1], out[2]


def _batch(fc, y, X, out) -> None:
    n, H, W = y.size, fc.horizon, fc.warmup
    for t in range(W, n):  # the whole series is known: every row reads only its past
        fc._y.append(y[t])
        if fc._x is not None:
            fc._x.append(X[t])
    dx0 = fc._dx == 0
    L, s = fc.lags_, fc.season_
    last = [n if dx0 else n - 1 - k for k in range(H)]  # the last origin forecast per horizon
    preds: list = []
    rows0: list = []  # horizon 1 with H > 1: the learners run in the rounds' loop below
    for k in range(H):
        per_kind = []
        for kind, lr in zip(fc._kinds, fc._experts[k]):
            fo = F.first_origin(kind, L, s, k)
            lo = max(fo, W - k)
            R = np.arange(lo, max(last[k], n - 1 - k) + 1)
            Z, off = F.rows(kind, y, X, R, k, L, s)
            P = np.full(n + 1, np.nan)
            if k == 0 and H > 1:
                rows0.append((lr, fo, lo, Z, off))
            elif k == 0 and hasattr(lr, "progressive_predict"):
                i = W - lo  # rows of origins W..n-1, labels y[W..n-1]
                P[W:n] = np.asarray(
                    lr.progressive_predict(Z[i : i + n - W], y[W:n] - off[i : i + n - W])
                )
                P[W:n] += off[i : i + n - W]
                if last[0] == n:
                    P[n] = lr.predict_one(Z[-1]) + off[-1]
            else:
                for o in range(W, n + 1):
                    q = o - k - 1  # the pair whose label y[o - 1] was just seen
                    if o - 1 >= W and q >= fo:
                        j = q - lo
                        lr.learn_one(Z[j], y[q + k] - off[j])
                    if o <= last[k]:
                        j = o - lo
                        P[o] = lr.predict_one(Z[j]) + off[j]
            per_kind.append(P)
        preds.append(per_kind)
    levels, lev = {}, fc._level  # the smoothed levels after y[o - 1], as online
    for o in range(W, n + 1):
        levels[o] = lev
        if o < n:
            lev = F.ses_step(lev, y[o])
    fc._level = lev
    for o in range(W, n + 1):
        for i, (lr, fo, lo, Z, off) in enumerate(rows0):  # horizon 1, as online
            if o - 1 >= W and o - 1 >= fo:
                lr.learn_one(Z[o - 1 - lo], y[o - 1] - off[o - 1 - lo])
            if o <= last[0]:
                preds[0][i][o] = lr.predict_one(Z[o - lo]) + off[o - lo]
        hk = sum(o <= last[k] for k in range(H))
        path = fc._recursive(o, y, X, levels[o], hk) if H > 1 and hk > 1 else []
        for k in range(hk):
            experts = [P[o] for P in preds[k]] + ([path[k]] if k else [])
            z, c, sc = fc._expert_z(o, k, experts, levels[o], y)
            entry = fc._entry(o, k, z, c, sc)
            if o + k < n:
                out[:, o, k] = entry[:3]
        if o < n:
            fc._settle(o, y[o])
            fc._pool.refresh()
