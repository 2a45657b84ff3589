"""AutoKernel on streams that change, in their natural order (the drift part of
``tools/bench_autokernel.py``): progressive MSE of AutoKernel with its defaults
(discounted and linear experts, Fixed Share, relative regrets, restarts), of the
previous defaults (``PREVIOUS``: none of these) and of the peers
with their defaults (river, scikit-learn as in ``bench_autokernel.py``; kernelstream's
FOGD on min-max scaled inputs); the MSE in the windows ``[c, c + 1000)`` and
``[c + 2000, c + 4000)`` after each change point ``c``; and the recovery time: rounds
after ``c`` (up to the next change) until AutoKernel's rolling error (window 500) stays
within 20% of the best peer's, and of an AutoKernel started fresh at ``c``; the
segment's length if it never does; and the largest ratio of AutoKernel's rolling error to
the fresh one's from ``c + 2000`` on. Not a test; prints a markdown table.

    python tools/bench_autokernel_drift.py [--skip-knn-above N] [--held-out [1|2]]
    python tools/bench_autokernel_drift.py --autokernel-only [--held-out [1|2]]
    python tools/bench_autokernel_drift.py --file-order   # KERNELSTREAM_DATA needed
    python tools/bench_autokernel_drift.py --autokernel-only --all --params '{"discounts": [0.99]}'

``--held-out`` (or ``--held-out 1``) runs the streams held out while the restart detector
was designed, ``--held-out 2`` a second set written after every choice, ``--file-order``
the stationary benchmark's real datasets in their file order; river's KNN runs on every
stream unless ``--skip-knn-above N`` skips it above ``N`` rows.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import kernelstream as ks
import numpy as np
from kernelstream import datasets
from kernelstream.datasets.synthetic import friedman1
from kernelstream.kernels import Gaussian

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_autokernel import mse, run_river, run_sklearn  # noqa: E402

PREVIOUS = dict(
    discounts=(),
    linear=False,
    share=0.0,
    loss_window=0,
    restarts=False,
    fogd_widths=(),
    laplace_widths=(),
    warm_neighbour=False,
    warm_widths=(),
)
#: AutoKernel's parameters in the "AutoKernel" column and for the fresh learners
#: (``--params``; the defaults unless given)
PARAMS: dict = {}


def autokernel():
    return ks.AutoKernel(**PARAMS)


def friedman_swap(n=20_000, change=10_000, width=0, seed=0):
    """Friedman #1 on 10 inputs whose relevant five swap with the other five at
    ``change`` (abrupt) or gradually over ``width`` rounds around it."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(0, 1, (n, 10))

    f = friedman1

    t = np.arange(n)
    w = (
        (t >= change).astype(float)
        if width == 0
        else np.clip((t - change + width / 2) / width, 0, 1)
    )
    new = rng.uniform(0, 1, n) < w
    y = np.where(new, f(X[:, [5, 6, 7, 8, 9, 0, 1, 2, 3, 4]]), f(X)) + rng.normal(size=n)
    return X, y


def friedman_one_input(n=20_000, change=10_000, seed=3):
    """Friedman #1 on 10 inputs whose term ``10 x_3`` becomes ``-10 x_3`` at ``change``:
    only one input's effect changes."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(0, 1, (n, 10))
    sign = np.where(np.arange(n) >= change, -1.0, 1.0)
    y = (
        10 * np.sin(np.pi * X[:, 0] * X[:, 1])
        + 20 * (X[:, 2] - 0.5) ** 2
        + 10 * sign * X[:, 3]
        + 5 * X[:, 4]
        + rng.normal(size=n)
    )
    return X, y


def friedman_local(n=20_000, change=10_000, seed=10):
    """Friedman #1 on 10 inputs where, from ``change`` on, the rows with ``x_0 < 0.4``
    follow another function (other inputs, the sign of ``10 x_3`` flipped): a local
    change, built after the restart pair was designed."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(0, 1, (n, 10))
    f = friedman1(X)
    g = (
        10 * np.cos(np.pi * X[:, 5] * X[:, 1])
        + 20 * (X[:, 6] - 0.5) ** 2
        - 10 * X[:, 3]
        + 5 * X[:, 4]
    )
    region = (X[:, 0] < 0.4) & (np.arange(n) >= change)
    return X, np.where(region, g, f) + rng.normal(size=n)


def friedman_incremental(n=20_000, seed=21):
    """Friedman #1 on 10 inputs whose coefficients move a little every round: the term
    ``10 x_3`` turns into ``-10 x_3`` and a term ``8 x_5^2`` grows in over the stream
    (incremental drift, no change point)."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(0, 1, (n, 10))
    s = np.arange(n) / n
    y = (
        10 * np.sin(np.pi * X[:, 0] * X[:, 1])
        + 20 * (X[:, 2] - 0.5) ** 2
        + 10 * (1 - 2 * s) * X[:, 3]
        + 5 * X[:, 4]
        + 8 * s * X[:, 5] ** 2
    )
    return X, y + rng.normal(size=n)


def trend_season(n=6000, seed=22):
    """A series with a linear trend, a season of 50 rounds and AR(1) noise, lags 1-5 and
    50 as inputs: the inputs and the target leave the warm-up range for good."""
    rng = np.random.default_rng(seed)
    t = np.arange(n + 50)
    e = np.zeros(n + 50)
    for i in range(1, n + 50):
        e[i] = 0.6 * e[i - 1] + rng.normal()
    s = 0.02 * t + 5 * np.sin(2 * np.pi * t / 50) + e
    X = np.column_stack([s[50 - k : 50 + n - k] for k in (1, 2, 3, 4, 5, 50)])
    return X, s[50:]


def level_and_scale(n=20_000, change=10_000, seed=23):
    """Friedman #1 on 10 inputs whose target becomes ``4 f - 30`` at ``change`` (its
    level and scale jump; the function's shape stays)."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(0, 1, (n, 10))
    f = friedman1(X)
    y = np.where(np.arange(n) >= change, 4 * f - 30, f)
    return X, y + rng.normal(size=n)


def covariate_shift(n=20_000, seed=24):
    """A fixed function of 5 inputs whose first two inputs move from [0, 1] to [2, 3]
    over the stream (the concept stays; the inputs leave the warm-up range)."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(0, 1, (n, 5))
    X[:, :2] += np.linspace(0, 2, n)[:, None]
    y = 3 * np.sin(X[:, 0]) + X[:, 1] ** 2 + X[:, 2] - X[:, 3] * X[:, 4]
    return X, y + 0.3 * rng.normal(size=n)


def rotating_hyperplane(n=20_000, change=10_000, d=8, period=20_000, seed=4):
    """``y = 5 tanh(w_t . x) + noise`` on standard normal inputs, ``w_t`` rotating in the
    plane of two random unit vectors (one turn per ``period`` rounds); at ``change`` the
    plane is drawn again (an abrupt change on top of a slow drift)."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    t = np.arange(n)
    planes = [np.linalg.qr(rng.normal(size=(d, 2)))[0] for _ in range(2)]
    Q = np.where((t >= change)[:, None, None], planes[1], planes[0])
    ang = 2 * np.pi * t / period
    w = Q[:, :, 0] * np.cos(ang)[:, None] + Q[:, :, 1] * np.sin(ang)[:, None]
    y = 5 * np.tanh(np.sum(w * X, axis=1)) + 0.3 * rng.normal(size=n)
    return X, y


def river_lags(name, lags):
    from river import datasets as rd

    ys = np.array([float(y) for _, y in getattr(rd, name)()])
    m = max(lags)
    X = np.array([[ys[t - k] for k in lags] for t in range(m, len(ys))])
    return X, ys[m:]


def river_rows(name):
    from river import datasets as rd

    rows = list(getattr(rd, name)())
    X = np.array([[float(v) for v in x.values()] for x, _ in rows])
    return X, np.array([float(y) for _, y in rows])


def river_synth(name, n=20_000, seed=42):
    """``n`` rows of one of river's synthetic regression generators, string features one-hot."""
    from river.datasets import synth

    rows = list(getattr(synth, name)(seed=seed).take(n))
    cols = []
    for k in rows[0][0]:
        v = [x[k] for x, _ in rows]
        if isinstance(v[0], str):
            cols.extend([[float(a == c) for a in v] for c in sorted(set(v))])
        else:
            cols.append([float(a) for a in v])
    return np.array(cols).T, np.array([float(y) for _, y in rows])


def friedman_drift(kind, position, seed=42, **kw):
    from river.datasets import synth

    ds = synth.FriedmanDrift(drift_type=kind, position=position, seed=seed, **kw)
    rows = list(ds.take(20_000))
    X = np.array([list(x.values()) for x, _ in rows])
    return X, np.array([y for _, y in rows])


STREAMS = {
    "FriedmanDrift lea": (
        lambda: friedman_drift("lea", (5000, 10000, 15000)),
        (5000, 10000, 15000),
    ),
    "FriedmanDrift gra": (lambda: friedman_drift("gra", (7000, 14000)), (7000, 14000)),
    "FriedmanDrift gsg": (
        lambda: friedman_drift("gsg", (7000, 14000), transition_window=1000),
        (7000, 14000),
    ),
    "Friedman swap abrupt": (lambda: friedman_swap(), (10000,)),
    "Friedman swap gradual": (lambda: friedman_swap(width=4000), (10000,)),
    "WaterFlow lags 1-6": (lambda: river_lags("WaterFlow", range(1, 7)), ()),
    "AirlinePassengers lags 1-12": (lambda: river_lags("AirlinePassengers", range(1, 13)), ()),
    "TrumpApproval": (lambda: river_rows("TrumpApproval"), ()),
}


#: Streams not used while the restart detector was designed (docs/autokernel.md, step 7):
#: ``--held-out`` runs these instead.
HELD_OUT = {
    "FriedmanDrift lea seed 7": (
        lambda: friedman_drift("lea", (4000, 9000, 15000), seed=7),
        (4000, 9000, 15000),
    ),
    "Friedman one input flips": (lambda: friedman_one_input(), (10000,)),
    "rotating hyperplane": (lambda: rotating_hyperplane(), (10000,)),
    "Friedman local region change": (lambda: friedman_local(), (10000,)),
}

#: A second set, written after every choice above and run once
#: (docs/autokernel-benchmark.md, "Second held-out set"): ``--held-out 2``.
HELD_OUT_2 = {
    "Friedman incremental": (lambda: friedman_incremental(), ()),
    "trend and season, lags 1-5, 50": (lambda: trend_season(), ()),
    "Friedman level and scale jump": (lambda: level_and_scale(), (10000,)),
    "covariate shift": (lambda: covariate_shift(), ()),
    "FriedmanDrift lea seed 31": (
        lambda: friedman_drift("lea", (6000, 12000, 16000), seed=31),
        (6000, 12000, 16000),
    ),
    "FriedmanDrift gsg seed 32": (
        lambda: friedman_drift("gsg", (6000, 13000), seed=32, transition_window=2000),
        (6000, 13000),
    ),
    "river Planes2D (stationary)": (lambda: river_synth("Planes2D"), ()),
    "river Mv, one-hot (stationary)": (lambda: river_synth("Mv"), ()),
    "river Friedman (stationary)": (lambda: river_synth("Friedman"), ()),
}


def file_order(name):
    """A real regression dataset of the stationary benchmark in its file order (rows
    with a missing value dropped, nothing shuffled): as a user streams the file."""
    X, y = datasets.load(name)
    ok = np.all(np.isfinite(X), axis=1) & np.isfinite(y)
    return np.ascontiguousarray(X[ok]), y[ok]


#: The stationary benchmark's real datasets, unshuffled (``--file-order``): streams
#: whose order was never looked at while AutoKernel's defaults were chosen (cadata's
#: rows go through California by block group, casp's and naval's follow their sources).
FILE_ORDER = {
    f"{name} (file order)": (lambda name=name: file_order(name), ())
    for name in ("airfoil", "concrete", "cpusmall", "parkinson", "bias", "naval", "cadata", "casp")
}


def predictions(X, y, skip_knn_above):
    preds = {
        "AutoKernel": autokernel().progressive_predict(X, y),
        "AutoKernel (previous)": ks.AutoKernel(**PREVIOUS).progressive_predict(X, y),
    }
    Xs, _ = datasets.scale(X)
    preds["FOGD(Gaussian(1)) [-1,1]"] = ks.FOGD(Gaussian(1.0)).progressive_predict(Xs, y)
    return preds, {
        **run_sklearn(X, y, return_predictions=True),
        **run_river(X, y, skip_knn_above=skip_knn_above, return_predictions=True),
    }


def rolling(e, w=500):
    return np.convolve(e, np.ones(w) / w, "valid")


def fresh_ratios(X, y, changes, p):
    """The largest ratio of the rolling error of ``p`` to that of an AutoKernel started
    fresh at each change point, over the windows ending 2,000 or more rounds after it."""
    e, out = (p - y) ** 2, []
    for i, c in enumerate(changes):
        end = changes[i + 1] if i + 1 < len(changes) else len(y)
        fresh = autokernel().progressive_predict(X[c:end], y[c:end])
        r_ak, r_f = rolling(e[c:end]), rolling((fresh - y[c:end]) ** 2)
        out.append(f"{np.max(r_ak[1501:] / r_f[1501:]):.3f}" if len(r_f) > 1501 else "-")
    return out


def main_autokernel_only(streams):
    """AutoKernel alone (no peers): MSE, restart events, rounds per second and the
    largest ratio to a fresh AutoKernel from c + 2000 on."""
    import time

    print("| stream | n | AutoKernel MSE | changes, promotions | rounds/s | max ratio to fresh |")
    print("|---|---|---|---|---|---|")
    for name, (load, changes) in streams.items():
        X, y = load()
        ak = autokernel()
        t = time.perf_counter()
        p = ak.progressive_predict(X, y)
        rate = len(y) / (time.perf_counter() - t)
        ev = ak.restart_events
        print(
            f"| {name} | {len(y)} | {mse(p, y):.4g} | {ev['changes']}, {ev['promotions']} | "
            f"{rate:.0f} | {', '.join(fresh_ratios(X, y, changes, p)) or '-'} |",
            flush=True,
        )


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--skip-knn-above", type=int, default=0, help="0: never skip KNN")
    ap.add_argument(
        "--held-out", nargs="?", type=int, const=1, default=0, help="held-out set 1 or 2"
    )
    ap.add_argument("--autokernel-only", action="store_true", help="no peers (faster)")
    ap.add_argument("--file-order", action="store_true", help="the real datasets, unshuffled")
    ap.add_argument(
        "--params", default="{}", help='AutoKernel parameters as JSON, e.g. {"discounts": [0.99]}'
    )
    ap.add_argument("--all", action="store_true", help="every set (with --autokernel-only)")
    args = ap.parse_args(argv)
    PARAMS.update(json.loads(args.params))
    held = {0: {}, 1: HELD_OUT, 2: HELD_OUT_2}[args.held_out]
    if args.file_order:
        held = FILE_ORDER
    if args.autokernel_only:
        if args.all:
            return main_autokernel_only({**STREAMS, **HELD_OUT, **HELD_OUT_2, **FILE_ORDER})
        return main_autokernel_only({**STREAMS, **held} if held else STREAMS)
    print(
        "| stream | n | AutoKernel | previous | best peer | ratio | windows after changes "
        "| recovery vs peer | recovery vs fresh | max ratio to fresh from c+2000 |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    for name, (load, changes) in (held or STREAMS).items():
        X, y = load()
        ours, peers = predictions(X, y, args.skip_knn_above)
        peers["FOGD(Gaussian(1)) [-1,1]"] = ours.pop("FOGD(Gaussian(1)) [-1,1]")
        scores = {k: mse(p, y) for k, p in peers.items() if np.all(np.isfinite(p))}
        best = min(scores, key=scores.get)
        ak, prev = mse(ours["AutoKernel"], y), mse(ours["AutoKernel (previous)"], y)
        win, rec, rec_f, top = [], [], [], []
        e_ak = (ours["AutoKernel"] - y) ** 2
        e_pe = (peers[best] - y) ** 2
        for i, c in enumerate(changes):
            end = changes[i + 1] if i + 1 < len(changes) else len(y)
            a = e_ak[c : c + 1000].mean()
            b = e_ak[c + 2000 : c + 4000].mean() if c + 4000 <= len(y) else float("nan")
            win.append(f"{c}: {a:.3g} / {b:.3g}")
            r_ak, r_pe = rolling(e_ak[c:end]), rolling(e_pe[c:end])
            bad = np.nonzero(r_ak > 1.2 * r_pe)[0]
            rec.append(str(int(bad[-1] + 500)) if len(bad) else "0")
            fresh = autokernel().progressive_predict(X[c:end], y[c:end])
            r_f = rolling((fresh - y[c:end]) ** 2)
            bad = np.nonzero(r_ak > 1.2 * r_f)[0]
            rec_f.append(str(int(bad[-1] + 500)) if len(bad) else "0")
            # windows ending 2000 or more rounds after c
            top.append(f"{np.max(r_ak[1501:] / r_f[1501:]):.2f}" if len(r_f) > 1501 else "-")
        print(
            f"| {name} | {len(y)} | {ak:.4g} | {prev:.4g} | {scores[best]:.4g} ({best}) | "
            f"{ak / scores[best]:.2f} | {'; '.join(win) or '-'} | {', '.join(rec) or '-'} | "
            f"{', '.join(rec_f) or '-'} | {', '.join(top) or '-'} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
