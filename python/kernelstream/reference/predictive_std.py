"""NumPy reference of the predictive standard deviation of the AWV family, from its
definition (``docs/choices.md``, "Predictive variance").

Bayesian reading of ridge regression on features ``phi``: ``y = w . phi(x) + noise``,
noise ``N(0, sigma^2)``, prior ``w ~ N(0, sigma^2 / lam I)``. After rounds ``s < t`` the
posterior covariance of ``w`` is ``sigma^2 A^-1`` with ``A = lam I + sum_{s<t} phi_s phi_s^T``,
so the next label has predictive variance ``sigma^2 (1 + delta)``, ``delta = phi^T A^-1 phi``.
``sigma^2`` is estimated online by the discounted mean of ``e_s^2 / (1 + delta_s)`` over the
progressive residuals ``e_s = y_s - p_s`` (each ``delta_s`` of its own round), with discount
``rho = min(gamma, 0.995)``. Written with a fresh ``numpy.linalg.solve`` every round.
(The kernel form of ``delta`` is in ``tests/python/test_predictive_std.py``.)
"""

from __future__ import annotations

import numpy as np

NOISE_MEMORY = 0.995


class PredictiveStdReference:
    """AWV (or online ridge) on the features ``phi(x)`` with its predictive std.

    ``gamma < 1``: the discounted matrix of docs/choices.md, "Discounted AWV": each round
    first forms ``A' = gamma A + c e_k e_k^T`` (``k = (t - 1) mod r``,
    ``c = lam (1 - gamma^r)``) and ``b' = gamma b``; the noise memory is then ``gamma``.
    """

    def __init__(self, phi, lam=1.0, ridge=False, gamma=1.0):
        self.phi, self.lam, self.ridge, self.gamma = phi, lam, ridge, gamma
        self.rho = min(gamma, NOISE_MEMORY)
        self.A = self.b = None
        self.t = 0
        self.num = self.den = 0.0

    def _next(self, v):
        """``A'`` and ``b'`` of the next round."""
        r = v.size
        if self.A is None:
            self.A, self.b = self.lam * np.eye(r), np.zeros(r)
        if self.gamma == 1.0:
            return self.A, self.b
        A = self.gamma * self.A
        A[self.t % r, self.t % r] += self.lam * (1.0 - self.gamma**r)
        return A, self.gamma * self.b

    def _delta_pred(self, x):
        v = self.phi(x)
        A, b = self._next(v)
        delta = float(v @ np.linalg.solve(A, v))
        ridge = float(v @ np.linalg.solve(A, b))
        return (
            v,
            A,
            b,
            delta,
            ridge if self.ridge else float(v @ np.linalg.solve(A + np.outer(v, v), b)),
        )

    def predict_std_one(self, x):
        """``(prediction, std)`` as the next round (NaN std before any round)."""
        *_, delta, pred = self._delta_pred(x)
        var = self.num / self.den if self.den > 0 else np.nan
        return pred, float(np.sqrt(var * (1.0 + delta)))

    def learn_one(self, x, y) -> None:
        v, A, b, delta, pred = self._delta_pred(x)
        self.num = self.rho * self.num + (y - pred) ** 2 / (1.0 + delta)
        self.den = self.rho * self.den + 1.0
        self.A, self.b = A + np.outer(v, v), b + y * v
        self.t += 1


def mixture_std(w, z, s, p) -> float:
    """The std of the mixture ``sum_j pi_j N(z_j, s_j^2)`` around the prediction ``p``,
    ``pi = |w| / sum |w|``: ``sqrt(sum_j pi_j (s_j^2 + (z_j - p)^2))``."""
    w, z, s = (np.asarray(a, dtype=float) for a in (w, z, s))
    pi = np.abs(w) / np.abs(w).sum() if np.abs(w).sum() > 0 else np.full(z.size, 1.0 / z.size)
    return float(np.sqrt(np.sum(pi * (s**2 + (z - p) ** 2))))


class MultiOutputStdReference:
    """:class:`PredictiveStdReference` with ``K`` outputs (docs/uncertainty.md, "Several
    outputs"): the targets share ``A = lam I + sum_s phi_s phi_s^T`` (hence
    ``delta = phi^T A^-1 phi``), ``B = sum_s phi_s y_s^T`` has a column per output, and
    output ``k`` has its own noise estimate, the discounted mean of
    ``e_{s,k}^2 / (1 + delta_s)``: its std is ``sigma_hat_k sqrt(1 + delta)``."""

    def __init__(self, phi, k, lam=1.0, ridge=False):
        self.phi, self.k, self.lam, self.ridge = phi, k, lam, ridge
        self.A = self.B = None
        self.num, self.den = np.zeros(k), np.zeros(k)

    def _delta_pred(self, x):
        v = self.phi(x)
        if self.A is None:
            self.A, self.B = self.lam * np.eye(v.size), np.zeros((v.size, self.k))
        delta = float(v @ np.linalg.solve(self.A, v))
        M = self.A if self.ridge else self.A + np.outer(v, v)
        return v, delta, v @ np.linalg.solve(M, self.B)

    def predict_std_one(self, x):
        """``(K predictions, K stds)`` as the next round (NaN stds before any round)."""
        _, delta, pred = self._delta_pred(x)
        with np.errstate(invalid="ignore", divide="ignore"):
            var = np.where(self.den > 0, self.num / self.den, np.nan)
        return pred, np.sqrt(var * (1.0 + delta))

    def noise_std(self):
        return np.sqrt(self.num / self.den)

    def learn_one(self, x, y) -> None:
        v, delta, pred = self._delta_pred(x)
        y = np.asarray(y, dtype=float)
        self.num = NOISE_MEMORY * self.num + (y - pred) ** 2 / (1.0 + delta)
        self.den = NOISE_MEMORY * self.den + 1.0
        self.A, self.B = self.A + np.outer(v, v), self.B + np.outer(v, y)
