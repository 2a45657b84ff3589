"""NumPy reference of the online softmax calibration (``kernelstream.calibration``).

Written from the definitions: logits ``z_k = a s_k + b_k``, ``p = softmax(z)``, the
gradient of the log loss ``-log p_y`` in ``theta = (a, b)``, and the Online Newton Step
of Hazan, Agarwal and Kale (2007, Algorithm 2) with ``A_0 = lam I``:
``A_t = A_{t-1} + gamma g g^T``, ``theta <- theta - A_t^{-1} g``. ``A_t`` itself is kept
and solved directly (no Sherman-Morrison), so that the reference checks the update.
"""

from __future__ import annotations

import numpy as np


class SoftmaxCalibrator:
    def __init__(self, n_classes: int, lam: float = 1.0, gamma: float = 0.3):
        self.lam, self.gamma = lam, gamma
        self.theta = np.zeros(n_classes + 1)
        self.A = lam * np.eye(n_classes + 1)

    def add_class(self) -> None:
        q = self.theta.size
        A = self.lam * np.eye(q + 1)
        A[:q, :q] = self.A
        self.A, self.theta = A, np.append(self.theta, 0.0)

    def predict_proba(self, s) -> np.ndarray:
        z = self.theta[0] * np.asarray(s, dtype=float) + self.theta[1:]
        e = np.exp(z - z.max())
        return e / e.sum()

    def learn(self, s, label: int) -> None:
        s = np.asarray(s, dtype=float)
        p = self.predict_proba(s)
        onehot = np.zeros_like(p)
        onehot[label] = 1.0
        g = np.concatenate([[p @ s - s[label]], p - onehot])
        self.A = self.A + self.gamma * np.outer(g, g)
        self.theta = self.theta - np.linalg.solve(self.A, g)

    def progressive_proba(self, S, y) -> np.ndarray:
        out = []
        for s, label in zip(np.asarray(S, dtype=float), y):
            out.append(self.predict_proba(s))
            self.learn(s, int(label))
        return np.array(out)
