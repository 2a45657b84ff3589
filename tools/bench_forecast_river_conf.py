"""river's own conformal wrapper, ``river.conf.RegressionJackknife``, around its best
forecaster at h=1, beside the rule ``tools/bench_forecast.py`` reports per horizon.

``river.conf`` wraps regressors only; here each of river's forecasters (the bench's
``SNARIMAX(p=2, d=1, q=1)`` and ``HoltWinters``) is made a river regressor whose
``predict_one`` is its one-step forecast and whose ``learn_one`` feeds it the next value,
and ``RegressionJackknife(confidence_level=0.9)`` wraps it as it is (the streaming
quantiles of its past signed residuals, river's ``stats.Quantile``; with
``window_size=500``, the rolling quantiles of the last 500, ``stats.RollingQuantile``). The best forecaster
is the bench's: the smaller MSE at h=1. Coverage and mean width are over the bench's
origins after its burn-in (200 on series of 500+ values, a quarter of shorter ones),
beside the bench's reimplementation of the rule (exact quantiles after 10 residuals,
``jackknife_intervals``), so that the table of ``docs/forecasting.md`` can be read against
river's wrapper itself at h=1 (longer horizons have no river wrapper to compare with).

    pip install 'kernelstream[bench]'
    python tools/bench_forecast_river_conf.py [--series NAME ...]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_forecast as B  # noqa: E402


def _regressor(model, exog: bool):
    """``model`` (a river forecaster) as a river regressor of the next value."""
    from river import base

    class OneStep(base.Regressor):
        def __init__(self):
            self.last = None

        def predict_one(self, x, **kwargs):
            try:
                f = model.forecast(horizon=1, xs=[x]) if exog else model.forecast(horizon=1)
                f = float(f[0])
            except (IndexError, ValueError, ZeroDivisionError, KeyError):
                f = float("nan")
            # the bench's rule: the last value where river cannot forecast yet
            return f if np.isfinite(f) or self.last is None else self.last

        def learn_one(self, x, y, **kwargs):
            model.learn_one(y, x=x) if exog else model.learn_one(y)
            self.last = y

    return OneStep()


def wrapper_intervals(model, y, X, window=None):
    """``(lower, upper)`` at h=1 of ``RegressionJackknife`` around ``model``: entry ``t``
    made after ``y[:t]`` (NaN before ``t = 10``, as the bench's rule)."""
    from river import conf

    jk = conf.RegressionJackknife(
        _regressor(model, X is not None), confidence_level=0.9, window_size=window
    )
    lo, hi = np.full(y.size, np.nan), np.full(y.size, np.nan)
    for t in range(y.size):
        x = {} if X is None else dict(enumerate(X[t]))
        if t >= 10:  # river's streaming quantile panics before it has seen a few residuals
            iv = jk.predict_one(x, with_interval=True)
            lo[t], hi[t] = iv.lower, iv.upper
        if t == 0:  # nothing to forecast from: no residual (the rule's start, u >= 1)
            jk.regressor.learn_one(x, float(y[t]))
        else:
            jk.learn_one(x, float(y[t]))
    return lo, hi


def _peers(s):
    from river import time_series as ts

    return {
        "SNARIMAX": lambda: ts.SNARIMAX(p=2, d=1, q=1),
        "HoltWinters": lambda: (
            ts.HoltWinters(alpha=0.3, beta=0.1, gamma=0.1, seasonality=s)
            if s
            else ts.HoltWinters(alpha=0.3, beta=0.1)
        ),
    }


def run(name):
    y, X, s = B.SERIES[name]()
    n, start = y.size, max(1, s or 1)
    burn = 200 if n >= 500 else n // 4
    peers = _peers(s)
    F = {
        k: B.river_progressive(make(), y, X if k == "SNARIMAX" else None)
        for k, make in peers.items()
    }
    mse = {k: B.scores(P, y, start, 1.0)[0][0] for k, P in F.items()}
    best = min(mse, key=mse.get)
    rule = B.coverage(*B.jackknife_intervals(F[best], y), y, burn)
    out = []
    for window in (None, 500):
        lo, hi = wrapper_intervals(peers[best](), y, X if best == "SNARIMAX" else None, window)
        t = np.arange(burn, n)
        t = t[np.isfinite(lo[t])]
        out.append(
            (float(np.mean((lo[t] <= y[t]) & (y[t] <= hi[t]))), float(np.mean(hi[t] - lo[t])))
        )
    return best, out, (rule[0][0], rule[1][0])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--series", nargs="*", default=list(B.SERIES), choices=list(B.SERIES))
    args = ap.parse_args(argv)
    print("| series | river's best (h=1) | RegressionJackknife coverage | width "
          "| window_size=500: coverage | width | the bench's rule: coverage | width |")  # fmt: skip
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    for name in args.series:
        best, ((c, w), (c5, w5)), (rc, rw) = run(name)
        print(f"| {name} | {best} | {c:.3f} | {B.fmt(w)} | {c5:.3f} | {B.fmt(w5)} | {rc:.3f} "
              f"| {B.fmt(rw)} |", flush=True)  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
