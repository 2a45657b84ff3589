"""AutoKernel's warm-up and aggregation on heavy-tailed streams: the warm-up rows' share of the squared error and the weight of the best expert (docs/autokernel-benchmark.md, "The warm-up").

For each stream, one progressive run of ``AutoKernel(**params)`` (``progressive_trace``)
prints:

* ``mse``: the progressive MSE over the whole stream;
* ``warm share``: the share of the squared error that falls in the warm-up rows (the
  first ``warmup`` rounds);
* ``after``: the MSE of the rounds after the warm-up;
* ``best``: the expert with the smallest MSE on the rounds after the warm-up, its MSE
  there, its mean weight over those rounds, and ``after / best``;
* ``kurt``: the excess kurtosis of the target (how heavy its tails are).

Streams: river's WaterFlow with lags 1-6 and 1-12 (the drift benchmark's lagged form),
synthetic heavy-tailed streams (Student-t noise, rare large outliers, an
autoregressive series with Student-t innovations) and the regression datasets of
$KERNELSTREAM_DATA (shuffled with seed 0, as in ``tools/bench_autokernel.py``).
Not a test.

    KERNELSTREAM_DATA=/path nice python tools/bench_autokernel_warmup.py [--max-rows N]
        [--only NAME ...] [--params JSON] [--json FILE]
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import kernelstream as ks
import numpy as np
from kernelstream.datasets.synthetic import friedman1

REGRESSION = ["airfoil", "concrete", "cpusmall", "cadata", "naval", "parkinson", "bias", "casp"]


def river_lags(name, lags):
    from river import datasets as rd

    ys = np.array([float(y) for _, y in getattr(rd, name)()])
    m = max(lags)
    X = np.array([[ys[t - k] for k in lags] for t in range(m, len(ys))])
    return X, ys[m:]


def friedman_t(n, df, seed):
    """Friedman #1 (d = 5) with Student-t noise of ``df`` degrees of freedom."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(size=(n, 5))
    f = friedman1(X)
    return X, f + rng.standard_t(df, size=n)


def linear_outliers(n, seed):
    """A linear target in ``d = 8`` with Student-t(3) noise and 2% outliers 30x larger."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 8))
    b = rng.normal(size=8)
    e = rng.standard_t(3, size=n)
    out = rng.uniform(size=n) < 0.02
    e[out] *= 30
    return X, X @ b + e


def ar_t(n, seed, lags=6):
    """An AR(2) series with Student-t(2.5) innovations and a level, lags 1-``lags`` as inputs."""
    rng = np.random.default_rng(seed)
    m = n + lags + 100
    s = np.zeros(m)
    e = rng.standard_t(2.5, size=m)
    for t in range(2, m):
        s[t] = 5 + 0.6 * (s[t - 1] - 5) + 0.3 * (s[t - 2] - 5) + e[t]
    s = s[100:]
    X = np.array([[s[t - k] for k in range(1, lags + 1)] for t in range(lags, len(s))])
    return X, s[lags:]


def streams(max_rows):
    out = {}
    try:
        out["WaterFlow lags 1-6"] = river_lags("WaterFlow", range(1, 7))
        out["WaterFlow lags 1-12"] = river_lags("WaterFlow", range(1, 13))
    except ImportError:
        print("skip WaterFlow: river is not installed")
    n = min(max_rows or 5000, 5000)
    out["friedman t(2)"] = friedman_t(n, 2.0, 1)
    out["linear t(3) + outliers"] = linear_outliers(n, 2)
    out["AR(2) t(2.5) lags 1-6"] = ar_t(n, 3)
    from kernelstream import datasets

    for name in REGRESSION:
        try:
            X, y = datasets.load(name)
        except FileNotFoundError as err:
            print(f"skip {name}: {err}")
            continue
        X, y, _ = datasets.drop_missing(X, y)
        X, y = datasets.shuffle(X, y, seed=0)
        if max_rows:
            X, y = X[:max_rows], y[:max_rows]
        out[name] = (X, y)
    return {
        k: (np.ascontiguousarray(X, float), np.ascontiguousarray(y, float))
        for k, (X, y) in out.items()
    }


def kurtosis(y):
    z = (y - y.mean()) / y.std()
    return float(np.mean(z**4) - 3)


def measure(X, y, params):
    model = ks.AutoKernel(**params)
    t0 = time.perf_counter()
    tr = model.progressive_trace(X, y)
    secs = time.perf_counter() - t0
    w = model.warmup
    e = (np.asarray(tr.predictions) - y) ** 2
    Z = np.asarray(tr.expert_predictions)
    W = np.asarray(tr.weights)
    per = np.mean((Z[w:] - y[w:, None]) ** 2, axis=0)
    j = int(np.argmin(per))
    after = float(e[w:].mean())
    return {
        "mse": float(e.mean()),
        "warm_share": float(e[:w].sum() / e.sum()),
        "after": after,
        "best": model.expert_labels()[j],
        "best_mse": float(per[j]),
        "best_weight": float(W[w:, j].mean()),
        "ratio": after / float(per[j]),
        "kurt": kurtosis(y),
        "secs": secs,
    }


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--max-rows", type=int, default=0, help="0: every row of the datasets")
    ap.add_argument("--only", nargs="*", default=None, help="streams whose name contains one")
    ap.add_argument("--params", default="{}", help="AutoKernel parameters as JSON")
    ap.add_argument("--json", default=None, help="also write the results here")
    args = ap.parse_args(argv)
    params = json.loads(args.params)
    res = {}
    print(
        f"{'stream':26s} {'n':>6s} {'kurt':>6s} {'mse':>10s} {'warm share':>10s} "
        f"{'after':>10s} {'best mse':>10s} {'weight':>7s} {'after/best':>10s}  best"
    )
    for name, (X, y) in streams(args.max_rows).items():
        if args.only and not any(o in name for o in args.only):
            continue
        r = measure(X, y, params)
        res[name] = r
        print(
            f"{name:26s} {len(y):6d} {r['kurt']:6.1f} {r['mse']:10.4g} {r['warm_share']:10.3f} "
            f"{r['after']:10.4g} {r['best_mse']:10.4g} {r['best_weight']:7.3f} "
            f"{r['ratio']:10.3f}  {r['best']}",
            flush=True,
        )
    if args.json:
        Path(args.json).write_text(json.dumps(res, indent=1))


if __name__ == "__main__":
    main()
