"""NumPy reference of the online softmax calibration (``kernelstream.calibration``).

Written from the definitions: logits ``z_k = a s_k``, ``p = softmax(z)``, the derivative
of the log loss ``-log p_y`` in ``a``, and the Online Newton Step of Hazan, Agarwal and
Kale (2007, Algorithm 2) in one dimension with ``A_0 = lam``: ``A_t = A_{t-1} + gamma
g^2``, ``a <- a - g / A_t``, projected onto ``a >= 0.001``. The derivative is taken by
differentiating ``log sum_k exp(a s_k) - a s_y`` (a log-sum-exp), not copied from the
Rust formula.
"""

from __future__ import annotations

import numpy as np

A_MIN = 1e-3


class SoftmaxCalibrator:
    def __init__(self, lam: float = 0.1, gamma: float = 0.3):
        self.lam, self.gamma = lam, gamma
        self.a, self.A = A_MIN, lam

    def predict_proba(self, s) -> np.ndarray:
        z = self.a * np.asarray(s, dtype=float)
        e = np.exp(z - z.max())
        return e / e.sum()

    def learn(self, s, label: int) -> None:
        s = np.asarray(s, dtype=float)
        w = np.exp(self.a * s - (self.a * s).max())
        g = (w * s).sum() / w.sum() - s[label]  # d/da [log sum exp(a s) - a s_y]
        self.A += self.gamma * g * g
        self.a = max(self.a - g / self.A, A_MIN)

    def progressive_proba(self, S, y) -> np.ndarray:
        out = []
        for s, label in zip(np.asarray(S, dtype=float), y):
            out.append(self.predict_proba(s))
            self.learn(s, int(label))
        return np.array(out)
