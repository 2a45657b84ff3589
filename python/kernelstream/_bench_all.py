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


# -- issue 4: PROS-N-KONS, FOGD, NOGD ---------------------------------------------------
@register_bench("pros-n-kons")
def _pros_n_kons(quick):
    from . import ProsNKons
    from .kernels import Gaussian
    from .reference import ProsNKonsReference

    out = []
    # gamma sets the dictionary size (d = 8 in [0, 1], sigma = 3).
    for gamma in ((1.0, 0.1) if quick else (1.0, 0.1, 0.01)):
        n = 3000 if quick else 20000
        rng = np.random.default_rng(1)
        X = rng.uniform(0, 1, size=(n, 8))
        y = 0.5 + 0.4 * np.sin(3 * X[:, 0])
        out.append(BenchCase(label=f"gamma={gamma} (dense solves)",
                             make_fast=lambda g=gamma: ProsNKons(Gaussian(3.0), gamma=g, seed=0),
                             make_reference=lambda g=gamma: ProsNKonsReference(Gaussian(3.0), gamma=g, seed=0),
                             X=X, y=y, reference_rounds=50, warmup=500))
    return out


@register_bench("fogd-nogd")
def _fogd_nogd(quick):
    from . import FOGD, NOGD
    from .kernels import Gaussian
    from .reference import FOGDReference, NOGDReference

    n = 3000 if quick else 20000
    rng = np.random.default_rng(2)
    X = rng.uniform(0, 1, size=(n, 9))
    y = 0.5 + 0.4 * np.sin(3 * X[:, 0])
    k = Gaussian(8.0)
    return [
        BenchCase(label="FOGD D=450 d=9", make_fast=lambda: FOGD(k, n_features=450, lr=0.135, epsilon=0.1),
                  make_reference=lambda: FOGDReference(k, 450, 0.135, "squared", 0.1), X=X, y=y, reference_rounds=300),
        BenchCase(label="NOGD B=30 k=6 d=9", make_fast=lambda: NOGD(k, budget=30, rank=6, lr=0.05, epsilon=0.1),
                  make_reference=lambda: NOGDReference(k, 30, 6, 0.05, "squared", 0.1), X=X, y=y,
                  reference_rounds=300, warmup=200),
    ]
