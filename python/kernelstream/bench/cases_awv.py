"""The ``kernelstream bench`` cases of the AWV engine: TaylorAWV (against its NumPy
reference, blocks of rounds against single rounds, several outputs against one) and
NystromAWV on a fixed dictionary, plain and discounted, in blocks against single rounds."""

import numpy as np

from .case import BenchCase, awv_flops, uniform_stream


def taylor(quick):
    from kernelstream import TaylorAWV
    from kernelstream.reference import TaylorAWVReference

    out = []
    # (d, M): r = C(M+d, d) = 21, 45, 190, 495, 1001
    settings = [(5, 2), (8, 2), (18, 2), (8, 4), (10, 4)]
    if quick:
        settings = settings[:3]
    for d, m in settings:
        n = 2000 if quick else 20000
        X, y = uniform_stream(n, d)
        out.append(
            BenchCase(
                label=f"d={d} M={m} (NumPy SM)",
                make_fast=lambda m=m: TaylorAWV(sigma=1.0, degree=m),
                make_reference=lambda m=m: TaylorAWVReference(
                    sigma=1.0, degree=m, features="monomial", solver="sherman-morrison"
                ),
                X=X,
                y=y,
                reference_rounds=300,
                flops_per_round=awv_flops,
            )
        )
    return out


def taylor_blocked(quick):
    """TaylorAWV ``block_size=None`` (blocks of rounds) against ``block_size=1``."""
    from kernelstream import TaylorAWV

    out = []
    # (d, M): r = C(M+d, d) = 190, 495, 1001, 2300
    settings = [(18, 2, 20000), (8, 4, 8000), (10, 4, 4000), (22, 3, 1500)]
    if quick:
        settings = [(18, 2, 2000), (8, 4, 1000)]
    for d, m, n in settings:
        X, y = uniform_stream(n, d)
        out.append(
            BenchCase(
                label=f"d={d} M={m} (vs block_size=1)",
                make_fast=lambda m=m: TaylorAWV(sigma=1.0, degree=m),
                make_reference=lambda m=m: TaylorAWV(sigma=1.0, degree=m, block_size=1),
                X=X,
                y=y,
                reference_rounds=n,
                flops_per_round=awv_flops,
                reference_is_learner=True,
            )
        )
    return out


class _FirstColumn:
    """A learner fed only the first column of ``Y`` (the one-output side of a
    multi-output comparison)."""

    def __init__(self, learner):
        self.learner = learner

    def progressive_predict(self, X, Y):
        return self.learner.progressive_predict(X, Y[:, 0])


def multi_output(quick):
    """TaylorAWV with K = 10 outputs against K = 1 on the same rows (the outputs share
    ``A^-1``: one mat-vec plus K dot products per round), timed alternately in one run;
    the printed cost ratio K=10 / K=1 is the figure (target <= 1.5 at r >= 200)."""
    from kernelstream import TaylorAWV

    out = []
    # (d, M, block_size): r = C(M+d, d) = 210, 210, 495
    settings = [(19, 2, None, 6000), (19, 2, 1, 6000), (8, 4, None, 2000)]
    if quick:
        settings = [(19, 2, None, 1500), (19, 2, 1, 1500)]
    k = 10
    for d, m, bs, n in settings:
        X, y = uniform_stream(n, d)
        W = np.random.default_rng(2).standard_normal((d, k))
        Y = np.sin(X @ W) + 0.1 * y[:, None]
        out.append(
            BenchCase(
                label=f"d={d} M={m} K={k} bs={bs or 'auto'}",
                make_fast=lambda m=m, bs=bs: TaylorAWV(sigma=1.0, degree=m, block_size=bs),
                make_reference=lambda m=m, bs=bs: _FirstColumn(
                    TaylorAWV(sigma=1.0, degree=m, block_size=bs)
                ),
                X=X,
                y=Y,
                reference_rounds=n,
                reference_is_learner=True,
                cost_ratio=f"K={k}/K=1 cost",
            )
        )
    return out


def _fixed_dictionary_cases(settings, prefix="", **params):
    """NystromAWV on a fixed dictionary of m points, ``block_size=None`` against
    ``block_size=1``, one case per ``(m, rounds)`` of ``settings``."""
    from kernelstream import NystromAWV
    from kernelstream.kernels import Gaussian

    out = []
    d = 8
    for m, n in settings:
        X, y = uniform_stream(n, d)
        D, _ = uniform_stream(m, d, seed=1)
        out.append(
            BenchCase(
                label=f"{prefix}m={m} d={d} (vs block_size=1)",
                make_fast=lambda D=D: NystromAWV(Gaussian(1.0), dictionary=D, **params),
                make_reference=lambda D=D: NystromAWV(
                    Gaussian(1.0), dictionary=D, block_size=1, **params
                ),
                X=X,
                y=y,
                reference_rounds=n,
                reference_is_learner=True,
            )
        )
    return out


def nystrom_blocked(quick):
    """NystromAWV on a fixed dictionary of m points, ``block_size=None`` (blocks of
    rounds: one pass over the Cholesky factor per block) against ``block_size=1``."""
    if quick:
        return _fixed_dictionary_cases([(200, 2000), (500, 600)])
    return _fixed_dictionary_cases([(200, 20000), (500, 4000), (1000, 1500)])


def nystrom_discounted_blocked(quick):
    """Discounted NystromAWV (``gamma=0.99``), blocks of discounted rounds (two plain rows
    per round, docs/choices.md "Discounted AWV") against ``block_size=1``: a fixed
    dictionary of m points (``block_size=None``), and a KORS dictionary grown on inputs
    whose centre drifts (blocks of 64 between insertions)."""
    from kernelstream import NystromAWV
    from kernelstream.kernels import Gaussian

    settings = [(200, 2000)] if quick else [(200, 10000), (500, 3000)]
    out = _fixed_dictionary_cases(settings, "fixed ", gamma=0.99)
    n = 4000 if quick else 20000
    rng = np.random.default_rng(2)
    X = rng.uniform(-1, 1, size=(n, 3))
    X[:, 0] += np.linspace(0, 4, n)
    y = np.sin(2 * X[:, 0]) + 0.1 * rng.standard_normal(n)
    out.append(
        BenchCase(
            label="KORS d=3 drifting (bs=64 vs block_size=1)",
            make_fast=lambda: NystromAWV(Gaussian(1.0), gamma=0.99, block_size=64),
            make_reference=lambda: NystromAWV(Gaussian(1.0), gamma=0.99, block_size=1),
            X=X,
            y=y,
            reference_rounds=n,
            reference_is_learner=True,
        )
    )
    return out
