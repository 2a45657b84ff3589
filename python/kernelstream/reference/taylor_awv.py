"""NumPy reference of TaylorAWV, from the PKAWV paper's definitions.

Features: the paper's own construction (P19 App. H.2, class ``PhiAWV.taylor_phi``):
for each degree ``j <= M`` the Kronecker power ``x^{(x)j}`` (all ordered tuples)
divided by ``sigma^j sqrt(j!)``, times ``exp(-||x||^2 / (2 sigma^2))``. Its inner
product is the truncated Gaussian kernel, so AWV predictions equal those of the
multi-index basis (P19 sec. 3.1, Thm. 4), at a much higher cost.

Forecaster: the AWV definition (P19 eq. (2)): with
``A_t = lam I + sum_{s<=t} v_s v_s^T`` (including the current point) and
``b_{t-1} = sum_{s<t} y_s v_s``, predict ``v_t^T A_t^{-1} b_{t-1}``, solved directly
with ``numpy.linalg.solve`` every round; ``ridge=True`` uses ``A_{t-1}``.
"""

from __future__ import annotations

import math

import numpy as np


def taylor_kron_features(x, sigma: float, degree: int) -> np.ndarray:
    """The Kronecker-power Taylor features of the paper's code (dimension ``sum_j d^j``)."""
    x = np.asarray(x, dtype=float)
    parts = [np.ones(1)]
    power = np.ones(1)
    for j in range(1, degree + 1):
        power = np.kron(power, x)
        parts.append(power / (sigma**j * math.sqrt(math.factorial(j))))
    return np.exp(-x.dot(x) / (2 * sigma**2)) * np.concatenate(parts)


def taylor_monomial_features(x, sigma: float, degree: int) -> np.ndarray:
    """The multi-index basis ``g_k(x)``, ``|k| <= M`` (P19 sec. 3.1), from its closed form
    ``exp(-||x||^2/(2 sigma^2)) prod_i (x_i/sigma)^{k_i} / sqrt(k_i!)``."""
    x = np.asarray(x, dtype=float)
    E, norm = _exponents(x.size, degree)
    return np.exp(-x.dot(x) / (2 * sigma**2)) * np.prod((x / sigma) ** E, axis=1) / norm


_EXPONENT_CACHE: dict = {}


def _exponents(d: int, degree: int):
    """All multi-indices of ``N^d`` with ``|k| <= degree`` (rows, graded) and ``sqrt(prod_i k_i!)``."""
    from itertools import combinations_with_replacement

    key = (d, degree)
    if key not in _EXPONENT_CACHE:
        rows = []
        for j in range(degree + 1):
            for combo in combinations_with_replacement(range(d), j):
                e = np.zeros(d, dtype=np.int64)
                for i in combo:
                    e[i] += 1
                rows.append(e)
        E = np.array(rows, dtype=np.int64).reshape(-1, d)
        norm = np.sqrt(np.prod([[math.factorial(int(e)) for e in row] for row in E], axis=1))
        _EXPONENT_CACHE[key] = (E, norm)
    return _EXPONENT_CACHE[key]


class TaylorAWVReference:
    """AWV (or online ridge) on Taylor features, in plain NumPy.

    ``features="kron"`` uses the paper code's Kronecker features, ``"monomial"`` the
    multi-index basis. ``solver="solve"`` applies the definition literally (a fresh
    ``numpy.linalg.solve`` of ``A_t w = b_{t-1}`` each round, O(r^3)); ``"sherman-morrison"``
    keeps ``A^{-1}`` by rank-one updates like the paper's published code (O(r^2)): the
    fair NumPy baseline for ``kernelstream bench``.
    """

    def __init__(self, sigma=1.0, degree=2, lam=1.0, ridge=False, features="kron", solver="solve"):
        self.sigma, self.degree, self.lam, self.ridge = sigma, degree, lam, ridge
        self.features, self.solver = features, solver
        self.A = None  # A_{t} (solve) or A_{t}^{-1} (sherman-morrison)
        self.b = None
        self.n_seen = 0

    def _phi(self, x):
        if self.features == "kron":
            return taylor_kron_features(x, self.sigma, self.degree)
        return taylor_monomial_features(x, self.sigma, self.degree)

    def _init(self, r):
        if self.A is None:
            self.A = (self.lam if self.solver == "solve" else 1.0 / self.lam) * np.eye(r)
            self.b = np.zeros(r)

    def predict_one(self, x) -> float:
        v = self._phi(x)
        self._init(v.size)
        if self.solver == "solve":
            A = self.A if self.ridge else self.A + np.outer(v, v)
            return float(v @ np.linalg.solve(A, self.b))
        h = self.A @ v
        p = float(h @ self.b)
        return p if self.ridge else p / (1.0 + float(v @ h))

    def learn_one(self, x, y) -> None:
        v = self._phi(x)
        self._init(v.size)
        if self.solver == "solve":
            self.A += np.outer(v, v)
        else:
            h = self.A @ v
            self.A -= np.outer(h, h) / (1.0 + float(v @ h))
        self.b += y * v
        self.n_seen += 1

    def progressive_predict(self, X, y) -> np.ndarray:
        out = np.empty(len(X))
        for t, (x, yt) in enumerate(zip(X, y)):
            out[t] = self.predict_one(x)
            self.learn_one(x, yt)
        return out
