"""NumPy reference of PROS-N-KONS / CON-KONS / B-KONS, written from the paper's
definitions (Calandriello, Lazaric, Valko 2017, sec. 3, Figure 1, sec. 5, App. A;
with the repairs of docs/choices.md), not from the Rust code:

* KORS by Eq. (6) on the temporary dictionary (new point with weight 1), solved
  densely; one ``kernelstream._core.Rng(seed).uniform()`` draw per KORS call, the point
  is added iff ``u < p``;
* the embedding ``phi(x) = Sigma^{-1} U^T k_I(x)`` from the eigendecomposition of
  ``K_I`` (pseudo-inverse: eigenvalues below ``1e-10 lambda_max`` dropped);
* ``A`` kept explicitly and solved every round (no Sherman-Morrison);
* CON-KONS: ``R = Sigma_j^{-1} U_j^T K(I_j, I_{j-1}) U_{j-1} Sigma_{j-1}^{-1}``,
  ``w <- R w``, ``A <- R (A - alpha I) R^T + alpha I`` (docs/choices.md, CON-KONS).
"""

from __future__ import annotations

import copy

import numpy as np

from .. import _core
from .losses import default_curvature, loss_deriv


def kors_probability(kernel, points, weights, x, gamma, eps, beta):
    """``p_t = min(beta tau_t, 1)`` by Eq. (6) on the temporary dictionary ``D + {(x, 1)}``."""
    P = np.vstack([points, x[None, :]]) if len(points) else x[None, :]
    s = np.append(np.asarray(weights, float), 1.0)
    K = kernel(P)
    kbar = K[:, -1]
    S = np.diag(s)
    M = S @ K @ S + gamma * np.eye(len(s))
    ktt = K[-1, -1]
    tau = (1 + eps) / gamma * (ktt - (S @ kbar) @ np.linalg.solve(M, S @ kbar))
    return float(min(max(beta * tau, 0.0), 1.0))


class ProsNKonsReference:
    def __init__(
        self,
        kernel,
        alpha=1.0,
        gamma=1.0,
        eps=0.5,
        beta=1.0,
        C=1.0,
        curvature=None,
        eta=1.0,
        loss="squared",
        on_growth="restart",
        budget=None,
        reset_timing="same_round",
        transport="literal",
        seed=0,
        embedding="eigen",
        kors_weights="sqrt",
    ):
        self.kors_weights_kind = kors_weights
        # embedding: "eigen" (Sigma^{-1} U^T k_I(x) from K_I) or "weighted" (the same from
        # S K_I S applied to S k_I(x), with KORS's S): both span the same subspace.
        self.embedding = embedding
        self.kernel, self.alpha, self.gamma, self.eps, self.beta, self.C = (
            kernel,
            alpha,
            gamma,
            eps,
            beta,
            C,
        )
        self.sigma = default_curvature(loss, C) if curvature is None else curvature
        self.eta = eta  # Newton step multiplier: v = w - eta A^{-1} g
        self.loss, self.on_growth, self.budget = loss, on_growth, budget
        self.reset_timing, self.transport = reset_timing, transport
        self.rng = _core.Rng(seed)
        # One draw ahead, so that predict_one (a copy playing the round) sees the same u
        # as the following learn_one without touching the generator.
        self._next_u = self.rng.uniform()
        self._peek = False
        self.kors_points, self.kors_weights, self.kors_probs = [], [], []
        self.emb_points = []  # dictionary as seen by the embedding
        self.pending = None
        self.map = None  # (U Sigma^{-1}) so that phi(x) = map.T @ k_I(x)
        self.w = self.A = self.g = None
        self.n_seen = 0
        self.n_resets = 0
        self.history = []  # per round: dict(y_hat, reset, phi, A_before)

    # -- pieces -----------------------------------------------------------------
    def _kors_step(self, x):
        pts = np.array(self.kors_points) if self.kors_points else np.zeros((0, len(x)))
        p = kors_probability(
            self.kernel, pts, self.kors_weights, x, self.gamma, self.eps, self.beta
        )
        u = self._next_u
        if not self._peek:
            self._next_u = self.rng.uniform()
        if u < p:
            self.kors_points.append(x.copy())
            self.kors_probs.append(p)
            self.kors_weights.append(
                1.0 / np.sqrt(p) if self.kors_weights_kind == "sqrt" else 1.0 / p
            )
            return True
        return False

    def _build_map(self, points):
        s = np.asarray(self.emb_weights) if self.embedding == "weighted" else np.ones(len(points))
        lam, U = np.linalg.eigh(s[:, None] * self.kernel(np.array(points)) * s[None, :])
        keep = lam > 1e-10 * lam.max()
        return s[:, None] * U[:, keep] / np.sqrt(lam[keep])

    def phi(self, x):
        return self.map.T @ self.kernel(np.atleast_2d(x), np.array(self.emb_points))[0]

    # -- one round ----------------------------------------------------------------
    def _round(self, x):
        x = np.asarray(x, float)
        accepted = False
        if self.budget is None or len(self.kors_points) < self.budget:
            accepted = self._kors_step(x)
        if self.reset_timing == "same_round":
            reset_point = x if accepted else None
        else:
            reset_point, self.pending = self.pending, (x.copy() if accepted else None)
        info = {"reset": reset_point is not None}
        if reset_point is not None:
            self.n_resets += 1
            old_points, old_map = list(self.emb_points), self.map
            self.emb_points.append(reset_point)
            self.emb_weights = list(self.kors_weights[: len(self.emb_points)])
            self.map = self._build_map(self.emb_points)
            r = self.map.shape[1]
            if self.on_growth == "restart" or old_map is None:
                self.w, self.A, self.g = np.zeros(r), self.alpha * np.eye(r), None
                phi = self.phi(x)
                info.update(phi=phi, A_before=self.A.copy(), y_hat=0.0)
                return info
            # CON-KONS transport.
            R = self.map.T @ self.kernel(np.array(self.emb_points), np.array(old_points)) @ old_map
            self.w = R @ self.w
            self.A = R @ (self.A - self.alpha * np.eye(len(old_map.T))) @ R.T + self.alpha * np.eye(
                r
            )
            phi = self.phi(x)
            if self.transport == "literal":
                self.g = None
                info.update(
                    phi=phi,
                    A_before=self.A.copy(),
                    y_hat=float(np.clip(phi @ self.w, -self.C, self.C)),
                )
                return info
            self.g = None if self.g is None else R @ self.g
        if self.map is None:
            info.update(phi=None, A_before=None, y_hat=0.0)
            return info
        phi = self.phi(x)
        v = self.w if self.g is None else self.w - self.eta * np.linalg.solve(self.A, self.g)
        s = phi @ v
        Ainv_phi = np.linalg.solve(self.A, phi)
        q = phi @ Ainv_phi
        if abs(s) > self.C and q > 0:
            h = np.sign(s) * (abs(s) - self.C)
            self.w = v - h / q * Ainv_phi
        else:
            self.w = v
        # y_hat = phi^T w, which the projection makes exactly clip(phi^T v, -C, C) (sec. 3).
        y_hat = (
            float(np.clip(s, -self.C, self.C)) if abs(s) > self.C and q > 0 else float(phi @ self.w)
        )
        info.update(phi=phi, A_before=self.A.copy(), y_hat=y_hat, v=v)
        return info

    def predict_one(self, x):
        rng, self.rng = self.rng, None
        try:
            c = copy.deepcopy(self)
        finally:
            self.rng = rng
        c._peek = True
        return c._round(x)["y_hat"]

    def learn_one(self, x, y):
        info = self._round(x)
        if info["phi"] is not None:
            g = loss_deriv(self.loss, info["y_hat"], y) * info["phi"]
            self.A = self.A + self.sigma / 2 * np.outer(g, g)
            self.g = g
        self.n_seen += 1
        self.history.append(info)
        return info["y_hat"]
