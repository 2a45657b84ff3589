"""NumPy references for the aggregation rules, written from their definitions
(VAW2 paper sec. 3-4; Cesa-Bianchi & Lugosi 2006 sec. 3.5-3.6 for EWA and the AA;
opera's BOA / MLpol / MLprod as in opera 1.2.0/1.2.1, see docs/choices.md), not from
the Rust code. Each has ``predict(z)``, ``update(z, y)`` and ``weights``."""

from __future__ import annotations

import numpy as np

from .._optional import require
from .rff_awv import VAWReference

logsumexp = require("scipy.special").logsumexp

OPERA_ETA0 = np.exp(700.0)


def _softmax(logits):
    logits = np.asarray(logits, dtype=float)
    if not np.any(np.isfinite(logits)) and np.all(logits == -np.inf):
        return np.full(len(logits), 1.0 / len(logits))
    return np.exp(logits - logsumexp(logits))


def _regrets(z, y, y_hat, gradient):
    z = np.asarray(z, dtype=float)
    if gradient:  # linearised square loss l(p) = 2 (y_hat - y) p
        return 2 * (y_hat - y) * (y_hat - z)
    return (y_hat - y) ** 2 - (z - y) ** 2


class VAWMetaReference:
    def __init__(self, n_experts, lam=1.0, ridge=False):
        self.vaw = VAWReference(n_experts, lam, ridge)

    def predict(self, z):
        return self.vaw.predict(z)

    def update(self, z, y):
        self.vaw.update(z, y)

    @property
    def weights(self):
        return self.vaw.weights()


class EWAReference:
    """``w_t prop exp(-eta L_{t-1})``, ``L`` the cumulative square losses."""

    def __init__(self, n_experts, eta=0.5):
        self.eta = eta
        self.L = np.zeros(n_experts)

    @property
    def weights(self):
        return _softmax(-self.eta * self.L)

    def predict(self, z):
        return float(self.weights @ np.asarray(z, dtype=float))

    def update(self, z, y):
        self.L = self.L + (np.asarray(z, dtype=float) - y) ** 2


class AAReference:
    """Vovk's AA for square loss on [lo, hi], eta = 2/(hi-lo)^2, substitution function."""

    def __init__(self, n_experts, lo=0.0, hi=1.0):
        self.lo, self.hi = lo, hi
        self.eta = 2.0 / (hi - lo) ** 2
        self.L = np.zeros(n_experts)

    @property
    def weights(self):
        return _softmax(-self.eta * self.L)

    def predict(self, z):
        zc = np.clip(np.asarray(z, dtype=float), self.lo, self.hi)
        logw = np.log(self.weights)

        def g(w):
            return -logsumexp(logw - self.eta * (zc - w) ** 2) / self.eta

        p = (self.lo + self.hi) / 2 - (g(self.hi) - g(self.lo)) / (2 * (self.hi - self.lo))
        return float(np.clip(p, self.lo, self.hi))

    def update(self, z, y):
        zc = np.clip(np.asarray(z, dtype=float), self.lo, self.hi)
        self.L = self.L + (zc - y) ** 2


class BOAReference:
    """opera 1.2.0/1.2.1 BOA (Wintenberger 2017, as coded in opera)."""

    def __init__(self, n_experts, gradient=True):
        n = n_experts
        self.gradient = gradient
        self.w0 = np.full(n, 1.0 / n)
        self.Rreg = np.zeros(n)
        self.eta = np.ones(n)
        self.V = np.zeros(n)
        self.B = np.full(n, 2.0**-20)

    @property
    def weights(self):
        with np.errstate(divide="ignore"):
            logits = np.log(self.eta) + np.log(self.w0) + self.eta * self.Rreg
        return _softmax(logits)

    def predict(self, z):
        return float(self.weights @ np.asarray(z, dtype=float))

    def update(self, z, y):
        y_hat = self.predict(z)
        r = _regrets(z, y, y_hat, self.gradient)
        self.B = np.maximum(self.B, np.abs(r))
        B2 = 2.0 ** np.ceil(np.log2(self.B))
        self.V = self.V + r**2
        with np.errstate(divide="ignore"):
            self.eta = np.minimum(1.0 / B2, np.sqrt(np.log(1.0 / self.w0) / self.V))
        self.Rreg = self.Rreg + 0.5 * (r - self.eta * r**2 + B2 * (self.eta * r > 0.5))


class MLPolyReference:
    """opera ``MLpol``."""

    def __init__(self, n_experts, gradient=True):
        self.gradient = gradient
        self.R = np.zeros(n_experts)
        self.eta = np.full(n_experts, OPERA_ETA0)
        self.B = 0.0

    @property
    def weights(self):
        n = len(self.R)
        if self.R.max() > 0:
            w = (self.eta / self.eta.max()) * np.maximum(self.R, 0)
            return w / w.sum()
        return np.full(n, 1.0 / n)

    def predict(self, z):
        return float(self.weights @ np.asarray(z, dtype=float))

    def update(self, z, y):
        r = _regrets(z, y, self.predict(z), self.gradient)
        self.R = self.R + r
        newB = max(self.B, float(np.max(r**2)))
        self.eta = 1.0 / (1.0 / self.eta + r**2 + newB - self.B)
        self.B = newB


class MLProdReference:
    """opera ``MLprod``."""

    def __init__(self, n_experts, gradient=True):
        n = n_experts
        self.gradient = gradient
        self.R = np.full(n, np.log(1.0 / n))
        self.L = np.ones(n)
        self.maxloss = np.zeros(n)
        self.eta = np.full(n, OPERA_ETA0)

    @property
    def weights(self):
        with np.errstate(divide="ignore"):
            return _softmax(np.log(self.eta) + self.R)

    def predict(self, z):
        return float(self.weights @ np.asarray(z, dtype=float))

    def update(self, z, y):
        r = _regrets(z, y, self.predict(z), self.gradient)
        n = len(self.R)
        self.L = self.L + r**2
        self.maxloss = np.maximum(self.maxloss, np.abs(r))
        with np.errstate(divide="ignore"):
            neweta = np.minimum(1.0 / (2 * self.maxloss), np.sqrt(np.log(n) / self.L))
        self.R = neweta / self.eta * self.R + np.log1p(neweta * r)
        self.eta = neweta


REFERENCES = {
    "vaw": VAWMetaReference,
    "ewa": EWAReference,
    "aa": AAReference,
    "boa": BOAReference,
    "mlpoly": MLPolyReference,
    "mlprod": MLProdReference,
}

__all__ = [
    "VAWMetaReference",
    "EWAReference",
    "AAReference",
    "BOAReference",
    "MLPolyReference",
    "MLProdReference",
    "REFERENCES",
]
