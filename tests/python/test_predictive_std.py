"""Predictive standard deviations of the AWV family: equality with the NumPy reference
written from the definition (``kernelstream.reference.predictive_std``), the mixture
formula, invariances, calibration on Gaussian noise, and the scikit-learn adapter."""

from __future__ import annotations

import pickle

import kernelstream as ks
import numpy as np
import pytest
from kernelstream.kernels import Gaussian
from kernelstream.reference._kernels import gram
from kernelstream.reference.predictive_std import PredictiveStdReference, mixture_std
from kernelstream.reference.taylor_awv import taylor_kron_features, taylor_monomial_features


def stream(n, d=2, seed=0, noise=0.2):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, size=(n, d))
    return X, np.sin(3 * X[:, 0]) * np.cos(X[:, -1]) + noise * rng.standard_normal(n)


def run_against(model, ref, X, y):
    """Worst relative gap of (prediction, std) over the rounds after the first."""
    worst = 0.0
    for t in range(len(y)):
        got = model.predict_one(X[t], return_std=True)
        want = ref.predict_std_one(X[t])
        if t == 0:
            assert got[0] == want[0] == 0.0 and np.isnan(got[1]) and np.isnan(want[1])
        else:
            worst = max(worst, abs(got[1] - want[1]) / want[1])
            noise = np.sqrt(ref.num / ref.den)
            worst = max(worst, abs(model.noise_std - noise) / noise)
            worst = max(worst, abs(got[0] - want[0]) / max(abs(want[0]), 1e-3))
        model.learn_one(X[t], y[t])
        ref.learn_one(X[t], y[t])
    return worst


@pytest.mark.parametrize("ridge", [False, True])
def test_taylor_awv_equals_the_definition(ridge):
    X, y = stream(120)
    phi = lambda x: taylor_kron_features(x, 0.9, 3)  # noqa: E731
    ref = PredictiveStdReference(phi, lam=0.3, ridge=ridge)
    model = ks.TaylorAWV(sigma=0.9, degree=3, lam=0.3, ridge=ridge)
    assert run_against(model, ref, X, y) < 1e-9


@pytest.mark.parametrize("gamma", [0.9, 0.995, 0.999])
def test_discounted_taylor_awv_equals_the_definition(gamma):
    """gamma < 1: the discounted A of the engine, and the noise memory rho = min(gamma,
    0.995) (0.999 keeps 0.995). The refill of the discounted A is coordinate-wise: the
    reference uses the engine's basis (the multi-index monomials, in its order)."""
    X, y = stream(150, seed=1)
    ref = PredictiveStdReference(lambda x: taylor_monomial_features(x, 1.0, 2), gamma=gamma)
    model = ks.TaylorAWV(degree=2, gamma=gamma)
    assert run_against(model, ref, X, y) < 1e-9


def test_kernel_awv_equals_the_kernel_form():
    """delta = (k(x, x) - k^T (K + lam I)^-1 k) / lam: the feature-space quadratic form
    written with kernels only (Woodbury)."""
    X, y = stream(150, seed=2)
    kern, lam = Gaussian(0.6), 0.5
    model = ks.KernelAWV(kern, lam=lam)
    num = den = 0.0
    worst = 0.0
    for t in range(len(y)):
        Xp = X[:t]
        k = gram(kern, Xp, X[t])[:, 0] if t else np.zeros(0)
        G = gram(kern, Xp, Xp) + lam * np.eye(t) if t else np.zeros((0, 0))
        delta = (1.0 - k @ np.linalg.solve(G, k)) / lam if t else 1.0 / lam
        krr = k @ np.linalg.solve(G, y[:t]) if t else 0.0
        pred = krr / (1.0 + delta)  # AWV = KRR shrunk by lam / s (PKAWV paper, eq. (3))
        std = np.sqrt(num / den * (1 + delta)) if den else np.nan
        got = model.predict_one(X[t], return_std=True)
        if t:
            worst = max(worst, abs(got[1] - std) / std, abs(got[0] - pred) / max(abs(pred), 1e-3))
        num = 0.995 * num + (y[t] - pred) ** 2 / (1 + delta)
        den = 0.995 * den + 1
        model.learn_one(X[t], y[t])
    assert worst < 1e-9


def test_nystrom_fixed_dictionary_equals_its_features():
    """On a fixed dictionary D, NystromAWV is AWV on phi(x) = K_DD^-1/2 k_D(x)."""
    X, y = stream(150, seed=3)
    D = np.array([[-0.8, -0.7], [-0.2, 0.6], [0.5, -0.4], [0.9, 0.8], [0.1, 0.0]])
    kern = Gaussian(0.7)
    vals, vecs = np.linalg.eigh(gram(kern, D, D))
    inv_sqrt = vecs @ np.diag(vals**-0.5) @ vecs.T
    ref = PredictiveStdReference(lambda x: inv_sqrt @ gram(kern, D, x)[:, 0], lam=0.4)
    model = ks.NystromAWV(kern, lam=0.4, dictionary=D)
    assert run_against(model, ref, X, y) < 1e-9


@pytest.mark.parametrize("rule", ["boa", "ewa", "vaw"])
def test_mixture_std_is_the_mixture_of_its_experts(rule):
    """sqrt(sum_j pi_j (s_j^2 + (z_j - p)^2)), pi = |w| / sum |w|, with the experts' own
    (z_j, s_j) from standalone copies fed the same stream."""
    X, y = stream(200, seed=4)

    def experts():
        return [ks.TaylorAWV(sigma=0.7, degree=3), ks.RFFAWV(Gaussian(0.5), n_features=30, seed=2)]

    mix = ks.Mixture(experts(), rule=rule)
    solo = experts()
    worst = 0.0
    for t in range(len(y)):
        p, s = mix.predict_one(X[t], return_std=True)
        zs = [e.predict_one(X[t], return_std=True) for e in solo]
        if t > 0:
            want = mixture_std(mix.weights, [z for z, _ in zs], [v for _, v in zs], p)
            worst = max(worst, abs(s - want) / want)
            noise = mixture_std(mix.weights, [0.0, 0.0], [e.noise_std for e in solo], 0.0)
            worst = max(worst, abs(mix.noise_std - noise) / noise)
        mix.learn_one(X[t], y[t])
        for e in solo:
            e.learn_one(X[t], y[t])
    assert worst < 1e-9


def test_autokernel_std_is_equivariant_and_nan_during_warmup():
    X, y = stream(400, seed=5)
    a, b = ks.AutoKernel(warmup=50), ks.AutoKernel(warmup=50)
    pa, sa = a.progressive_predict_std(X, y)
    pb, sb = b.progressive_predict_std(X, 1000.0 * y - 7.0)
    assert np.isnan(sa[:50]).all() and (sa[51:] > 0).all()
    # equal up to the rounding of the warm-up's scale, amplified by the experts' solves
    np.testing.assert_allclose(sb[51:], 1000.0 * sa[51:], rtol=1e-5)
    np.testing.assert_allclose(pb[51:], 1000.0 * pa[51:] - 7.0, rtol=1e-5, atol=1e-6)


@pytest.mark.slow
@pytest.mark.parametrize(
    "make",
    [
        lambda: ks.TaylorAWV(sigma=0.7, degree=4),
        lambda: ks.AutoKernel(),
        lambda: ks.MultiKernelAWV([Gaussian(0.4), Gaussian(1.0)], n_features=40, seed=1),
    ],
)
def test_gaussian_noise_is_calibrated(make):
    """On a stationary stream with Gaussian noise, |y - p| <= 1.645 std holds for about
    90% of the rounds (the central 90% of a normal)."""
    X, y = stream(2500, seed=6, noise=0.3)
    p, s = make().progressive_predict_std(X, y)
    inside = np.abs(y - p)[300:] <= 1.645 * s[300:]
    assert 0.86 <= inside.mean() <= 0.94


def test_std_grows_away_from_the_data():
    rng = np.random.default_rng(7)
    X = rng.uniform(-1, 0, size=(300, 1))
    y = np.sin(3 * X[:, 0]) + 0.1 * rng.standard_normal(300)
    model = ks.KernelAWV(Gaussian(0.2), lam=0.01)
    model.learn_many(X, y)
    near, far = model.predict_std([[-0.5], [0.9]])
    # far from every past point delta -> k(x, x) / lam = 100: std -> sigma_hat sqrt(101)
    assert far / near > 8


def test_predict_std_is_pure_and_pickled():
    X, y = stream(100, seed=8)
    model = ks.RFFAWV(Gaussian(0.5), n_features=20, seed=1)
    model.learn_many(X[:60], y[:60])
    before = model.predict_std(X[60:])
    model.predict_one(X[0], return_std=True)
    np.testing.assert_array_equal(model.predict_std(X[60:]), before)
    np.testing.assert_array_equal(pickle.loads(pickle.dumps(model)).predict_std(X[60:]), before)
    assert model.n_seen == 60


def test_no_std_before_data_then_bad_input_refused():
    model = ks.TaylorAWV()
    p, s = model.predict_one([0.1, 0.2], return_std=True)
    assert p == 0.0 and np.isnan(s)
    with pytest.raises(ks.InputError):
        model.predict_std([[np.nan, 0.0]])
    with pytest.raises(ks.InputError):
        model.progressive_predict_std([[0.0, 0.0], [np.inf, 0.0]], [1.0, 2.0])
    assert model.n_seen == 0


@pytest.mark.slow  # scikit-learn's import alone takes seconds
def test_sklearn_adapter_return_std():
    pytest.importorskip("sklearn")
    from kernelstream.adapters import SklearnRegressor

    X, y = stream(300, seed=9)
    raw = SklearnRegressor(ks.TaylorAWV(degree=3), scale=False).fit(X, y)
    mean, std = raw.predict(X[:20], return_std=True)
    np.testing.assert_array_equal(mean, raw.predict(X[:20]))
    np.testing.assert_array_equal(std, raw.learner_.predict_std(X[:20]))
    scaled = SklearnRegressor(ks.TaylorAWV(degree=3)).fit(X, 100.0 * y)
    mean, std = scaled.predict(X[:20], return_std=True)
    np.testing.assert_allclose(mean, scaled.predict(X[:20]), rtol=1e-12)
    inner = scaled.learner_.predict_std(scaled.scaler_.transform(X[:20]))
    target_sd = np.sqrt(scaled.target_scaler_.m2 / scaled.target_scaler_.n)[0]
    np.testing.assert_allclose(std, inner * target_sd, rtol=1e-9)
    with pytest.raises(ks.ParameterError):  # a learner without one
        SklearnRegressor(ks.NOGD(Gaussian(1.0))).fit(X, y).predict(X[:2], return_std=True)


def test_fogd_std_is_the_discounted_rms_of_its_residuals():
    """FOGD (squared loss) has the plug-in predictive std sigma_hat: the discounted
    mean square of its residuals (memory 0.995, as the undiscounted AWV learners'),
    the same for every input; a classification loss has none."""
    X, y = stream(300, seed=10)
    m = ks.FOGD(Gaussian(1.0), n_features=30, seed=3)
    assert np.isnan(m.predict_one(X[0], return_std=True)[1])  # no residual yet
    p = m.progressive_predict(X, y)
    num = den = 0.0
    for e in y - p:
        num, den = 0.995 * num + e * e, 0.995 * den + 1.0
    np.testing.assert_allclose(m.noise_std, np.sqrt(num / den), rtol=1e-12)
    np.testing.assert_allclose(m.predict_std(X[:5]), np.sqrt(num / den), rtol=1e-12)
    assert m.has_predictive_std
    hinge = ks.FOGD(Gaussian(1.0), loss="hinge")
    assert not hinge.has_predictive_std
    hinge.learn_many(X[:20], np.sign(y[:20] - np.median(y[:20])) + (y[:20] == np.median(y[:20])))
    with pytest.raises(ks.ParameterError):
        hinge.predict_std(X[:2])


@pytest.mark.parametrize(
    "make",
    [
        lambda b: ks.TaylorAWV(degree=4, block_size=b),
        lambda b: ks.TaylorAWV(degree=4, gamma=0.99, block_size=b),
        lambda b: ks.RFFAWV(Gaussian(0.5), n_features=40, seed=1, block_size=b),
        lambda b: ks.NystromAWV(Gaussian(0.5), seed=2, block_size=b),
    ],
)
def test_blocks_of_rounds_keep_the_same_noise_level(make):
    """learn_many in blocks of rounds updates the noise level as single rounds do (each
    round's residual and leverage from the block recursion)."""
    X, y = stream(400, seed=10)
    blocked, single = make(16), make(1)
    blocked.learn_many(X, y)
    for x, yt in zip(X, y):
        single.learn_one(x, yt)
    Xq, _ = stream(20, seed=11)
    np.testing.assert_allclose(blocked.predict_std(Xq), single.predict_std(Xq), rtol=1e-9)
