"""``pros-n-kons-table1``: Table 1 of Calandriello, Lazaric, Valko (2017), regression.

parkinson, cpusmall, cadata and casp (slice and year are not in the project's data release), alpha =
gamma = 1, squared loss, for PROS-N-KONS, CON-KONS, B-KONS (budget 100), FOGD, NOGD and
BATCH (ridge in the final KORS embedding, docs/choices.md), 15 runs in a random order each.
Settings: see :mod:`kernelstream.experiments.pros_n_kons_common`.
"""

from __future__ import annotations

from .pros_n_kons_common import (
    CALIBRATED,
    KERNEL,
    PAPER,
    TABLE_LEARNERS,
    _scaled,
    block_rows,
    prosnkons_spec,
    regression_baseline_specs,
    rls_row,
    rls_sums,
    run_task,
    table_figures,
)
from .registry import Context, EntryResult, Row, register

# Table 1 of the paper (sec. 5): (loss, #SV) per learner and data set.
PAPER_TABLE = {
    "parkinson": {
        "FOGD": (0.04909, 30),
        "NOGD": (0.04896, 30),
        "PROS-N-KONS": (0.05798, 18),
        "CON-KONS": (0.05696, 18),
        "B-KONS": (0.05795, 18),
        "BATCH": (0.04535, None),
    },
    "cpusmall": {
        "FOGD": (0.02577, 30),
        "NOGD": (0.02559, 30),
        "PROS-N-KONS": (0.02494, 20),
        "CON-KONS": (0.02269, 20),
        "B-KONS": (0.02496, 20),
        "BATCH": (0.01090, None),
    },
    "cadata": {
        "FOGD": (0.04097, 30),
        "NOGD": (0.03983, 30),
        "PROS-N-KONS": (0.03095, 20),
        "CON-KONS": (0.02850, 19),
        "B-KONS": (0.03095, 19),
        "BATCH": (0.02202, None),
    },
    "casp": {
        "FOGD": (0.08021, 30),
        "NOGD": (0.07844, 30),
        "PROS-N-KONS": (0.06773, 21),
        "CON-KONS": (0.06832, 20),
        "B-KONS": (0.06775, 21),
        "BATCH": (0.06100, None),
    },
}
PAPER_SECONDS = {
    "parkinson": {"PROS-N-KONS": 5.16, "CON-KONS": 5.21, "B-KONS": 5.35},
    "cpusmall": {"PROS-N-KONS": 7.28, "CON-KONS": 7.40, "B-KONS": 7.37},
    "cadata": {"PROS-N-KONS": 18.59, "CON-KONS": 18.45, "B-KONS": 18.65},
    "casp": {"PROS-N-KONS": 40.73, "CON-KONS": 40.91, "B-KONS": 41.13},
}
DATASETS = ("parkinson", "cpusmall", "cadata", "casp")
KONS: dict[str, dict] = {
    "PROS-N-KONS": {},
    "CON-KONS": {"on_growth": "continue"},
    "B-KONS": {"budget": 100},
}

#: The calibrated setting (one for the whole table), selected on TUNED_ON only: KORS beta with
#: beta (1 + eps) = 0.6 (the paper's #SV are close to the exact online RLS sum, which Eq. 6 at
#: beta (1 + eps) = 1.5 overshoots 1.8x; docs/choices.md), the initial regulariser alpha and the
#: curvature sigma (alpha = 1 as stated relearns too slowly after every restart). gamma stays 1.
#: The Newton step multiplier eta is no third parameter: v = w - eta A^{-1} g with
#: A = alpha I + (sigma/2) sum g g^T equals the step of (alpha/eta, sigma/eta, 1), and the
#: A-norm projection and the CON-KONS padding (alpha) scale alike, so the grid keeps eta = 1.
CALIBRATED_SETTING = dict(beta=0.4, alpha=0.5, curvature=2.0, eta=1.0)
TUNED_ON = "cadata"
#: The selection grid (beta = 0.4, eta = 1), rerun on every data set in full runs
#: (GRID_ORDERS run orders) to show how far any one setting of it moves each learner: the
#: measured context of a miss.
GRID = [
    dict(beta=0.4, alpha=a, curvature=s, eta=1.0)
    for a in (0.1, 0.2, 0.3, 0.5, 1.0)
    for s in (0.5, 1.0, 2.0, 4.0)
]
GRID_ORDERS = 3
#: How it was selected: on the first 15 run orders of TUNED_ON (those of the table), the grid
#: point with the smallest largest relative deviation of the PROS-N-KONS, CON-KONS and B-KONS
#: losses from the paper's; the runners-up were alpha = 0.3 with sigma = 4 (11.6%) and
#: alpha = 0.5 with sigma = 4 (11.7%).
SELECTION = (
    "grid alpha in {0.1, 0.2, 0.3, 0.5, 1} x curvature in {0.5, 1, 2, 4} at beta = 0.4, eta = 1, on the "
    "first 15 run orders of cadata only; chosen: the smallest largest relative deviation of the "
    "PROS-N-KONS, CON-KONS and B-KONS losses from the paper's (11.5%: +11.5%, -9.6%, +11.5%; next "
    "alpha = 0.3, curvature = 4 at 11.6% and alpha = 0.5, curvature = 4 at 11.7%)"
)
#: Exact online kernel ridge regression (no embedding; the learner CON-KONS approximates, same
#: kernel, lam = alpha = 1) on the data sets of at most KRR_MAX_ROWS rows, run order 0: the
#: reference for how much an online second-order method can gain on a data set.
KRR_MAX_ROWS = 10_000
KRR_LABEL = "online KRR (exact, lam=1)"


def calibrated_specs(seed: int) -> dict:
    return {
        f"{k} ({CALIBRATED})": prosnkons_spec(seed=seed, **dict(kw, **CALIBRATED_SETTING))
        for k, kw in KONS.items()
    }


def learner_specs(seed: int) -> dict:
    specs = {
        "PROS-N-KONS": prosnkons_spec(seed=seed),
        "CON-KONS": prosnkons_spec(on_growth="continue", seed=seed),
        "B-KONS": prosnkons_spec(budget=100, seed=seed),
    }
    specs.update(regression_baseline_specs(seed))
    # The same three with KORS weights 1/p (the paper's "adds (t, 1/p)" read literally): an
    # analysis row for the dictionary sizes, which come out larger than the paper's with 1/sqrt(p).
    specs.update(
        {
            f"{k} [KORS 1/p]": prosnkons_spec(seed=seed, kors_weights="inverse", **kw)
            for k, kw in KONS.items()
        }
    )
    specs.update(calibrated_specs(seed))
    return specs


def _setting(kw: dict) -> str:
    return f"({kw['alpha']:g}, {kw['curvature']:g})"


def grid_notes(tasks, results) -> list:
    """Per data set: the range of the PROS-N-KONS and CON-KONS losses over the selection grid
    (mean over GRID_ORDERS run orders per setting) beside the paper's, and the grid settings
    (alpha, sigma) that bring each within 15% of the paper's."""
    notes = []
    for ds in DATASETS:
        parts = []
        for k in ("PROS-N-KONS", "CON-KONS"):
            means = {}
            for i in range(len(GRID)):
                v = [
                    r["loss"]
                    for t, r in zip(tasks, results)
                    if t["dataset"] == ds and t["label"] == f"grid {i} {k}"
                ]
                if v:
                    means[i] = sum(v) / len(v)
            if not means:
                continue
            paper = PAPER_TABLE[ds][k][0]
            lo, hi = min(means.values()), max(means.values())
            inside = lo <= paper <= hi
            near = [_setting(GRID[i]) for i, m in means.items() if abs(m / paper - 1) <= 0.15]
            parts.append(
                f"{k} {lo:.4f} to {hi:.4f} ({(lo / paper - 1) * 100:+.0f}% to {(hi / paper - 1) * 100:+.0f}% "
                f"of the paper's {paper:.4f}; the paper's number is "
                + ("inside" if inside else "outside")
                + " that range; within 15% at (alpha, sigma) = "
                + (", ".join(near) if near else "no grid setting")
                + ")"
            )
        if parts:
            notes.append(
                f"Selection grid rerun on {ds} ({len(GRID)} settings, {GRID_ORDERS} run orders each): "
                + "; ".join(parts)
                + "."
            )
    return notes


def krr_notes(rows) -> list:
    """Exact online KRR beside our calibrated CON-KONS and the paper's CON-KONS."""
    out = []
    for ds in DATASETS:
        krr = [r for r in rows if r.dataset == ds and r.learner == KRR_LABEL]
        con = [
            r
            for r in rows
            if r.dataset == ds
            and r.learner == f"CON-KONS ({CALIBRATED})"
            and r.metric == "avg_sq_loss"
        ]
        if krr and con and krr[0].ours > 0:
            k = krr[0].ours
            out.append(
                f"{ds}: exact online KRR {k:.4f}, our calibrated CON-KONS {con[0].ours:.4f} "
                f"({(con[0].ours / k - 1) * 100:+.0f}% of KRR), the paper's CON-KONS {con[0].paper:.4f} "
                f"({(con[0].paper / k - 1) * 100:+.0f}% of KRR)"
            )
    fogd = [
        f"{r.dataset} {(r.ours / r.paper - 1) * 100:+.1f}%"
        for r in rows
        if r.learner == "FOGD" and r.metric == "avg_sq_loss" and r.paper
    ]
    return (
        [
            "CON-KONS against exact online kernel ridge regression (same kernel, lam = 1, no embedding; "
            "run order 0, data sets of at most "
            f"{KRR_MAX_ROWS} rows): "
            + "; ".join(out)
            + ". FOGD, rerun with Lu et al.'s settings, against the paper's FOGD (copied from Lu et al.), a "
            "check of the data and their scaling: "
            + ", ".join(fogd)
            + ". Where FOGD agrees, our CON-KONS is close to exact KRR and the paper's CON-KONS is well "
            "above it, the gap lies in the paper's CON-KONS runs, not in the data; the selection grid's range "
            "above says whether any setting of ours reaches it."
        ]
        if out
        else []
    )


def sv_notes(rows) -> list:
    """The paper's #SV and our calibrated #SV as multiples of the exact online RLS sum."""
    out = []
    for ds in DATASETS:
        rls = [r for r in rows if r.dataset == ds and r.learner.startswith("online RLS sum")]
        cal = [
            r
            for r in rows
            if r.dataset == ds and r.learner == f"PROS-N-KONS ({CALIBRATED})" and r.metric == "n_sv"
        ]
        if rls and cal and rls[0].ours > 0:
            s = rls[0].ours
            out.append(
                f"{ds}: online RLS sum {s:.1f}; the paper's PROS-N-KONS #SV = {rls[0].paper / s:.2f} x that sum, "
                f"ours calibrated = {cal[0].ours / s:.2f} x"
            )
    return (
        [
            "#SV against the sampler-independent online RLS sum (a calibrated KORS keeps about "
            "beta (1 + eps) x the sum, whatever the learner settings): " + "; ".join(out) + "."
        ]
        if out
        else []
    )


@register(
    "pros-n-kons-table1",
    paper=PAPER,
    description="Table 1: regression (parkinson, cpusmall, cadata, casp), average squared loss, #SV, time",
)
def run(ctx: Context) -> EntryResult:
    n_runs = ctx.n_runs(quick=2, full=15)
    limit = 2000 if ctx.quick else None
    tasks = []
    for ds in DATASETS:
        for seed in range(n_runs):
            for name, spec in learner_specs(seed).items():
                tasks.append(
                    {
                        "dataset": ds,
                        "data_home": ctx.data_home,
                        "task": "regression",
                        "seed": seed,
                        "limit": limit,
                        "learner": spec,
                        "label": name,
                        "batch": name == "PROS-N-KONS",
                    }
                )
    if not ctx.quick:
        for ds in DATASETS:
            for seed in range(GRID_ORDERS):
                for i, kw in enumerate(GRID):
                    for k in ("PROS-N-KONS", "CON-KONS"):
                        tasks.append(
                            {
                                "dataset": ds,
                                "data_home": ctx.data_home,
                                "task": "regression",
                                "seed": seed,
                                "limit": limit,
                                "learner": prosnkons_spec(seed=seed, **dict(KONS[k], **kw)),
                                "label": f"grid {i} {k}",
                            }
                        )
    for ds in DATASETS:
        n = len(_scaled(ds, ctx.data_home, False)[1])
        if min(n, limit or n) <= KRR_MAX_ROWS:
            tasks.append(
                {
                    "dataset": ds,
                    "data_home": ctx.data_home,
                    "task": "regression",
                    "seed": 0,
                    "limit": limit,
                    "learner": {
                        "class": "KernelAWV",
                        "params": dict(kernel=KERNEL, lam=1.0, ridge=True),
                    },
                    "label": KRR_LABEL,
                }
            )
    results = ctx.map(run_task, tasks)
    sums = rls_sums(ctx, "regression", [(ds, 1.0) for ds in DATASETS], n_runs, limit)
    rows = []
    for ds in DATASETS:
        rows.append(rls_row(Row, ds, sums[(ds, 1.0)], PAPER_TABLE[ds]["PROS-N-KONS"][1], 1.0))
        names = (
            *TABLE_LEARNERS,
            "PROS-N-KONS [KORS 1/p]",
            "CON-KONS [KORS 1/p]",
            "B-KONS [KORS 1/p]",
            *(f"{k} ({CALIBRATED})" for k in KONS),
        )

        def runs(label, ds=ds):
            return [r for t, r in zip(tasks, results) if t["dataset"] == ds and t["label"] == label]

        rows += block_rows(Row, ds, "avg_sq_loss", names, runs, PAPER_TABLE[ds], PAPER_SECONDS[ds])
        krr = runs(KRR_LABEL)
        if krr:
            rows.append(
                Row(
                    dataset=ds,
                    learner=KRR_LABEL,
                    metric="avg_sq_loss",
                    ours=krr[0]["loss"],
                    seconds=krr[0]["seconds"],
                    extra={"run_orders": 1},
                )
            )
    notes = grid_notes(tasks, results) + sv_notes(rows) + krr_notes(rows)
    if notes:
        notes.append(
            "Reading the notes above: where the paper's number lies outside the range the whole selection "
            "grid reaches on a data set, no single calibrated setting of (alpha, sigma, eta) could match it, so a "
            "miss there is not a calibration miss; and where the paper's #SV is a different multiple of the online "
            "RLS sum than on the data set the setting was chosen on, no single beta matches every #SV. B-KONS "
            "equals PROS-N-KONS below its budget of 100 (same seed): their rows differ only in the paper's number."
        )
    notes += [
        "slice and year (Table 1, bottom) are not in the project's data release and this entry does not run "
        "them yet (`kernelstream data fetch slice year` downloads them).",
        f"{n_runs} runs per setting{' (quick: first 2000 rows of each shuffled stream)' if ctx.quick else ''}; "
        "run s streams the rows in the order of kernelstream.datasets.shuffle(seed=s) and seeds KORS/FOGD with s; "
        "std is the sample std (ddof=1).",
        "Preprocessing: features and targets min-max scaled to [0, 1] over the whole data set; "
        "Gaussian kernel exp(-||x-x'||^2 / (2 * 8^2)) (bandwidth 8 in the 2 sigma^2 convention of Lu et al.'s "
        "comp_K.m); KORS beta = 1, eps = 0.5, weights 1/sqrt(p); alpha = gamma = 1; C = 1 and curvature "
        "sigma = 1/(8 C^2) = 1/8 (the paper's Thm 2 constants; the paper does not state its C or sigma).",
        "dim = mean final KORS dictionary size (#SV); for FOGD it is the number of frequencies (450), for NOGD the "
        "budget (30).",
        "BATCH: ridge regression with regulariser alpha on the final PROS-N-KONS embedding, in-sample average "
        "squared loss (the paper leaves BATCH's loss open); same runs as PROS-N-KONS.",
        "FOGD/NOGD: the paper copies them from Lu et al.; we rerun them with the settings of Lu et al.'s public "
        "regression code (450 frequencies, eta 6e-4; NOGD budget 30, k = 6, eta 0.1; no update when |f - y| <= 0.1).",
        "seconds: our wall time for one whole pass (the paper's times are for its own implementation).",
        "Row 'online RLS sum (gamma=1)' (metric n_sv): the exact online ridge leverage score sum "
        "sum_t tau_t(gamma), tau_t = [K_t (K_t + gamma I)^{-1}]_tt over the rows seen so far, in each run's order "
        "(kernelstream.leverage: pivoted Cholesky of the Gram matrix to a residual <= 1e-8 gamma, then one "
        "blocked Cholesky pass; computed once per data set and cached). It depends on no sampler: the reference "
        "for #SV. Its paper column is the paper's PROS-N-KONS #SV.",
        "Rows with metric n_sv: the mean final KORS dictionary size, compared with the paper's #SV within 20% "
        "(the tolerance of docs/choices.md); the loss rows within 15%.",
        "As stated, KORS with beta (1 + eps) = 1.5 keeps about 1.8x the online RLS sum, while the paper's #SV "
        "are close to the sum itself: the as-stated #SV rows miss by that factor.",
        f"Rows '({CALIBRATED})' (variant 'calibrated', counted apart from the as-stated rows): one setting for the "
        f"whole table, selected on {TUNED_ON} only and applied unchanged to every data set: "
        + ", ".join(f"{k} = {v:g}" for k, v in CALIBRATED_SETTING.items())
        + f" (selection: {SELECTION}; beta (1 + eps) = 0.6 with eps = 0.5; gamma = 1, C = 1 as above; 'curvature' is sigma in "
        "A <- A + (sigma/2) g g^T and eta the Newton step multiplier, v = w - eta A^{-1} g, which is no third "
        "parameter: (alpha, sigma, eta) gives the same run, bit for bit, as (alpha/eta, sigma/eta, 1)). The paper "
        "states neither C, sigma nor an effective beta; alpha = 1 as stated relearns slowly after every restart.",
        "Rows '[KORS 1/p]': the same learners with KORS weights 1/p instead of 1/sqrt(p) (an analysis of the "
        "dictionary sizes, which with KORS as defined, 1/sqrt(p), come out about twice the paper's; the paper "
        "column repeats the paper's PROS-N-KONS / CON-KONS / B-KONS numbers).",
    ]
    settings = {
        "bandwidth": 8.0,
        "kernel": "exp(-||x-x'||^2/(2*8^2))",
        "alpha": 1.0,
        "gamma": 1.0,
        "eps": 0.5,
        "beta": 1.0,
        "C": 1.0,
        "curvature": 0.125,
        "budget_bkons": 100,
        "runs": n_runs,
        "limit": limit,
        "x_range": [0, 1],
        "y_range": [0, 1],
        "kors_weights": "1/sqrt(p)",
        "eta": 1.0,
        "calibrated": dict(
            CALIBRATED_SETTING, eps=0.5, gamma=1.0, C=1.0, chosen_on=TUNED_ON, selection=SELECTION
        ),
        "online_rls": {"gamma": 1.0, "pivoted_cholesky_tol": "1e-8 * gamma"},
    }
    figs = table_figures(
        ctx,
        rows,
        "PROS-N-KONS Table 1 (regression, alpha = gamma = 1)",
        "average squared loss",
        "pros-n-kons-table1.png",
    )
    return EntryResult(rows=rows, figures=figs, notes=notes, settings=settings)
