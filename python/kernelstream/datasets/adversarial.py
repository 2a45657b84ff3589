"""The greedy adversary of the PKAWV paper's adversarial experiment (P19 sec. 4,
Fig. 3; the paper does not define the adversary's objective or optimiser, so this is a
reconstruction).

At each round the adversary picks ``(x_t, y_t)`` in ``[-1, 1]^d x [-1, 1]`` to
maximise the learner's *instantaneous regret*

    (y - yhat_t(x))^2 - [L*_t(x, y) - L*_{t-1}],

where ``L*_t = min_f sum_{s<=t} (y_s - f(x_s))^2 + lam ||f||^2 = lam Y_t^T (K_t + lam I)^{-1} Y_t``
is the regularised best predictor in hindsight in the full Gaussian RKHS (without the
regulariser a Gaussian kernel interpolates and the comparator's loss is 0).

``yhat_t(x)`` is read from a *copy* of the learner (``learner.copy()``), so the search
never changes the learner, and a randomised learner sees the same random state for
every candidate. For a fixed ``x`` the objective is a convex quadratic in ``y`` (its
``y^2`` coefficient is ``1 - lam [(K_t + lam I)^{-1}]_{tt} >= 0``), so the best ``y`` is
``-1`` or ``+1``; ``x`` is searched by L-BFGS-B with box bounds from several random
starts, with finite-difference gradients (scipy).
"""

from __future__ import annotations

import numpy as np


class RegularisedComparator:
    """``L*_t = lam Y^T (K + lam I)^{-1} Y`` over a growing history, by bordered inverses."""

    def __init__(self, kernel, lam: float = 1.0):
        self.kernel, self.lam = kernel, float(lam)
        self.X = np.zeros((0, 0))
        self.Y = np.zeros(0)
        self.Ginv = np.zeros((0, 0))  # (K + lam I)^{-1}
        self.value = 0.0

    def _border(self, x):
        x = np.asarray(x, dtype=float)
        k = self.kernel(self.X, x[None, :])[:, 0] if self.Y.size else np.zeros(0)
        kxx = float(self.kernel(x[None, :])[0, 0])
        h = self.Ginv @ k
        s = kxx + self.lam - k @ h  # Schur complement, >= lam
        return h, s

    def value_with(self, x, y) -> float:
        """``L*_t`` if ``(x, y)`` were added."""
        h, s = self._border(x)
        # [Y; y]^T [[G^-1 + h h^T/s, -h/s], [-h^T/s, 1/s]] [Y; y]
        hy = h @ self.Y if self.Y.size else 0.0
        quad = self.value / self.lam + (hy - y) ** 2 / s
        return self.lam * quad

    def add(self, x, y) -> None:
        x = np.asarray(x, dtype=float)
        h, s = self._border(x)
        t = self.Y.size
        G = np.empty((t + 1, t + 1))
        G[:t, :t] = self.Ginv + np.outer(h, h) / s
        G[:t, t] = G[t, :t] = -h / s
        G[t, t] = 1.0 / s
        self.value = self.value_with(x, y)
        self.Ginv = G
        self.X = x[None, :] if t == 0 else np.vstack([self.X, x])
        self.Y = np.append(self.Y, y)


class GreedyAdversary:
    """Plays ``n`` rounds against one learner; records predictions, losses and regret."""

    def __init__(self, kernel, lam=1.0, d=5, restarts=4, seed=0, maxiter=60):
        self.comparator = RegularisedComparator(kernel, lam)
        self.d, self.restarts, self.maxiter = d, restarts, maxiter
        self.rng = np.random.default_rng(seed)
        self.cum_loss = 0.0
        self.regret: list = []
        self.points: list = []

    def objective(self, learner, x):
        """``max_{y in {-1, 1}}`` of the instantaneous regret at ``x``, and the maximising ``y``."""
        pred = learner.copy().predict_one(x)
        best, arg = -np.inf, 1.0
        for y in (-1.0, 1.0):
            val = (y - pred) ** 2 - (self.comparator.value_with(x, y) - self.comparator.value)
            if val > best:
                best, arg = val, y
        return best, arg

    def choose(self, learner):
        from .._optional import require

        minimize = require("scipy.optimize").minimize

        bounds = [(-1.0, 1.0)] * self.d
        best_x, best_val = None, -np.inf
        for _ in range(self.restarts):
            x0 = self.rng.uniform(-1, 1, self.d)
            res = minimize(
                lambda x: -self.objective(learner, x)[0],
                x0,
                method="L-BFGS-B",
                bounds=bounds,
                options={"maxiter": self.maxiter},
            )
            x = np.clip(res.x, -1, 1)
            val = self.objective(learner, x)[0]
            if val > best_val:
                best_x, best_val = x, val
        _, y = self.objective(learner, best_x)
        return best_x, y

    def play_round(self, learner):
        x, y = self.choose(learner)
        pred = learner.predict_one(x)
        learner.learn_one(x, y)
        self.comparator.add(x, y)
        self.cum_loss += (y - pred) ** 2
        self.regret.append(self.cum_loss - self.comparator.value)
        self.points.append((x, y))
        return x, y

    def play(self, learner, n):
        for _ in range(n):
            self.play_round(learner)
        return np.asarray(self.regret)
