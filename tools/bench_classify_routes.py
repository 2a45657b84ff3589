"""The classification routes ``docs/which-learner.md`` and ``docs/classification.md``
offer, measured on scikit-learn's bundled sets (iris, breast cancer, wine, digits): the
mean accuracy of 5-fold cross-validation (``KFold(5, shuffle=True, random_state=0)``)
of each route with its defaults behind ``SklearnClassifier`` (which scales the features
online, except in front of AutoKernel), beside the majority class and scikit-learn's
``LogisticRegression`` behind a ``StandardScaler``. Not a test; prints a markdown table
and ``uptime``.

    python tools/bench_classify_routes.py [--sets iris,breast_cancer,wine,digits]
"""

from __future__ import annotations

import argparse
import subprocess
import time

import kernelstream as ks
import numpy as np
from kernelstream.adapters import SklearnClassifier
from kernelstream.kernels import Gaussian
from kernelstream.learners import FOGD
from sklearn import datasets
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import KFold, cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

SETS = {
    "iris": datasets.load_iris,
    "breast_cancer": datasets.load_breast_cancer,
    "wine": datasets.load_wine,
    "digits": datasets.load_digits,
}

ROUTES = {
    "AutoKernel()": lambda: SklearnClassifier(ks.AutoKernel()),
    "TaylorAWV()": lambda: SklearnClassifier(ks.TaylorAWV()),
    'ProsNKons(Gaussian(1), loss="logistic")': lambda: SklearnClassifier(
        ks.ProsNKons(Gaussian(1.0), loss="logistic")
    ),
    'ProsNKons(Gaussian(1), loss="logistic"), scale=False': lambda: SklearnClassifier(
        ks.ProsNKons(Gaussian(1.0), loss="logistic"), scale=False
    ),
    'FOGD(Gaussian(1), loss="logistic")': lambda: SklearnClassifier(
        FOGD(Gaussian(1.0), loss="logistic")
    ),
    "scikit-learn LogisticRegression": lambda: make_pipeline(
        StandardScaler(), LogisticRegression(max_iter=1000)
    ),
}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sets", default=",".join(SETS))
    args = ap.parse_args()
    names = args.sets.split(",")
    cv = KFold(5, shuffle=True, random_state=0)
    rows = {}
    majority = {}
    for s in names:
        X, y = SETS[s](return_X_y=True)
        majority[s] = np.bincount(y).max() / y.size
        for route, make in ROUTES.items():
            t0 = time.perf_counter()
            acc = cross_val_score(make(), X, y, cv=cv).mean()
            rows.setdefault(route, {})[s] = (acc, time.perf_counter() - t0)
    print("| route | " + " | ".join(names) + " |")
    print("|---|" + "---|" * len(names))
    print("| majority class | " + " | ".join(f"{majority[s]:.3f}" for s in names) + " |")
    for route, by_set in rows.items():
        cells = [f"{by_set[s][0]:.3f} ({by_set[s][1]:.1f} s)" for s in names]
        print(f"| `{route}` | " + " | ".join(cells) + " |")
    print(subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip())


if __name__ == "__main__":
    main()
