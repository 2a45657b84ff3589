"""Shared logic of the PKAWV figure entries (``pkawv-fig4``: casp and ijcnn1;
``pkawv-fig2``: cod-rna and SUSY) of Jezequel, Gaillard, Rudi (2019), sec. 4 and
App. G.

Settings of the paper: x scaled to [-1, 1]^d, y to [-1, 1] (regression) or labels
+-1 (classification), sigma = 1, lam = 1 for every algorithm, KORS mu = 1, beta = 1,
eps = 0.5, a time budget of 5 minutes per algorithm (curves stop where the budget
ran out). Row order is not stated by the paper: a random permutation (seed 0).

``LEARNERS`` is the list of learner specs every PKAWV figure runs; other entries
(FOGD, PROS-N-KONS) add theirs with :func:`add_learner`.
"""

from __future__ import annotations

import functools

import numpy as np

from .common import plot_curves, progressive_task
from .registry import EntryResult, Row

PAPER = "Jezequel, Gaillard, Rudi (2019), Efficient online learning with kernels for adversarial large scale problems"

#: Exact KRR stores every point (4 t^2 bytes): capped at this many rounds.
KRR_MAX_ROUNDS = 20000

#: Learner specs: ``label``, ``class``, ``params`` (kernels as ``("gaussian", sigma)``),
#: optional ``limit`` (max rounds), ``quick_skip`` (datasets skipped in --quick runs).
LEARNERS: list = [
    {
        "label": "KRR (exact)",
        "class": "KernelAWV",
        "params": {
            "kernel": ("gaussian", 1.0),
            "lam": 1.0,
            "ridge": True,
            "max_size": KRR_MAX_ROUNDS,
        },
        "limit": KRR_MAX_ROUNDS,
    },
    {
        "label": "TaylorAWV M=2",
        "class": "TaylorAWV",
        "params": {"sigma": 1.0, "degree": 2, "lam": 1.0},
    },
    {
        "label": "TaylorAWV M=3",
        "class": "TaylorAWV",
        "params": {"sigma": 1.0, "degree": 3, "lam": 1.0},
    },
    {
        "label": "TaylorAWV M=4",
        "class": "TaylorAWV",
        "params": {"sigma": 1.0, "degree": 4, "lam": 1.0},
        # r = C(26, 4) = 14950 features on ijcnn1: 0.9 GB and ~0.1 s per round; not for CI.
        "quick_skip": ("ijcnn1",),
    },
    {
        "label": "NystromAWV (KORS)",
        "class": "NystromAWV",
        "params": {
            "kernel": ("gaussian", 1.0),
            "lam": 1.0,
            "mu": 1.0,
            "eps": 0.5,
            "beta": 1.0,
            "seed": 0,
        },
    },
    # Baselines of the PKAWV paper (sec. 4; PROS-N-KONS paper): PROS-N-KONS with
    # alpha = gamma = lam = 1, beta = 1, eps = 0.5, C = 1, squared loss (also on +-1 labels);
    # FOGD with 1000 random frequencies and step size 1/sqrt(n), n the number of rounds (P19).
    {
        "label": "PROS-N-KONS",
        "class": "ProsNKons",
        "params": {
            "kernel": ("gaussian", 1.0),
            "alpha": 1.0,
            "gamma": 1.0,
            "eps": 0.5,
            "beta": 1.0,
            "C": 1.0,
            "loss": "squared",
            "seed": 0,
        },
    },
    {
        "label": "FOGD",
        "class": "FOGD",
        "params": {"kernel": ("gaussian", 1.0), "n_features": 1000, "loss": "squared", "seed": 0},
        "lr_inv_sqrt_n": True,
    },
]


def add_learner(spec: dict) -> None:
    """Adds a learner spec to every PKAWV figure (used by the FOGD / PROS-N-KONS modules)."""
    if not any(s["label"] == spec["label"] for s in LEARNERS):
        LEARNERS.append(spec)


#: Quick (CI) runs: rows and seconds per algorithm.
QUICK_ROWS = 1500
QUICK_BUDGET = 2.0
FULL_BUDGET = 300.0


def _loss_at(r: dict, t: int) -> float:
    """Running average loss of a ``progressive_task`` result at the last checkpoint <= t."""
    rounds = np.asarray(r["rounds"])
    i = int(np.searchsorted(rounds, t, side="right")) - 1
    return float(r["loss"][max(i, 0)])


def _claims(name: str, res: list) -> list:
    """The paper's statements on the real datasets, checked on our curves (P19 sec. 4)."""
    by = {r["label"]: r for r in res}
    out = []
    krr, m2 = by.get("KRR (exact)"), by.get("TaylorAWV M=2")
    if krr and m2:
        t = krr["n_rounds"]
        a, b = _loss_at(m2, t), _loss_at(krr, t)
        gap = (a - b) / b if b > 0 else float("inf")
        out.append(
            f"claim 'Taylor M = 2 tracks exact KRR reasonably closely' on {name}: "
            f"{'holds' if gap <= 0.15 else 'does not hold'} (after {t} rounds, the last KRR reached: "
            f"M = 2 {a:.4g} vs KRR {b:.4g}, {100 * gap:+.1f}%; threshold +15%)"
        )
    if m2:
        speed = {lab: r["seconds"][-1] / max(r["n_rounds"], 1) for lab, r in by.items()}
        rank = sorted(speed, key=lambda k: speed[k]).index("TaylorAWV M=2") + 1
        out.append(
            f"claim 'Taylor M = 2 is among the fastest' on {name}: {'holds' if rank <= 2 else 'does not hold'} "
            f"(rank {rank} of {len(speed)} by time per round)"
        )
    return out


@functools.cache
def _n_rows(name: str, data_home) -> int:
    from .. import datasets

    return int(datasets.load(name, data_home)[0].shape[0])


def run_figure(ctx, datasets: list, figure: str, extra_notes=()) -> EntryResult:
    """Runs every learner of ``LEARNERS`` on each ``(name, task)`` of ``datasets``."""
    budget = (
        ctx.time_budget
        if ctx.time_budget is not None
        else (QUICK_BUDGET if ctx.quick else FULL_BUDGET)
    )
    tasks, skipped = [], []
    for name, task in datasets:
        for spec in LEARNERS:
            if ctx.quick and name in spec.get("quick_skip", ()):
                skipped.append(f"{spec['label']} on {name}")
                continue
            limit = spec.get("limit")
            if ctx.quick:
                limit = min(limit or QUICK_ROWS, QUICK_ROWS)
            params = dict(spec["params"])
            if spec.get("lr_inv_sqrt_n"):
                n_rounds = _n_rows(name, ctx.data_home) if not ctx.quick else QUICK_ROWS
                params["lr"] = 1.0 / float(np.sqrt(n_rounds))
            tasks.append(
                {
                    "dataset": name,
                    "data_home": ctx.data_home,
                    "x_range": (-1.0, 1.0),
                    "y_range": (-1.0, 1.0) if task == "regression" else None,
                    "shuffle_seed": 0,
                    "limit": limit,
                    "task": task,
                    "time_budget": budget,
                    "label": spec["label"],
                    "learner": {"class": spec["class"], "params": params},
                }
            )
    results = ctx.map(progressive_task, tasks)
    rows, figs, notes = [], [], list(extra_notes)
    for name, task in datasets:
        res = [r for r in results if r["dataset"] == name]
        if not res:
            continue
        metric = "avg_sq_loss" if task == "regression" else "error_rate"
        for r in res:
            n = max(r["n_rounds"], 1)
            rows.append(
                Row(
                    dataset=name,
                    learner=r["label"],
                    metric=metric,
                    ours=r["final_loss"],
                    paper=None,
                    dim=r["dim"][-1],
                    seconds=r["seconds"][-1],
                    extra={
                        "rounds": r["n_rounds"],
                        "n_total": r["n_total"],
                        "us_per_round": 1e6 * r["seconds"][-1] / n,
                        "stopped_by_budget": bool(r["stopped_by_budget"]),
                    },
                )
            )
            notes.append(
                f"{name} / {r['label']}: {r['n_rounds']} of {r['n_total']} rounds"
                f"{' (time budget)' if r['stopped_by_budget'] else ''}, "
                f"{1e6 * r['seconds'][-1] / n:.1f} us/round, final dim {r['dim'][-1]}, "
                f"running average {'squared loss' if task == 'regression' else 'error'} {r['final_loss']:.4f}"
            )
        notes += _claims(name, res)
        title = f"{name} ({'x, y' if task == 'regression' else 'x'} in [-1, 1], sigma = lam = 1, budget {budget:g} s)"
        with ctx.plotting():
            figs.append(ctx.savefig(plot_curves(res, title, task), f"{figure}-{name}.png"))
    notes += [
        "The paper's figures are images with no numbers (paper column empty). Its statements: Taylor M = 2 tracks "
        "exact KRR's average loss reasonably closely and is among the fastest; exact KRR and the Nystrom methods "
        "are cut by the time budget on the large datasets.",
        "Exact baseline is online kernel ridge regression (KernelAWV ridge=True, the paper's 'KRR'), "
        f"capped at {KRR_MAX_ROUNDS} rounds (memory 4 t^2 bytes); TaylorAWV and NystromAWV use the AWV "
        "prediction (the paper's code).",
        "Rows in a random order (seed 0): the paper does not state the order. Classification error counts "
        "sign(0) as +1.",
        f"Time budget {budget:g} s per algorithm"
        + (
            " (the paper's budget, on an i7-6700)."
            if budget == FULL_BUDGET
            else f" (the paper: {FULL_BUDGET:g} s on an i7-6700; set with --time-budget)."
        )
        + (
            f" Quick run: first {QUICK_ROWS} rows only"
            + (f"; skipped: {', '.join(skipped)}." if skipped else ".")
            if ctx.quick
            else ""
        ),
    ]
    settings = {
        "sigma": 1.0,
        "lam": 1.0,
        "kors": {"mu": 1.0, "eps": 0.5, "beta": 1.0, "weights": "sqrt"},
        "x_range": [-1, 1],
        "y_range": [-1, 1],
        "order": "random permutation, seed 0",
        "time_budget": budget,
        "learners": [s["label"] for s in LEARNERS],
        "krr_max_rounds": KRR_MAX_ROUNDS,
    }
    return EntryResult(rows=rows, figures=figs, notes=notes, settings=settings)
