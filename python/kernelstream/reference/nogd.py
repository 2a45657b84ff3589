"""NumPy reference of NOGD (Lu et al. 2016, JMLR, Algorithm 2), from the paper's definition:
kernel OGD on the first ``B`` support points, then OGD in the rank-``k`` Nystrom embedding
``phi(x) = Lambda_k^{-1/2} V_k^T k_B(x)`` of those points."""

from __future__ import annotations

import numpy as np

from .losses import loss_deriv


class NOGDReference:
    def __init__(self, kernel, budget=100, rank=None, lr=0.2, loss="squared", epsilon=0.0):
        self.kernel, self.B, self.lr, self.loss, self.epsilon = kernel, budget, lr, loss, epsilon
        self.k = max(1, int(round(0.2 * budget))) if rank is None else rank
        self.S, self.alpha = [], []
        self.M = None
        self.w = None
        self.n_seen = 0

    def _krow(self, x):
        return self.kernel(np.atleast_2d(x), np.array(self.S))[0]

    def predict_one(self, x):
        if not self.S:
            return 0.0
        kr = self._krow(x)
        if self.M is None:
            return float(np.dot(self.alpha, kr))
        return float(self.w @ (self.M @ kr))

    def learn_one(self, x, y):
        x = np.asarray(x, float)
        f = self.predict_one(x)
        g = (
            loss_deriv(self.loss, f, y)
            if (self.loss != "squared" or abs(f - y) > self.epsilon)
            else 0.0
        )
        if g != 0.0:
            if self.M is not None:
                self.w = self.w - self.lr * g * (self.M @ self._krow(x))
            elif len(self.S) < self.B:
                self.S.append(x.copy())
                self.alpha.append(-self.lr * g)
            else:
                lam, V = np.linalg.eigh(self.kernel(np.array(self.S)))
                order = np.argsort(lam)[::-1][: self.k]
                order = order[lam[order] > 1e-12 * lam.max()]
                lam, V = lam[order], V[:, order]
                self.M = (V / np.sqrt(lam)).T
                self.w = np.linalg.pinv(self.M).T @ np.asarray(self.alpha)
                self.w = self.w - self.lr * g * (self.M @ self._krow(x))
        self.n_seen += 1
