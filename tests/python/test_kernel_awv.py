"""KernelAWV (PKAWV paper eq. (3), Prop. 1): equality
with the NumPy reference (definition and bordered inverse), the identities of eq. (3), the regret inequality, the capacity limit."""

import kernelstream as ks
import numpy as np
import pytest
from kernelstream.kernels import Gaussian, Laplacian
from kernelstream.reference import KernelAWVReference


def stream(n, d, seed):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, size=(n, d))
    y = np.sin(3 * X[:, 0]) * np.cos(X[:, -1]) + 0.1 * rng.standard_normal(n)
    return X, y


@pytest.mark.parametrize("ridge", [False, True])
@pytest.mark.parametrize("kernel", [Gaussian(1.0), Laplacian(0.8)])
@pytest.mark.parametrize("solver", ["solve", "bordered"])
def test_equals_reference(ridge, kernel, solver):
    X, y = stream(100, 3, 1)
    fast = ks.KernelAWV(kernel, lam=0.7, ridge=ridge)
    ref = KernelAWVReference(kernel, lam=0.7, ridge=ridge, solver=solver)
    np.testing.assert_allclose(
        fast.progressive_predict(X, y), ref.progressive_predict(X, y), rtol=0, atol=1e-10
    )
    Xq, _ = stream(10, 3, 2)
    np.testing.assert_allclose(
        fast.predict_many(Xq), [ref.predict_one(x) for x in Xq], rtol=0, atol=1e-10
    )


def test_awv_is_krr_shrunk_by_lam_over_s():
    # from eq. (3): y_hat = lam / (lam + k_tt - k^T G^{-1} k) * p_KRR, and y_hat_1 = 0.
    X, y = stream(120, 2, 3)
    lam = 0.5
    awv, krr = (
        ks.KernelAWV(Gaussian(0.7), lam=lam),
        ks.KernelAWV(Gaussian(0.7), lam=lam, ridge=True),
    )
    pa, pk = awv.progressive_predict(X, y), krr.progressive_predict(X, y)
    assert pa[0] == 0.0 and pk[0] == 0.0
    K = Gaussian(0.7)(X)
    for t in range(1, 120):
        G = K[:t, :t] + lam * np.eye(t)
        k = K[:t, t]
        s = K[t, t] + lam - k @ np.linalg.solve(G, k)
        assert s >= lam - 1e-12
        assert pa[t] == pytest.approx(lam / s * pk[t], abs=1e-10)
        # y_hat_t = -lam [(K_t + lam I)^{-1} (Y_{t-1}, 0)]_t
        alpha = np.linalg.solve(K[: t + 1, : t + 1] + lam * np.eye(t + 1), np.r_[y[:t], 0.0])
        assert pa[t] == pytest.approx(-lam * alpha[t], abs=1e-10)


def test_regret_inequality():
    # sum (y - y_hat)^2 - min_f [...] <= sum y_t^2 <A_t^{-1} phi_t, phi_t> <= B^2 log det(I + K / lam)
    X, y = stream(250, 4, 4)
    lam = 1.0
    awv = ks.KernelAWV(Gaussian(1.0), lam=lam)
    p = awv.progressive_predict(X, y)
    K = Gaussian(1.0)(X)
    best = lam * y @ np.linalg.solve(K + lam * np.eye(len(y)), y)
    regret = np.sum((y - p) ** 2) - best
    logdet = np.linalg.slogdet(np.eye(len(y)) + K / lam)[1]
    assert 0 < regret <= awv.regret_term + 1e-9
    assert awv.regret_term <= np.max(np.abs(y)) ** 2 * logdet


def test_max_size_refuses_long_streams_cleanly():
    X, y = stream(40, 2, 5)
    a = ks.KernelAWV(Gaussian(1.0), max_size=30)
    a.learn_many(X[:25], y[:25])
    before = a.predict_many(X[30:])
    with pytest.raises(ks.InputError, match="max_size"):
        a.progressive_predict(X[25:], y[25:])
    assert a.n_seen == 25
    np.testing.assert_array_equal(before, a.predict_many(X[30:]))
    a.learn_many(X[25:30], y[25:30])
    with pytest.raises(ks.InputError, match="max_size"):
        a.learn_one(X[30], y[30])
    for bad in (dict(max_size=0), dict(lam=0.0), dict(lam=-1.0)):
        with pytest.raises(ks.ParameterError):
            ks.KernelAWV(Gaussian(1.0), **bad)
    with pytest.raises(ks.ParameterError):
        ks.KernelAWV("gaussian")
