"""NumPy reference of NystromAWV, from the PKAWV paper's definitions (P19 sec. 3.2,
eq. (2) projected on ``span{phi(x_j), j in D}``; Cor. 8 for a fixed dictionary).

Every round, from scratch: the KORS decision on ``x_t`` (``KORSReference``; ``x_t`` may
join ``D`` before the prediction), then with ``K_{t,D}`` over all rows ``s <= t``
(``s < t`` for ``ridge=True``), ``A = K_{t,D}^T K_{t,D} + lam K_DD``,
``q = K_{t,D}^T (Y_{t-1}, 0)``, ``y_hat = k_D(x_t)^T A^{-1} q`` by ``numpy.linalg.lstsq``
(A can be nearly singular; the prediction is insensitive to its null directions).
``dictionary=`` fixes ``D`` (no sampling). O(t m^2 + m^3) per round.

``solver="incremental"`` is the fair NumPy baseline for ``kernelstream bench`` (the
2019 paper's code with its errors fixed): it keeps ``K_{t,D}``, ``A`` and ``q`` up to
date (a new column over the whole past when a point joins) and solves
``A alpha = q`` with ``numpy.linalg.solve`` each round, O(m^3) per round.
"""

from __future__ import annotations

import numpy as np

from ._kernels import gram
from .kors import KORSReference


class NystromAWVReference:
    def __init__(
        self,
        kernel,
        lam=1.0,
        mu=1.0,
        eps=0.5,
        beta=1.0,
        kors_weights="sqrt",
        seed=0,
        ridge=False,
        dictionary=None,
        solver="direct",
    ):
        self.kernel, self.lam, self.ridge, self.solver = kernel, float(lam), bool(ridge), solver
        self._KtD = None  # incremental solver: K_{t,D}, A (past rows), q
        self.fixed = dictionary is not None
        self.kors = None if self.fixed else KORSReference(kernel, mu, eps, beta, kors_weights, seed)
        self.D = (
            []
            if dictionary is None
            else [np.asarray(p, dtype=float) for p in np.asarray(dictionary)]
        )
        self.X = []
        self.Y = []
        self.n_seen = 0

    def _predict(self, x, D):
        if not D:
            return 0.0
        Dm = np.array(D)
        rows = self.X if self.ridge else self.X + [x]
        if rows:
            Kt = gram(self.kernel, np.array(rows), Dm)
        else:
            Kt = np.zeros((0, len(D)))
        Yp = np.array(self.Y + ([] if self.ridge else [0.0]))
        A = Kt.T @ Kt + self.lam * gram(self.kernel, Dm, Dm)
        q = Kt.T @ Yp
        alpha = np.linalg.lstsq(A, q, rcond=None)[0]
        return float(gram(self.kernel, x[None, :], Dm)[0] @ alpha)

    def _incremental_round(self, x, y):
        """One round of the incremental solver; returns the prediction."""
        m, t = len(self.D), self.n_seen
        if self._KtD is None:
            self._KtD = np.zeros((64, 8))  # K_{t,D} in a buffer with spare capacity
            self._A = np.zeros((0, 0))
            self._q = np.zeros(0)
        if self.kors is not None and self.kors.step(x):
            a = gram(self.kernel, np.array(self.X), x[None, :])[:, 0] if t else np.zeros(0)
            kd = gram(self.kernel, np.array(self.D), x[None, :])[:, 0] if m else np.zeros(0)
            kxx = gram(self.kernel, x[None, :], x[None, :])[0, 0]
            c = self._KtD[:t, :m].T @ a + self.lam * kd
            A = np.empty((m + 1, m + 1))
            A[:m, :m] = self._A
            A[:m, m] = A[m, :m] = c
            A[m, m] = a @ a + self.lam * kxx
            self._A = A
            self._q = np.r_[self._q, a @ np.array(self.Y) if t else 0.0]
            if self._KtD.shape[1] < m + 1:
                self._KtD = np.c_[self._KtD, np.zeros((self._KtD.shape[0], self._KtD.shape[1]))]
            self._KtD[:t, m] = a
            self.D.append(x.copy())
            m += 1
        krow = gram(self.kernel, np.array(self.D), x[None, :])[:, 0] if m else np.zeros(0)
        if m == 0:
            pred = 0.0
        else:
            A = self._A if self.ridge else self._A + np.outer(krow, krow)
            pred = float(krow @ np.linalg.solve(A, self._q))
        self._A = self._A + np.outer(krow, krow)
        self._q = self._q + y * krow
        if self._KtD.shape[0] < t + 1:
            self._KtD = np.r_[self._KtD, np.zeros(self._KtD.shape)]
        self._KtD[t, :m] = krow
        self.X.append(x.copy())
        self.Y.append(float(y))
        self.n_seen += 1
        return pred

    def predict_one(self, x) -> float:
        x = np.asarray(x, dtype=float)
        if self.solver == "incremental":
            raise NotImplementedError(
                "the incremental solver only runs whole rounds (progressive_predict)"
            )
        D = self.D + ([x] if self.kors is not None and self.kors.peek(x) else [])
        return self._predict(x, D)

    def learn_one(self, x, y) -> None:
        x = np.asarray(x, dtype=float)
        if self.kors is not None and self.kors.step(x):
            self.D.append(x.copy())
        self.X.append(x.copy())
        self.Y.append(float(y))
        self.n_seen += 1

    @property
    def dim(self) -> int:
        return len(self.D)

    def progressive_predict(self, X, y) -> np.ndarray:
        if self.solver == "incremental":
            return np.array(
                [self._incremental_round(np.asarray(x, dtype=float), yt) for x, yt in zip(X, y)]
            )
        out = np.empty(len(X))
        for t, (x, yt) in enumerate(zip(X, y)):
            out[t] = self.predict_one(x)
            self.learn_one(x, yt)
        return out
