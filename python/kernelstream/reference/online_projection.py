"""NumPy references for the online projection estimator and its competitors, written
from the definitions of Zhang and Simon (sec. 2-3, Algorithms 1-2, App. E),
not from the Rust code:

* the eigenfunctions by their closed forms (``np.sin``, ``np.cos``, ``scipy.special`` Hermite
  polynomials with the ``sqrt(beta / (2^(j-1) (j-1)!))`` normalisation of eq. (30));
* the column order from its definition (prefix, then scheduled units, ``t_N = floor(c N^kappa)``);
* :class:`NaiveOnlineProjection`: Algorithm 1 (least squares recomputed from scratch each round);
* :func:`sherman_morrison_step` (eq. (19)/(22)) and :func:`add_column_step` (eq. (21)/(74)),
  single steps checked against direct solves;
* :class:`AveragedKernelSGDReference` (eqs. (87)-(88)) and :func:`krr_fit` (eq. (86)).
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from .._optional import require

special = require("scipy.special")

# -- eigenfunctions (closed forms) ---------------------------------------------------


def sine_functions(x, m):
    """``psi_j(x) = sqrt(2) sin((2j - 1) pi x / 2)``, j = 1..m (eq. (11)); shape ``(len(x), m)``."""
    x = np.asarray(x, dtype=float).reshape(-1, 1)
    j = np.arange(1, m + 1)
    return np.sqrt(2.0) * np.sin((2 * j - 1) * np.pi * x / 2)


def trig_functions(x, m, cos_first=False):
    """``sqrt(2) sin(2 pi k x)``, ``sqrt(2) cos(2 pi k x)`` for k = 1, 2, ... (Table 2), first m."""
    x = np.asarray(x, dtype=float).reshape(-1, 1)
    out = np.empty((x.shape[0], m))
    for j in range(1, m + 1):
        k = (j + 1) // 2
        is_first = j % 2 == 1
        use_cos = is_first == cos_first
        out[:, j - 1] = np.sqrt(2.0) * (np.cos if use_cos else np.sin)(2 * np.pi * k * x[:, 0])
    return out


def sine_eigenvalues(m):
    j = np.arange(1, m + 1)
    return 4.0 / ((2 * j - 1) ** 2 * np.pi**2)


def trig_eigenvalues(m):
    k = (np.arange(1, m + 1) + 1) // 2
    return 1.0 / (2 * np.pi * k) ** 4


def hermite_functions(x, m, a=1.0, eps=1.0):
    """Gaussian-kernel eigenfunctions of Appendix A, eq. (30), by their formula (small m only)."""
    x = np.asarray(x, dtype=float).reshape(-1)
    beta = (1 + (2 * eps / a) ** 2) ** 0.25
    delta2 = a**2 * (beta**2 - 1) / 2
    out = np.empty((x.shape[0], m))
    for j in range(1, m + 1):
        gamma = math.sqrt(beta / (2 ** (j - 1) * math.gamma(j)))
        out[:, j - 1] = gamma * np.exp(-delta2 * x**2) * special.eval_hermite(j - 1, a * beta * x)
    return out


def hermite_eigenvalues(m, a=1.0, eps=1.0):
    beta = (1 + (2 * eps / a) ** 2) ** 0.25
    delta2 = a**2 * (beta**2 - 1) / 2
    den = a**2 + delta2 + eps**2
    j = np.arange(1, m + 1)
    return np.sqrt(a**2 / den) * (eps**2 / den) ** (j - 1)


def shifted_legendre(x, degree):
    """``P~_k(x) = P_k(2x - 1)`` for k = 0..degree (scipy), shape ``(len(x), degree + 1)``."""
    x = np.asarray(x, dtype=float).reshape(-1)
    return np.stack([special.eval_legendre(k, 2 * x - 1) for k in range(degree + 1)], axis=1)


def functions_1d(basis, x, m, cos_first=False, a=1.0, eps=1.0):
    if m == 0:
        return np.zeros((np.asarray(x).reshape(-1).shape[0], 0))
    if basis == "sine":
        return sine_functions(x, m)
    if basis == "trig":
        return trig_functions(x, m, cos_first)
    if basis == "gaussian":
        return hermite_functions(x, m, a, eps)
    raise ValueError(basis)


def _order_key_1d(basis, j):
    # exact integer key, increasing as the eigenvalue decreases
    if basis == "sine":
        return 2 * j - 1
    if basis == "trig":
        return (j + 1) // 2
    return j - 1


def tensor_order(basis, d, count):
    """The first ``count`` multi-indices by decreasing product eigenvalue, ties lexicographic:
    brute force over the box ``{1..count}^d`` (independent of the best-first enumeration)."""
    box = min(count, 64) if d > 1 else count
    keyed = []
    for idx in itertools.product(range(1, box + 1), repeat=d):
        ks = [_order_key_1d(basis, j) for j in idx]
        key = sum(ks) if basis == "gaussian" else math.prod(ks)
        keyed.append((key, idx))
    keyed.sort()
    return [idx for _, idx in keyed[:count]]


# -- the design (column layout) ----------------------------------------------------------


class ProjectionDesign:
    """Columns of the estimator from their definition: prefix (intercept, then ``P~_1..P~_m`` of
    every coordinate), then the scheduled units (one function; a sin/cos pair; one function
    per coordinate for the additive model)."""

    def __init__(
        self,
        d,
        basis="trig",
        alpha=2.0,
        c=1.0,
        prefix_degree=None,
        additive=False,
        pairs=False,
        cos_first=False,
        a=1.0,
        eps=1.0,
    ):
        self.d, self.basis, self.c = d, basis, c
        self.kappa = 2 * alpha + 1 if additive else (2 * alpha + d) / d
        self.prefix_degree, self.additive, self.pairs = prefix_degree, additive, pairs
        self.cos_first, self.a, self.eps = cos_first, a, eps
        self.n_prefix = 0 if prefix_degree is None else 1 + d * prefix_degree

    def switch_on(self, N):
        """``t_N = floor(c N^kappa)`` (relative guard 1e-12 against rounding below an integer)."""
        return math.floor(self.c * N**self.kappa * (1 + 1e-12))

    def n_units(self, n):
        """``N(n) = max{N : t_N <= n}``."""
        N = 0
        while self.switch_on(N + 1) <= n:
            N += 1
        return N

    def columns(self, N):
        """List of column descriptors for N units."""
        cols = []
        if self.prefix_degree is not None:
            cols.append(("1",))
            for l in range(self.d):
                for k in range(1, self.prefix_degree + 1):
                    cols.append(("P", l, k))
        per = 2 if self.pairs else 1
        if self.additive:
            for j in range(1, N * per + 1):
                for l in range(self.d):
                    cols.append(("C", l, j))
        else:
            for idx in tensor_order(self.basis, self.d, N * per):
                cols.append(("T",) + tuple(idx))
        return cols

    def matrix(self, X, N):
        """Design matrix ``Psi`` (n x p) of the first N units."""
        X = np.asarray(X, dtype=float).reshape(-1, self.d)
        cols = self.columns(N)
        jmax = 0
        for col in cols:
            if col[0] == "C":
                jmax = max(jmax, col[2])
            elif col[0] == "T":
                jmax = max(jmax, max(col[1:]))
        vals = [
            functions_1d(self.basis, X[:, l], jmax, self.cos_first, self.a, self.eps)
            for l in range(self.d)
        ]
        polys = [shifted_legendre(X[:, l], self.prefix_degree or 0) for l in range(self.d)]
        out = np.empty((X.shape[0], len(cols)))
        for k, col in enumerate(cols):
            if col[0] == "1":
                out[:, k] = 1.0
            elif col[0] == "P":
                out[:, k] = polys[col[1]][:, col[2]]
            elif col[0] == "C":
                out[:, k] = vals[col[1]][:, col[2] - 1]
            else:
                out[:, k] = np.prod([vals[l][:, j - 1] for l, j in enumerate(col[1:])], axis=0)
        return out

    def n_columns(self, n):
        return len(self.columns(self.n_units(n)))


def batch_projection(Psi, Y, rcond=1e-5):
    """Least squares ``argmin ||Y - Psi theta||^2`` (eq. (15)-(17)); minimum-norm if rank-deficient."""
    if Psi.shape[1] == 0:
        return np.zeros(0)
    return np.linalg.lstsq(Psi, Y, rcond=rcond)[0]


class NaiveOnlineProjection:
    """Algorithm 1: after each sample, switch scheduled units on and recompute OLS from scratch."""

    def __init__(self, d=1, **design):
        self.design = ProjectionDesign(d, **design)
        self.X = np.zeros((0, d))
        self.Y = np.zeros(0)
        self.theta = np.zeros(self.design.n_columns(0))

    @property
    def n_seen(self):
        return len(self.Y)

    @property
    def dim(self):
        return len(self.theta)

    def predict_one(self, x):
        N = self.design.n_units(self.n_seen)
        return float(self.design.matrix(np.asarray(x, float).reshape(1, -1), N)[0] @ self.theta)

    def learn_one(self, x, y):
        self.X = np.vstack([self.X, np.asarray(x, float).reshape(1, -1)])
        self.Y = np.append(self.Y, float(y))
        Psi = self.design.matrix(self.X, self.design.n_units(self.n_seen))
        self.theta = batch_projection(Psi, self.Y)


# -- single steps of Algorithm 2 (Appendix C) --------------------------------------------


def sherman_morrison_step(Phi, theta, u, y):
    """Eq. (19) and (22): returns ``(Phi_n, theta_n)`` from ``Phi_{n-1}, theta_{n-1}`` and the row ``u``."""
    Phi_n = Phi - np.outer(Phi @ u, u @ Phi) / (1.0 + u @ Phi @ u)
    theta_n = theta + Phi_n @ u * (y - u @ theta)
    return Phi_n, theta_n


def add_column_step(Phi, theta, Psi, w, Y):
    """Eq. (21) and (74): adds the column ``w`` (new function at all past inputs).

    Returns ``(Phi', theta', k)`` with ``k = ||(I - H) w||^2`` the Schur complement."""
    b = Psi.T @ w
    q = Phi @ b
    k = w @ w - b @ q
    top = Phi + np.outer(q, q) / k
    Phi_new = np.block([[top, -q[:, None] / k], [-q[None, :] / k, np.array([[1.0 / k]])]])
    z = w @ (Y - Psi @ theta)  # = w^T Delta_n
    theta_new = np.concatenate([theta - q * z / k, [z / k]])
    return Phi_new, theta_new, k


# -- competitors -------------------------------------------------------------------------


class AveragedKernelSGDReference:
    """Eqs. (87)-(88): keeps every iterate's coefficients' running sum explicitly."""

    def __init__(self, kernel, gamma0=1.0, zeta=0.5):
        self.kernel, self.gamma0, self.zeta = kernel, gamma0, zeta
        self.X = None
        self.a = np.zeros(0)  # f~_n = sum_i a_i K(X_i, .)
        self.sum_coef = np.zeros(0)  # sum_{k=0}^n (coefficients of f~_k)

    @property
    def n_seen(self):
        return len(self.a)

    def _k(self, x):
        if self.X is None:
            return np.zeros(0)
        return self.kernel(self.X, np.asarray(x, float).reshape(1, -1))[:, 0]

    def predict_one(self, x):
        n = len(self.a)
        return float(self._k(x) @ self.sum_coef) / (n + 1)

    def learn_one(self, x, y):
        n = len(self.a) + 1
        gamma = self.gamma0 * n ** (-self.zeta)
        resid = y - float(self._k(x) @ self.a)
        x = np.asarray(x, float).reshape(1, -1)
        self.X = x if self.X is None else np.vstack([self.X, x])
        self.a = np.append(self.a, gamma * resid)
        self.sum_coef = np.append(self.sum_coef, 0.0) + self.a


def krr_fit(kernel, X, Y, lam):
    """Kernel ridge regression, eq. (86): ``a = (K + n lam I)^{-1} Y``; returns a predictor."""
    X = np.asarray(X, float)
    n = X.shape[0]
    K = kernel(X)
    coef = np.linalg.solve(K + n * lam * np.eye(n), Y)

    def predict(Z):
        return kernel(np.asarray(Z, float), X) @ coef

    return predict


__all__ = [
    "sine_functions",
    "trig_functions",
    "hermite_functions",
    "shifted_legendre",
    "sine_eigenvalues",
    "trig_eigenvalues",
    "hermite_eigenvalues",
    "tensor_order",
    "ProjectionDesign",
    "batch_projection",
    "NaiveOnlineProjection",
    "sherman_morrison_step",
    "add_column_step",
    "AveragedKernelSGDReference",
    "krr_fit",
]
