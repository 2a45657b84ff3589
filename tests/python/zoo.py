"""Every learner the core registers (``_core.registry()``), as its face's small example,
and other configurations of them: the shared battery in ``test_protocol.py`` runs all
protocol and bad-input checks on each entry. A registered learner is here without a
line of its own."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Callable

import kernelstream as ks
import numpy as np
from kernelstream.kernels import Gaussian, Laplacian
from kernelstream.learners import _registry as registry

# A fixed Nystrom dictionary of 12 points in [-1, 1]^3 (for the NystromAWV-fixed entry).
_FIXED_DICT = np.random.default_rng(42).uniform(-1.0, 1.0, size=(12, 3))


@dataclass
class ZooEntry:
    factory: Callable
    task: str = "regression"  # or "classification" (labels -1/+1)
    d: int = 3
    domain: tuple = (-1.0, 1.0)  # inputs are drawn uniformly in domain^d
    randomized: bool = False  # has a seed: same seed must give the same run


def _registered(name: str) -> ZooEntry:
    """A registered learner's entry: its face's small example, on rows of the face's
    width in the learner's input box; the task (a learner of both tasks runs here as a
    regressor) and whether it has a seed from the core's table."""
    e = registry.entry(name)
    return ZooEntry(
        functools.partial(registry.example, name),
        task="classification" if e["task"] == "classification" else "regression",
        d=registry.face(name)._example_d,
        domain=registry.input_box(name),
        randomized=any(p["name"] == "seed" for p in e["params"]),
    )


# Other configurations of the learners (losses, rules, options), beside each learner's
# example.
VARIANTS: dict[str, ZooEntry] = {
    "TaylorAWV-ridge": ZooEntry(lambda: ks.TaylorAWV(sigma=0.8, degree=2, lam=1.0, ridge=True)),
    "TaylorAWV-discounted": ZooEntry(lambda: ks.TaylorAWV(sigma=1.0, degree=3, gamma=0.95)),
    "RFFAWV-discounted": ZooEntry(
        lambda: ks.RFFAWV(Gaussian(0.7), n_features=12, gamma=0.9, seed=3),
        randomized=True,
    ),
    # -- kernel AWV and its Nystrom approximation (PKAWV paper) --
    "KernelAWV-ridge": ZooEntry(
        lambda: ks.KernelAWV(Laplacian(1.5), lam=1.0, ridge=True, max_size=5000)
    ),
    "NystromAWV-inverse-ridge": ZooEntry(
        lambda: ks.NystromAWV(Gaussian(1.0), kors_weights="inverse", beta=3.0, ridge=True, seed=1),
        randomized=True,
    ),
    "NystromAWV-fixed": ZooEntry(
        lambda: ks.NystromAWV(Gaussian(1.0), lam=1.0, dictionary=_FIXED_DICT)
    ),
    "NystromAWV-discounted": ZooEntry(
        lambda: ks.NystromAWV(Gaussian(1.0), lam=0.5, dictionary=_FIXED_DICT, gamma=0.95)
    ),
    "NystromAWV-KORS-discounted": ZooEntry(
        lambda: ks.NystromAWV(Gaussian(1.0), lam=0.5, gamma=0.95, seed=2), randomized=True
    ),
    # -- PROS-N-KONS, FOGD, NOGD --
    "CON-KONS": ZooEntry(
        lambda: ks.ProsNKons(Gaussian(0.7), gamma=0.05, on_growth="continue", seed=5),
        randomized=True,
    ),
    "B-KONS-hinge": ZooEntry(
        lambda: ks.ProsNKons(Gaussian(0.7), alpha=0.1, gamma=0.05, loss="hinge", budget=6, seed=6),
        task="classification",
        randomized=True,
    ),
    "ProsNKons-next-round-logistic": ZooEntry(
        lambda: ks.ProsNKons(
            Gaussian(0.7), gamma=0.05, loss="logistic", reset_timing="next_round", seed=7
        ),
        task="classification",
        randomized=True,
    ),
    "FOGD-hinge": ZooEntry(
        lambda: ks.FOGD(Gaussian(0.8), n_features=20, lr=0.3, loss="hinge", seed=3),
        task="classification",
        randomized=True,
    ),
    "NOGD-squared-hinge": ZooEntry(
        lambda: ks.NOGD(Gaussian(0.8), budget=10, lr=0.3, loss="squared_hinge"),
        task="classification",
    ),
    # -- random-feature and multi-kernel learners (VAW2 paper, Raker, OMKL-GF) --
    "RFFAWV-cossin-laplacian": ZooEntry(
        lambda: ks.RFFAWV(Laplacian(1.5), n_features=15, lam=0.5, features="cossin", seed=4),
        randomized=True,
    ),
    "RFFAWV-ridge": ZooEntry(
        lambda: ks.RFFAWV(Laplacian(0.9), n_features=12, features="cossin", ridge=True, seed=5),
        randomized=True,
    ),
    "MultiKernelAWV-drift": ZooEntry(
        lambda: ks.MultiKernelAWV(
            [Gaussian(0.5), Gaussian(1.5)],
            n_features=8,
            aggregator="boa",
            gamma=0.97,
            share=0.01,
            seed=2,
        ),
        randomized=True,
    ),
    "MultiKernelAWV-ridge": ZooEntry(
        lambda: ks.MultiKernelAWV(
            [Gaussian(0.5), Laplacian(2.0)], n_features=8, features="cossin", ridge=True, seed=6
        ),
        randomized=True,
    ),
    "MultiKernelAWV-trunc": ZooEntry(
        lambda: ks.MultiKernelAWV(
            [Gaussian(0.5), Laplacian(2.0)], n_features=8, clip=(-1, 1), seed=2
        ),
        randomized=True,
    ),
    "MultiKernelAWV-ewa": ZooEntry(
        lambda: ks.MultiKernelAWV(
            [Gaussian(0.5), Laplacian(2.0)], n_features=8, aggregator="ewa", clip=(-1, 1), seed=2
        ),
        randomized=True,
    ),
    "MultiKernelAWV-aa": ZooEntry(
        lambda: ks.MultiKernelAWV(
            [Gaussian(0.5), Laplacian(2.0)], n_features=8, aggregator="aa", clip=(-1, 1), seed=2
        ),
        randomized=True,
    ),
    "MultiKernelAWV-boa": ZooEntry(
        lambda: ks.MultiKernelAWV(
            [Gaussian(0.5), Laplacian(2.0)], n_features=8, aggregator="boa", clip=(-1, 1), seed=2
        ),
        randomized=True,
    ),
    "MultiKernelAWV-mlpoly": ZooEntry(
        lambda: ks.MultiKernelAWV(
            [Gaussian(0.5), Laplacian(2.0)], n_features=8, aggregator="mlpoly", clip=(-1, 1), seed=2
        ),
        randomized=True,
    ),
    "MultiKernelAWV-mlprod": ZooEntry(
        lambda: ks.MultiKernelAWV(
            [Gaussian(0.5), Laplacian(2.0)],
            n_features=8,
            aggregator="mlprod",
            clip=(-1, 1),
            gradient=False,
            seed=2,
        ),
        randomized=True,
    ),
    # -- online projection estimator, averaged kernel SGD --
    "OnlineProjection-tensor": ZooEntry(
        lambda: ks.OnlineProjection(basis="trig", alpha=1.5, c=0.3, prefix="linear"),
        d=2,
        domain=(0.0, 1.0),
    ),
    "OnlineProjection-additive": ZooEntry(
        lambda: ks.OnlineProjection(
            basis="trig", alpha=2.0, c=0.2, prefix="quadratic", additive=True, count="pair"
        ),
        d=3,
        domain=(0.0, 1.0),
    ),
    "OnlineProjection-gaussian": ZooEntry(
        lambda: ks.OnlineProjection(basis="gaussian", alpha=1.0, c=1.0, a=1.0, eps=0.5),
        d=1,
        domain=(-1.0, 1.0),
    ),
    # -- Mixture, AutoKernel --
    "Mixture-vaw-threads": ZooEntry(
        lambda: ks.Mixture(
            [ks.TaylorAWV(sigma=0.5, degree=2), ks.NystromAWV(Gaussian(1.0), seed=1)],
            rule="vaw",
            lam=2.0,
            threads=2,
        ),
        randomized=True,
    ),
    # 35 Taylor features per expert: single rounds, so that the protocol's batch ==
    # round loop holds bit for bit (blocks of rounds agree up to rounding:
    # tests/mixture.rs).
    "AutoKernel-previous-defaults": ZooEntry(
        lambda: ks.AutoKernel(
            warmup=20,
            lams=(0.1, 1.0),
            max_taylor_features=35,
            discounts=(),
            linear=False,
            share=0.0,
            loss_window=0,
            fogd_widths=(),
        ),  # fmt: skip
        randomized=True,
    ),
    "AutoKernel-mlprod-window": ZooEntry(
        lambda: ks.AutoKernel(
            warmup=20,
            widths=(0.5, 2.0),
            max_taylor_features=35,
            rule="mlprod",
            discounts=(0.9,),
            share=0.01,
            loss_window=7,
        ),  # fmt: skip
        randomized=True,
    ),
    "AutoKernel-rff-mlpoly": ZooEntry(
        lambda: ks.AutoKernel(
            warmup=25, widths=(0.5, 2.0), features="rff", n_features=8, rule="mlpoly", seed=4
        ),
        randomized=True,
    ),
    # -- Conformal intervals around a regressor (normalised by its std, or not) --
    "Conformal": ZooEntry(lambda: ks.Conformal(ks.TaylorAWV(sigma=1.0, degree=3), window=30)),
    "Conformal-plain-rff": ZooEntry(
        lambda: ks.Conformal(
            ks.RFFAWV(Gaussian(0.7), n_features=12, seed=2), alpha=0.2, normalize=False
        ),
        randomized=True,
    ),
    "Conformal-AutoKernel": ZooEntry(
        lambda: ks.Conformal(ks.AutoKernel(warmup=20, lams=(0.1, 1.0), max_taylor_features=35)),
        randomized=True,
    ),
}

ZOO: dict[str, ZooEntry] = {name: _registered(name) for name in registry.names()} | VARIANTS


# Every aggregation rule with small parameters (test_vaw2.py pairs each with its NumPy reference).
AGGREGATORS: dict[str, Callable[[int], object]] = {
    "vaw": lambda n: ks.aggregation.VAWMeta(n, lam=0.7),
    "vaw-ridge": lambda n: ks.aggregation.VAWMeta(n, lam=0.7, ridge=True),
    "ewa": lambda n: ks.aggregation.EWA(n, eta=0.5),
    "aa": lambda n: ks.aggregation.AggregatingAlgorithm(n, 0.0, 1.0),
    "boa": lambda n: ks.aggregation.BOA(n),
    "boa-loss": lambda n: ks.aggregation.BOA(n, gradient=False),
    "mlpoly": lambda n: ks.aggregation.MLPoly(n),
    "mlpoly-loss": lambda n: ks.aggregation.MLPoly(n, gradient=False),
    "mlprod": lambda n: ks.aggregation.MLProd(n),
    "mlprod-loss": lambda n: ks.aggregation.MLProd(n, gradient=False),
}

# Representative learners for the peers' estimator checks (test_adapter_checks.py and
# tools/count_adapter_checks.py): name -> (learner factory, the adapters' `scale`, None
# for the adapters' default, which scales). Bandwidths of the unscaled entries suit the
# checks' data (standardized inputs, 10 features for regression, 2 for classification);
# the "defaults" entries are the default adapters around the learner's defaults.
ADAPTER_REGRESSION: dict[str, tuple] = {
    "TaylorAWV-defaults": (ks.TaylorAWV, None),
    "TaylorAWV": (lambda: ks.TaylorAWV(sigma=3.0, degree=2), False),
    "NystromAWV": (lambda: ks.NystromAWV(Gaussian(3.0), seed=1), False),
    "RFFAWV": (lambda: ks.RFFAWV(Gaussian(3.0), n_features=30, seed=1), False),
    "MultiKernelAWV": (
        lambda: ks.MultiKernelAWV(
            [Gaussian(2.0), Gaussian(4.0), Laplacian(8.0)], n_features=20, seed=1
        ),
        False,
    ),
    "Mixture": (
        lambda: ks.Mixture(
            [ks.TaylorAWV(sigma=3.0, degree=2), ks.RFFAWV(Gaussian(3.0), n_features=30, seed=1)]
        ),
        False,
    ),
    # No scaling: AutoKernel takes its scale from the stream.
    "AutoKernel-defaults": (ks.AutoKernel, False),
}
ADAPTER_CLASSIFICATION: dict[str, tuple] = {
    "TaylorAWV-defaults": (ks.TaylorAWV, None),
    "TaylorAWV": (lambda: ks.TaylorAWV(sigma=3.0, degree=2), False),
    # CON-KONS: PROS-N-KONS restarts at every dictionary growth, and on the 200 blobs of
    # check_classifiers_train its last restart comes at round 198, so the final model has
    # seen two labels (training accuracy 0.5, below the check's 0.83).
    "CON-KONS-logistic": (
        lambda: ks.ProsNKons(
            Gaussian(1.0), loss="logistic", gamma=1.0, on_growth="continue", seed=1
        ),
        False,
    ),
    "FOGD-hinge": (
        lambda: ks.FOGD(Gaussian(3.0), n_features=30, lr=0.3, loss="hinge", seed=1),
        False,
    ),
    "AutoKernel-defaults": (ks.AutoKernel, False),
}
