"""Coverage and width of ``kernelstream.Conformal`` intervals, beside river's conformal
jackknife around river's best regressor on the same stream.

Streams, in their natural order (no shuffling: the rows of a file are not exchangeable,
which is what adaptive conformal inference is for): every regression dataset of
$KERNELSTREAM_DATA (rows with a missing target dropped, missing inputs imputed by the
running mean of the rows before), river's bundled regression streams and synthetic
Friedman streams, and the drift streams of ``tools/bench_autokernel_drift.py``. For
AutoKernel and TaylorAWV (defaults, raw data), each with studentized scores (the
learner's predictive standard deviation over its noise level, ``normalize=True``, the
default) and plain ones (``normalize=False``), reports for the rounds after 200: the fraction of labels inside the 90% interval, the
mean width of the finite intervals, and the fraction of infinite intervals (adaptive
conformal inference answers "anything" after a run of misses). Not a test: writes a
markdown table.

    KERNELSTREAM_DATA=/path/to/data python tools/bench_conformal.py [--max-rows N] [--out F]
        [--only NAME ...] [--no-river | --no-ours] [--heldout]

``--heldout``: streams never used to choose the defaults (``heldout_streams``: river's
synthetic generators and the Friedman drift streams with another seed, river's
SP500Stocks).
"""

from __future__ import annotations

import argparse
import itertools
import sys
import warnings
from pathlib import Path

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
    """``{name: (X, y, group)}``; group is "data", "river" or "drift"."""
    out = {}
    for name in REGRESSION:
        try:
            X, y = datasets.load(name)
        except Exception as exc:  # a dataset that is not there is left out, with the reason
            print(f"skipped {name}: {exc}")
            continue
        keep = ~np.isnan(y)
        out[name] = (_impute_running_mean(X[keep])[:max_rows], y[keep][:max_rows], "data")
    from river import datasets as rd
    from river.datasets import synth

    out["river TrumpApproval"] = (*_river_rows(rd.TrumpApproval()), "river")
    out["river ChickWeights"] = (*_river_rows(rd.ChickWeights()), "river")
    out["river WaterFlow (lags 1-6)"] = (*_lags([r[1] for r in rd.WaterFlow()], 6), "river")
    out["river Friedman"] = (*_river_rows(synth.Friedman(seed=1), max_rows), "river")
    out["river Planes2D"] = (*_river_rows(synth.Planes2D(seed=1), max_rows), "river")
    out["river Mv"] = (*_river_rows(synth.Mv(seed=1), max_rows), "river")
    # The drift benchmark's streams (those long enough to score rounds after 200).
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from bench_autokernel_drift import STREAMS  # noqa: E402

    for name, (make, _) in STREAMS.items():
        X, y = make()
        if len(y) > 2 * SKIP:
            out[f"drift: {name}"] = (X[:max_rows], y[:max_rows], "drift")
    return out


def heldout_streams(max_rows, seed=7):
    """Streams not used to choose Conformal's defaults: river's synthetic regression
    generators and the drift benchmark's Friedman swaps with another seed, river's
    FriedmanDrift with another seed, and river's bundled SP500Stocks (AAPL's return
    from the other stocks'). ``{name: (X, y, group)}`` as :func:`streams`."""
    from river import datasets as rd
    from river.datasets import synth

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from bench_autokernel_drift import friedman_swap  # noqa: E402

    out = {}
    for s in (seed, seed + 1):
        out[f"river Friedman (seed {s})"] = (
            *_river_rows(synth.Friedman(seed=s), max_rows),
            "river",
        )
    out[f"river Planes2D (seed {seed})"] = (
        *_river_rows(synth.Planes2D(seed=seed), max_rows),
        "river",
    )
    out[f"river Mv (seed {seed})"] = (*_river_rows(synth.Mv(seed=seed), max_rows), "river")
    rows = list(rd.SP500Stocks())
    keys = sorted(k for k in rows[0][0] if k != "AAPL")
    X = np.array([[float(x[k]) for k in keys] for x, _ in rows])
    out["river SP500Stocks (AAPL)"] = (X, np.array([float(x["AAPL"]) for x, _ in rows]), "river")
    for kind, pos in (("lea", (5000, 10000, 15000)), ("gra", (7000, 14000))):
        ds = synth.FriedmanDrift(drift_type=kind, position=pos, seed=seed)
        out[f"drift: FriedmanDrift {kind} (seed {seed})"] = (
            *_river_rows(ds, max_rows),
            "drift",
        )
    X, y = friedman_swap(seed=seed)
    out[f"drift: Friedman swap abrupt (seed {seed})"] = (X[:max_rows], y[:max_rows], "drift")
    X, y = friedman_swap(width=4000, seed=seed)
    out[f"drift: Friedman swap gradual (seed {seed})"] = (X[:max_rows], y[:max_rows], "drift")
    return out


def _summary(y, lo, hi):
    """Coverage, mean width of the finite intervals, fraction of infinite ones."""
    y, lo, hi = y[SKIP:], lo[SKIP:], hi[SKIP:]
    width = hi - lo
    finite = np.isfinite(width)
    mean = float(np.mean(width[finite])) if finite.any() else float("inf")
    return float(np.mean((lo <= y) & (y <= hi))), mean, float(np.mean(~finite))


def ours(make, X, y, normalize):
    model = ks.Conformal(make(), alpha=ALPHA, normalize=normalize)
    _, lo, hi = model.progressive_interval(X, y)
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
            lo[t], hi[t], p[t] = iv.lower, iv.upper, model.regressor.predict_one(x)
            model.learn_one(x, float(y[t]))
        mse = float(np.mean((p - y) ** 2))
        if best is None or mse < best[0]:
            best = (mse, make.__name__, _summary(y, lo, hi))
    return best[1], best[2]


def _cell(r):
    inf = f" ({r[2]:.1%} inf)" if r[2] > 0 else ""
    return f"{r[0]:.3f} / {r[1]:.4g}{inf}"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--max-rows", type=int, default=20000)
    ap.add_argument("--out", default=None, help="write the markdown table here too")
    ap.add_argument("--only", nargs="*", default=None, help="streams whose name contains one")
    ap.add_argument("--no-river", action="store_true", help="leave river's jackknife out")
    ap.add_argument("--no-ours", action="store_true", help="river's jackknife only")
    ap.add_argument(
        "--heldout", action="store_true", help="the held-out streams (heldout_streams) instead"
    )
    args = ap.parse_args(argv)
    warnings.filterwarnings("ignore")
    lines = [
        "| stream | n | AutoKernel, normalised | AutoKernel, plain | TaylorAWV, normalised | "
        "TaylorAWV, plain | river jackknife (best regressor) |",
        "|---|---|---|---|---|---|---|",
    ]
    print(lines[0], lines[1], sep="\n", flush=True)
    load = heldout_streams if args.heldout else streams
    for name, (X, y, _) in load(args.max_rows).items():
        if args.only and not any(o.lower() in name.lower() for o in args.only):
            continue
        cells = [
            "-" if args.no_ours else _cell(ours(make, X, y, normalize))
            for make in (ks.AutoKernel, ks.TaylorAWV)
            for normalize in (True, False)
        ]
        if args.no_river:
            river = "-"
        else:
            which, r = river_jackknife(X, y)
            river = f"{_cell(r)} ({which})"
        line = f"| {name} | {len(y)} | " + " | ".join(cells) + f" | {river} |"
        lines.append(line)
        print(line, flush=True)
    if args.out:
        with open(args.out, "w") as f:
            f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
