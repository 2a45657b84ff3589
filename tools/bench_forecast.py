"""Forecasting benchmark: Forecaster() against naive, seasonal naive and river's forecasters.

One run, every series, horizons 1, 3 and 12 (``docs/forecasting.md`` shows the table):
MSE at h=1 and MASE per horizon for every method; interval coverage and width per
horizon for the Forecaster (its own conformal intervals) and for river's best forecaster
at h=1 with per-horizon intervals from the rule of ``river.conf.RegressionJackknife``
(the ``alpha/2`` and ``1 - alpha/2`` quantiles of its past signed residuals, here per
horizon: ``river.conf`` wraps regressors only, it has no forecaster wrapper).

Every method forecasts ``y[t + k]`` after ``y[:t]``; all are scored on the same origins
``t >= max(1, s)`` (``s`` the known period, 1 without one). The Forecaster is given no
period (``season=None``: it finds one or none); the seasonal naive, MASE's scale and
river's HoltWinters get the known period.

    pip install 'kernelstream[bench]'
    python tools/bench_forecast.py [--out docs/forecasting_table.md] [--series NAME ...]
                                   [--all-horizons]

``--all-horizons`` adds, per series, the Forecaster's MASE and interval coverage at every
horizon 1..12 beside the seasonal naive's MASE (the naive's without a period).

``--seeds N`` runs, instead of the tables, each synthetic series of ``--series`` drawn
with the seeds ``0..N-1`` (its length in the table) and prints the Forecaster's coverage
after the burn-in at h=1, 3 and 12: the mean over the draws, the smallest and the largest
(how far one series' coverage falls from its expectation).
"""

from __future__ import annotations

import argparse
import math
import sys
import time

import kernelstream as ks
import numpy as np
from kernelstream.evaluate.forecasting import (
    mase_scale,
    naive_forecasts,
    seasonal_naive_forecasts,
)

H = 12
REPORT = (1, 3, 12)
ALPHA = 0.1


# -- series --------------------------------------------------------------------------------
def _river(name):
    from river import datasets

    d = getattr(datasets, name)()
    return np.array([float(v) for _, v in d], float)


def _sm(module, col):
    import importlib

    df = importlib.import_module(f"statsmodels.datasets.{module}").load_pandas().data
    return df[col].to_numpy(float)


def synthetic(name: str, n: int = 1000, seed: int = 0):
    """The synthetic series (``y``, exogenous rows or None, period or None)."""
    rng = np.random.default_rng(seed)
    t = np.arange(n)
    if name == "syn_trend_season":  # a trend, a season of 12, Gaussian noise
        return 0.02 * t + 3 * np.sin(2 * np.pi * t / 12) + 0.5 * rng.normal(size=n), None, 12
    if name == "syn_level_shifts":  # AR(1) around a level that jumps by +-5 every 100-300 rounds
        level, y, cur = np.zeros(n), np.zeros(n), 0.0
        nxt = rng.integers(100, 300)
        for i in range(n):
            if i == nxt:
                cur += rng.choice([-5.0, 5.0])
                nxt += rng.integers(100, 300)
            level[i] = cur
        e = 0.0
        for i in range(n):
            e = 0.7 * e + rng.normal()
            y[i] = level[i] + e
        return y, None, None
    if name == "syn_variance_jumps":  # season of 24, noise sd 0.3 <-> 1.5 every 250 rounds
        sd = np.where((t // 250) % 2 == 0, 0.3, 1.5)
        y = 10 + 2 * np.sin(2 * np.pi * t / 24) + np.cumsum(0.05 * rng.normal(size=n))
        return y + sd * rng.normal(size=n), None, 24
    if name == "syn_exogenous":  # y depends on drivers known at forecast time
        x1 = np.zeros(n)
        for i in range(1, n):
            x1[i] = 0.9 * x1[i - 1] + rng.normal()
        x2 = rng.uniform(-2, 2, size=n)
        y = np.zeros(n)
        for i in range(1, n):
            y[i] = 0.5 * y[i - 1] + 2 * x1[i] + np.sin(2 * x2[i]) + 0.3 * rng.normal()
        return y, np.column_stack([x1, x2]), None
    if name == "syn_random_walk":  # a Gaussian random walk: nothing beats the last value
        return np.cumsum(rng.normal(size=n)), None, None
    if name == "syn_trend_break":  # a weekly season, a slope that turns and a level shift
        slope = np.where(t < n // 2, 0.05, -0.03)
        y = np.cumsum(slope) + 2 * np.sin(2 * np.pi * t / 7) + 4.0 * (t >= 2 * n // 3)
        return y + 0.7 * rng.normal(size=n), None, 7
    raise KeyError(name)


#: the synthetic series' lengths in the tables (the checks are shorter)
SYNTHETIC = {
    **{
        k: 1000
        for k in ("syn_trend_season", "syn_level_shifts", "syn_variance_jumps", "syn_exogenous")
    },
    **{k: 500 for k in ("syn_random_walk", "syn_trend_break")},
}

SERIES = {
    "AirlinePassengers": lambda: (_river("AirlinePassengers"), None, 12),
    "WaterFlow": lambda: (_river("WaterFlow"), None, 24),
    "nile": lambda: (_sm("nile", "volume"), None, None),
    "elec_equip": lambda: (_sm("elec_equip", "STS.M.I7.W.TOVT.NS0016.4.000"), None, 12),
    "danish_lrm": lambda: (_sm("danish_data", "lrm"), None, 4),
    "interest_R": lambda: (_sm("interest_inflation", "R"), None, 4),
    "interest_Dp": lambda: (_sm("interest_inflation", "Dp"), None, 4),
    **{
        k: (lambda k=k: synthetic(k, n=SYNTHETIC[k]))
        for k in ("syn_trend_season", "syn_level_shifts", "syn_variance_jumps", "syn_exogenous")
    },
    # checks against overfitting the series above: 500 values each
    **{
        k: (lambda k=k: synthetic(k, n=SYNTHETIC[k], seed=1))
        for k in ("syn_random_walk", "syn_trend_break")
    },
}


# -- river ---------------------------------------------------------------------------------
def river_progressive(model, y, X=None):
    """``F[t, k]``: river's forecast of ``y[t + k]`` after ``y[:t]`` (the last value where it
    cannot forecast yet, or returns a number that is not finite)."""
    n = y.size
    F = np.full((n, H), np.nan)
    for t in range(n):
        h = min(H, n - t)
        if t >= 1:
            try:
                xs = None if X is None else [dict(enumerate(r)) for r in X[t : t + h]]
                f = model.forecast(horizon=h, xs=xs) if X is not None else model.forecast(horizon=h)
                f = np.asarray(f, float)
            except (IndexError, ValueError, ZeroDivisionError, KeyError):
                f = np.full(h, np.nan)
            bad = ~np.isfinite(f)
            f[bad] = y[t - 1]
            F[t, :h] = f
        if X is None:
            model.learn_one(float(y[t]))
        else:
            model.learn_one(float(y[t]), x=dict(enumerate(X[t])))
    return F


def jackknife_intervals(F, y):
    """Per horizon, ``F[t, k] + quantiles (alpha/2, 1 - alpha/2)`` of the signed residuals
    ``y[u + k] - F[u, k]`` with ``u + k < t`` (river.conf.RegressionJackknife's rule)."""
    n = y.size
    lo, hi = np.full_like(F, np.nan), np.full_like(F, np.nan)
    for k in range(H):
        res = []
        for t in range(n - k):
            u = t - k - 1  # the last origin whose label y[t - 1] is seen
            if u >= 1 and np.isfinite(F[u, k]):
                res.append(y[u + k] - F[u, k])
            if len(res) >= 10 and np.isfinite(F[t, k]):
                a, b = np.quantile(res, [ALPHA / 2, 1 - ALPHA / 2])
                lo[t, k], hi[t, k] = F[t, k] + a, F[t, k] + b
    return lo, hi


# -- scoring -------------------------------------------------------------------------------
def scores(F, y, start, scale):
    mse, mase = np.full(H, np.nan), np.full(H, np.nan)
    for k in range(H):
        t = np.arange(start, y.size - k)
        if t.size:
            e = y[t + k] - F[t, k]
            mse[k], mase[k] = np.mean(e * e), np.mean(np.abs(e)) / scale
    return mse, mase


def coverage(lo, hi, y, burn):
    cov, wid = np.full(H, np.nan), np.full(H, np.nan)
    for k in range(H):
        t = np.arange(burn, y.size - k)
        t = t[np.isfinite(lo[t, k])]
        if t.size:
            cov[k] = np.mean((lo[t, k] <= y[t + k]) & (y[t + k] <= hi[t, k]))
            wid[k] = np.mean(hi[t, k] - lo[t, k])
    return cov, wid


def run_series(name, river=True, forecaster_params=None):
    y, X, s = SERIES[name]()
    n = y.size
    start = max(1, s or 1)
    scale = mase_scale(y, s)
    burn = 200 if n >= 500 else n // 4
    out = {"n": n, "season": s, "methods": {}}
    t0 = time.perf_counter()
    fc = ks.Forecaster(horizon=H, **(forecaster_params or {}))
    F, lo, hi = fc._progressive(y, X)
    out["seconds"] = time.perf_counter() - t0
    out["found_season"], out["lags"] = fc.season_, fc.lags_
    out["methods"]["Forecaster"] = scores(F, y, start, scale)
    out["interval"] = {"Forecaster": coverage(lo, hi, y, burn)}
    out["methods"]["naive"] = scores(naive_forecasts(y, H), y, start, scale)
    out["reference"] = "naive"
    if s:
        out["methods"]["seasonal naive"] = scores(
            seasonal_naive_forecasts(y, H, s), y, start, scale
        )
        out["reference"] = "seasonal naive"
    if river:
        from river import time_series as ts

        peers = {
            "SNARIMAX": river_progressive(ts.SNARIMAX(p=2, d=1, q=1), y, X),
            "HoltWinters": river_progressive(
                ts.HoltWinters(alpha=0.3, beta=0.1, gamma=0.1, seasonality=s)
                if s
                else ts.HoltWinters(alpha=0.3, beta=0.1),
                y,
            ),
        }
        for k, P in peers.items():
            out["methods"][k] = scores(P, y, start, scale)
        best = min(peers, key=lambda k: out["methods"][k][0][0])
        out["interval"][f"{best} + jackknife"] = coverage(
            *jackknife_intervals(peers[best], y), y, burn
        )
    return out


def fmt(v):
    if not math.isfinite(v):
        return "inf" if v > 0 else "nan"
    return f"{v:.3g}" if abs(v) < 1e4 else f"{v:.3e}"


def table(results) -> str:
    lines = [
        "| series | n | s (found) | method | MSE h=1 | MASE h=1 | MASE h=3 | MASE h=12 |",
        "|---|---:|---|---|---:|---:|---:|---:|",
    ]
    for name, r in results.items():
        for m, (mse, mase) in r["methods"].items():
            lines.append(
                f"| {name} | {r['n']} | {r['season'] or '-'} ({r['found_season'] or '-'}) | {m} | "
                f"{fmt(mse[0])} | " + " | ".join(fmt(mase[h - 1]) for h in REPORT) + " |"
            )
    lines += [
        "",
        "| series | intervals | coverage h=1 | h=3 | h=12 | width h=1 | h=3 | h=12 |",
        "|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    for name, r in results.items():
        for m, (cov, wid) in r["interval"].items():
            lines.append(
                f"| {name} | {m} | "
                + " | ".join(fmt(cov[h - 1]) for h in REPORT)
                + " | "
                + " | ".join(fmt(wid[h - 1]) for h in REPORT)
                + " |"
            )
    return "\n".join(lines)


def horizons_table(results) -> str:
    """Every horizon: the Forecaster's MASE (``*`` where not below the reference's), the
    reference's, and the Forecaster's coverage."""
    head = " | ".join(f"h={h}" for h in range(1, H + 1))
    lines = [f"| series | row | {head} |", "|---|---|" + "---:|" * H]
    for name, r in results.items():
        mf, mr = r["methods"]["Forecaster"][1], r["methods"][r["reference"]][1]
        cells = [fmt(a) + ("*" if a >= b - 1e-12 else "") for a, b in zip(mf, mr)]
        lines.append(f"| {name} | Forecaster MASE | " + " | ".join(cells) + " |")
        lines.append(f"| {name} | {r['reference']} MASE | " + " | ".join(map(fmt, mr)) + " |")
        cov = r["interval"]["Forecaster"][0]
        lines.append(f"| {name} | coverage | " + " | ".join(map(fmt, cov)) + " |")
    return "\n".join(lines)


def coverage_over_seeds(name, seeds) -> str:
    """The Forecaster's coverage after the burn-in at h=1, 3, 12 on ``name`` drawn with each
    seed: a table row of the mean, smallest and largest."""
    cov = []
    for seed in range(seeds):
        y, X, _ = synthetic(name, n=SYNTHETIC[name], seed=seed)
        _, lo, hi = ks.Forecaster(horizon=H)._progressive(y, X)
        cov.append(coverage(lo, hi, y, 200 if y.size >= 500 else y.size // 4)[0])
    c = np.array(cov)[:, [h - 1 for h in REPORT]]
    cells = [f"{m:.3f} [{a:.3f}, {b:.3f}]" for m, a, b in zip(c.mean(0), c.min(0), c.max(0))]
    return f"| {name} | {SYNTHETIC[name]} | {seeds} | " + " | ".join(cells) + " |"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--series", nargs="*", default=list(SERIES), choices=list(SERIES))
    ap.add_argument("--no-river", action="store_true")
    ap.add_argument("--out", help="also write the table to this file")
    ap.add_argument("--all-horizons", action="store_true", help="every horizon's MASE, coverage")
    ap.add_argument(
        "--seeds", type=int, help="coverage of the synthetic series over draws 0..N-1 instead"
    )
    args = ap.parse_args(argv)
    if args.seeds:
        if args.seeds < 1:
            ap.error("--seeds must be at least 1")
        print("| series | n | draws | coverage h=1: mean [min, max] | h=3 | h=12 |")
        print("|---|---:|---:|---|---|---|")
        for name in (k for k in args.series if k in SYNTHETIC):
            print(coverage_over_seeds(name, args.seeds), flush=True)
        return 0
    results = {}
    for name in args.series:
        results[name] = r = run_series(name, river=not args.no_river)
        print(f"{name}: n={r['n']} {r['seconds']:.1f} s", file=sys.stderr)
    text = table(results)
    if args.all_horizons:
        text += "\n\n" + horizons_table(results)
    print(text)
    if args.out:
        with open(args.out, "w") as fh:
            fh.write(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
