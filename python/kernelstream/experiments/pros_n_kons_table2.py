"""``pros-n-kons-table2``: Table 2 of Calandriello, Lazaric, Valko (2017), binary classification.

ijcnn1 (train + test, 141,691 rows) and cod-rna (the 59,535-row training split only: the
271,617-row test split the paper used is not in the data release), hinge loss, at
alpha = gamma = 1 and alpha = gamma = 0.01; online error rate in % (sign(0) = +1).
Settings: see :mod:`kernelstream.experiments.pros_n_kons_common`.
"""

from __future__ import annotations

from .pros_n_kons_common import (
    CALIBRATED,
    PAPER,
    TABLE_LEARNERS,
    block_rows,
    classification_baseline_specs,
    prosnkons_spec,
    rls_row,
    rls_sums,
    run_task,
    table_figures,
)
from .registry import Context, EntryResult, Row, register

# Table 2 of the paper (sec. 5): (error %, #SV) per setting, learner, data set.
PAPER_TABLE = {
    1.0: {
        "ijcnn1": {
            "FOGD": (9.06, 400),
            "NOGD": (9.55, 100),
            "PROS-N-KONS": (9.70, 100),
            "CON-KONS": (9.64, 101),
            "B-KONS": (9.70, 98),
            "BATCH": (8.33, None),
        },
        "cod-rna": {
            "FOGD": (10.30, 400),
            "NOGD": (13.80, 100),
            "PROS-N-KONS": (13.95, 38),
            "CON-KONS": (18.99, 38),
            "B-KONS": (13.99, 38),
            "BATCH": (3.781, None),
        },
    },
    0.01: {
        "ijcnn1": {
            "FOGD": (9.06, 400),
            "NOGD": (9.55, 100),
            "PROS-N-KONS": (10.73, 436),
            "CON-KONS": (6.23, 432),
            "B-KONS": (4.85, 100),
            "BATCH": (5.61, None),
        },
        "cod-rna": {
            "FOGD": (10.30, 400),
            "NOGD": (13.80, 100),
            "PROS-N-KONS": (4.91, 111),
            "CON-KONS": (5.81, 111),
            "B-KONS": (4.57, 100),
            "BATCH": (3.61, None),
        },
    },
}
PAPER_SECONDS = {
    1.0: {
        "ijcnn1": {"PROS-N-KONS": 211.91, "CON-KONS": 215.71, "B-KONS": 206.53},
        "cod-rna": {"PROS-N-KONS": 270.81, "CON-KONS": 271.85, "B-KONS": 274.94},
    },
    0.01: {
        "ijcnn1": {"PROS-N-KONS": 1003.82, "CON-KONS": 987.33, "B-KONS": 147.22},
        "cod-rna": {"PROS-N-KONS": 459.28, "CON-KONS": 458.90, "B-KONS": 333.57},
    },
}
DATASETS = ("ijcnn1", "cod-rna")
ALPHAS = (1.0, 0.01)
KONS: dict[str, dict] = {
    "PROS-N-KONS": {},
    "CON-KONS": {"on_growth": "continue"},
    "B-KONS": {"budget": 100},
}
#: The online RLS sums of ijcnn1 need a rank-907 factor of 141,691 rows at gamma = 0.01: they
#: use the first run order only and a residual <= 1e-6 gamma (3e-4 off in 22.5 on parkinson;
#: ijcnn1 at gamma = 1: 93.929 against 93.916 at 1e-8).
RLS_ORDERS = 1
RLS_TOL2 = 1e-6
#: Rows on a different stream than the paper's: shown, not counted as matches or misses.
NOT_COMPARABLE = {"cod-rna": "not comparable (training split only)"}

#: The calibrated setting (one for the whole table, both alpha = gamma blocks), selected on
#: TUNED_ON only: KORS beta with beta (1 + eps) = 0.6 (the paper's #SV match the exact online
#: RLS sum, docs/choices.md), and C = 10 with an explicit curvature (C = 1 keeps
#: y y_hat <= 1, so the hinge gradient is always active; the default 1/(8 C^2) would shrink
#: with C; hinge has no valid curvature, so sigma is a tuning constant), and the Newton step
#: multiplier eta.
CALIBRATED_SETTING = dict(beta=0.4, C=10.0, curvature=1.0, eta=2.0)
TUNED_ON = "ijcnn1"
SELECTION = (
    "grid curvature in {0.01, 0.1, 1} x eta in {0.5, 1, 2} (eta 1 only at curvature 0.01) at beta = 0.4, "
    "C = 10, on the first run order of ijcnn1 only, both blocks; chosen: most of the six PROS-N-KONS, "
    "CON-KONS, B-KONS errors within 15% of the paper's (5 of 6; B-KONS at alpha = gamma = 0.01 misses at "
    "every grid point, 7.2-8.6% against 4.85%), ties broken by the mean relative deviation"
)


def learner_specs(alpha: float, seed: int, calibrated: bool = False) -> dict:
    extra = CALIBRATED_SETTING if calibrated else {}
    suffix = f" ({CALIBRATED})" if calibrated else ""
    return {
        f"{k}{suffix}": prosnkons_spec(
            alpha=alpha, gamma=alpha, loss="hinge", seed=seed, **dict(kw, **extra)
        )
        for k, kw in KONS.items()
    }


@register(
    "pros-n-kons-table2",
    paper=PAPER,
    description="Table 2: binary classification (ijcnn1, cod-rna), hinge loss, alpha = gamma in {1, 0.01}",
)
def run(ctx: Context) -> EntryResult:
    n_runs = ctx.n_runs(quick=1, full=15)  # the paper averages 15 runs
    limit = 3000 if ctx.quick else None
    tasks = []
    for ds in DATASETS:
        for seed in range(n_runs):
            base = {
                "dataset": ds,
                "data_home": ctx.data_home,
                "task": "classification",
                "seed": seed,
                "limit": limit,
            }
            for name, spec in classification_baseline_specs(seed).items():
                tasks.append(dict(base, learner=spec, label=name, alpha=None))
            for alpha in ALPHAS:
                specs = dict(learner_specs(alpha, seed), **learner_specs(alpha, seed, True))
                for name, spec in specs.items():
                    tasks.append(
                        dict(
                            base, learner=spec, label=name, alpha=alpha, batch=name == "PROS-N-KONS"
                        )
                    )
    results = ctx.map(run_task, tasks)
    keys = [(ds, a) for a in ALPHAS for ds in DATASETS]
    sums = rls_sums(ctx, "classification", keys, min(n_runs, RLS_ORDERS), limit, RLS_TOL2)
    rows = []
    for alpha in ALPHAS:
        for ds in DATASETS:
            setting = f"{ds} (alpha=gamma={alpha:g})"
            block = [
                rls_row(
                    Row, setting, sums[(ds, alpha)], PAPER_TABLE[alpha][ds]["PROS-N-KONS"][1], alpha
                )
            ]
            names = (*TABLE_LEARNERS, *(f"{k} ({CALIBRATED})" for k in KONS))

            def runs(label, ds=ds, alpha=alpha):
                # FOGD and NOGD do not depend on alpha: their runs serve both blocks.
                want = None if label in ("FOGD", "NOGD") else alpha
                return [
                    r
                    for t, r in zip(tasks, results)
                    if t["dataset"] == ds and t["label"] == label and t["alpha"] == want
                ]

            block += block_rows(
                Row,
                setting,
                "error_pct",
                names,
                runs,
                PAPER_TABLE[alpha][ds],
                PAPER_SECONDS[alpha][ds],
            )
            if ds in NOT_COMPARABLE:
                for r in block:
                    r.extra["match_note"] = NOT_COMPARABLE[ds]
            rows += block
    notes = [
        "cod-rna: only the 59,535-row LIBSVM training split is in the data release (the test split: "
        "`kernelstream data fetch cod-rna-test`); the paper's cod-rna has 271,617 "
        "rows (the test split). Our cod-rna numbers are on the training split.",
        "ijcnn1: LIBSVM train (49,990) + test (91,701) = 141,691 rows, as in the paper.",
        f"{n_runs} runs per setting{' (quick: first 3000 rows of each shuffled stream)' if ctx.quick else ''}; "
        "run s streams the rows in the order of kernelstream.datasets.shuffle(seed=s) and seeds KORS/FOGD with s; "
        "std is the sample std (ddof=1). Error rate in %, sign(0) = +1 (reset rounds predict 0, counted as +1).",
        "Preprocessing: features min-max scaled to [0, 1]; labels -1/+1; Gaussian kernel exp(-||x-x'||^2/(2*8^2)); "
        "KORS beta = 1, eps = 0.5, weights 1/sqrt(p); hinge loss, C = 1 and curvature sigma = 1/(8 C^2) = 1/8 "
        "(hinge has no valid curvature, Asm. 2 fails; the paper gives neither C nor sigma).",
        "FOGD/NOGD do not depend on alpha, gamma: the same runs appear in both blocks (as in the paper). Settings of "
        "Lu et al.'s public binary code: 400 frequencies, eta 0.002 on unnormalised features (lr 0.8 here); NOGD "
        "budget 100, k = 20 eigenpairs, eta 0.2.",
        "Rows 'online RLS sum (gamma=...)' (metric n_sv): the exact online ridge leverage score sum "
        f"sum_t tau_t(gamma), in the first run order (kernelstream.leverage; pivoted "
        f"Cholesky to a residual <= {RLS_TOL2:g} gamma, computed once per data set and cached): the sampler-independent reference for #SV; its "
        "paper column is the paper's PROS-N-KONS #SV. Rows with metric n_sv compare dictionary sizes within 20%.",
        f"cod-rna rows: {NOT_COMPARABLE['cod-rna']}; shown but not counted as matches or misses.",
        f"Rows '({CALIBRATED})' (variant 'calibrated', counted apart): one setting for the whole table (both "
        f"blocks), selected on {TUNED_ON} only and applied unchanged: "
        + ", ".join(f"{k} = {v:g}" for k, v in CALIBRATED_SETTING.items())
        + f" (selection: {SELECTION}; beta (1 + eps) = 0.6; alpha = gamma as in each block). C = 10 with an explicit curvature: with C = 1 "
        "the projection keeps y * y_hat <= 1, so the hinge gradient is always active, and the default curvature "
        "1/(8 C^2) would shrink with C; the hinge loss has no valid curvature (Asm. 2 fails), so sigma is a "
        "tuning constant.",
        "BATCH: ridge classifier (regulariser alpha) on the final PROS-N-KONS embedding, in-sample error rate "
        "(the paper does not say which batch loss it used).",
    ]
    settings = {
        "bandwidth": 8.0,
        "alphas": list(ALPHAS),
        "eps": 0.5,
        "beta": 1.0,
        "C": 1.0,
        "curvature": 0.125,
        "loss": "hinge",
        "eta": 1.0,
        "calibrated": dict(CALIBRATED_SETTING, eps=0.5, chosen_on=TUNED_ON, selection=SELECTION),
        "not_comparable": NOT_COMPARABLE,
        "budget_bkons": 100,
        "runs": n_runs,
        "limit": limit,
        "x_range": [0, 1],
    }
    figs = table_figures(
        ctx, rows, "PROS-N-KONS Table 2 (hinge loss)", "online error (%)", "pros-n-kons-table2.png"
    )
    return EntryResult(rows=rows, figures=figs, notes=notes, settings=settings)
