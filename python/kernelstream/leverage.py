"""Exact online ridge leverage scores, the sampler-independent reference for a KORS dictionary.

Calandriello, Lazaric, Valko (2017), App. A and Prop. 1: KORS estimates the online ridge
leverage score of ``x_t`` against the points seen so far,

    tau_t(gamma) = [K_t (K_t + gamma I)^{-1}]_{tt},

with ``K_t`` the Gram matrix of ``x_1 .. x_t``, and keeps about ``beta (1 + eps) sum_t tau_t``
points. The sum ``sum_t tau_t(gamma)`` depends only on the kernel, ``gamma`` and the order of
the stream, so a dictionary size can be checked against it whatever the sampler did
(the paper's Tables 1 and 2 report #SV close to this sum; ``docs/choices.md``, PROS-N-KONS).

Computation. With ``M = K + gamma I = R R^T`` (Cholesky in stream order), the Schur
complement identity gives ``R_tt^2 = gamma + k_tt - k_t^T (K_{t-1} + gamma I)^{-1} k_t =
gamma (1 + r_t)``, and ``tau_t = r_t / (1 + r_t) = 1 - gamma / R_tt^2``. For large ``n`` the
Gram matrix is replaced by a pivoted (greedy, largest residual first) Cholesky factor
``K ~ L L^T + diag(e)`` (``e`` the residual diagonal, kept exactly), stopped when
``max e <= tol * gamma``; then, with ``D = diag(gamma + e)`` and ``C_{t-1} = sum_{s<t}
l_s l_s^T / (gamma + e_s)`` (Woodbury: ``L^T (D + L L^T)^{-1} L = I - (I + L^T D^{-1} L)^{-1}``),

    R_tt^2 = gamma + e_t + l_t^T (I + C_{t-1})^{-1} l_t,

evaluated a block of rows at a time: for a block with rows ``u_s / sqrt(gamma + e_s)`` whitened
by the Cholesky factor of ``I + C`` before the block, ``R_tt^2 = (gamma + e_t) d_t^2`` with
``d_t`` the diagonal of the Cholesky factor of ``I + W`` (``W`` the block's whitened Gram).
All steps are BLAS-3; the cost is ``O(n m^2)`` for a rank-``m`` factor. With ``tol = 0`` and
``max_rank = n`` the result is exact up to rounding.
"""

from __future__ import annotations

import numpy as np

from ._optional import require
from ._validation import as_matrix, integer, non_negative, positive
from .errors import ParameterError
from .kernels import as_kernel


def _kernel_diag(kernel, X, chunk=256) -> np.ndarray:
    return np.concatenate(
        [np.diag(kernel(X[i : i + chunk])) for i in range(0, len(X), chunk)]
    ).astype(float)


def pivoted_cholesky(kernel, X, tol: float, max_rank: int):
    """Greedy pivoted Cholesky ``K ~ L L^T`` of the Gram matrix of ``X``.

    Pivots on the largest residual diagonal until it is ``<= tol`` or ``max_rank`` columns
    are taken. Returns ``(L (n, m), e (n,), pivots)`` with ``e = diag(K - L L^T) >= 0``.
    """
    kernel = as_kernel(kernel)
    X = as_matrix(X)
    n = len(X)
    max_rank = integer("max_rank", max_rank, 0)
    tol = non_negative("tol", tol)
    m_cap = min(max_rank, n)
    Lt = np.empty((m_cap, n))  # row j = column j of L, contiguous
    e = _kernel_diag(kernel, X)
    pivots: list[int] = []
    for j in range(m_cap):
        p = int(np.argmax(e))
        if e[p] <= tol:
            break
        col = kernel(X, X[p : p + 1])[:, 0]
        if j:
            col -= Lt[:j].T @ Lt[:j, p]
        col /= np.sqrt(e[p])
        col[pivots] = 0.0  # exact zeros on earlier pivots (their residual is 0)
        Lt[j] = col
        e -= col**2
        e[p] = 0.0
        np.maximum(e, 0.0, out=e)
        pivots.append(p)
    m = len(pivots)
    return Lt[:m].T, e, np.array(pivots, dtype=np.int64)


def online_ridge_leverage_scores(
    kernel, X, gamma: float, tol: float = 1e-8, max_rank: int = 3000, block: int = 512
) -> np.ndarray:
    """``tau_t(gamma) = [K_t (K_t + gamma I)^{-1}]_{tt}`` for every row ``t`` of ``X`` (in order).

    ``tol`` bounds the pivoted Cholesky's residual diagonal relative to ``gamma``
    (``max e <= tol * gamma``; ``tol = 0`` with ``max_rank >= n`` is the exact computation).
    Raises ``ParameterError`` if ``max_rank`` columns do not reach the tolerance.
    """
    gamma = positive("gamma", gamma)
    tol = non_negative("tol", tol)
    L, e = gram_factor(kernel, X, gamma, tol, max_rank)
    return scores_from_factor(L, e, gamma, block)


def gram_factor(kernel, X, gamma: float, tol: float, max_rank: int):
    """``(L, e)`` with ``K ~ L L^T + diag(e)`` and ``max e <= tol * gamma`` (the pivoted
    Cholesky of :func:`pivoted_cholesky`); ``ParameterError`` if ``max_rank`` is too small.
    The rows follow ``X``: the factor of a reordered stream is ``(L[perm], e[perm])``."""
    L, e, _ = pivoted_cholesky(kernel, X, tol * gamma, max_rank)
    if len(e) and e.max() > tol * gamma:
        raise ParameterError(
            f"max_rank={max_rank} pivots leave a residual {e.max():.3g} > tol * gamma = "
            f"{tol * gamma:.3g}; raise max_rank or tol"
        )
    return L, e


def scores_from_factor(L, e, gamma: float, block: int = 512) -> np.ndarray:
    """Online ridge leverage scores of the stream whose Gram matrix is ``L L^T + diag(e)``,
    in the order of the rows (module docstring: one blocked pass, ``O(n m^2)``)."""
    gamma = positive("gamma", gamma)
    block = integer("block", block, 1)
    L = np.asarray(L, dtype=float)
    e = np.asarray(e, dtype=float)
    n, m = L.shape
    tau = np.empty(n)
    G = np.eye(m)  # I + C, C = sum_{s < block start} l_s l_s^T / (gamma + e_s)
    for a in range(0, n, block):
        b = min(a + block, n)
        dg = gamma + e[a:b]
        U = L[a:b] / np.sqrt(dg)[:, None]
        if m:
            F = np.linalg.cholesky(G)
            V = require("scipy.linalg").solve_triangular(F, U.T, lower=True)  # (m, B): F^{-1} u_s
            W = V.T @ V
        else:
            W = np.zeros((b - a, b - a))
        # R_tt^2 = (gamma + e_t) d_t^2, d = diag(chol(I + W)); tau_t = 1 - gamma / R_tt^2.
        d2 = np.diag(np.linalg.cholesky(np.eye(b - a) + W)) ** 2
        tau[a:b] = 1.0 - gamma / (dg * d2)
        if m:
            G += U.T @ U
    return np.clip(tau, 0.0, 1.0)


__all__ = ["gram_factor", "online_ridge_leverage_scores", "pivoted_cholesky", "scores_from_factor"]
