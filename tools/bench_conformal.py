"""Coverage and width of ``kernelstream.Conformal`` intervals, beside river's conformal
jackknife around river's best regressor on the same stream.

Streams, in their natural order (no shuffling: the rows of a file are not exchangeable,
which is what adaptive conformal inference is for): every regression dataset of
$KERNELSTREAM_DATA (rows with a missing target dropped, missing inputs imputed by the
running mean of the rows before), river's bundled regression streams, and river's
synthetic Friedman streams with and without drift. Reports, for rounds after 200, the
fraction of labels inside the 90% interval, the median width, and the fraction of
infinite intervals (adaptive conformal inference answers "anything" after a run of
misses). Not a test: writes a markdown table.

    KERNELSTREAM_DATA=/path/to/data python tools/bench_conformal.py [--max-rows N] [--out F]
"""

from __future__ import annotations

import argparse
import itertools
import warnings

import kernelstream as ks
import numpy as np
from kernelstream import datasets

REGRESSION = ["airfoil", "concrete", "cpusmall", "cadata", "naval", "parkinson", "bias", "casp"]
SKIP = 200
ALPHA = 0.1


def _impute_running_mean(X: np.ndarray) -> np.ndarray:
    """Missing inputs replaced by the mean of the same column over the rows before."""
    X = X.copy()
    total = np.zeros(X.shape[1])
    count = np.zeros(X.shape[1])
    for t in range(X.shape[0]):
        miss = np.isnan(X[t])
        X[t, miss] = np.where(count[miss] > 0, total[miss] / np.maximum(count[miss], 1), 0.0)
        total[~miss] += X[t, ~miss]
        count[~miss] += 1
    return X


def _river_rows(ds, n=None):
    rows = list(itertools.islice(ds, n)) if n else list(ds)
    keys = sorted(k for k, v in rows[0][0].items() if isinstance(v, (int, float)))
    X = np.array([[float(r[0].get(k) or 0.0) for k in keys] for r in rows])
    return X, np.array([float(r[1]) for r in rows])


def _lags(series, k):
    s = np.asarray(series, dtype=float)
    X = np.column_stack([s[k - j - 1 : len(s) - j - 1] for j in range(k)])
    return X, s[k:]


def streams(max_rows):
    out = {}
    for name in REGRESSION:
        try:
            X, y = datasets.load(name)
        except Exception as exc:  # a dataset that is not there is left out, with the reason
            print(f"skipped {name}: {exc}")
            continue
        keep = ~np.isnan(y)
        out[name] = (_impute_running_mean(X[keep])[:max_rows], y[keep][:max_rows])
    from river import datasets as rd
    from river.datasets import synth

    out["river TrumpApproval"] = _river_rows(rd.TrumpApproval())
    out["river ChickWeights"] = _river_rows(rd.ChickWeights())
    out["river WaterFlow (lags 1-6)"] = _lags([r[1] for r in rd.WaterFlow()], 6)
    out["river Friedman"] = _river_rows(synth.Friedman(seed=1), max_rows)
    for mode, pos in [
        ("lea", (5000, 10000, 15000)),
        ("gra", (7000, 14000)),
        ("gsg", (7000, 14000)),
    ]:
        ds = synth.FriedmanDrift(
            drift_type=mode, position=pos, transition_window=0 if mode == "lea" else 1000, seed=2
        )
        out[f"river FriedmanDrift {mode}"] = _river_rows(ds, min(max_rows, 20000))
    return out


def _summary(y, lo, hi):
    y, lo, hi = y[SKIP:], lo[SKIP:], hi[SKIP:]
    width = hi - lo
    finite = np.isfinite(width)
    med = float(np.median(width[finite])) if finite.any() else float("inf")
    return float(np.mean((lo <= y) & (y <= hi))), med, float(np.mean(~finite))


def ours(make, X, y):
    _, lo, hi = ks.Conformal(make(), alpha=ALPHA).progressive_interval(X, y)
    return _summary(y, lo, hi)


def river_jackknife(X, y):
    """river's RegressionJackknife (90%) around the best of three river regressors
    (lowest progressive MSE), each behind river's online StandardScaler."""
    from river import conf, linear_model, neighbors, preprocessing, tree

    best = None
    for make in (
        linear_model.LinearRegression,
        tree.HoeffdingAdaptiveTreeRegressor,
        neighbors.KNNRegressor,
    ):
        model = conf.RegressionJackknife(
            preprocessing.StandardScaler() | make(), confidence_level=1 - ALPHA
        )
        lo, hi, p = np.empty(len(y)), np.empty(len(y)), np.empty(len(y))
        for t in range(len(y)):
            x = {i: float(v) for i, v in enumerate(X[t])}
            iv = model.predict_one(x, with_interval=True)
            lo[t], hi[t], p[t] = iv.lower, iv.upper, model.predict_one(x)
            model.learn_one(x, float(y[t]))
        mse = float(np.mean((p - y) ** 2))
        if best is None or mse < best[0]:
            best = (mse, make.__name__, _summary(y, lo, hi))
    return best[1], best[2]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--max-rows", type=int, default=20000)
    ap.add_argument("--out", default=None, help="write the markdown table here too")
    args = ap.parse_args(argv)
    warnings.filterwarnings("ignore")
    lines = [
        "| stream | n | AutoKernel: coverage / median width / infinite | "
        "TaylorAWV: coverage / median width / infinite | river jackknife (best regressor): "
        "coverage / median width |",
        "|---|---|---|---|---|",
    ]
    print(lines[0], lines[1], sep="\n", flush=True)
    for name, (X, y) in streams(args.max_rows).items():
        a = ours(ks.AutoKernel, X, y)
        t = ours(ks.TaylorAWV, X, y)
        which, r = river_jackknife(X, y)
        line = (
            f"| {name} | {len(y)} | {a[0]:.3f} / {a[1]:.4g} / {a[2]:.3f} | "
            f"{t[0]:.3f} / {t[1]:.4g} / {t[2]:.3f} | {r[0]:.3f} / {r[1]:.4g} ({which}) |"
        )
        lines.append(line)
        print(line, flush=True)
    if args.out:
        with open(args.out, "w") as f:
            f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
