"""The ``kernelstream bench`` cases of the kernel learners against their NumPy references:
KernelAWV, NystromAWV, KORS, RFFAWV, MultiKernelAWV (and its blocks and threads), and the
aggregation rules."""

import numpy as np

from .case import BenchCase, bounded_stream, uniform_stream


class _RoundAdapter:
    """Runs a whole round of a reference in ``learn_one`` (``predict_one`` only records
    ``x``): for references that, like the paper's code, predict and learn in one pass."""

    def __init__(self, ref):
        self.ref = ref

    def predict_one(self, x):
        return None

    def learn_one(self, x, y):
        self.ref.progressive_predict(np.asarray(x)[None, :], np.array([y]))


class _KorsAsLearner:
    """KORS seen by the bench runner: a "round" is one ``step``; ``dim`` is the size."""

    def __init__(self, kors, reference=False):
        self.kors, self.reference = kors, reference

    def progressive_predict(self, X, y):
        return self.kors.step_many(X)

    def learn_many(self, X, y):
        self.kors.step_many(X)

    def predict_one(self, x):
        return None

    def learn_one(self, x, y):
        self.kors.step(x)

    @property
    def dim(self):
        return self.kors.size


def kernel_awv(quick):
    from kernelstream import KernelAWV
    from kernelstream.kernels import Gaussian
    from kernelstream.reference import KernelAWVReference

    out = []
    for t in [1000] if quick else [1000, 2000]:
        X, y = uniform_stream(t + 200, 8, seed=1)
        out.append(
            BenchCase(
                label=f"t={t} d=8 (NumPy bordered inv)",
                make_fast=lambda: KernelAWV(Gaussian(1.0), lam=1.0, ridge=True),
                make_reference=lambda: KernelAWVReference(
                    Gaussian(1.0), lam=1.0, ridge=True, solver="bordered"
                ),
                X=X,
                y=y,
                reference_rounds=200,
                warmup=t,
            )
        )
    return out


def nystrom_awv(quick):
    from kernelstream import NystromAWV
    from kernelstream.kernels import Gaussian
    from kernelstream.reference import NystromAWVReference

    out = []
    for d in [3] if quick else [3, 5]:
        warm = 1000 if quick else 3000
        X, y = uniform_stream(warm + 300, d, seed=2)
        out.append(
            BenchCase(
                label=f"d={d} t={warm} (NumPy incremental)",
                make_fast=lambda: NystromAWV(Gaussian(1.0), lam=1.0, seed=0),
                make_reference=lambda: _RoundAdapter(
                    NystromAWVReference(Gaussian(1.0), lam=1.0, seed=0, solver="incremental")
                ),
                X=X,
                y=y,
                reference_rounds=300,
                warmup=warm,
            )
        )
    return out


def kors(quick):
    from kernelstream.kernels import Gaussian
    from kernelstream.reference import KORSReference
    from kernelstream.samplers import KORS

    warm = 1000 if quick else 3000
    X, y = uniform_stream(warm + 300, 5, seed=3)
    return [
        BenchCase(
            label=f"d=5 t={warm} (NumPy Eq. 6)",
            make_fast=lambda: _KorsAsLearner(KORS(Gaussian(1.0), seed=0)),
            make_reference=lambda: _KorsAsLearner(
                KORSReference(Gaussian(1.0), seed=0), reference=True
            ),
            X=X,
            y=y,
            reference_rounds=100,
            warmup=warm,
        )
    ]


def rff_awv(quick):
    from kernelstream import RFFAWV
    from kernelstream.kernels import Gaussian
    from kernelstream.reference import RFFAWVReference

    n = 2000 if quick else 20000
    X, y = bounded_stream(n, 5)
    return [
        BenchCase(
            label=f"m={m} d=5 {f}",
            make_fast=lambda m=m, f=f: RFFAWV(Gaussian(1.0), n_features=m, features=f),
            make_reference=lambda m=m, f=f: RFFAWVReference(
                Gaussian(1.0), n_features=m, features=f
            ),
            X=X,
            y=y,
            reference_rounds=200,
        )
        for m, f in ([(50, "cos")] if quick else [(50, "cos"), (50, "cossin"), (200, "cos")])
    ]


def multi_kernel(quick):
    from kernelstream import MultiKernelAWV
    from kernelstream.kernels import vaw2_grid
    from kernelstream.reference import MultiKernelAWVReference

    grid = vaw2_grid()
    n = 500 if quick else 5000
    X, y = bounded_stream(n, 5, 1)
    settings = [("vaw", None), ("mlprod", (0.0, 1.0))] if not quick else [("vaw", None)]
    return [
        BenchCase(
            label=f"76 kernels m=50 {a}",
            make_fast=lambda a=a, c=c: MultiKernelAWV(grid, n_features=50, aggregator=a, clip=c),
            make_reference=lambda a=a, c=c: MultiKernelAWVReference(
                grid, n_features=50, aggregator=a, clip=c
            ),
            X=X,
            y=y,
            reference_rounds=20 if quick else 50,
        )
        for a, c in settings
    ]


def multi_kernel_blocked(quick):
    """MultiKernelAWV: blocks of rounds (``block_size=None``) against ``block_size=1``,
    and its experts on 2 threads against 1 (same run, same results)."""
    from kernelstream import MultiKernelAWV
    from kernelstream.kernels import vaw2_grid

    grid = vaw2_grid()
    # (kernels, m, rounds): the paper's 76 kernels, and every 4th with more features
    settings = [(grid, 200, 1000), (grid[::4], 400, 1000)]
    if quick:
        settings = [(grid[::8], 100, 300)]
    out = []
    for kernels, m, n in settings:
        X, y = bounded_stream(n, 5, 2)
        runs = [
            ("block_size=None vs 1, 1 thread", dict(threads=1), dict(block_size=1, threads=1)),
            ("2 threads vs 1, block_size=None", dict(threads=2), dict(threads=1)),
            (
                "2 threads vs 1, block_size=1",
                dict(block_size=1, threads=2),
                dict(block_size=1, threads=1),
            ),
            (
                "block_size=None 2 threads vs 1 1 thread",
                dict(threads=2),
                dict(block_size=1, threads=1),
            ),
        ]
        for what, fast, ref in runs:
            out.append(
                BenchCase(
                    label=f"{len(kernels)} kernels m={m}: {what}",
                    make_fast=lambda k=kernels, m=m, f=fast: MultiKernelAWV(k, n_features=m, **f),
                    make_reference=lambda k=kernels, m=m, r=ref: MultiKernelAWV(
                        k, n_features=m, **r
                    ),
                    X=X,
                    y=y,
                    reference_is_learner=True,
                )
            )
    return out


class _AggAsLearner:
    """Adapts an aggregator to the bench protocol (rows of X are expert predictions)."""

    def __init__(self, agg):
        self.agg = agg
        self.dim = agg.n_experts if hasattr(agg, "n_experts") else 0

    def progressive_predict(self, Z, y):
        return self.agg.progressive_predict(Z, y)

    def learn_many(self, Z, y):
        for z, t in zip(Z, y):
            self.agg.update(z, t)

    def predict_one(self, z):
        return self.agg.predict(z)

    def learn_one(self, z, y):
        self.agg.update(z, y)


def aggregators(quick):
    from kernelstream import aggregation as agg
    from kernelstream.reference import (
        AAReference,
        BOAReference,
        EWAReference,
        MLPolyReference,
        MLProdReference,
        VAWMetaReference,
    )

    n, k = (2000 if quick else 20000), 76
    rng = np.random.default_rng(2)
    y = rng.uniform(0, 1, n)
    Z = np.clip(y[:, None] + 0.2 * rng.standard_normal((n, k)), 0, 1)
    rules = [
        ("vaw", agg.VAWMeta, VAWMetaReference, ()),
        ("ewa", agg.EWA, EWAReference, (0.5,)),
        ("aa", agg.AggregatingAlgorithm, AAReference, (0.0, 1.0)),
        ("boa", agg.BOA, BOAReference, ()),
        ("mlpoly", agg.MLPoly, MLPolyReference, ()),
        ("mlprod", agg.MLProd, MLProdReference, ()),
    ]
    return [
        BenchCase(
            label=f"N=76 {name}",
            make_fast=lambda c=cls, a=args: _AggAsLearner(c(k, *a)),
            make_reference=lambda r=ref, a=args: _AggAsLearner(r(k, *a)),
            X=Z,
            y=y,
            reference_rounds=300,
        )
        for name, cls, ref, args in rules
    ]
