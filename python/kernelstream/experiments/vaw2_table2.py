"""``vaw2-table2``: Table 2, Figure 1 and Figure 2 of Rokhlin & Gurtovaya (2025),
*Random feature-based double Vovk-Azoury-Warmuth algorithm for online multi-kernel
learning* (Sec. 5 of the paper).

Settings of the paper: the 76-kernel dictionary (:func:`kernelstream.kernels.vaw2_grid`),
m = 50 random features per kernel, lam = 1 for every VAW, expert predictions clipped to
[0, 1] for every meta rule except VAW2; labels min-max scaled to [0, 1] (eq. 33) and
inputs divided by the largest row norm (eq. 34), both over the whole dataset; rows in
file order; MSE x 10^3 averaged over 5 runs (independent features; AR(4) regenerated).
Data as the paper's pipeline (the OMKL-GF notebooks): Naval with all 17 columns as inputs
(target: lever position); Bias with every column mean-imputed over all 7752 rows and
x1..x20 as inputs (target: Next_Tmin).

Two variants of the VAW family (``docs/choices.md``, VAW2), each reported with its own rows
(``variant`` in each row's ``extra``):

* ``"as stated"``: the paper's text, features ``sqrt(2) cos(w.x + b)`` (unnormalised) and the
  VAW forecaster at both levels;
* ``"authors' code"``: the second author's public code, features ``[cos, sin] / sqrt(m)`` and
  online ridge (current point left out of the matrix) at both levels; learner names end in
  `` (authors' code)``. Raker and OMKL-GF are the same in both and reported once.

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

#: The two readings of the VAW experts and meta VAW: name suffix, features, ridge forecaster.
VARIANTS = {
    "as stated": ("", "cos", False),
    "authors' code": (" (authors' code)", "cossin", True),
}
BASELINES = ["Raker", "OMKL-GF"]
#: Diagnostic runs (full entry only), one change at a time from "as stated" towards the
#: authors' code: the paper's cos features with the experts' lam = m (the authors' scaling),
#: then also the ridge forecaster at both levels (the authors' code but for the cos/sin map).
SCALING_DIAG = {
    # label: experts' forecaster is ridge (and the meta VAW too); cos features, experts' lam = m
    "scaling": False,
    "scaling + ridge": True,
}
AUTHORS = "authors' code"
#: The four UCI columns (those the reproduction is checked on).
UCI = ["Airfoil", "Bias", "Concrete", "Naval"]

#: Algorithms drawn in Figure 1 (the paper leaves out VAW2 (trunc), VAW-BOA, VAW-ML-Poly).
FIG1 = ["Raker", "OMKL-GF", "VAW2", "VAW-Aggr", "VAW-EWA", "VAW-ML-Prod"]
FIG2 = ["VAW2", "VAW-EWA", "VAW-ML-Prod"]


def load_dataset(name: str, run: int, data_home=None, limit=None):
    """The paper's stream for ``name`` with eqs. (33)-(34); returns ``(X, y, n_imputed)``.

    Bias as the OMKL-GF authors' notebook: every column mean-imputed over all rows
    (the last two rows, the source's column minima and maxima, included), then x1..x20 as
    inputs (Present_Tmax, x0, falls out of its index shift). Naval: all 17 columns. The
    other files have no missing value."""
    from .. import datasets
    from ..datasets.ar4 import ar4

    imputed = 0
    if name == "AR(4)":
        X, y = ar4(n=5000 if limit is None else limit, seed=1000 + run)
    else:
        X, y = datasets.load(_FILES[name], data_home)
        if name == "Bias":
            X, y, imputed = datasets.impute_mean(X, y)
            X = X[:, 1:]
        if limit is not None:
            X, y = X[:limit], y[:limit]
    # eq. (33): y -> (y - min y) / (max y - min y); eq. (34): x -> x / max_j ||x_j||_2.
    X, y = datasets.scale(X, y, x_range=None, y_range=(0.0, 1.0), row_norm=True)
    return X, y, imputed


def _curve(err, points=200):
    run = np.cumsum(err) / np.arange(1, len(err) + 1)
    idx = np.unique(np.linspace(0, len(err) - 1, min(points, len(err))).astype(int))
    return (idx + 1).tolist(), run[idx].tolist()


def run_task(task: dict) -> dict:
    """One (dataset, run, variant): the VAW family in that variant (plus, for "as stated",
    Raker and OMKL-GF). Module-level so that executors can pickle it."""
    import kernelstream as ks

    from ..aggregation import BOA, EWA, AggregatingAlgorithm, MLPoly, MLProd, VAWMeta
    from ..kernels import vaw2_grid

    name, run, variant = task["dataset"], task["run"], task.get("variant", "as stated")
    suffix, features, ridge = VARIANTS[variant]
    X, y, imputed = load_dataset(name, run, task.get("data_home"), task.get("limit"))
    grid = vaw2_grid()[:: task.get("kernel_step", 1)]
    n_k, m = len(grid), task.get("n_features", 50)
    out = {
        "dataset": name,
        "run": run,
        "variant": variant,
        "n": len(y),
        "d": X.shape[1],
        "imputed": imputed,
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
    experts = ks.MultiKernelAWV(
        grid, n_features=m, lam=1.0, aggregator="vaw", features=features, ridge=ridge, seed=run
    )
    Z = experts.progressive_experts(X, y)
    t_experts = time.perf_counter() - t0
    Zc = np.clip(Z, 0.0, 1.0)
    # diagnostic: the best single clipped expert in hindsight (what the convex rules compete with)
    out["best_single"] = float(np.min(np.mean((Zc - y[:, None]) ** 2, axis=0)))
    metas = {
        "VAW2": (VAWMeta(n_k, 1.0, ridge=ridge), Z),
        "VAW2 (trunc)": (VAWMeta(n_k, 1.0, ridge=ridge), Zc),
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
        record(alg + suffix, pred, t_experts + time.perf_counter() - t1, agg.weights)
    if variant == "as stated" and task.get("diagnostics"):
        # The feature scaling: the paper's cos features with the experts' lam = m is lam = 1 in
        # the normalised scaling of the authors' code (||Phi||^2 ~ m against 1); the meta rules
        # keep lam = 1 (their inputs, the expert predictions, have the same scale in both).
        for label, rdg in SCALING_DIAG.items():
            Zs = ks.MultiKernelAWV(
                grid, n_features=m, lam=float(m), features="cos", ridge=rdg, seed=run
            ).progressive_experts(X, y)
            for alg, agg, zin in (
                ("VAW2", VAWMeta(n_k, 1.0, ridge=rdg), Zs),
                ("VAW-ML-Poly", MLPoly(n_k), np.clip(Zs, 0.0, 1.0)),
            ):
                record(f"{alg}, {label}", agg.progressive_predict(zin, y), 0.0)
    if variant == "as stated":
        baselines = [
            ("Raker", ks.Raker(grid, n_features=m, seed=run)),
            ("OMKL-GF", ks.OMKLGF(grid, n_features=m, seed=run)),
        ]
        if task.get("diagnostics") and name == "AR(4)":
            # Choices the paper leaves open for the baselines (docs/choices.md, VAW2): the OMKL-GF
            # code's 51 Gaussian kernels instead of the 76, and its M in {1, 10, 20}.
            gauss = [k for k in grid if type(k).__name__ == "Gaussian"]
            baselines += [
                ("Raker, 51 Gaussian kernels", ks.Raker(gauss, n_features=m, seed=run)),
                ("OMKL-GF, 51 Gaussian kernels", ks.OMKLGF(gauss, n_features=m, seed=run)),
                ("OMKL-GF, M = 1", ks.OMKLGF(grid, n_features=m, n_samples=1, seed=run)),
                ("OMKL-GF, M = 20", ks.OMKLGF(grid, n_features=m, n_samples=20, seed=run)),
            ]
        for alg, learner in baselines:
            t1 = time.perf_counter()
            pred = learner.progressive_predict(X, y)
            record(alg, pred, time.perf_counter() - t1)
        # the label variance: the MSE of predicting the (hindsight) mean
        out["label_var"] = float(np.var(y))
    out["experts_seconds"] = t_experts
    return out


def _fig1(results, ctx):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(DATASETS), figsize=(4.2 * len(DATASETS), 3.6))
    for ax, ds in zip(np.atleast_1d(axes), DATASETS):
        r = next(
            r
            for r in results
            if r["dataset"] == ds and r["run"] == 0 and r["variant"] == "as stated"
        )
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
        r = next(
            r
            for r in results
            if r["dataset"] == ds and r["run"] == 0 and r["variant"] == "as stated"
        )
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
    tasks = [
        dict(base, dataset=ds, run=r, variant=v, diagnostics=not quick)
        for ds in DATASETS
        for v in VARIANTS
        for r in range(n_runs)
    ]
    results = ctx.map(run_task, tasks)

    def runs_of(ds, variant="as stated"):
        return [r for r in results if r["dataset"] == ds and r["variant"] == variant]

    rows = []
    ours = {}  # (variant, dataset, base algorithm) -> mean MSE x 1e3
    for ds_i, ds in enumerate(DATASETS):
        for variant, (suffix, _, _) in VARIANTS.items():
            res = runs_of(ds, variant)
            for alg in ALGORITHMS:
                if variant != "as stated" and alg in BASELINES:
                    continue  # the baselines do not depend on the variant: reported once
                name = alg + suffix
                vals = np.array([1e3 * r["mse"][name] for r in res])
                ours[variant, ds, alg] = float(vals.mean())
                rows.append(
                    Row(
                        dataset=ds,
                        learner=name,
                        metric="mse_x1e3",
                        ours=float(vals.mean()),
                        ours_std=float(vals.std(ddof=1)) if len(vals) > 1 else None,
                        paper=PAPER_TABLE2[alg][ds_i],
                        seconds=float(np.mean([r["seconds"][name] for r in res])),
                        extra={"runs": vals.round(4).tolist(), "variant": variant},
                    )
                )
    figures = []
    with ctx.plotting():
        figures = [_fig1(results, ctx), _fig2(results, ctx)]

    first = {ds: runs_of(ds)[0] for ds in DATASETS}
    vaw_family = [a for a in ALGORITHMS if a not in BASELINES]

    def rel(variant, ds, alg):
        return ours[variant, ds, alg] / PAPER_TABLE2[alg][DATASETS.index(ds)] - 1

    notes = [
        "Rounds and input dimension: "
        + ", ".join(f"{ds} {first[ds]['n']} (d = {first[ds]['d']})" for ds in DATASETS)
        + (" (quick: first 300 rows, every 5th kernel, m = 20, 1 run)" if quick else "")
        + ".",
        f"Bias as the paper's pipeline (the OMKL-GF notebook): target Next_Tmin; every column mean-imputed "
        f"over all rows of the file ({first['Bias']['imputed']} cells), the last two rows (the source's "
        "column minima and maxima) included and kept; inputs x1..x20 (Present_Tmax, x0, falls out of the "
        "notebook's index shift).",
        "Naval as the paper's pipeline: target the lever position, inputs all 17 other columns (both decay "
        "coefficients kMc and kMt among them).",
        "AR(4): input is the scalar x_t (d = 1), y_t = x_{t+1}; the series is regenerated for each run "
        "(seeds 1000 + run); features seeded by the run index.",
        "Two variants of the VAW family, each with its own rows (row key extra.variant). 'as stated' (learner "
        "names as in the paper): the paper's text, features sqrt(2) cos(w.x + b) (m = 50, unnormalised) and "
        "the VAW forecaster (current point in the matrix) for the experts and the meta VAW. 'authors' code' "
        "(names ending in ' (authors' code)'): the second author's public code, features "
        "[cos(w.x), sin(w.x)] / sqrt(m) (2m = 100) and online ridge, sum_{s<t} y_s z_s^T "
        "(lam I + sum_{s<t} z_s z_s^T)^{-1} z_t, at both levels. lam = 1 everywhere. Raker and OMKL-GF do "
        "not depend on the variant and are reported once.",
        "Why the variants differ: a ridge-type forecaster depends on the features only through "
        "lam / scale^2, and ||Phi(x)||^2 is about m = 50 for the unnormalised cos map but exactly 1 for the "
        "normalised cos/sin map. So lam = 1 with the paper's formula is lam = 1/m = 0.02 in the authors' "
        "scaling: each expert regularises 50 times less and fits faster. The chain of single changes below "
        "measures the parts: the scaling sets the level of the convex rules, which follow the best expert "
        "(with the paper's literal scaling they beat the paper on Bias and Naval); the ridge forecaster "
        "(current point left out of the matrix) at both levels is what brings VAW2 itself to the paper's "
        "values; the map (cos with phases, m features, or cos/sin pairs, 2m features) "
        "changes little once scaling and forecaster agree.",
        "EWA: eta = 1/2; Aggregating Algorithm: eta = 2 on [0, 1]; BOA, ML-Poly, ML-Prod: opera semantics "
        "with linearised losses (loss.gradient = TRUE), BOA as opera 1.2.0/1.2.1.",
        "Raker and OMKL-GF: our implementations of the OMKL-GF authors' code as described in docs/choices.md "
        "(eta_t = 0.1/sqrt(t), lambda = 1e-3, [cos, sin]/sqrt(50) features), on the same 76 kernels as the "
        "VAW rules (the paper: 'all algorithms used 76 kernels'); OMKL-GF with M = 10 draws, exploration 0.1, "
        "graph frozen after 500 rounds (choices the sources leave open).",
        "Figures 1 and 2 show the 'as stated' variant. Figure 2: the paper does not say which dataset; we "
        "plot every dataset (run 0). VAW2 weights are the meta VAW's ridge solution after the last round.",
    ]
    # which variant matches: the VAW family on the four UCI columns, within 15% of the paper
    n_within = {}
    for variant, (suffix, _, _) in VARIANTS.items():
        within = [(ds, a) for ds in UCI for a in vaw_family if abs(rel(variant, ds, a)) <= 0.15]
        n_within[variant] = len(within)
        worst = sorted(
            ((ds, a) for ds in UCI for a in vaw_family),
            key=lambda k: -abs(rel(variant, *k)),
        )[:3]
        notes.append(
            f"Variant '{variant}': {len(within)}/{len(UCI) * len(vaw_family)} VAW-family entries of "
            f"{', '.join(UCI)} within 15% of the paper; largest deviations: "
            + ", ".join(f"{ds} {a}{suffix} {100 * rel(variant, ds, a):+.0f}%" for ds, a in worst)
            + "."
        )
    best_v = max(n_within, key=lambda k: n_within[k])
    tied = list(n_within.values()).count(n_within[best_v]) > 1
    notes.append(
        (
            "Neither variant matches Table 2 better"
            if tied
            else f"The variant that matches Table 2 is '{best_v}'"
        )
        + f" ({n_within[best_v]}/{len(UCI) * len(vaw_family)} "
        "UCI entries of the VAW family within 15%, against "
        + ", ".join(
            f"{n}/{len(UCI) * len(vaw_family)} for '{v}'"
            for v, n in n_within.items()
            if v != best_v
        )
        + ")."
    )
    base_dev = ", ".join(
        f"{a} on {ds} {ours['as stated', ds, a]:.2f} vs {PAPER_TABLE2[a][DATASETS.index(ds)]:.2f} "
        f"({100 * rel('as stated', ds, a):+.1f}%)"
        for ds in ("Naval", "Bias")
        for a in BASELINES
    )
    notes.append(f"Baselines, the data fingerprint: {base_dev}.")
    # AR(4): the baselines against the paper, measured
    ar = runs_of("AR(4)")
    ratio = {a: [r["mse"][a] / r["mse"]["VAW2"] for r in ar] for a in BASELINES}
    paper_ratio = {a: PAPER_TABLE2[a][0] / PAPER_TABLE2["VAW2"][0] for a in BASELINES}
    ar_note = (
        f"AR(4) baselines: Raker {100 * rel('as stated', 'AR(4)', 'Raker'):+.0f}% and OMKL-GF "
        f"{100 * rel('as stated', 'AR(4)', 'OMKL-GF'):+.0f}% against the paper, VAW2 "
        f"{100 * rel('as stated', 'AR(4)', 'VAW2'):+.0f}%. On the same series, Raker / VAW2 is "
        f"{min(ratio['Raker']):.2f}-{max(ratio['Raker']):.2f} over our runs (paper "
        f"{paper_ratio['Raker']:.2f}) and OMKL-GF / VAW2 {min(ratio['OMKL-GF']):.2f}-"
        f"{max(ratio['OMKL-GF']):.2f} (paper {paper_ratio['OMKL-GF']:.2f}); label variance "
        f"{1e3 * np.mean([r['label_var'] for r in ar]):.2f} (mean of runs)."
    )
    outside = [a for a in BASELINES if paper_ratio[a] > max(ratio[a])]
    if outside:
        ar_note += (
            f" The paper's ratio lies above every one of our series for {' and '.join(outside)}: the "
            "series realisation (which moves both sides together) does not explain the gap."
        )
    extra_algs = [a for a in ar[0]["mse"] if a.startswith(("Raker,", "OMKL-GF,"))]
    if "OMKL-GF, M = 1" in ar[0]["mse"]:
        m1 = 1e3 * np.mean([r["mse"]["OMKL-GF, M = 1"] for r in ar])
        lo, hi = sorted([m1, ours["as stated", "AR(4)", "OMKL-GF"]])
        if lo <= PAPER_TABLE2["OMKL-GF"][0] <= hi:
            ar_note += (
                " The paper's OMKL-GF value lies between our M = 1 and M = 10 means (M is not stated; "
                "M = 10 is the value that matches Naval and Bias)."
            )
    if extra_algs:
        ar_note += (
            " Open choices of the baselines, measured (mean of runs): "
            + ", ".join(f"{a} {1e3 * np.mean([r['mse'][a] for r in ar]):.2f}" for a in extra_algs)
            + "."
        )
    notes.append(ar_note)
    if "VAW2, scaling" in first["Naval"]["mse"]:

        def diag(ds, alg, label):
            return 1e3 * np.mean([r["mse"][f"{alg}, {label}"] for r in runs_of(ds)])

        chain = []
        for ds in DATASETS:
            steps = [
                (
                    ours["as stated", ds, a],
                    *(diag(ds, a, lb) for lb in SCALING_DIAG),
                    ours[AUTHORS, ds, a],
                )
                for a in ("VAW2", "VAW-ML-Poly")
            ]
            chain.append(
                f"{ds}: VAW2 "
                + " -> ".join(f"{v:.3g}" for v in steps[0])
                + f" (paper {PAPER_TABLE2['VAW2'][DATASETS.index(ds)]:.3g}), VAW-ML-Poly "
                + " -> ".join(f"{v:.3g}" for v in steps[1])
                + f" (paper {PAPER_TABLE2['VAW-ML-Poly'][DATASETS.index(ds)]:.3g})"
            )
        notes.append(
            "From the paper's text to the authors' code one change at a time (MSE x 1e3, mean of runs): "
            "as stated -> experts' lam = m (the authors' scaling; cos features, VAW forecaster) -> also the "
            "ridge forecaster at both levels -> also the cos/sin map (= authors' code). "
            + "; ".join(chain)
            + "."
        )
    for ds_i, ds in enumerate(DATASETS):
        for variant, (suffix, _, _) in VARIANTS.items():
            algs = ALGORITHMS if variant == "as stated" else vaw_family
            mine = {a: ours[variant, ds, a] for a in algs}
            best = min(mine, key=lambda k: mine[k])
            single = 1e3 * np.mean([r["best_single"] for r in runs_of(ds, variant)])
            far = [
                f"{a} {mine[a]:.2f} vs {PAPER_TABLE2[a][ds_i]:.2f}"
                for a in algs
                if abs(mine[a] / PAPER_TABLE2[a][ds_i] - 1) > 0.10
            ]
            notes.append(
                f"{ds} ({variant}): best = {best}{'' if best in BASELINES else suffix} ({mine[best]:.2f}); "
                f"VAW2 {mine['VAW2']:.2f} vs paper {PAPER_TABLE2['VAW2'][ds_i]:.2f}; best single clipped "
                f"expert in hindsight {single:.2f}; off by > 10%: {', '.join(far) if far else 'none'}"
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
        "variants": {
            v: {"learner_suffix": sfx, "features": f, "forecaster": "ridge" if r else "vaw"}
            for v, (sfx, f, r) in VARIANTS.items()
        },
        "bias_pipeline": "mean imputation over all rows (target included), inputs x1..x20",
        "naval_pipeline": "all 17 columns as inputs, target lever position",
        "normalisation": "eqs. (33)-(34): y min-max to [0,1], x / max row norm",
        "order": "file order",
        "limit": base.get("limit"),
    }
    return EntryResult(rows=rows, figures=figures, notes=notes, settings=settings)
