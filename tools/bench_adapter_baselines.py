"""The adapters with their learners' default parameters against the peers' linear baselines.

A benchmark, not a test: it shows what the learners' defaults (inputs whose distances
are of order ``sigma = 1``, targets of order one) give on data of other scales: through
the adapters as they are (their default online scaling), with ``scale=False`` (raw), and
composed with the peers' standard scalers, next to

- river: ``StandardScaler | LinearRegression`` on ``datasets.TrumpApproval`` (1001 rows,
  6 features), progressive validation (``evaluate.progressive_val_score``), MAE;
- scikit-learn: ``StandardScaler + LinearRegression`` / ``RidgeCV`` on
  ``load_diabetes`` (442 rows, 10 features), 5-fold shuffled cross-validation, R^2 and MSE.

The last column is the ratio of the model's error to the best linear baseline's
(MAE on TrumpApproval, MSE on diabetes); "ok" marks a ratio below ``--factor``.

    python tools/bench_adapter_baselines.py              # prints a Markdown table
    python tools/bench_adapter_baselines.py --factor 1.5
"""

from __future__ import annotations

import argparse
import sys
import warnings

import numpy as np


def learners():
    """Each learner with its default parameters (kernel learners: the Gaussian kernel, sigma=1)."""
    import kernelstream as ks
    from kernelstream.kernels import Gaussian

    return {
        "TaylorAWV": lambda: ks.TaylorAWV(),
        "NystromAWV": lambda: ks.NystromAWV(Gaussian()),
        "RFFAWV": lambda: ks.RFFAWV(Gaussian()),
        "MultiKernelAWV": lambda: ks.MultiKernelAWV(ks.kernels.vaw2_grid()),
    }


def trump_approval():
    from kernelstream.adapters import RiverRegressor
    from river import compose, datasets, evaluate, linear_model, metrics, preprocessing

    def mae(model):
        return evaluate.progressive_val_score(datasets.TrumpApproval(), model, metrics.MAE()).get()

    rows = [
        (
            "river StandardScaler | LinearRegression",
            True,
            mae(preprocessing.StandardScaler() | linear_model.LinearRegression()),
        ),
    ]
    for name, make in learners().items():
        raw = RiverRegressor(make(), scale=False)
        rows.append((f"RiverRegressor({name}, scale=False)", False, mae(raw)))
        rows.append((f"RiverRegressor({name})", False, mae(RiverRegressor(make()))))
        rows.append(
            (
                f"StandardScaler | RiverRegressor({name})",
                False,
                mae(preprocessing.StandardScaler() | RiverRegressor(make())),
            )
        )
        rows.append(
            (
                f"StandardScaler | RiverRegressor({name}, scale=False)",
                False,
                mae(preprocessing.StandardScaler() | RiverRegressor(make(), scale=False)),
            )
        )
        rows.append(
            (
                f"StandardScaler | TargetStandardScaler(RiverRegressor({name}, scale=False))",
                False,
                mae(
                    compose.Pipeline(
                        preprocessing.StandardScaler(),
                        preprocessing.TargetStandardScaler(
                            regressor=RiverRegressor(make(), scale=False)
                        ),
                    )
                ),
            )
        )
    return rows


def diabetes():
    from kernelstream.adapters import SklearnRegressor
    from sklearn.compose import TransformedTargetRegressor
    from sklearn.datasets import load_diabetes
    from sklearn.linear_model import LinearRegression, RidgeCV
    from sklearn.model_selection import KFold, cross_validate
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    X, y = load_diabetes(return_X_y=True)
    cv = KFold(5, shuffle=True, random_state=0)

    def scores(est):
        r = cross_validate(est, X, y, cv=cv, scoring=("r2", "neg_mean_squared_error"))
        return float(np.mean(r["test_r2"])), float(-np.mean(r["test_neg_mean_squared_error"]))

    rows = [
        (
            "sklearn StandardScaler + LinearRegression",
            True,
            *scores(make_pipeline(StandardScaler(), LinearRegression())),
        ),
        (
            "sklearn StandardScaler + RidgeCV",
            True,
            *scores(make_pipeline(StandardScaler(), RidgeCV())),
        ),
    ]
    for name, make in learners().items():
        raw = SklearnRegressor(make(), scale=False)
        rows.append((f"SklearnRegressor({name}, scale=False)", False, *scores(raw)))
        rows.append((f"SklearnRegressor({name})", False, *scores(SklearnRegressor(make()))))
        rows.append(
            (
                f"StandardScaler + SklearnRegressor({name})",
                False,
                *scores(make_pipeline(StandardScaler(), SklearnRegressor(make()))),
            )
        )
        rows.append(
            (
                f"StandardScaler + SklearnRegressor({name}, scale=False)",
                False,
                *scores(make_pipeline(StandardScaler(), SklearnRegressor(make(), scale=False))),
            )
        )
        rows.append(
            (
                f"StandardScaler + TransformedTargetRegressor(SklearnRegressor({name}, scale=False), StandardScaler)",
                False,
                *scores(
                    make_pipeline(
                        StandardScaler(),
                        TransformedTargetRegressor(
                            SklearnRegressor(make(), scale=False), transformer=StandardScaler()
                        ),
                    )
                ),
            )
        )
    return rows


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--factor", type=float, default=1.5, help="'ok' below this error ratio")
    args = parser.parse_args(argv)
    warnings.simplefilter("ignore")

    trump = trump_approval()
    best = min(v for _, base, v in trump if base)
    print("TrumpApproval (river), progressive validation\n")
    print("| model | MAE | / baseline | |\n|---|---:|---:|---|")
    for name, base, v in trump:
        name = name.replace("|", "\\|")  # a river pipeline, inside a Markdown table
        ratio = v / best
        print(
            f"| {name} | {v:.3f} | {ratio:.2f} | {'' if base else ('ok' if ratio < args.factor else '')} |"
        )
    sys.stdout.flush()

    dia = diabetes()
    best = min(mse for _, base, _r2, mse in dia if base)
    print("\ndiabetes (scikit-learn), 5-fold cross-validation\n")
    print("| model | R^2 | MSE | / baseline | |\n|---|---:|---:|---:|---|")
    for name, base, r2, mse in dia:
        ratio = mse / best
        ok = "" if base else ("ok" if ratio < args.factor else "")
        print(f"| {name} | {r2:.3f} | {mse:.0f} | {ratio:.2f} | {ok} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
