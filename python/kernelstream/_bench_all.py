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


@register_bench("projection")
def _projection(quick):
    """OnlineProjection (Algorithm 2, Rust) against Algorithm 1 (NumPy: least squares refit
    every round), on Examples 1 and 2 of Zhang and Simon."""
    from .datasets.projection_examples import EXAMPLES
    from .reference import NaiveOnlineProjection

    out = []
    for name, n_full, n_quick in (("example1", 1_000_000, 20_000), ("example2", 1_000_000, 20_000)):
        ex = EXAMPLES[name]
        X, y = ex.sample(n_quick if quick else n_full, seed=0)
        p = dict(ex.projection)
        out.append(
            BenchCase(
                label=f"{name} n={X.shape[0]} (Alg. 1)",
                make_fast=lambda ex=ex: ex.make_projection(),
                make_reference=lambda p=p: NaiveOnlineProjection(d=1, **p),
                X=X,
                y=y,
                reference_rounds=300,
            )
        )
    return out


@register_bench("averaged-sgd")
def _averaged_sgd(quick):
    """AveragedKernelSGD (Rust, O(n) per round) against its NumPy reference."""
    from . import AveragedKernelSGD
    from .datasets.projection_examples import EXAMPLES
    from .kernels import Min
    from .reference import AveragedKernelSGDReference

    # the reference runs the whole stream too (per-round cost grows with n)
    n = 1000 if quick else 4000
    X, y = EXAMPLES["example2"].sample(n, seed=0)
    return [
        BenchCase(
            label=f"example2 min n={X.shape[0]}",
            make_fast=lambda: AveragedKernelSGD(Min(), gamma0=5.0),
            make_reference=lambda: AveragedKernelSGDReference(Min(), gamma0=5.0),
            X=X,
            y=y,
            reference_rounds=n,
        )
    ]
