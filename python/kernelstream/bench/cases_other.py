"""The ``kernelstream bench`` cases of PROS-N-KONS, FOGD, NOGD, OnlineProjection and
AveragedKernelSGD against their NumPy references."""

import numpy as np

from .case import BenchCase


def pros_n_kons(quick):
    from kernelstream import ProsNKons
    from kernelstream.kernels import Gaussian
    from kernelstream.reference import ProsNKonsReference

    out = []
    # gamma sets the dictionary size (d = 8 in [0, 1], sigma = 3).
    for gamma in (1.0, 0.1) if quick else (1.0, 0.1, 0.01):
        n = 3000 if quick else 20000
        rng = np.random.default_rng(1)
        X = rng.uniform(0, 1, size=(n, 8))
        y = 0.5 + 0.4 * np.sin(3 * X[:, 0])
        out.append(
            BenchCase(
                label=f"gamma={gamma} (dense solves)",
                make_fast=lambda g=gamma: ProsNKons(Gaussian(3.0), gamma=g, seed=0),
                make_reference=lambda g=gamma: ProsNKonsReference(Gaussian(3.0), gamma=g, seed=0),
                X=X,
                y=y,
                reference_rounds=50,
                warmup=500,
            )
        )
    return out


def fogd_nogd(quick):
    from kernelstream import FOGD, NOGD
    from kernelstream.kernels import Gaussian
    from kernelstream.reference import FOGDReference, NOGDReference

    n = 3000 if quick else 20000
    rng = np.random.default_rng(2)
    X = rng.uniform(0, 1, size=(n, 9))
    y = 0.5 + 0.4 * np.sin(3 * X[:, 0])
    k = Gaussian(8.0)
    return [
        BenchCase(
            label="FOGD D=450 d=9",
            make_fast=lambda: FOGD(k, n_features=450, lr=0.135, epsilon=0.1),
            make_reference=lambda: FOGDReference(k, 450, 0.135, "squared", 0.1),
            X=X,
            y=y,
            reference_rounds=300,
        ),
        BenchCase(
            label="NOGD B=30 k=6 d=9",
            make_fast=lambda: NOGD(k, budget=30, rank=6, lr=0.05, epsilon=0.1),
            make_reference=lambda: NOGDReference(k, 30, 6, 0.05, "squared", 0.1),
            X=X,
            y=y,
            reference_rounds=300,
            warmup=200,
        ),
    ]


def projection(quick):
    """OnlineProjection (Algorithm 2, Rust) against Algorithm 1 (NumPy: least squares refit
    every round), on Examples 1 and 2 of Zhang and Simon."""
    from kernelstream.datasets.projection_examples import EXAMPLES
    from kernelstream.reference import NaiveOnlineProjection

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


def averaged_sgd(quick):
    """AveragedKernelSGD (Rust, O(n) per round) against its NumPy reference."""
    from kernelstream import AveragedKernelSGD
    from kernelstream.datasets.projection_examples import EXAMPLES
    from kernelstream.kernels import Min
    from kernelstream.reference import AveragedKernelSGDReference

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
