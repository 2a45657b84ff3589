"""Cross-validation on a class-sorted file: iris's rows come sorted by class, so
unshuffled ``KFold(5)`` folds hold out mostly one or two classes and train on a shifted
class mix (a prior shift that no learner's order option removes). Prints, for the
kernelstream adapters and scikit-learn's batch classifiers (behind a ``StandardScaler``),
the mean accuracy with ``KFold(5)`` and with ``KFold(5, shuffle=True)`` (averaged over
5 seeds), and the per-fold accuracies of the unshuffled folds. Not a test.

    python tools/bench_kfold_order.py
"""

from __future__ import annotations

import warnings

import kernelstream as ks
import numpy as np
from kernelstream.adapters import SklearnClassifier
from sklearn.datasets import load_iris
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import KFold, cross_val_score
from sklearn.neighbors import KNeighborsClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC


def main() -> None:
    warnings.simplefilter("ignore")
    X, y = load_iris(return_X_y=True)
    rows = {
        "SklearnClassifier(AutoKernel())": lambda: SklearnClassifier(ks.AutoKernel()),
        "SklearnClassifier(TaylorAWV())": lambda: SklearnClassifier(ks.TaylorAWV()),
        "LogisticRegression": lambda: make_pipeline(
            StandardScaler(), LogisticRegression(max_iter=1000)
        ),
        "KNeighborsClassifier": lambda: make_pipeline(StandardScaler(), KNeighborsClassifier()),
        "SVC": lambda: make_pipeline(StandardScaler(), SVC()),
    }
    print("| estimator | KFold(5) | shuffled | unshuffled folds |")
    print("|---|---|---|---|")
    for name, make in rows.items():
        plain = cross_val_score(make(), X, y, cv=KFold(5))
        shuffled = np.mean(
            [
                cross_val_score(make(), X, y, cv=KFold(5, shuffle=True, random_state=s)).mean()
                for s in range(5)
            ]
        )
        folds = " ".join(f"{v:.3f}" for v in plain)
        print(f"| {name} | {plain.mean():.3f} | {shuffled:.3f} | {folds} |")


if __name__ == "__main__":
    main()
