"""NumPy reference of KernelAWV, from the PKAWV paper's definition (P19 eq. (3)).

AWV: ``f_t = argmin_f sum_{s<t} (y_s - f(x_s))^2 + lam ||f||^2 + f(x_t)^2``; by the
representer theorem ``f_t = sum_{s<=t} alpha_s k(x_s, .)`` with
``alpha = (K_t + lam I)^{-1} (Y_{t-1}, 0)``, and ``y_hat_t = (K_t alpha)_t``.
Ridge (online KRR): ``y_hat_t = k^T (K_{t-1} + lam I)^{-1} Y_{t-1}``.

``solver="solve"`` applies these literally (a fresh ``numpy.linalg.solve`` each round,
O(t^3)); ``solver="bordered"`` keeps ``(K_{t-1} + lam I)^{-1}`` by the bordered-inverse
formula (O(t^2) per round): the fair NumPy baseline for ``kernelstream bench``.
"""

from __future__ import annotations

import numpy as np

from ._kernels import gram


class KernelAWVReference:
    def __init__(self, kernel, lam=1.0, ridge=False, solver="solve"):
        self.kernel, self.lam, self.ridge, self.solver = kernel, float(lam), bool(ridge), solver
        self.X = None
        self.Y = np.zeros(0)
        self.Ginv = np.zeros((0, 0))  # (K_{t-1} + lam I)^{-1} (bordered solver), a view of _buf
        self._buf = np.zeros((0, 0))
        self.n_seen = 0

    def _krow(self, x):
        if self.X is None:
            return np.zeros(0)
        return gram(self.kernel, self.X, x[None, :])[:, 0]

    def predict_one(self, x) -> float:
        x = np.asarray(x, dtype=float)
        t = self.n_seen
        if t == 0:
            return 0.0
        k = self._krow(x)
        kxx = gram(self.kernel, x[None, :], x[None, :])[0, 0]
        if self.solver == "solve":
            if self.ridge:
                G = gram(self.kernel, self.X, self.X) + self.lam * np.eye(t)
                return float(k @ np.linalg.solve(G, self.Y))
            Xt = np.vstack([self.X, x])
            Kt = gram(self.kernel, Xt, Xt)
            alpha = np.linalg.solve(Kt + self.lam * np.eye(t + 1), np.r_[self.Y, 0.0])
            return float(Kt[t] @ alpha)
        h = self.Ginv @ k
        p = float(h @ self.Y)
        if self.ridge:
            return p
        s = kxx + self.lam - float(k @ h)
        return self.lam / s * p

    def learn_one(self, x, y) -> None:
        x = np.asarray(x, dtype=float)
        if self.solver == "bordered":
            k = self._krow(x)
            kxx = gram(self.kernel, x[None, :], x[None, :])[0, 0]
            h = self.Ginv @ k
            s = kxx + self.lam - float(k @ h)
            t = self.n_seen
            # Bordered inverse in a buffer with spare capacity (no reallocation per round).
            if self._buf.shape[0] < t + 1:
                buf = np.zeros((2 * t + 2, 2 * t + 2))
                buf[:t, :t] = self._buf[:t, :t]
                self._buf = buf
            G = self._buf
            G[:t, :t] += np.outer(h, h) / s
            G[:t, t] = G[t, :t] = -h / s
            G[t, t] = 1.0 / s
            self.Ginv = G[: t + 1, : t + 1]
        self.X = x[None, :].copy() if self.X is None else np.vstack([self.X, x])
        self.Y = np.r_[self.Y, float(y)]
        self.n_seen += 1

    def progressive_predict(self, X, y) -> np.ndarray:
        out = np.empty(len(X))
        for t, (x, yt) in enumerate(zip(X, y)):
            out[t] = self.predict_one(x)
            self.learn_one(x, yt)
        return out
