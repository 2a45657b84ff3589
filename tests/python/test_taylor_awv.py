"""TaylorAWV (PKAWV paper sec. 3.1, Algorithm 1, Thm. 4)."""

from __future__ import annotations

import functools
import math

import kernelstream as ks
import numpy as np
import pytest
from kernelstream.reference import (
    TaylorAWVReference,
    taylor_kron_features,
    taylor_monomial_features,
)


@pytest.mark.parametrize("d,M,r", [(8, 2, 45), (18, 2, 190), (5, 2, 21), (5, 3, 56), (5, 4, 126)])
def test_feature_counts(d, M, r):
    m = ks.TaylorAWV(degree=M)
    assert m.features(np.zeros(d)).size == r
    m.learn_one(np.zeros(d), 0.0)
    assert m.dim == r == math.comb(M + d, d)


@pytest.mark.parametrize(
    "d,M,sigma", [(3, 2, 1.0), (4, 3, 0.7), (2, 5, 2.0), (6, 1, 1.3), (1, 0, 1.0)]
)
def test_truncated_kernel_identity(rng, d, M, sigma):
    # phi(x).phi(x') = exp(-(|x|^2+|x'|^2)/(2 sigma^2)) sum_{j<=M} (x.x'/sigma^2)^j / j!  (sec. 3.1)
    m = ks.TaylorAWV(sigma=sigma, degree=M)
    for _ in range(20):
        x, xp = rng.uniform(-1.5, 1.5, size=(2, d))
        lhs = m.features(x) @ m.features(xp)
        s = x @ xp / sigma**2
        rhs = math.exp(-(x @ x + xp @ xp) / (2 * sigma**2)) * sum(
            s**j / math.factorial(j) for j in range(M + 1)
        )
        assert lhs == pytest.approx(rhs, rel=1e-13, abs=1e-15)


def test_features_match_closed_form_and_kron_oracle(rng):
    x = rng.uniform(-1, 1, 4)
    fast = ks.TaylorAWV(sigma=0.9, degree=3).features(x)
    closed = taylor_monomial_features(x, 0.9, 3)
    np.testing.assert_allclose(np.sort(fast), np.sort(closed), rtol=1e-13, atol=1e-16)
    kron = taylor_kron_features(x, 0.9, 3)
    assert fast @ fast == pytest.approx(kron @ kron, rel=1e-13)


def test_truncation_error_bound(rng):
    # |k(x,x') - phi(x).phi(x')| <= (R/sigma)^{2M+2}/(M+1)!  (Lemma 13)
    d, sigma = 3, 1.0
    for M in (1, 2, 4, 6):
        m = ks.TaylorAWV(sigma=sigma, degree=M)
        for _ in range(20):
            x, xp = rng.uniform(-0.5, 0.5, size=(2, d))
            R = max(np.linalg.norm(x), np.linalg.norm(xp))
            k = math.exp(-np.sum((x - xp) ** 2) / (2 * sigma**2))
            err = abs(k - m.features(x) @ m.features(xp))
            assert err <= (R / sigma) ** (2 * M + 2) / math.factorial(M + 1) + 1e-15


def test_diagonal_at_most_one_and_increasing_in_M(rng):
    for _ in range(20):
        x = rng.uniform(-1, 1, 5)
        diag = [float(np.sum(ks.TaylorAWV(degree=M).features(x) ** 2)) for M in range(0, 9)]
        assert all(v <= 1.0 + 1e-15 for v in diag)
        assert all(b >= a for a, b in zip(diag, diag[1:]))
    x2 = rng.uniform(-1, 1, 2)
    assert float(np.sum(ks.TaylorAWV(degree=25).features(x2) ** 2)) == pytest.approx(1.0, abs=1e-12)


@pytest.mark.parametrize(
    "d,M,sigma,lam", [(2, 2, 1.0, 1.0), (3, 3, 0.8, 0.5), (4, 2, 1.5, 2.0), (1, 4, 1.0, 0.1)]
)
@pytest.mark.parametrize("ridge", [False, True])
def test_predictions_equal_numpy_reference(rng, d, M, sigma, lam, ridge):
    X = rng.uniform(-1, 1, size=(150, d))
    y = np.cos(2 * X.sum(axis=1)) + 0.1 * rng.standard_normal(150)
    fast = ks.TaylorAWV(sigma=sigma, degree=M, lam=lam, ridge=ridge).progressive_predict(X, y)
    ref = TaylorAWVReference(sigma=sigma, degree=M, lam=lam, ridge=ridge).progressive_predict(X, y)
    assert fast[0] == 0.0
    np.testing.assert_allclose(fast, ref, rtol=1e-10, atol=1e-10)


def test_awv_is_ridge_over_one_plus_leverage(rng):
    X = rng.uniform(-1, 1, size=(80, 3))
    y = rng.uniform(-1, 1, 80)
    awv, ridge = ks.TaylorAWV(degree=2), ks.TaylorAWV(degree=2, ridge=True)
    ref = TaylorAWVReference(degree=2, features="monomial")
    for x, yt in zip(X, y):
        v = taylor_monomial_features(x, 1.0, 2)
        A_prev = ref.A if ref.A is not None else np.eye(v.size)
        delta = v @ np.linalg.solve(A_prev, v)  # v^T A_{t-1}^{-1} v
        p_awv, p_ridge = awv.predict_one(x), ridge.predict_one(x)
        assert p_awv == pytest.approx(p_ridge / (1 + delta), rel=1e-10, abs=1e-14)
        awv.learn_one(x, yt)
        ridge.learn_one(x, yt)
        ref.learn_one(x, yt)
        # leverage v^T A_t^{-1} v exposed by the learner
        assert awv.last_leverage == pytest.approx(v @ np.linalg.solve(ref.A, v), rel=1e-10)


def test_regret_inequality(rng):
    # sum (y-yhat)^2 - min_w [sum (y - w.v)^2 + lam |w|^2] <= sum y^2 v^T A_t^{-1} v
    #                                                     <= B^2 log det(I + V^T V / lam)   (proof of Prop. 1)
    for _trial in range(5):
        d, M, lam, B, n = 3, 2, 1.0, 1.0, 300
        X = rng.uniform(-1, 1, size=(n, d))
        y = np.clip(np.sin(4 * X[:, 0]) + 0.5 * rng.standard_normal(n), -B, B)
        m = ks.TaylorAWV(degree=M, lam=lam)
        preds = m.progressive_predict(X, y)
        V = np.array([m.features(x) for x in X])
        A = lam * np.eye(V.shape[1]) + V.T @ V
        w = np.linalg.solve(A, V.T @ y)
        best = np.sum((y - V @ w) ** 2) + lam * w @ w
        regret = np.sum((y - preds) ** 2) - best
        middle = m.regret_term
        _, logdet = np.linalg.slogdet(np.eye(V.shape[1]) + V.T @ V / lam)
        assert regret <= middle + 1e-9
        assert middle <= B**2 * logdet + 1e-9


def test_converges_to_kernel_awv_as_degree_grows(rng):
    # Taylor-PKAWV -> Kernel-AWV as M grows (Thm. 4; Kernel-AWV by its closed form, eq. (3))
    X = rng.uniform(-0.7, 0.7, size=(40, 2))
    y = np.sin(3 * X[:, 0])
    K = np.exp(-((X[:, None, :] - X[None, :, :]) ** 2).sum(-1) / 2)
    kawv = []
    for t in range(len(X)):
        Kt = K[: t + 1, : t + 1]
        Yt = np.r_[y[:t], 0.0]
        alpha = np.linalg.solve(Kt + np.eye(t + 1), Yt)
        kawv.append(-1.0 * alpha[-1])
    kawv = np.array(kawv)
    errs = [
        np.max(np.abs(ks.TaylorAWV(degree=M).progressive_predict(X, y) - kawv))
        for M in (1, 2, 4, 8)
    ]
    assert all(b < a for a, b in zip(errs, errs[1:]))
    assert errs[-1] < 1e-6


@pytest.mark.parametrize(
    "kwargs",
    [
        dict(sigma=0.0),
        dict(sigma=-1.0),
        dict(sigma=float("nan")),
        dict(degree=-1),
        dict(degree=1.5),
        dict(lam=0.0),
        dict(lam=-2.0),
        dict(lam=float("inf")),
        dict(sigma="1"),
    ],
)
def test_bad_parameters(kwargs):
    with pytest.raises(ks.ParameterError):
        ks.TaylorAWV(**kwargs)


def test_feature_count_too_large_for_memory_is_a_clear_error():
    m = ks.TaylorAWV(degree=6)
    X = np.zeros((3, 40))
    with pytest.raises(ks.ParameterError, match="features"):
        m.learn_many(X, np.zeros(3))
    with pytest.raises(ks.ParameterError):
        m.predict_one(np.zeros(40))
    assert m.n_seen == 0 and m.input_dim is None
    m.learn_one(np.zeros(4), 1.0)  # a small d still works afterwards
    assert m.dim == math.comb(10, 4)


def test_memory_is_flat_in_n():
    # O(r^2) state: the pickled state does not grow with the number of rounds (but for
    # its counters: integers take 1 to 9 bytes in the tagged encoding)
    rng = np.random.default_rng(0)
    m = ks.TaylorAWV(degree=2)
    m.learn_many(rng.uniform(-1, 1, (100, 5)), rng.uniform(-1, 1, 100))
    s1 = len(m._core._state_bytes())
    m.learn_many(rng.uniform(-1, 1, (5000, 5)), rng.uniform(-1, 1, 5000))
    assert s1 <= len(m._core._state_bytes()) <= s1 + 16


@functools.cache
def _blocked_case(ridge):
    """The stream of the blocked-rounds test and the reference's predictions on it (the
    reference does not depend on the block size: computed once per ``ridge``)."""
    rng = np.random.default_rng(12345)
    X = rng.uniform(-1, 1, size=(300, 4))
    y = np.cos(2 * X.sum(axis=1)) + 0.1 * rng.standard_normal(300)
    kw = dict(sigma=1.2, degree=4, lam=0.5, ridge=ridge)
    return X, y, kw, TaylorAWVReference(**kw).progressive_predict(X, y)


@pytest.mark.slow
@pytest.mark.parametrize("ridge", [False, True])
@pytest.mark.parametrize("block_size", [None, 7, 64])
def test_blocked_rounds_equal_single_rounds_and_reference(rng, ridge, block_size):
    # r = C(4 + 4, 4) = 70 features: blocks of rounds (Woodbury) against single
    # rounds and the NumPy reference; learn_many and predict_many agree too.
    X, y, kw, ref = _blocked_case(ridge)
    single = ks.TaylorAWV(**kw, block_size=1)
    blocked = ks.TaylorAWV(**kw, block_size=block_size)
    p1, pb = single.progressive_predict(X, y), blocked.progressive_predict(X, y)
    assert blocked.dim == 70
    np.testing.assert_allclose(pb, p1, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(pb, ref, rtol=1e-9, atol=1e-10)
    learned = ks.TaylorAWV(**kw, block_size=block_size)
    learned.learn_many(X, y)
    Xt = rng.uniform(-1, 1, size=(40, 4))
    many = learned.predict_many(Xt)
    one = np.array([single.predict_one(x) for x in Xt])
    np.testing.assert_allclose(many, one, rtol=1e-9, atol=1e-12)
    assert learned.regret_term == pytest.approx(single.regret_term, rel=1e-10)


def test_block_size_is_a_setting_kept_by_copies_and_checked(rng):
    import copy
    import pickle

    X = rng.uniform(-1, 1, size=(50, 3))
    m = ks.TaylorAWV(degree=3, block_size=5)
    m.learn_many(X, X[:, 0])
    for other in (pickle.loads(pickle.dumps(m)), copy.copy(m)):
        assert other.get_params()["block_size"] == 5
        np.testing.assert_array_equal(other.predict_many(X), m.predict_many(X))
    for bad in (0, -1, 1.5, 10**6, "8"):
        with pytest.raises(ks.ParameterError):
            ks.TaylorAWV(block_size=bad)


@pytest.mark.parametrize("sigma", [1e-200, 1e-300, 1e-308])
def test_tiny_sigma_in_the_documented_domain_is_accepted_and_exact(rng, sigma):
    """``sigma > 0`` with a finite ``1/sigma`` (the declared domain) builds, and the
    features of inputs at the kernel's own scale follow the closed form (sec. 3.1):
    ``x`` of order ``sigma`` is scaled before it is squared (``x_i^2`` underflows)."""
    m = ks.TaylorAWV(sigma=sigma, degree=2)
    for _ in range(5):
        u = rng.uniform(-1.5, 1.5, size=3)  # x / sigma
        x = u * sigma
        g0 = math.exp(-(u @ u) / 2)
        lhs = m.features(x) @ m.features(x)
        rhs = math.exp(-(u @ u)) * sum((u @ u) ** j / math.factorial(j) for j in range(3))
        assert m.features(x)[0] == pytest.approx(g0, rel=1e-13)
        assert lhs == pytest.approx(rhs, rel=1e-12)
    X = rng.uniform(-1, 1, size=(20, 3))
    with pytest.warns(ks.ScaleWarning):
        assert np.all(np.isfinite(m.progressive_predict(X, X[:, 0])))


@pytest.mark.parametrize("sigma", [5e-324, 1e-310, 0.0, -1.0, math.inf])
def test_sigma_without_a_finite_inverse_is_refused(sigma):
    with pytest.raises(ks.ParameterError, match=r"sigma must be in \[5\.56268464626801e-309, "):
        ks.TaylorAWV(sigma=sigma)
