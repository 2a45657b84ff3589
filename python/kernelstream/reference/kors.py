"""NumPy reference of KORS, from the PROS-N-KONS paper's definition (Calandriello,
Lazaric, Valko 2017, App. A, Algorithm 1 and Eq. (6)).

At each step the point is added temporarily to the dictionary with weight 1 and
Eq. (6) is evaluated literally on the temporary dictionary ``D u {(t, 1)}``:
``tau = (1 + eps)/mu (k_tt - u^T (S K S + mu I)^{-1} u)``, ``u`` the column of ``S K S``
for ``x_t``, ``S = diag(w)``; ``p = min(beta tau, 1)`` (clipped at 0); the point is
added with weight ``1/sqrt(p)`` ("sqrt", ``S = diag(1/sqrt(p))``) or ``1/p``
("inverse", the 2019 PKAWV paper's code).

Randomness: one ``kernelstream._core.Rng(seed).uniform()`` draw ``u`` per step,
added iff ``u < p`` (the draw protocol documented in ``src/samplers/kors.rs``), so
the dictionary is the Rust sampler's. The next draw is cached, so that ``peek``
(used by pure predictions) sees the draw the next ``step`` will use.
"""

from __future__ import annotations

import numpy as np

from .. import _core
from ._kernels import gram


class KORSReference:
    def __init__(self, kernel, mu=1.0, eps=0.5, beta=1.0, weights="sqrt", seed=0):
        self.kernel, self.mu, self.eps, self.beta, self.weights_kind = (
            kernel,
            mu,
            eps,
            beta,
            weights,
        )
        self.rng = _core.Rng(seed)
        self._next = None
        self.points = []
        self.indices = []
        self.probabilities = []
        self.weights = []
        self.n_seen = 0

    def _draw(self, consume):
        if self._next is None:
            self._next = self.rng.uniform()
        u = self._next
        if consume:
            self._next = None
        return u

    def probability(self, x) -> float:
        x = np.asarray(x, dtype=float)
        P = np.array(self.points + [x])
        w = np.array(self.weights + [1.0])
        SKS = w[:, None] * gram(self.kernel, P, P) * w[None, :]
        u = SKS[:, -1]
        ktt = gram(self.kernel, x[None, :], x[None, :])[0, 0]
        tau = (
            (1 + self.eps)
            / self.mu
            * (ktt - u @ np.linalg.solve(SKS + self.mu * np.eye(len(w)), u))
        )
        return float(min(max(self.beta * tau, 0.0), 1.0))

    def peek(self, x) -> bool:
        return self._draw(consume=False) < self.probability(x)

    def step(self, x) -> bool:
        x = np.asarray(x, dtype=float)
        p = self.probability(x)
        added = self._draw(consume=True) < p
        if added:
            self.points.append(x.copy())
            self.indices.append(self.n_seen)
            self.probabilities.append(p)
            self.weights.append(1.0 / np.sqrt(p) if self.weights_kind == "sqrt" else 1.0 / p)
        self.n_seen += 1
        return added

    @property
    def size(self) -> int:
        return len(self.points)
