"""NumPy reference for MultiKernelAWV (VAW2 paper sec. 3-4),
and for the Raker baseline (as the VAW2 paper describes it), from their definitions.

Features are drawn kernel after kernel from one ``kernelstream._core.Rng(seed)`` in the
documented order (:func:`kernelstream.reference.rff_awv.draw_rff`), so that the reference
and the Rust learner use the same features."""

from __future__ import annotations

import numpy as np

from .. import _core
from .aggregation import (
    AAReference,
    BOAReference,
    EWAReference,
    MLPolyReference,
    MLProdReference,
    VAWMetaReference,
)
from .rff_awv import VAWReference, draw_rff, rff_map


class MultiKernelAWVReference:
    def __init__(
        self,
        kernels,
        n_features=50,
        lam=1.0,
        aggregator="vaw",
        clip=None,
        eta=0.5,
        gradient=True,
        features="cos",
        seed=0,
        ridge=False,
        meta_ridge=None,
    ):
        self.kernels, self.m, self.lam, self.ridge = list(kernels), n_features, lam, ridge
        if meta_ridge is None:
            meta_ridge = ridge and aggregator == "vaw"
        self.aggregator, self.clip, self.features, self.seed = aggregator, clip, features, seed
        n = len(self.kernels)
        self.meta = {
            "vaw": lambda: VAWMetaReference(n, lam, meta_ridge),
            "ewa": lambda: EWAReference(n, eta),
            "aa": lambda: AAReference(n, *clip),
            "boa": lambda: BOAReference(n, gradient),
            "mlpoly": lambda: MLPolyReference(n, gradient),
            "mlprod": lambda: MLProdReference(n, gradient),
        }[aggregator]()
        self.maps = None

    def _init(self, d):
        if self.maps is None:
            rng = _core.Rng(self.seed)
            self.maps = [draw_rff(k, d, self.m, self.features, rng) for k in self.kernels]
            dim = self.m if self.features == "cos" else 2 * self.m
            self.experts = [VAWReference(dim, self.lam, self.ridge) for _ in self.kernels]

    def expert_predictions(self, x):
        if self.maps is None:
            return np.zeros(len(self.kernels))
        return np.array(
            [
                e.predict(rff_map(x, om, b, self.features))
                for e, (om, b) in zip(self.experts, self.maps)
            ]
        )

    def _meta_input(self, z):
        return z if self.clip is None else np.clip(z, *self.clip)

    def predict_one(self, x):
        return self.meta.predict(self._meta_input(self.expert_predictions(x)))

    def learn_one(self, x, y):
        self._init(len(x))
        z = self._meta_input(self.expert_predictions(x))
        for e, (om, b) in zip(self.experts, self.maps):
            e.update(rff_map(x, om, b, self.features), y)  # experts learn the raw label
        self.meta.update(z, y)

    @property
    def weights(self):
        return self.meta.weights


class RakerReference:
    """Raker as the VAW2 paper describes it (OGD experts on [cos, sin]/sqrt(m), exponential weights)."""

    def __init__(self, kernels, n_features=50, lr=0.1, reg=1e-3, seed=0):
        self.kernels, self.m, self.lr, self.reg, self.seed = (
            list(kernels),
            n_features,
            lr,
            reg,
            seed,
        )
        self.maps = None
        self.t = 0

    def _init(self, d):
        if self.maps is None:
            rng = _core.Rng(self.seed)
            self.maps = [draw_rff(k, d, self.m, "cossin", rng) for k in self.kernels]
            self.theta = np.zeros((len(self.kernels), 2 * self.m))
            self.L = np.zeros(len(self.kernels))  # sum_s eta_s l_{s,j}

    @property
    def weights(self):
        if self.maps is None:
            return np.full(len(self.kernels), 1.0 / len(self.kernels))
        w = np.exp(-(self.L - self.L.min()))
        return w / w.sum()

    def _f(self, x):
        return np.array(
            [th @ rff_map(x, om, b, "cossin") for th, (om, b) in zip(self.theta, self.maps)]
        )

    def predict_one(self, x):
        if self.maps is None:
            return 0.0
        return float(self.weights @ self._f(x))

    def learn_one(self, x, y):
        self._init(len(x))
        self.t += 1
        eta = self.lr / np.sqrt(self.t)
        for j, (om, b) in enumerate(self.maps):
            v = rff_map(x, om, b, "cossin")
            f = self.theta[j] @ v
            self.theta[j] = self.theta[j] - eta * (2 * (f - y) * v + 2 * self.reg * self.theta[j])
            self.L[j] += eta * ((f - y) ** 2 + self.reg * self.theta[j] @ self.theta[j])


__all__ = ["MultiKernelAWVReference", "RakerReference"]
