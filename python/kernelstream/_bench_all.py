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


# -- issue 3: KernelAWV, NystromAWV, KORS ---------------------------------------

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


@register_bench("kernel-awv")
def _kernel_awv(quick):
    from . import KernelAWV
    from .kernels import Gaussian
    from .reference import KernelAWVReference

    out = []
    for t in ([1000] if quick else [1000, 2000]):
        X, y = _uniform_stream(t + 200, 8, seed=1)
        out.append(BenchCase(
            label=f"t={t} d=8 (NumPy bordered inv)",
            make_fast=lambda: KernelAWV(Gaussian(1.0), lam=1.0, ridge=True),
            make_reference=lambda: KernelAWVReference(Gaussian(1.0), lam=1.0, ridge=True, solver="bordered"),
            X=X, y=y, reference_rounds=200, warmup=t,
        ))
    return out


@register_bench("nystrom-awv")
def _nystrom_awv(quick):
    from . import NystromAWV
    from .kernels import Gaussian
    from .reference import NystromAWVReference

    out = []
    for d in ([3] if quick else [3, 5]):
        warm = 1000 if quick else 3000
        X, y = _uniform_stream(warm + 300, d, seed=2)
        out.append(BenchCase(
            label=f"d={d} t={warm} (NumPy incremental)",
            make_fast=lambda: NystromAWV(Gaussian(1.0), lam=1.0, seed=0),
            make_reference=lambda: _RoundAdapter(NystromAWVReference(Gaussian(1.0), lam=1.0, seed=0,
                                                                     solver="incremental")),
            X=X, y=y, reference_rounds=300, warmup=warm,
        ))
    return out


@register_bench("kors")
def _kors(quick):
    from .kernels import Gaussian
    from .reference import KORSReference
    from .samplers import KORS

    warm = 1000 if quick else 3000
    X, y = _uniform_stream(warm + 300, 5, seed=3)
    return [BenchCase(
        label=f"d=5 t={warm} (NumPy Eq. 6)",
        make_fast=lambda: _KorsAsLearner(KORS(Gaussian(1.0), seed=0)),
        make_reference=lambda: _KorsAsLearner(KORSReference(Gaussian(1.0), seed=0), reference=True),
        X=X, y=y, reference_rounds=100, warmup=warm,
    )]
