"""Every learner class with small parameters: the shared battery in
``test_protocol.py`` runs all protocol and bad-input checks on each entry.
Adding a learner = adding one line here."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import kernelstream as ks
from kernelstream.kernels import Gaussian


@dataclass
class ZooEntry:
    factory: Callable
    task: str = "regression"  # or "classification" (labels -1/+1)
    d: int = 3
    domain: tuple = (-1.0, 1.0)  # inputs are drawn uniformly in domain^d
    randomized: bool = False  # has a seed: same seed must give the same run


ZOO: dict[str, ZooEntry] = {
    "TaylorAWV": ZooEntry(lambda: ks.TaylorAWV(sigma=1.0, degree=3, lam=0.5)),
    "TaylorAWV-ridge": ZooEntry(lambda: ks.TaylorAWV(sigma=0.8, degree=2, lam=1.0, ridge=True)),
    # -- issue 3 --
    # -- issue 4 --
    # -- issue 5 --
    # -- issue 6 --
    "OnlineProjection": ZooEntry(lambda: ks.OnlineProjection(basis="sine", alpha=1.0, c=0.5), d=1, domain=(0.0, 1.0)),
    "OnlineProjection-tensor": ZooEntry(lambda: ks.OnlineProjection(basis="trig", alpha=1.5, c=0.3, prefix="linear"),
                                        d=2, domain=(0.0, 1.0)),
    "OnlineProjection-additive": ZooEntry(
        lambda: ks.OnlineProjection(basis="trig", alpha=2.0, c=0.2, prefix="quadratic", additive=True, count="pair"),
        d=3, domain=(0.0, 1.0)),
    "OnlineProjection-gaussian": ZooEntry(lambda: ks.OnlineProjection(basis="gaussian", alpha=1.0, c=1.0, a=1.0, eps=0.5),
                                          d=1, domain=(-1.0, 1.0)),
    "AveragedKernelSGD": ZooEntry(lambda: ks.AveragedKernelSGD(ks.kernels.Min(), gamma0=2.0), d=2, domain=(0.0, 1.0)),
}
