"""Simulation examples of Zhang and Simon, *An Online Projection Estimator for Nonparametric
Regression in Reproducing Kernel Hilbert Spaces* (Tables 1-5),
and an exact generalisation-error evaluator.

Each example fixes the regression function ``f_rho``, the design density ``p_X`` on [0, 1]^d,
the noise, the basis and schedule of the projection estimator, and the competitors' settings.
"Normal(0, 5)" (Example 2, additive model) is read as **standard deviation 5** (R's
``rnorm(n, 0, 5)``; ``docs/choices.md``); ``noise_sd`` can override it.

The error ``||f^ - f_rho||^2_{L2(rho_X)}`` is computed by composite Gauss-Legendre quadrature
against the design density (panels split at the kinks of ``f_rho``), not by Monte Carlo; for the additive model
exactly through its additive structure (:func:`l2_error`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numpy as np


def bernoulli4(x):
    """``B4(x) = x^4 - 2x^3 + x^2 - 1/30``."""
    x = np.asarray(x, dtype=float)
    return x**4 - 2 * x**3 + x**2 - 1.0 / 30.0


def f_example1(x):
    """Example 1: ``f_rho = B4`` (Table 1)."""
    return bernoulli4(x)


def f_example2(x):
    """Example 2: ``(6x - 3) sin(12x - 6) + cos^2(12x - 6)`` (Table 1)."""
    x = np.asarray(x, dtype=float)
    return (6 * x - 3) * np.sin(12 * x - 6) + np.cos(12 * x - 6) ** 2


def f_a1(x):
    """Example A.1: ``1 + (x - 0.5) 1[x >= 0.5] + 2 (x - 0.2) 1[x >= 0.2]`` (Table 5)."""
    x = np.asarray(x, dtype=float)
    return 1 + (x - 0.5) * (x >= 0.5) + 2 * (x - 0.2) * (x >= 0.2)


def f_a2(x):
    """Example A.2: ``1 + (6x-3) sin(12x-6) + cos^2(12x-6) + 10 (x - 0.5)^2 1[x >= 0.5]`` (Table 5)."""
    x = np.asarray(x, dtype=float)
    return 1 + f_example2(x) + 10 * (x - 0.5) ** 2 * (x >= 0.5)


def doppler_component(t, k):
    """``sin(2 pi / (t + 0.1)^(k/20)) - sin(2 pi / 0.1^(k/20))`` (Table 4, coordinate k = 1..10)."""
    t = np.asarray(t, dtype=float)
    return np.sin(2 * np.pi / (t + 0.1) ** (k / 20)) - np.sin(2 * np.pi / 0.1 ** (k / 20))


def f_additive(X):
    """Additive Doppler model: ``sum_k doppler_component(x_k, k)`` (Table 4)."""
    X = np.atleast_2d(np.asarray(X, dtype=float))
    return sum(doppler_component(X[:, k], k + 1) for k in range(X.shape[1]))


def _uniform_design(rng, n, d):
    return rng.uniform(0.0, 1.0, size=(n, d))


def _linear_design(rng, n, d):
    # density x + 0.5 on [0, 1]: inverse CDF X = -0.5 + sqrt(0.25 + 2U) (``F(x) = x^2/2 + x/2``)
    return -0.5 + np.sqrt(0.25 + 2.0 * rng.uniform(0.0, 1.0, size=(n, d)))


@dataclass(frozen=True)
class ProjectionExample:
    """One simulation setting of the paper."""

    name: str
    d: int
    f: Callable
    density: str  # "uniform" or "linear" (x + 0.5)
    noise: str  # "uniform" (half-width) or "normal" (sd)
    noise_scale: float
    projection: dict  # OnlineProjection parameters of the paper
    reference_slope: float
    kinks: tuple = ()
    sgd_gamma0: float | None = None
    sgd_kernel: str | None = None
    krr_lambda0: float | None = None
    krr_exponent: float | None = None
    settings: dict = field(default_factory=dict)

    @property
    def noise_variance(self) -> float:
        if self.noise == "uniform":
            return self.noise_scale**2 / 3.0
        return self.noise_scale**2

    def design_density(self, x):
        x = np.asarray(x, dtype=float)
        return np.ones_like(x) if self.density == "uniform" else x + 0.5

    def sample(self, n: int, seed: int = 0, noise_sd: float | None = None):
        """``(X, y)``: n draws of the design, ``y = f(X) + noise`` (``numpy.random.default_rng(seed)``)."""
        rng = np.random.default_rng(seed)
        X = (_uniform_design if self.density == "uniform" else _linear_design)(rng, n, self.d)
        fx = self.f(X) if self.d > 1 else self.f(X[:, 0])
        if self.noise == "uniform":
            eps = rng.uniform(-self.noise_scale, self.noise_scale, size=n)
        else:
            eps = (self.noise_scale if noise_sd is None else noise_sd) * rng.standard_normal(n)
        return np.ascontiguousarray(X), fx + eps

    def make_projection(self, **overrides):
        from ..learners import OnlineProjection

        params = dict(self.projection)
        params.update(overrides)
        return OnlineProjection(**params)


EXAMPLES = {
    "example1": ProjectionExample(
        name="example1",
        d=1,
        f=f_example1,
        density="uniform",
        noise="uniform",
        noise_scale=0.02,
        projection=dict(basis="trig", alpha=2.0, c=0.2),
        reference_slope=-0.8,
        sgd_gamma0=128.0,
        sgd_kernel="bernoulli_periodic",
        krr_lambda0=1e-3,
        krr_exponent=-0.8,
    ),
    "example2": ProjectionExample(
        name="example2",
        d=1,
        f=f_example2,
        density="linear",
        noise="normal",
        noise_scale=5.0,
        projection=dict(basis="sine", alpha=1.0, c=0.5),
        reference_slope=-2.0 / 3.0,
        sgd_gamma0=5.0,
        sgd_kernel="min",
        krr_lambda0=0.1,
        krr_exponent=-2.0 / 3.0,
    ),
    "a1": ProjectionExample(
        name="a1",
        d=1,
        f=f_a1,
        density="linear",
        noise="normal",
        noise_scale=1.0,
        projection=dict(basis="sine", alpha=1.0, c=0.5, prefix="constant"),
        reference_slope=-2.0 / 3.0,
        kinks=(0.2, 0.5),
    ),
    "a2": ProjectionExample(
        name="a2",
        d=1,
        f=f_a2,
        density="uniform",
        noise="uniform",
        noise_scale=5.0,
        projection=dict(basis="trig", alpha=2.0, c=1.0 / 30.0, prefix="quadratic"),
        reference_slope=-0.8,
        kinks=(0.5,),
    ),
    "additive": ProjectionExample(
        name="additive",
        d=10,
        f=f_additive,
        density="uniform",
        noise="normal",
        noise_scale=5.0,
        projection=dict(basis="trig", alpha=2.0, c=0.2, prefix="quadratic", additive=True),
        reference_slope=-0.8,
    ),
}


def example1(n: int, seed: int = 0):
    """Example 1 (Table 1): ``X ~ U[0,1]``, ``f = B4``, noise ``U[-0.02, 0.02]``."""
    return EXAMPLES["example1"].sample(n, seed)


def example2(n: int, seed: int = 0, noise_sd: float = 5.0):
    """Example 2 (Table 1): density ``x + 0.5``, noise ``N(0, sd = 5)`` (our reading of Normal(0, 5))."""
    return EXAMPLES["example2"].sample(n, seed, noise_sd=noise_sd)


def example_a1(n: int, seed: int = 0):
    """Example A.1 (Table 5): density ``x + 0.5``, noise ``N(0, 1)``."""
    return EXAMPLES["a1"].sample(n, seed)


def example_a2(n: int, seed: int = 0):
    """Example A.2 (Table 5): ``X ~ U[0,1]``, noise ``U(-5, 5)``."""
    return EXAMPLES["a2"].sample(n, seed)


def additive_doppler(n: int, seed: int = 0, noise_sd: float = 5.0):
    """Additive Doppler model (Table 4): ``X ~ U[0,1]^10``, noise ``N(0, sd = 5)``."""
    return EXAMPLES["additive"].sample(n, seed, noise_sd=noise_sd)


_GL_ORDER = 40


def _composite_gauss_legendre(a, b, panels):
    t, w = np.polynomial.legendre.leggauss(_GL_ORDER)
    edges = np.linspace(a, b, panels + 1)
    lo, hi = edges[:-1, None], edges[1:, None]
    x = 0.5 * (hi - lo) * t + 0.5 * (hi + lo)
    return x.ravel(), (0.5 * (hi - lo) * w).ravel()


def quadrature(example: ProjectionExample, nodes: int = 4000):
    """Nodes and weights on [0, 1] that integrate against ``p_X``: composite Gauss-Legendre
    (order 40 per panel, about ``nodes`` nodes in all), panels split at the kinks of ``f_rho``."""
    cuts = [0.0, *example.kinks, 1.0]
    panels_total = max(nodes // _GL_ORDER, len(cuts) - 1)
    xs, ws = [], []
    for a, b in zip(cuts[:-1], cuts[1:]):
        x, w = _composite_gauss_legendre(a, b, max(int(round(panels_total * (b - a))), 1))
        xs.append(x)
        ws.append(w)
    x, w = np.concatenate(xs), np.concatenate(ws)
    return x, w * example.design_density(x)


def l2_error(predict_many: Callable, example: ProjectionExample | str, nodes: int = 4000) -> float:
    """Exact ``||f^ - f_rho||^2_{L2(rho_X)}`` for a predictor ``predict_many(X) -> values``.

    d = 1: quadrature against the design density. Additive model (uniform design, additive
    ``f^``): with ``D = f^ - f_rho = D(z) + sum_k h_k(x_k)``, ``h_k(t) = D(z with x_k = t) - D(z)``
    for a base point ``z``, ``E D^2 = (D(z) + sum_k E h_k)^2 + sum_k Var h_k``, each by 1-D
    quadrature (exact for additive ``f^``, such as the additive projection estimator).
    """
    ex = EXAMPLES[example] if isinstance(example, str) else example
    x, w = quadrature(ex, nodes)
    if ex.d == 1:
        diff = np.asarray(predict_many(x.reshape(-1, 1))) - ex.f(x)
        return float(np.sum(w * diff**2))
    z = np.full(ex.d, 0.5)
    base = float(np.asarray(predict_many(z.reshape(1, -1)))[0] - ex.f(z.reshape(1, -1))[0])
    mean_total, var_total = base, 0.0
    for k in range(ex.d):
        Z = np.tile(z, (x.shape[0], 1))
        Z[:, k] = x
        h = np.asarray(predict_many(Z)) - ex.f(Z) - base
        m = np.sum(w * h)
        mean_total += m
        var_total += np.sum(w * h**2) - m**2
    return float(mean_total**2 + var_total)


__all__ = [
    "ProjectionExample",
    "EXAMPLES",
    "example1",
    "example2",
    "example_a1",
    "example_a2",
    "additive_doppler",
    "l2_error",
    "quadrature",
    "bernoulli4",
    "f_example1",
    "f_example2",
    "f_a1",
    "f_a2",
    "f_additive",
    "doppler_component",
]
