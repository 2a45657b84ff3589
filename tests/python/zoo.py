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
    "ProsNKons": ZooEntry(lambda: ks.ProsNKons(Gaussian(0.7), gamma=0.05, seed=4), randomized=True),
    "CON-KONS": ZooEntry(lambda: ks.ProsNKons(Gaussian(0.7), gamma=0.05, on_growth="continue", seed=5), randomized=True),
    "B-KONS-hinge": ZooEntry(
        lambda: ks.ProsNKons(Gaussian(0.7), alpha=0.1, gamma=0.05, loss="hinge", budget=6, seed=6),
        task="classification", randomized=True),
    "ProsNKons-next-round-logistic": ZooEntry(
        lambda: ks.ProsNKons(Gaussian(0.7), gamma=0.05, loss="logistic", reset_timing="next_round", seed=7),
        task="classification", randomized=True),
    "FOGD": ZooEntry(lambda: ks.FOGD(Gaussian(0.8), n_features=20, lr=0.3, seed=2), randomized=True),
    "FOGD-hinge": ZooEntry(lambda: ks.FOGD(Gaussian(0.8), n_features=20, lr=0.3, loss="hinge", seed=3),
                           task="classification", randomized=True),
    "NOGD": ZooEntry(lambda: ks.NOGD(Gaussian(0.8), budget=10, rank=4, lr=0.3, epsilon=0.05)),
    "NOGD-squared-hinge": ZooEntry(lambda: ks.NOGD(Gaussian(0.8), budget=10, lr=0.3, loss="squared_hinge"),
                                   task="classification"),
    # -- issue 5 --
    # -- issue 6 --
}
