"""NumPy reference for RFFAWV, written from the VAW2 paper's definitions
(Rokhlin & Gurtovaya 2025, eqs. 3-5 for the features; sec. 2 "VAW" for the forecaster),
not from the Rust code.

The random features are drawn by replaying the documented draw order on the library's
generator ``kernelstream._core.Rng`` (so that both sides use the same features); the
forecaster solves its linear system directly at every round:
``w_t = (lam I + sum_{s<=t} phi_s phi_s^T)^{-1} sum_{s<t} y_s phi_s``, ``y_hat_t = <w_t, phi_t>``;
with ``ridge=True`` (online ridge, docs/choices.md) the matrix stops at ``s < t``.
"""

from __future__ import annotations

import numpy as np

from .. import _core


def draw_rff(kernel, d: int, m: int, features: str, rng) -> tuple:
    """Frequencies ``(m, d)`` and phases ``(m,)`` (empty for ``"cossin"``) drawn from ``rng``.

    Gaussian: ``w ~ N(0, sigma^-2 I)`` (eq. 3); Laplacian: i.i.d. Cauchy(0, 1/sigma) (eq. 4);
    ``b ~ U(0, 2 pi)``. Order: for each feature, its d coordinates, then its phase.
    """
    name, (sigma,) = kernel.spec
    omega = np.empty((m, d))
    b = []
    for k in range(m):
        for i in range(d):
            omega[k, i] = (rng.normal() if name == "gaussian" else rng.cauchy()) / sigma
        if features == "cos":
            b.append(2 * np.pi * rng.uniform())
    return omega, np.array(b)


def rff_map(x, omega, b, features: str) -> np.ndarray:
    """``sqrt(2) cos(W x + b)`` or ``[cos(W x), sin(W x)] / sqrt(m)``."""
    u = omega @ np.asarray(x, dtype=float)
    if features == "cos":
        return np.sqrt(2.0) * np.cos(u + b)
    return np.concatenate([np.cos(u), np.sin(u)]) / np.sqrt(len(u))


class VAWReference:
    """The Vovk-Azoury-Warmuth forecaster on given feature vectors, by direct solves
    (``ridge=True``: online ridge, the current point left out of the matrix)."""

    def __init__(self, dim: int, lam: float = 1.0, ridge: bool = False):
        self.lam, self.ridge = lam, ridge
        self.G = np.zeros((dim, dim))  # sum_{s<t} phi_s phi_s^T
        self.b = np.zeros(dim)  # sum_{s<t} y_s phi_s
        self.n_seen = 0

    def predict(self, phi) -> float:
        phi = np.asarray(phi, dtype=float)
        A = self.lam * np.eye(len(phi)) + self.G
        if not self.ridge:
            A = A + np.outer(phi, phi)  # VAW: the current point is in the matrix
        return float(phi @ np.linalg.solve(A, self.b))

    def update(self, phi, y) -> None:
        phi = np.asarray(phi, dtype=float)
        self.G += np.outer(phi, phi)
        self.b += y * phi
        self.n_seen += 1

    def weights(self) -> np.ndarray:
        """Ridge solution after the last round."""
        return np.linalg.solve(self.lam * np.eye(len(self.b)) + self.G, self.b)


class RFFAWVReference:
    """RFFAWV with features drawn from ``_core.Rng(seed)`` in the documented order."""

    def __init__(
        self,
        kernel,
        n_features: int = 50,
        lam: float = 1.0,
        features: str = "cos",
        seed: int = 0,
        ridge: bool = False,
    ):
        self.kernel, self.m, self.lam, self.features, self.seed = (
            kernel,
            n_features,
            lam,
            features,
            seed,
        )
        self.ridge = ridge
        self.omega = self.b = None
        self.vaw: VAWReference | None = None

    def _init(self, d):
        if self.omega is None:
            self.omega, self.b = draw_rff(
                self.kernel, d, self.m, self.features, _core.Rng(self.seed)
            )
            dim = self.m if self.features == "cos" else 2 * self.m
            self.vaw = VAWReference(dim, self.lam, self.ridge)

    def phi(self, x):
        return rff_map(x, self.omega, self.b, self.features)

    def predict_one(self, x) -> float:
        if self.omega is None:
            return 0.0
        return self.vaw.predict(self.phi(x))

    def learn_one(self, x, y) -> None:
        self._init(len(x))
        assert self.vaw is not None
        self.vaw.update(self.phi(x), y)


__all__ = ["draw_rff", "rff_map", "VAWReference", "RFFAWVReference"]
