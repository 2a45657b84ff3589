"""``projection-fig3``: Figure 3 of Zhang and Simon -- cumulative CPU time against n for the
online projection estimator with alpha = 1, 2, 3 (schedule n = floor(N^(2 alpha + 1)), c = 1, sine
basis) and for averaged kernel SGD (min kernel, gamma_n = 5 n^-1/2), on Example 2 data.

Also the speed targets: 10^6 rounds of Examples 1 and 2 with the paper's schedules.
Times are process CPU seconds of the Rust learners (the paper: R on a 1.2 GHz Core m3), median
over repetitions (paper: 10 runs; here 3, quick 1).
"""

from __future__ import annotations

import numpy as np

from .projection_common import checkpoints, projection_curve, sgd_curve, slope
from .registry import Context, EntryResult, Row, register

PAPER = "Zhang and Simon, An Online Projection Estimator for Nonparametric Regression in RKHS"


@register(
    "projection-fig3",
    paper=PAPER,
    description="Fig. 3: cumulative CPU time vs n, projection alpha=1,2,3 and averaged SGD",
)
def run(ctx: Context) -> EntryResult:
    reps = ctx.n_runs(3, 1)
    hi_p, hi_s = (4.0, 3.5) if ctx.quick else (6.0, 5.0)
    cp_p, cp_s = checkpoints(2, hi_p, 12), checkpoints(2, hi_s, 12)
    tasks = []
    for s in range(reps):
        for a in (1, 2, 3):
            tasks.append(
                (
                    f"projection alpha={a}",
                    {
                        "example": "example2",
                        "seed": s,
                        "checkpoints": cp_p,
                        "error": False,
                        "overrides": {"alpha": float(a), "c": 1.0},
                    },
                )
            )
        tasks.append(
            (
                "averaged SGD",
                {"example": "example2", "seed": s, "checkpoints": cp_s, "error": False},
            )
        )
        for ex in ("example1", "example2"):
            tasks.append(
                (
                    f"{ex} paper schedule",
                    {"example": ex, "seed": s, "checkpoints": [int(10**hi_p)], "error": False},
                )
            )
    res: dict = {}
    for (label, _t), r in zip(
        [t for t in tasks if t[0] != "averaged SGD"],
        ctx.map(projection_curve, [t[1] for t in tasks if t[0] != "averaged SGD"]),
    ):
        res.setdefault(label, []).append(r)
    for (label, _t), r in zip(
        [t for t in tasks if t[0] == "averaged SGD"],
        ctx.map(sgd_curve, [t[1] for t in tasks if t[0] == "averaged SGD"]),
    ):
        res.setdefault(label, []).append(r)
    med = {
        k: (np.asarray(v[0]["n"]), np.median([r["seconds"] for r in v], axis=0))
        for k, v in res.items()
    }
    rows, notes = [], []
    theory = {
        "projection alpha=1": 5 / 3,
        "projection alpha=2": 7 / 5,
        "projection alpha=3": 9 / 7,
        "averaged SGD": 2.0,
    }
    lo_fit = 10**3.5 if ctx.quick else 1e4
    for label, th in theory.items():
        n, sec = med[label]
        ok = sec > 0
        lo = min(lo_fit, n[-1] / 10)
        rows.append(
            Row(
                dataset="example2",
                learner=label,
                metric="time_exponent",
                ours=slope(n[ok], sec[ok], lo=lo),
                paper=th,
                seconds=float(sec[-1]),
                dim=res[label][0].get("dim", [None])[-1],
                extra={"n_max": int(n[-1]), "fit_from": lo},
            )
        )
    # crossover: first n where SGD's cumulative time exceeds the projection estimator's (alpha = 1)
    n_s, t_s = med["averaged SGD"]
    n_p, t_p = med["projection alpha=1"]
    t_p_at = np.interp(np.log10(n_s), np.log10(n_p), t_p)
    above = np.nonzero(t_s > t_p_at)[0]
    cross = float(n_s[above[0]]) if len(above) else float("nan")
    rows.append(
        Row(
            dataset="example2",
            learner="averaged SGD vs projection alpha=1",
            metric="crossover_n",
            ours=cross,
            paper=1e4,
        )
    )
    for ex, target in (("example1", 5.0), ("example2", 30.0)):
        n, sec = med[f"{ex} paper schedule"]
        rows.append(
            Row(
                dataset=ex,
                learner="online projection (paper schedule)",
                metric=f"cpu_seconds@{int(n[-1])}",
                ours=float(sec[-1]),
                paper=None,
                dim=res[f"{ex} paper schedule"][0]["dim"][-1],
                extra={"target_seconds_at_1e6": target},
            )
        )
    figs = []
    with ctx.plotting():
        import matplotlib

        matplotlib.use("Agg", force=False)
        import matplotlib.pyplot as plt

        fig, ax = plt.subplots(figsize=(6.5, 4.5))
        for label in theory:
            n, sec = med[label]
            ax.plot(n, np.maximum(sec, 1e-6), label=label, marker=".", ms=3)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("n")
        ax.set_ylabel("cumulative CPU seconds")
        ax.set_title("Zhang & Simon Fig. 3 (Example 2 data)")
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=8)
        fig.tight_layout()
        figs.append(ctx.savefig(fig, "projection-fig3.png"))
    notes += [
        "Times are CPU seconds of the Rust learners (median of repetitions); the paper's are R timings, so only the "
        "shapes compare: total-time exponents (2 alpha + 3)/(2 alpha + 1) = 5/3, 7/5, 9/7 and 2 for SGD, and the crossover.",
        "The time exponent is fitted on n >= min(1e4, n_max / 10) (quick: 10^3.5); at small n per-call overheads flatten the curves.",
        "Column additions (O(n p) work at n = floor(N^(2 alpha + 1))) are the jumps of the paper's curves; with "
        "12 checkpoints per decade and a vectorised addition (about 1% of the total time at n = 1e6) they are "
        "not resolved in our figure.",
        "alpha = 2, 3 under-fit Example 2 (true alpha = 1): timing illustrations, as in the paper.",
    ]
    settings = {
        "reps": reps,
        "projection_n_max": int(10**hi_p),
        "sgd_n_max": int(round(10**hi_s)),
        "basis": "sine",
        "c": 1.0,
        "sgd": "min kernel, gamma_n = 5 n^-1/2, averaged",
        "timer": "time.process_time",
    }
    return EntryResult(rows=rows, figures=figs, notes=notes, settings=settings)
