"""NystromAWV (PKAWV paper sec. 3.2, App. H, Cor. 8):
equality with the NumPy reference (same KORS draws), with KernelAWV when every point
is in the dictionary, with linear AWV on K_mm^{-1/2} k_m(x) for a fixed dictionary."""

import pickle

import kernelstream as ks
import numpy as np
import pytest
from kernelstream.kernels import Gaussian, Laplacian
from kernelstream.reference import NystromAWVReference


def stream(n, d, seed):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, size=(n, d))
    y = np.sin(3 * X[:, 0]) * np.cos(X[:, -1]) + 0.1 * rng.standard_normal(n)
    return X, y


@pytest.mark.parametrize("ridge", [False, True])
@pytest.mark.parametrize("weights", ["sqrt", "inverse"])
@pytest.mark.parametrize("kernel", [Gaussian(1.0), Laplacian(1.0)])
def test_equals_reference(ridge, weights, kernel):
    X, y = stream(90, 3, 1)
    kw = dict(lam=1.0, mu=0.5, eps=0.5, beta=2.0, kors_weights=weights, seed=4, ridge=ridge)
    fast, ref = ks.NystromAWV(kernel, **kw), NystromAWVReference(kernel, **kw)
    Xq, _ = stream(5, 3, 9)
    for x, yt in zip(X, y):
        p_ref = ref.predict_one(x)
        assert fast.predict_one(x) == pytest.approx(p_ref, abs=1e-9)
        fast.learn_one(x, yt)
        ref.learn_one(x, yt)
    assert fast.dim == ref.dim > 3
    np.testing.assert_array_equal(fast.learned_dictionary.points, np.array(ref.D))
    np.testing.assert_array_equal(fast.learned_dictionary.indices, ref.kors.indices)
    np.testing.assert_allclose(fast.predict_many(Xq), [ref.predict_one(x) for x in Xq], atol=1e-9)


@pytest.mark.parametrize("ridge", [False, True])
def test_full_dictionary_equals_kernel_awv(ridge):
    X, y = stream(70, 3, 2)
    nys = ks.NystromAWV(Gaussian(0.6), lam=0.8, beta=1e9, ridge=ridge)
    exact = ks.KernelAWV(Gaussian(0.6), lam=0.8, ridge=ridge)
    np.testing.assert_allclose(
        nys.progressive_predict(X, y), exact.progressive_predict(X, y), rtol=0, atol=1e-8
    )
    assert nys.dim == 70 and nys.stats["refused_insertions"] == 0
    np.testing.assert_array_equal(nys.learned_dictionary.indices, np.arange(70))
    np.testing.assert_array_equal(nys.learned_dictionary.probabilities, np.ones(70))


@pytest.mark.parametrize("ridge", [False, True])
def test_fixed_dictionary_equals_linear_awv_on_nystrom_features(ridge):
    X, y = stream(200, 3, 3)
    C = np.random.default_rng(7).uniform(-1, 1, size=(15, 3))
    k = Gaussian(0.8)
    lam = 0.5
    evals, evecs = np.linalg.eigh(k(C))
    W = evecs @ np.diag(evals**-0.5) @ evecs.T  # K_mm^{-1/2}
    V = k(X, C) @ W
    # linear AWV from its definition: v^T (lam I + sum_{s<=t} v v^T)^{-1} b_{t-1}
    A, b, expect = lam * np.eye(15), np.zeros(15), []
    for v, yt in zip(V, y):
        expect.append(v @ np.linalg.solve(A if ridge else A + np.outer(v, v), b))
        A += np.outer(v, v)
        b += yt * v
    nys = ks.NystromAWV(k, lam=lam, ridge=ridge, dictionary=C)
    np.testing.assert_allclose(nys.progressive_predict(X, y), expect, rtol=0, atol=1e-8)
    ref = NystromAWVReference(k, lam=lam, ridge=ridge, dictionary=C)
    np.testing.assert_allclose(ref.progressive_predict(X, y), expect, rtol=0, atol=1e-8)
    d = nys.learned_dictionary
    np.testing.assert_array_equal(d.points, C)
    assert list(d.indices) == [-1] * 15 and nys.dim == 15


@pytest.mark.slow
def test_repeated_points_stay_finite_and_repairs_are_counted():
    X = np.tile([[0.1, 0.2], [-0.3, 0.4]], (1500, 1))
    y = np.tile([1.0, -1.0], 1500)
    nys = ks.NystromAWV(Gaussian(1.0), beta=100.0, seed=1)
    p = nys.progressive_predict(X, y)
    assert np.all(np.isfinite(p))
    assert nys.stats["refused_insertions"] > 0 and nys.dim <= 4
    fixed = ks.NystromAWV(Gaussian(1.0), dictionary=[[0.1, 0.2], [0.1, 0.2]])
    assert fixed.stats["jitters"] > 0
    assert np.all(np.isfinite(fixed.progressive_predict(X[:50], y[:50])))


def test_dictionary_grows_with_the_data_not_the_rounds():
    # Per-round work is O(m^2): the dictionary of a stream of 2000 points in 2-d stays small.
    X, y = stream(2000, 2, 4)
    nys = ks.NystromAWV(Gaussian(1.0))
    nys.learn_many(X, y)
    size_half = None
    nys2 = ks.NystromAWV(Gaussian(1.0))
    nys2.learn_many(X[:1000], y[:1000])
    size_half = nys2.dim
    assert size_half <= nys.dim < 200
    assert np.all(np.diff(nys.learned_dictionary.indices) > 0)


def test_bad_parameters():
    for kw in (
        dict(lam=0.0),
        dict(mu=-1.0),
        dict(eps=-0.1),
        dict(beta=0.0),
        dict(kors_weights="paper_code"),
        dict(seed=-3),
        dict(dictionary=np.zeros((0, 2))),
        dict(dictionary=[[np.nan, 1.0]]),
        dict(dictionary=[1.0, 2.0]),
    ):
        with pytest.raises(ks.ParameterError):
            ks.NystromAWV(Gaussian(1.0), **kw)
    fixed = ks.NystromAWV(Gaussian(1.0), dictionary=[[0.0, 0.0], [1.0, 1.0]])
    with pytest.raises(ks.InputError):
        fixed.learn_one([0.0, 0.0, 0.0], 1.0)
    assert fixed.n_seen == 0


def test_incremental_reference_equals_direct_reference():
    X, y = stream(80, 2, 11)
    a = NystromAWVReference(Gaussian(1.0), seed=3, solver="incremental")
    b = NystromAWVReference(Gaussian(1.0), seed=3)
    np.testing.assert_allclose(a.progressive_predict(X, y), b.progressive_predict(X, y), atol=1e-8)
    fast = ks.NystromAWV(Gaussian(1.0), seed=3)
    c = NystromAWVReference(Gaussian(1.0), seed=3)
    np.testing.assert_allclose(
        fast.progressive_predict(X, y), c.progressive_predict(X, y), atol=1e-8
    )


def test_capped_dictionary_state_stops_growing():
    """At its cap the learner keeps no per-round cache: its pickle is the same size after
    3,000 more rounds (it grew by about (m + d + 1) doubles a round before), and it
    predicts as a copy does."""
    X, y = stream(6000, 3, 5)
    m = ks.NystromAWV(Gaussian(1.0), max_dictionary=10, seed=1)
    m.progressive_predict(X[:3000], y[:3000])
    assert m.dim == 10
    size = len(pickle.dumps(m))
    twin = m.copy()
    p = m.progressive_predict(X[3000:], y[3000:])
    assert abs(len(pickle.dumps(m)) - size) <= 8 * 64 * 10 + 64
    np.testing.assert_array_equal(twin.progressive_predict(X[3000:], y[3000:]), p)
