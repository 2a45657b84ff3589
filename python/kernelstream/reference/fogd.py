"""NumPy reference of FOGD (Lu et al. 2016, JMLR, Algorithm 1), from the paper's definition.

Frequencies are drawn from :class:`kernelstream._core.Rng` in the same order as the Rust
learner (frequency by frequency, coordinate by coordinate), so both see the same ``u_i``.
"""

from __future__ import annotations

import numpy as np

from .. import _core
from .losses import loss_deriv


class FOGDReference:
    def __init__(self, kernel, n_features=100, lr=0.1, loss="squared", epsilon=0.0, seed=0):
        self.kernel, self.D, self.lr, self.loss, self.epsilon = (
            kernel,
            n_features,
            lr,
            loss,
            epsilon,
        )
        self.rng = _core.Rng(seed)
        self.U = None
        self.w = np.zeros(2 * n_features)
        self.n_seen = 0

    def _init(self, d):
        draw = self.rng.normal if self.kernel.name == "gaussian" else self.rng.cauchy
        self.U = np.array([[draw() for _ in range(d)] for _ in range(self.D)]) / self.kernel.sigma

    def z(self, x):
        a = self.U @ np.asarray(x, float)
        return np.concatenate([np.cos(a), np.sin(a)]) / np.sqrt(self.D)

    def predict_one(self, x):
        if self.U is None:
            return 0.0
        return float(self.w @ self.z(x))

    def learn_one(self, x, y):
        if self.U is None:
            self._init(len(x))
        z = self.z(x)
        f = float(self.w @ z)
        if self.loss != "squared" or abs(f - y) > self.epsilon:
            self.w = self.w - self.lr * loss_deriv(self.loss, f, y) * z
        self.n_seen += 1
