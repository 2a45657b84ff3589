"""Registers every ``kernelstream bench`` case (one block per learner family)."""
import numpy as np

from .benchcases import BenchCase, register_bench


def _uniform_stream(n, d, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, size=(n, d))
    y = np.sin(2 * X[:, 0]) + 0.1 * rng.standard_normal(n)
    return X, y


@register_bench("taylor-awv")
def _taylor(quick):
    from . import TaylorAWV
    from .reference import TaylorAWVReference

    out = []
    # (d, M): r = C(M+d, d) = 21, 45, 190, 495, 1001
    settings = [(5, 2), (8, 2), (18, 2), (8, 4), (10, 4)]
    if quick:
        settings = settings[:3]
    for d, m in settings:
        n = 2000 if quick else 20000
        X, y = _uniform_stream(n, d)
        out.append(
            BenchCase(
                label=f"d={d} M={m} (NumPy SM)",
                make_fast=lambda m=m: TaylorAWV(sigma=1.0, degree=m),
                make_reference=lambda m=m: TaylorAWVReference(sigma=1.0, degree=m, features="monomial", solver="sherman-morrison"),
                X=X,
                y=y,
                reference_rounds=300,
            )
        )
    return out
