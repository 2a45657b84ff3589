"""A target whose level drifts with nothing in the inputs to show it: AutoKernel against
Vowpal Wabbit (linear and ``--quadratic ::``) and river's ``StandardScaler |
LinearRegression``, each with its defaults, on the same rows in one run.

Streams of ``--rows`` rows, ``d = 5`` inputs uniform on ``[0, 1]``: a linear target
``x . (1, 2, -1, 0.5, 0)`` or Friedman #1, plus Gaussian noise of standard deviation 1 or
0.1, stationary or with a level of ``+3 t / n`` added (a linear trend of +3 over the
stream, which no input carries). Progressive MSE (each prediction made before its
label), one line per stream; ``ratio``: the best peer's MSE over AutoKernel's (below 1:
a peer wins). Peers that are not installed are left out.

``--level G ...`` adds, for each discount ``G``, AutoKernel's predictions shifted by a
level tracked on its own past residuals (``b_t = G b_{t-1} + (1 - G) (y_t - p_t)``, the
prediction of round ``t`` is ``p_t + b_{t-1}``; the learner itself is unchanged): what a
level stage after the mixture would give.

    python tools/bench_hidden_trend.py [--rows 6000] [--seeds 0 1 2] [--level 0.995]

``--sets NAME ...`` (with ``--level``): instead, the same shift on datasets of the data
directory (``$KERNELSTREAM_DATA``; rows with a missing value dropped, at most
``--max-rows``), shuffled with seed 0 and in file order: AutoKernel's MSE and, for each
discount, the MSE with the level over the MSE without.

    python tools/bench_hidden_trend.py --sets airfoil concrete cpusmall cadata naval \
        parkinson bias casp --level 0.99 0.995 0.999

Not a test: a benchmark of accuracy, the same on every machine for a given seed.
"""

from __future__ import annotations

import argparse

import numpy as np


def streams(n: int, seed: int):
    """``(name, X, y)`` of the eight streams of one seed."""
    from kernelstream.datasets.synthetic import friedman1

    rng = np.random.default_rng(seed)
    X = rng.uniform(0.0, 1.0, (n, 5))
    friedman = friedman1(X)
    linear = X @ np.array([1.0, 2.0, -1.0, 0.5, 0.0])
    level = 3.0 * np.arange(n) / n
    for fname, f in (("linear", linear), ("friedman", friedman)):
        for sd in (1.0, 0.1):
            noise = sd * rng.standard_normal(n)
            for trend in (False, True):
                y = f + noise + (level if trend else 0.0)
                yield f"{fname}, noise {sd:g}, {'trend +3' if trend else 'stationary'}", X, y


def vw_mse(X, y, options: str):
    """Vowpal Wabbit's progressive MSE (``predict`` then ``learn`` on text examples)."""
    from vowpalwabbit import Workspace

    vw = Workspace(f"--quiet {options}".strip())
    feats = [" ".join(f"x{j}:{v!r}" for j, v in enumerate(row)) for row in X.tolist()]
    pred = np.empty(len(y))
    for i, (f, yi) in enumerate(zip(feats, y.tolist())):
        pred[i] = vw.predict(f"| {f}")
        vw.learn(f"{yi!r} | {f}")
    vw.finish()
    return float(np.mean((pred - y) ** 2))


def river_mse(X, y):
    """river's ``StandardScaler | LinearRegression`` progressive MSE."""
    from river import linear_model, preprocessing

    model = preprocessing.StandardScaler() | linear_model.LinearRegression()
    pred = np.empty(len(y))
    for i, (row, yi) in enumerate(zip(X.tolist(), y.tolist())):
        x = {f"x{j}": v for j, v in enumerate(row)}
        pred[i] = model.predict_one(x)
        model.learn_one(x, yi)
    return float(np.mean((pred - y) ** 2))


def with_level(p, y, g: float) -> float:
    """The MSE of ``p`` shifted by the discounted mean of its past residuals."""
    b, sq = 0.0, 0.0
    for pt, yt in zip(p.tolist(), y.tolist()):
        sq += (yt - pt - b) ** 2
        b = g * b + (1.0 - g) * (yt - pt)
    return sq / len(y)


def level_on_sets(names, max_rows: int, levels) -> int:
    """The ``--sets`` table: the level's MSE ratio on real data, shuffled and in file order."""
    from kernelstream import AutoKernel, datasets

    cols = " | ".join(f"level {g:g} / none" for g in levels)
    print(f"| dataset | order | rows | AutoKernel MSE | {cols} |")
    print("|---|---|---:|---:|" + "---:|" * len(levels))
    for name in names:
        X0, y0 = datasets.load(name)
        X0, y0, _ = datasets.drop_missing(X0, y0)
        for order in ("shuffled", "file order"):
            X, y = datasets.shuffle(X0, y0, seed=0) if order == "shuffled" else (X0, y0)
            X, y = np.ascontiguousarray(X[:max_rows]), np.ascontiguousarray(y[:max_rows])
            p = AutoKernel().progressive_predict(X, y)
            mse = float(np.mean((p - y) ** 2))
            ratios = " | ".join(f"{with_level(p, y, g) / mse:.4f}" for g in levels)
            print(f"| {name} | {order} | {len(y)} | {mse:.5g} | {ratios} |", flush=True)
    return 0


def peers():
    """``{name: mse(X, y)}`` of the installed peers."""
    out = {}
    try:
        import vowpalwabbit  # noqa: F401

        out["VW linear"] = lambda X, y: vw_mse(X, y, "")
        out["VW --quadratic"] = lambda X, y: vw_mse(X, y, "--quadratic ::")
    except ImportError:
        pass
    try:
        import river  # noqa: F401

        out["river linear"] = river_mse
    except ImportError:
        pass
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=6000)
    ap.add_argument("--seeds", type=int, nargs="+", default=[0])
    ap.add_argument("--level", type=float, nargs="*", default=[])
    ap.add_argument("--sets", nargs="*", default=[])
    ap.add_argument("--max-rows", type=int, default=10_000)
    args = ap.parse_args(argv)
    from kernelstream import AutoKernel

    if args.sets:
        return level_on_sets(args.sets, args.max_rows, args.level)
    others = peers()
    levels = [f"AutoKernel + level {g:g}" for g in args.level]
    print("| seed | stream | AutoKernel | " + " | ".join(levels + list(others)) + " | ratio |")
    print("|---|---|---:|" + "---:|" * (len(levels) + len(others)) + "---:|")
    for seed in args.seeds:
        for name, X, y in streams(args.rows, seed):
            p = AutoKernel().progressive_predict(X, y)
            ak = float(np.mean((p - y) ** 2))
            mses = {k: f(X, y) for k, f in others.items()}
            best = min(mses.values(), default=float("nan"))
            shifted = [with_level(p, y, g) for g in args.level]
            cells = " | ".join(f"{v:.4g}" for v in shifted + list(mses.values()))
            print(f"| {seed} | {name} | {ak:.4g} | {cells} | {best / ak:.3f} |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
