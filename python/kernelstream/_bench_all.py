"""Every ``kernelstream bench`` case (one function per learner family), listed in ``CASES``."""

import numpy as np

from ._benchcase import BenchCase


def _uniform_stream(n, d, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, size=(n, d))
    y = np.sin(2 * X[:, 0]) + 0.1 * rng.standard_normal(n)
    return X, y


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
                make_reference=lambda m=m: TaylorAWVReference(
                    sigma=1.0, degree=m, features="monomial", solver="sherman-morrison"
                ),
                X=X,
                y=y,
                reference_rounds=300,
                flops_per_round=_awv_flops,
            )
        )
    return out


def _awv_flops(r):
    """One AWV round: a symmetric mat-vec (2 r^2) and a rank-one update (r^2)."""
    return 3.0 * r * r


def _taylor_blocked(quick):
    """TaylorAWV ``block_size=None`` (blocks of rounds) against ``block_size=1``."""
    from . import TaylorAWV

    out = []
    # (d, M): r = C(M+d, d) = 190, 495, 1001, 2300
    settings = [(18, 2, 20000), (8, 4, 8000), (10, 4, 4000), (22, 3, 1500)]
    if quick:
        settings = [(18, 2, 2000), (8, 4, 1000)]
    for d, m, n in settings:
        X, y = _uniform_stream(n, d)
        out.append(
            BenchCase(
                label=f"d={d} M={m} (vs block_size=1)",
                make_fast=lambda m=m: TaylorAWV(sigma=1.0, degree=m),
                make_reference=lambda m=m: TaylorAWV(sigma=1.0, degree=m, block_size=1),
                X=X,
                y=y,
                reference_rounds=n,
                flops_per_round=_awv_flops,
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


def _multi_output(quick):
    """TaylorAWV with K = 10 outputs against K = 1 on the same rows (the outputs share
    ``A^-1``: one mat-vec plus K dot products per round), timed alternately in one run;
    the printed cost ratio K=10 / K=1 is the figure (target <= 1.5 at r >= 200)."""
    from . import TaylorAWV

    out = []
    # (d, M, block_size): r = C(M+d, d) = 210, 210, 495
    settings = [(19, 2, None, 6000), (19, 2, 1, 6000), (8, 4, None, 2000)]
    if quick:
        settings = [(19, 2, None, 1500), (19, 2, 1, 1500)]
    k = 10
    for d, m, bs, n in settings:
        X, y = _uniform_stream(n, d)
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
    from . import NystromAWV
    from .kernels import Gaussian

    out = []
    d = 8
    for m, n in settings:
        X, y = _uniform_stream(n, d)
        D, _ = _uniform_stream(m, d, seed=1)
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


def _nystrom_blocked(quick):
    """NystromAWV on a fixed dictionary of m points, ``block_size=None`` (blocks of
    rounds: one pass over the Cholesky factor per block) against ``block_size=1``."""
    if quick:
        return _fixed_dictionary_cases([(200, 2000), (500, 600)])
    return _fixed_dictionary_cases([(200, 20000), (500, 4000), (1000, 1500)])


def _nystrom_discounted_blocked(quick):
    """Discounted NystromAWV (``gamma=0.99``), blocks of discounted rounds (two plain rows
    per round, docs/choices.md "Discounted AWV") against ``block_size=1``: a fixed
    dictionary of m points (``block_size=None``), and a KORS dictionary grown on inputs
    whose centre drifts (blocks of 64 between insertions)."""
    from . import NystromAWV
    from .kernels import Gaussian

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


# -- KernelAWV, NystromAWV, KORS ----------------------------------------------------


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


def _kernel_awv(quick):
    from . import KernelAWV
    from .kernels import Gaussian
    from .reference import KernelAWVReference

    out = []
    for t in [1000] if quick else [1000, 2000]:
        X, y = _uniform_stream(t + 200, 8, seed=1)
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


def _nystrom_awv(quick):
    from . import NystromAWV
    from .kernels import Gaussian
    from .reference import NystromAWVReference

    out = []
    for d in [3] if quick else [3, 5]:
        warm = 1000 if quick else 3000
        X, y = _uniform_stream(warm + 300, d, seed=2)
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


def _kors(quick):
    from .kernels import Gaussian
    from .reference import KORSReference
    from .samplers import KORS

    warm = 1000 if quick else 3000
    X, y = _uniform_stream(warm + 300, 5, seed=3)
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


def _bounded_stream(n, d, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, size=(n, d)) / np.sqrt(d)
    y = np.clip(0.5 + 0.4 * np.sin(3 * X[:, 0]) + 0.1 * rng.standard_normal(n), 0, 1)
    return X, y


def _rff_awv(quick):
    from . import RFFAWV
    from .kernels import Gaussian
    from .reference import RFFAWVReference

    n = 2000 if quick else 20000
    X, y = _bounded_stream(n, 5)
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


def _multi_kernel(quick):
    from . import MultiKernelAWV
    from .kernels import vaw2_grid
    from .reference import MultiKernelAWVReference

    grid = vaw2_grid()
    n = 500 if quick else 5000
    X, y = _bounded_stream(n, 5, 1)
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


def _multi_kernel_blocked(quick):
    """MultiKernelAWV: blocks of rounds (``block_size=None``) against ``block_size=1``,
    and its experts on 2 threads against 1 (same run, same results)."""
    from . import MultiKernelAWV
    from .kernels import vaw2_grid

    grid = vaw2_grid()
    # (kernels, m, rounds): the paper's 76 kernels, and every 4th with more features
    settings = [(grid, 200, 1000), (grid[::4], 400, 1000)]
    if quick:
        settings = [(grid[::8], 100, 300)]
    out = []
    for kernels, m, n in settings:
        X, y = _bounded_stream(n, 5, 2)
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


def _aggregators(quick):
    from . import aggregation as agg
    from .reference import (
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


# -- PROS-N-KONS, FOGD, NOGD ------------------------------------------------------------
def _pros_n_kons(quick):
    from . import ProsNKons
    from .kernels import Gaussian
    from .reference import ProsNKonsReference

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


# -- Mixture, AutoKernel ------------------------------------------------------------------


class _MixtureReference:
    """A mixture written out in Python: the experts' NumPy references, each asked for its
    prediction, then the rule's NumPy reference (the scheme of ``Mixture``, round by round).
    ``scale``: ``(x_loc, x_scale, y_loc, y_scale)`` applied around it (AutoKernel's)."""

    def __init__(self, experts, rule, scale=None):
        self.experts, self.rule, self.scale = experts, rule, scale
        self._z = None  # the experts' predictions of the round under way

    def _x(self, x):
        return x if self.scale is None else (x - self.scale[0]) / self.scale[1]

    def predict_one(self, x):
        xs = self._x(np.asarray(x, dtype=float))
        self._z = np.array([e.predict_one(xs) for e in self.experts])
        p = self.rule.predict(self._z)
        return p if self.scale is None else self.scale[2] + self.scale[3] * p

    def learn_one(self, x, y):
        xs = self._x(np.asarray(x, dtype=float))
        if self._z is None:  # a round without a prediction (a replayed warm-up row)
            self._z = np.array([e.predict_one(xs) for e in self.experts])
        if self.scale is not None:
            y = (y - self.scale[2]) / self.scale[3]
        for e in self.experts:
            e.learn_one(xs, y)
        self.rule.update(self._z, y)
        self._z = None


class _NystromFixedReplica:
    """PKAWV on a fixed Nystrom dictionary in NumPy (PKAWV paper sec. 3.2): the inverse of
    ``A = lam K_DD + sum_s k_D(x_s) k_D(x_s)^T`` kept by Sherman-Morrison, ``O(m^2)`` a round."""

    def __init__(self, sigma, lam, dictionary):
        self.D, self.s2 = np.asarray(dictionary, dtype=float), 2.0 * sigma * sigma
        sq = ((self.D[:, None, :] - self.D[None, :, :]) ** 2).sum(-1)
        self.Ainv = np.linalg.pinv(lam * np.exp(-sq / self.s2))
        self.q = np.zeros(len(self.D))

    def _k(self, x):
        return np.exp(-((self.D - x) ** 2).sum(1) / self.s2)

    def predict_one(self, x):
        k = self._k(x)
        w = self.Ainv @ k
        return float(w @ self.q / (1.0 + k @ w))

    def learn_one(self, x, y):
        k = self._k(x)
        w = self.Ainv @ k
        self.Ainv -= np.outer(w, w) / (1.0 + k @ w)
        self.q += y * k


def _mixture(quick):
    """Mixture (experts and rule in Rust, blocks of rows) against the same experts and rule
    as NumPy references in a Python loop; AutoKernel with the stationary grid (d = 5:
    twelve Taylor and four Nystrom experts, BOA) after its warm-up against the NumPy
    replica of its fitted mixture."""
    from . import AutoKernel, Mixture, TaylorAWV
    from .reference import BOAReference, TaylorAWVReference

    n = 2000 if quick else 20000
    X, y = _uniform_stream(n, 5, seed=4)
    sigmas = (0.5, 1.0, 2.0, 4.0)

    def taylor_ref(sigma, degree, lam):
        return TaylorAWVReference(
            sigma=sigma, degree=degree, lam=lam, features="monomial", solver="sherman-morrison"
        )

    # The stationary grid (no drift experts, restarts or relative regrets): the
    # replica has Taylor and Nystrom experts under BOA only.
    grid = dict(discounts=(), linear=False, share=0.0, loss_window=0, restarts=False)
    grid.update(fogd_widths=(), laplace_widths=())

    def autokernel():
        return AutoKernel(**grid)

    def autokernel_replica():
        # The fitted experts and scale of an AutoKernel that has seen the warm-up; the
        # bench runner then replays the warm-up rows through the replica (learn_one),
        # as AutoKernel replays them through its experts.
        ak = autokernel()
        warm = ak.get_params()["warmup"]
        ak.learn_many(X[:warm], y[:warm])
        sc = ak.scale
        dictionary = (X[:warm] - sc["x_loc"]) / sc["x_scale"]
        experts = [
            taylor_ref(e["sigma"], int(e["features"].split("-")[1]), e["lam"])
            if e["features"].startswith("taylor")
            else _NystromFixedReplica(e["sigma"], e["lam"], dictionary)
            for e in ak.experts
        ]
        ref = _MixtureReference(
            experts,
            BOAReference(len(experts)),
            scale=(sc["x_loc"], sc["x_scale"], sc["y_loc"], sc["y_scale"]),
        )
        return ref

    return [
        BenchCase(
            label="N=4 Taylor M=3 d=5 boa",
            make_fast=lambda: Mixture([TaylorAWV(sigma=s, degree=3) for s in sigmas]),
            make_reference=lambda: _MixtureReference(
                [taylor_ref(s, 3, 1.0) for s in sigmas], BOAReference(len(sigmas))
            ),
            X=X,
            y=y,
            reference_rounds=300,
        ),
        BenchCase(
            label="AutoKernel d=5 (16 experts)",
            make_fast=autokernel,
            make_reference=autokernel_replica,
            X=X,
            y=y,
            reference_rounds=100,
            warmup=autokernel().get_params()["warmup"],
        ),
    ]


# -- the serving path ----------------------------------------------------------------------


def _serve(quick):
    """The serving path (a Python loop of ``predict_one`` then ``learn_one``, in the
    ``reference`` column) against ``progressive_predict`` of the same learner on the same
    rows (Friedman #1, d = 10), in alternating chunks; the last column is their rate ratio
    (serving / progressive). TaylorAWV and NystromAWV with single rounds
    (``block_size=1``), RFFAWV and AutoKernel with their defaults (AutoKernel on one
    thread: the times are CPU times)."""
    from . import RFFAWV, AutoKernel, NystromAWV, TaylorAWV
    from .datasets.synthetic import friedman_stream
    from .kernels import Gaussian

    n = 3000 if quick else 20000
    X, y = friedman_stream(n, d=10, seed=0)
    X = np.ascontiguousarray(X)
    rounds = n // 2
    warm = AutoKernel().get_params()["warmup"]
    nys_warm = 1000 if quick else 2000

    def case(label, make, warmup=0, reference_rounds=rounds):
        return BenchCase(
            label=label,
            make_fast=make,
            make_reference=make,
            X=X if not warmup else X[: warmup + reference_rounds],
            y=y if not warmup else y[: warmup + reference_rounds],
            reference_rounds=reference_rounds,
            warmup=warmup,
            serve=True,
        )

    return [
        case("TaylorAWV M=3 bs=1", lambda: TaylorAWV(sigma=2.0, degree=3, block_size=1)),
        case("TaylorAWV M=2 bs=1", lambda: TaylorAWV(sigma=2.0, degree=2, block_size=1)),
        case("RFFAWV m=100 cossin", lambda: RFFAWV(Gaussian(2.0), n_features=100, seed=0)),
        case(
            "NystromAWV KORS bs=1",
            lambda: NystromAWV(Gaussian(2.0), seed=0, block_size=1),
            warmup=nys_warm,
            reference_rounds=1000 if quick else 2000,
        ),
        case(
            "AutoKernel(threads=1)",
            lambda: AutoKernel(threads=1),
            warmup=warm,
            reference_rounds=rounds - warm,
        ),
        *_serve_adapters(X, y, rounds),
    ]


def _serve_adapters(X, y, rounds):
    """The serving loops of the adapters (defaults: ``scale=True``) around TaylorAWV M=3
    against the learner's own ``progressive_predict``: river's ``predict_one`` then
    ``learn_one`` on dicts (built before timing), scikit-learn's ``predict`` then
    ``partial_fit`` of one-row arrays."""
    from . import TaylorAWV

    try:
        from .adapters import RiverRegressor, SklearnRegressor
    except ImportError:  # scikit-learn absent: no adapter rows
        return []
    dicts = [{f"x{j}": float(v) for j, v in enumerate(x)} for x in X]

    def river_loop(model, Xc, yc, start):
        for i, yt in enumerate(yc):
            model.predict_one(dicts[start + i])
            model.learn_one(dicts[start + i], float(yt))

    def sklearn_loop(model, Xc, yc, start):
        for i in range(len(yc)):
            model.predict(Xc[i : i + 1])
            model.partial_fit(Xc[i : i + 1], yc[i : i + 1])

    def taylor():
        return TaylorAWV(sigma=2.0, degree=3, block_size=1)

    def sklearn_model():  # fitted on one row (predict needs a fitted estimator)
        return SklearnRegressor(taylor()).partial_fit(X[:1], y[:1])

    common = dict(make_fast=taylor, X=X, y=y, reference_rounds=rounds, serve=True)
    return [
        BenchCase(
            label="RiverRegressor(Taylor M=3)",
            make_reference=lambda: RiverRegressor(taylor()),
            serve_loop=river_loop,
            **common,
        ),
        BenchCase(
            label="SklearnRegressor(Taylor M=3)",
            make_reference=sklearn_model,
            serve_loop=sklearn_loop,
            **common,
        ),
    ]


# Every case by name (the order of `kernelstream bench`).
CASES = {
    "taylor-awv": _taylor,
    "taylor-blocked": _taylor_blocked,
    "kernel-awv": _kernel_awv,
    "nystrom-awv": _nystrom_awv,
    "nystrom-blocked": _nystrom_blocked,
    "nystrom-discounted-blocked": _nystrom_discounted_blocked,
    "multi-output": _multi_output,
    "kors": _kors,
    "rff-awv": _rff_awv,
    "multi-kernel-awv": _multi_kernel,
    "multi-kernel-blocked": _multi_kernel_blocked,
    "aggregators": _aggregators,
    "pros-n-kons": _pros_n_kons,
    "fogd-nogd": _fogd_nogd,
    "projection": _projection,
    "averaged-sgd": _averaged_sgd,
    "mixture": _mixture,
    "serve": _serve,
}
