"""NumPy reference of the predictive standard deviation of the AWV family, from its
definition (``docs/choices.md``, "Predictive variance").

Bayesian reading of ridge regression on features ``phi``: ``y = w . phi(x) + noise``,
noise ``N(0, sigma^2)``, prior ``w ~ N(0, sigma^2 / lam I)``. After rounds ``s < t`` the
posterior covariance of ``w`` is ``sigma^2 A^-1`` with ``A = lam I + sum_{s<t} phi_s phi_s^T``,
so the next label has predictive variance ``sigma^2 (1 + delta)``, ``delta = phi^T A^-1 phi``.
``sigma^2`` is estimated online by the discounted mean of ``e_s^2 / (1 + delta_s)`` over the
progressive residuals ``e_s = y_s - p_s`` (each ``delta_s`` of its own round), with discount
``rho = min(gamma, 0.995)``. Written with a fresh ``numpy.linalg.solve`` every round.
"""

from __future__ import annotations

import numpy as np

NOISE_MEMORY = 0.995


class PredictiveStdReference:
    """AWV (or online ridge) on the features ``phi(x)`` with its predictive std.

    ``delta(x, X_past)`` may be given instead of ``phi`` (kernel form:
    ``(k(x, x) - k^T (K + lam I)^-1 k) / lam``); the prediction then comes from ``predict``.
    """

    def __init__(self, phi, lam=1.0, ridge=False, rho=NOISE_MEMORY):
        self.phi, self.lam, self.ridge, self.rho = phi, lam, ridge, rho
        self.V: list = []
        self.y: list = []
        self.num = self.den = 0.0

    def _delta_pred(self, x):
        v = self.phi(x)
        V = np.array(self.V).reshape(-1, v.size)
        A = self.lam * np.eye(v.size) + V.T @ V
        b = V.T @ np.array(self.y) if self.y else np.zeros(v.size)
        delta = float(v @ np.linalg.solve(A, v))
        ridge = float(v @ np.linalg.solve(A, b))
        return delta, ridge if self.ridge else float(v @ np.linalg.solve(A + np.outer(v, v), b))

    def predict_std_one(self, x):
        """``(prediction, std)`` as the next round (NaN std before any round)."""
        delta, pred = self._delta_pred(x)
        var = self.num / self.den if self.den > 0 else np.nan
        return pred, float(np.sqrt(var * (1.0 + delta)))

    def learn_one(self, x, y) -> None:
        delta, pred = self._delta_pred(x)
        self.num = self.rho * self.num + (y - pred) ** 2 / (1.0 + delta)
        self.den = self.rho * self.den + 1.0
        self.V.append(self.phi(x))
        self.y.append(float(y))


def mixture_std(w, z, s, p) -> float:
    """The std of the mixture ``sum_j pi_j N(z_j, s_j^2)`` around the prediction ``p``,
    ``pi = |w| / sum |w|``: ``sqrt(sum_j pi_j (s_j^2 + (z_j - p)^2))``."""
    w, z, s = (np.asarray(a, dtype=float) for a in (w, z, s))
    pi = np.abs(w) / np.abs(w).sum() if np.abs(w).sum() > 0 else np.full(z.size, 1.0 / z.size)
    return float(np.sqrt(np.sum(pi * (s**2 + (z - p) ** 2))))
