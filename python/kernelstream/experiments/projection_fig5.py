"""``projection-fig5``: Figure 5 of Zhang and Simon (Appendix F, Table 5) -- Examples A.1
(constant + sine basis, n = floor(0.5 N^3), density x + 0.5, N(0, 1) noise) and A.2 (1, x, x^2 as
shifted Legendre + sin/cos, n = floor(N^5 / 30), U(-5, 5) noise): error against n for the online
projection estimator, 15 repetitions, slopes beside the reference slopes -2/3 and -4/5.
The paper does not name competitors for this figure; none are run.
"""

from __future__ import annotations

import numpy as np

from .projection_common import checkpoints, mean_curve, plot_error_curves, projection_curve, slope
from .registry import Context, EntryResult, Row, register

PAPER = "Zhang and Simon, An Online Projection Estimator for Nonparametric Regression in RKHS"
SPEC = {"a1": [-1.16, -1.89, -2.54, -3.25, -3.93], "a2": [-0.13, -0.89, -1.88, -2.73, -3.57]}
REF = {"a1": -2.0 / 3.0, "a2": -0.8}


@register(
    "projection-fig5",
    paper=PAPER,
    description="Fig. 5: Examples A.1 and A.2 (null-space prefixes), error vs n",
)
def run(ctx: Context) -> EntryResult:
    reps = ctx.n_runs(15, 2)
    hi = 4.0 if ctx.quick else 6.0
    tasks = [
        (ex, {"example": ex, "seed": 3000 + s, "checkpoints": checkpoints(2, hi)})
        for ex in ("a1", "a2")
        for s in range(reps)
    ]
    out = ctx.map(projection_curve, [t[1] for t in tasks])
    res: dict = {}
    for (ex, _), r in zip(tasks, out):
        res.setdefault(ex, []).append(r)
    rows, notes, panels = [], [], []
    for ex in ("a1", "a2"):
        n, e, sd = mean_curve(res[ex])
        rows.append(
            Row(
                dataset=ex,
                learner="online projection",
                metric="slope",
                ours=slope(n, e),
                paper=REF[ex],
                seconds=float(np.mean([r["seconds"][-1] for r in res[ex]])),
                dim=res[ex][0]["dim"][-1],
            )
        )
        rows.append(
            Row(
                dataset=ex,
                learner="online projection",
                metric="slope_upper_half",
                ours=slope(n, e, lo=n[len(n) // 2]),
                paper=REF[ex],
            )
        )
        for k, lv in zip(range(2, 7), SPEC[ex]):
            if 10**k in list(n):
                i = list(n).index(10**k)
                rows.append(
                    Row(
                        dataset=ex,
                        learner="online projection",
                        metric=f"log10_mse@1e{k}",
                        ours=float(np.log10(e[i])),
                        ours_std=float(sd[i]),
                        dim=res[ex][0]["dim"][i],
                        extra={"spec_repro": lv},
                    )
                )
        panels.append((ex, REF[ex], [("online projection", n, e)]))
        notes.append(
            f"{ex}: log10 mean error at n = {list(map(int, n))}: "
            + ", ".join(f"{v:.2f}" for v in np.log10(e))
        )
    notes.append(
        "extra.spec_repro: the curves of an independent re-implementation (the paper prints no numbers)."
    )
    figs = []
    with ctx.plotting():
        figs.append(
            ctx.savefig(plot_error_curves(panels, "Zhang & Simon Fig. 5"), "projection-fig5.png")
        )
    settings = {
        "reps": reps,
        "n_max": int(10**hi),
        "a1": "1 + sine basis, c = 0.5, kappa = 3",
        "a2": "1, x, x^2 (shifted Legendre) + trig, c = 1/30, kappa = 5",
    }
    return EntryResult(rows=rows, figures=figs, notes=notes, settings=settings)
