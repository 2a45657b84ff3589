"""``vaw2-table2``: Table 2, Figure 1 and Figure 2 of Rokhlin & Gurtovaya (2025),
*Random feature-based double Vovk-Azoury-Warmuth algorithm for online multi-kernel
learning*, sec. 4.

Settings of the paper: the 76-kernel dictionary (:func:`kernelstream.kernels.vaw2_grid`),
m = 50 random features per kernel, lam = 1 for every VAW, expert predictions clipped to
[0, 1] for every meta rule except VAW2; labels min-max scaled to [0, 1] (eq. 33) and
inputs divided by the largest row norm (eq. 34), both over the whole dataset; rows in
file order; MSE x 10^3 averaged over 5 runs (independent features; AR(4) regenerated).

One task per (dataset, run): the 76 RFF-VAW experts are run once
(:meth:`MultiKernelAWV.progressive_experts`), and every meta rule is applied to the same
expert predictions; this is exactly MultiKernelAWV with that aggregator (the experts do
not depend on the meta rule; checked in ``tests/python/test_vaw2.py``). Raker and OMKL-GF
run on their own.
"""

from __future__ import annotations

import time

import numpy as np

from .registry import Context, EntryResult, Row, register

PAPER = (
    "Rokhlin, Gurtovaya (2025), Random feature-based double Vovk-Azoury-Warmuth algorithm "
    "for online multi-kernel learning (arXiv:2503.20087)"
)

DATASETS = ["AR(4)", "Airfoil", "Bias", "Concrete", "Naval"]
_FILES = {"Airfoil": "airfoil", "Bias": "bias", "Concrete": "concrete", "Naval": "naval"}
ALGORITHMS = [
    "Raker",
    "OMKL-GF",
    "VAW2",
    "VAW2 (trunc)",
    "VAW-Aggr",
    "VAW-EWA",
    "VAW-BOA",
    "VAW-ML-Poly",
    "VAW-ML-Prod",
]

#: Table 2 of the paper (MSE x 10^3), columns AR(4), Airfoil, Bias, Concrete, Naval.
PAPER_TABLE2 = {
    "Raker": [23.24, 28.64, 12.70, 35.29, 11.32],
    "OMKL-GF": [20.47, 24.37, 7.05, 34.24, 4.60],
    "VAW2": [16.56, 22.80, 4.09, 10.96, 0.29],
    "VAW2 (trunc)": [16.51, 22.78, 4.09, 10.97, 0.29],
    "VAW-Aggr": [16.40, 26.74, 5.02, 13.57, 0.45],
    "VAW-EWA": [16.49, 27.61, 5.41, 15.08, 0.62],
    "VAW-BOA": [16.34, 26.42, 4.98, 13.88, 0.52],
    "VAW-ML-Poly": [16.34, 26.10, 4.96, 13.33, 0.37],
    "VAW-ML-Prod": [16.34, 26.27, 4.97, 13.64, 0.48],
}

#: Algorithms drawn in Figure 1 (the paper leaves out VAW2 (trunc), VAW-BOA, VAW-ML-Poly).
FIG1 = ["Raker", "OMKL-GF", "VAW2", "VAW-Aggr", "VAW-EWA", "VAW-ML-Prod"]
FIG2 = ["VAW2", "VAW-EWA", "VAW-ML-Prod"]


def load_dataset(name: str, run: int, data_home=None, limit=None):
    """The paper's stream for ``name`` with eqs. (33)-(34); returns ``(X, y, n_dropped)``."""
    from .. import datasets
    from ..datasets.ar4 import ar4

    if name == "AR(4)":
        X, y = ar4(n=5000 if limit is None else limit, seed=1000 + run)
        dropped = 0
    else:
        X, y = datasets.load(_FILES[name], data_home)
        X, y, dropped = datasets.drop_missing(X, y)
        if limit is not None:
            X, y = X[:limit], y[:limit]
    # eq. (33): y -> (y - min y) / (max y - min y); eq. (34): x -> x / max_j ||x_j||_2.
    X, y = datasets.scale(X, y, x_range=None, y_range=(0.0, 1.0), row_norm=True)
    return X, y, dropped


def _curve(err, points=200):
    run = np.cumsum(err) / np.arange(1, len(err) + 1)
    idx = np.unique(np.linspace(0, len(err) - 1, min(points, len(err))).astype(int))
    return (idx + 1).tolist(), run[idx].tolist()


def run_task(task: dict) -> dict:
    """One (dataset, run): every algorithm of Table 2. Module-level so that executors can pickle it."""
    import kernelstream as ks

    from ..aggregation import BOA, EWA, AggregatingAlgorithm, MLPoly, MLProd, VAWMeta
    from ..kernels import vaw2_grid

    name, run = task["dataset"], task["run"]
    X, y, dropped = load_dataset(name, run, task.get("data_home"), task.get("limit"))
    grid = vaw2_grid()[:: task.get("kernel_step", 1)]
    n_k, m = len(grid), task.get("n_features", 50)
    out = {
        "dataset": name,
        "run": run,
        "n": len(y),
        "dropped": dropped,
        "mse": {},
        "seconds": {},
        "curves": {},
        "weights": {},
    }

    def record(alg, pred, seconds, weights=None):
        err = (pred - y) ** 2
        out["mse"][alg] = float(err.mean())
        out["seconds"][alg] = seconds
        out["curves"][alg] = _curve(err)
        if weights is not None:
            out["weights"][alg] = np.asarray(weights, dtype=float).tolist()

    t0 = time.perf_counter()
    experts = ks.MultiKernelAWV(grid, n_features=m, lam=1.0, aggregator="vaw", seed=run)
    Z = experts.progressive_experts(X, y)
    t_experts = time.perf_counter() - t0
    Zc = np.clip(Z, 0.0, 1.0)
    # diagnostic: the best single clipped expert in hindsight (what the convex rules compete with)
    out["best_single"] = float(np.min(np.mean((Zc - y[:, None]) ** 2, axis=0)))
    metas = {
        "VAW2": (VAWMeta(n_k, 1.0), Z),
        "VAW2 (trunc)": (VAWMeta(n_k, 1.0), Zc),
        "VAW-Aggr": (AggregatingAlgorithm(n_k, 0.0, 1.0), Zc),
        "VAW-EWA": (EWA(n_k, 0.5), Zc),
        "VAW-BOA": (BOA(n_k), Zc),
        "VAW-ML-Poly": (MLPoly(n_k), Zc),
        "VAW-ML-Prod": (MLProd(n_k), Zc),
    }
    for alg, (agg, zin) in metas.items():
        t1 = time.perf_counter()
        pred = agg.progressive_predict(zin, y)
        # seconds: the shared experts plus this meta rule
        record(alg, pred, t_experts + time.perf_counter() - t1, agg.weights)
    for alg, learner in (
        ("Raker", ks.Raker(grid, n_features=m, seed=run)),
        ("OMKL-GF", ks.OMKLGF(grid, n_features=m, seed=run)),
    ):
        t1 = time.perf_counter()
        pred = learner.progressive_predict(X, y)
        record(alg, pred, time.perf_counter() - t1)
    out["experts_seconds"] = t_experts
    return out


def _fig1(results, ctx):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(DATASETS), figsize=(4.2 * len(DATASETS), 3.6))
    for ax, ds in zip(np.atleast_1d(axes), DATASETS):
        r = next(r for r in results if r["dataset"] == ds and r["run"] == 0)
        for alg in FIG1:
            t, v = r["curves"][alg]
            ax.plot(t, 1e3 * np.asarray(v), label=alg, lw=1.3)
        ax.set_title(ds)
        ax.set_xlabel("iteration t")
        ax.set_yscale("log")
    np.atleast_1d(axes)[0].set_ylabel("running MSE x 1e3")
    np.atleast_1d(axes)[-1].legend(fontsize=7)
    fig.suptitle("Figure 1: MSE of MKL algorithms (76 kernels, m = 50, run 0)")
    return ctx.savefig(fig, "vaw2-fig1.png")


def _fig2(results, ctx):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(
        len(DATASETS), len(FIG2), figsize=(4.2 * len(FIG2), 2.2 * len(DATASETS)), squeeze=False
    )
    for i, ds in enumerate(DATASETS):
        r = next(r for r in results if r["dataset"] == ds and r["run"] == 0)
        for j, alg in enumerate(FIG2):
            w = np.asarray(r["weights"][alg])
            ax = axes[i, j]
            ax.bar(np.arange(1, len(w) + 1), w, width=0.8, color="C3" if alg == "VAW2" else "C0")
            ax.axhline(0, color="k", lw=0.5)
            if i == 0:
                ax.set_title(alg)
            if j == 0:
                ax.set_ylabel(ds)
            if i == len(DATASETS) - 1:
                ax.set_xlabel("kernel index (1-51 Gaussian, 52-76 Laplacian)")
    fig.suptitle(
        "Figure 2: final weights (VAW2: ridge solution of the meta VAW after the last round; run 0)"
    )
    fig.tight_layout()
    return ctx.savefig(fig, "vaw2-fig2.png")


@register(
    "vaw2-table2",
    paper=PAPER,
    description="Table 2 (MSE x 1e3 of 9 MKL algorithms, 76 kernels, 5 datasets) with Figures 1 and 2",
)
def run(ctx: Context) -> EntryResult:
    t_start = time.perf_counter()
    n_runs = ctx.n_runs(5, 1)
    quick = ctx.quick
    base = {"data_home": ctx.data_home}
    if quick:
        base.update(limit=300, kernel_step=5, n_features=20)
    tasks = [dict(base, dataset=ds, run=r) for ds in DATASETS for r in range(n_runs)]
    results = ctx.map(run_task, tasks)

    rows = []
    for ds_i, ds in enumerate(DATASETS):
        res = [r for r in results if r["dataset"] == ds]
        for alg in ALGORITHMS:
            vals = np.array([1e3 * r["mse"][alg] for r in res])
            rows.append(
                Row(
                    dataset=ds,
                    learner=alg,
                    metric="mse_x1e3",
                    ours=float(vals.mean()),
                    ours_std=float(vals.std(ddof=1)) if len(vals) > 1 else None,
                    paper=PAPER_TABLE2[alg][ds_i],
                    seconds=float(np.mean([r["seconds"][alg] for r in res])),
                    extra={"runs": vals.round(4).tolist()},
                )
            )
    figures = []
    with ctx.plotting():
        figures = [_fig1(results, ctx), _fig2(results, ctx)]

    n_of = {ds: next(r for r in results if r["dataset"] == ds)["n"] for ds in DATASETS}
    dropped = next(r for r in results if r["dataset"] == "Bias")["dropped"]
    notes = [
        f"Rounds: {', '.join(f'{ds} {n_of[ds]}' for ds in DATASETS)}"
        + (" (quick: first 300 rows, every 5th kernel, m = 20, 1 run)" if quick else "")
        + ".",
        f"Bias: {dropped} rows with a missing value dropped (7750 -> {7750 - dropped} rows when not truncated). "
        "Our bias file's target is Next_Tmax (the OMKL-GF code uses Next_Tmin, with mean imputation): "
        "the Bias column is not the paper's exact task.",
        "Naval target: GT compressor decay coefficient (our file); the OMKL-GF file's target column is undocumented.",
        "AR(4): input is the scalar x_t (d = 1), y_t = x_{t+1}; the series is regenerated for each run "
        "(seeds 1000 + run); features seeded by the run index.",
        "VAW experts: features 'cos' (sqrt(2) cos(w.x + b), unnormalised, the paper's analysis), m = 50, lam = 1. "
        "EWA: eta = 1/2; Aggregating Algorithm: eta = 2 on [0, 1]; BOA, ML-Poly, ML-Prod: opera semantics "
        "with linearised losses (loss.gradient = TRUE), BOA as opera 1.2.0/1.2.1.",
        "Raker and OMKL-GF: our implementations of the paper's description of the OMKL-GF authors' code "
        "(eta_t = 0.1/sqrt(t), lambda = 1e-3, [cos, sin]/sqrt(50) features), on the same 76 kernels as the "
        "VAW rules (the paper: 'all algorithms used 76 kernels'); OMKL-GF with M = 10 draws, exploration 0.1, "
        "graph frozen after 500 rounds (choices the sources leave open).",
        "Figure 2: the paper does not say which dataset; we plot every dataset (run 0). VAW2 weights are the "
        "meta VAW's ridge solution after the last round.",
    ]
    # paper comparisons
    for ds_i, ds in enumerate(DATASETS):
        ours = {row.learner: row.ours for row in rows if row.dataset == ds}
        best = min(ours, key=lambda k: ours[k])
        single = 1e3 * np.mean([r["best_single"] for r in results if r["dataset"] == ds])
        far = [
            f"{a} {ours[a]:.2f} vs {PAPER_TABLE2[a][ds_i]:.2f}"
            for a in ALGORITHMS
            if abs(ours[a] / PAPER_TABLE2[a][ds_i] - 1) > 0.10
        ]
        notes.append(
            f"{ds}: best = {best} ({ours[best]:.2f}); VAW2 {ours['VAW2']:.2f} vs paper "
            f"{PAPER_TABLE2['VAW2'][ds_i]:.2f}; best single clipped expert in hindsight {single:.2f}; "
            f"off by > 10%: {', '.join(far) if far else 'none'}"
        )
    total = time.perf_counter() - t_start
    notes.append(
        f"Entry wall time {total:.1f} s ({len(tasks)} tasks, executor {ctx.executor}, jobs {ctx.jobs})."
    )
    settings = {
        "kernels": "vaw2_grid (76)" if not quick else "vaw2_grid[::5] (16)",
        "n_features": 20 if quick else 50,
        "lam": 1.0,
        "runs": n_runs,
        "clip": [0, 1],
        "ewa_eta": 0.5,
        "aa_eta": 2.0,
        "opera_gradient": True,
        "features": "cos",
        "normalisation": "eqs. (33)-(34): y min-max to [0,1], x / max row norm",
        "order": "file order",
        "limit": base.get("limit"),
    }
    return EntryResult(rows=rows, figures=figures, notes=notes, settings=settings)
