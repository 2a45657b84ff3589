"""Exact online ridge leverage scores against their definition, computed by brute force."""

from __future__ import annotations

import numpy as np
import pytest
from kernelstream import ParameterError
from kernelstream.kernels import Gaussian
from kernelstream.leverage import online_ridge_leverage_scores, pivoted_cholesky
from kernelstream.reference._kernels import gram


def brute_force(K, gamma):
    """tau_t = [K_t (K_t + gamma I)^{-1}]_{tt}, one dense solve per round."""
    n = len(K)
    out = np.empty(n)
    for t in range(n):
        Kt = K[: t + 1, : t + 1]
        out[t] = np.linalg.solve(Kt + gamma * np.eye(t + 1), Kt[:, t])[t]
    return out


def stream(n=150, d=3, seed=0):
    return np.random.default_rng(seed).uniform(0, 1, size=(n, d))


@pytest.mark.parametrize("gamma", [1.0, 0.05, 1e-3])
@pytest.mark.parametrize("block", [1, 7, 512])
def test_exact_equals_definition(gamma, block):
    k = Gaussian(0.4)
    X = stream()
    want = brute_force(gram(k, X, X), gamma)
    got = online_ridge_leverage_scores(k, X, gamma, tol=0.0, max_rank=len(X), block=block)
    # Both are O(cond(K_t + gamma I) * machine eps) accurate; cond <= 1 + n / gamma.
    np.testing.assert_allclose(got, want, atol=1e-9, rtol=0)
    assert abs(got.sum() - want.sum()) <= 1e-9 * len(X)


def test_low_rank_factor_with_exact_residual_diagonal_is_close():
    # With a residual diagonal e <= tol * gamma, every tau_t moves by O(n tol) at most.
    k = Gaussian(2.0)
    X = stream(300, 4, seed=1)
    gamma = 0.1
    want = brute_force(gram(k, X, X), gamma)
    got = online_ridge_leverage_scores(k, X, gamma, tol=1e-10, max_rank=300)
    np.testing.assert_allclose(got, want, atol=1e-6, rtol=0)


def test_identities():
    k = Gaussian(0.5)
    X = stream(60, 2, seed=2)
    gamma = 0.3
    tau = online_ridge_leverage_scores(k, X, gamma, tol=0.0, max_rank=60)
    # the first point: tau_1 = k / (k + gamma) = 1 / (1 + gamma) for a normalised kernel
    assert tau[0] == pytest.approx(1.0 / (1.0 + gamma), abs=1e-15)
    # a duplicate of a point already seen w times: tau = 1 / (1 + w + gamma)
    Xd = np.repeat(X[:1], 5, axis=0)
    taud = online_ridge_leverage_scores(k, Xd, gamma, tol=0.0, max_rank=5)
    np.testing.assert_allclose(taud, [1.0 / (1 + w + gamma) for w in range(5)], atol=1e-14)
    # the last score of the offline scores: sum of offline RLS = tr K (K + gamma I)^{-1} (d_eff)
    K = gram(k, X, X)
    d_eff = np.trace(np.linalg.solve(K + gamma * np.eye(60), K))
    assert tau.sum() >= d_eff - 1e-9  # online scores dominate the offline ones


def test_pivoted_cholesky_reproduces_gram_on_pivots_and_residual():
    k = Gaussian(1.0)
    X = stream(80, 3, seed=4)
    L, e, piv = pivoted_cholesky(k, X, tol=1e-6, max_rank=80)
    K = gram(k, X, X)
    np.testing.assert_allclose(np.diag(K) - np.sum(L**2, axis=1), e, atol=1e-12)
    assert e.max() <= 1e-6 and np.all(e >= 0)
    np.testing.assert_allclose((L @ L.T)[np.ix_(piv, piv)], K[np.ix_(piv, piv)], atol=1e-12)


def test_rank_cap_is_an_error():
    with pytest.raises(ParameterError, match="max_rank"):
        online_ridge_leverage_scores(Gaussian(0.1), stream(50), 0.01, tol=0.0, max_rank=3)
