"""KORS (PROS-N-KONS paper App. A, Eq. 6): the Rust
sampler against the NumPy reference that evaluates Eq. 6 on the temporary
dictionary with the same uniform draws; the paper's first probability; growth,
reproducibility, robustness, pickling."""

import pickle

import kernelstream as ks
import numpy as np
import pytest
from kernelstream.kernels import Gaussian, Laplacian
from kernelstream.reference import KORSReference
from kernelstream.samplers import KORS


def points(n, d, seed):
    return np.random.default_rng(seed).uniform(-1, 1, size=(n, d))


@pytest.mark.parametrize("weights", ["sqrt", "inverse"])
@pytest.mark.parametrize(
    "kernel,mu,eps,beta", [(Gaussian(1.0), 1.0, 0.5, 1.0), (Laplacian(0.7), 0.2, 0.3, 2.0)]
)
def test_matches_eq6_reference_with_same_draws(weights, kernel, mu, eps, beta):
    X = points(120, 3, 1)
    fast = KORS(kernel, mu=mu, eps=eps, beta=beta, weights=weights, seed=5)
    ref = KORSReference(kernel, mu=mu, eps=eps, beta=beta, weights=weights, seed=5)
    for x in X:
        p_ref = ref.probability(x)
        assert abs(fast.probability(x) - p_ref) < 1e-10 * beta * (1 + eps) / mu
        assert fast.step(x) == ref.step(x)
        assert abs(fast.last_probability - p_ref) < 1e-10 * beta * (1 + eps) / mu
    dic = fast.dictionary
    assert list(dic.indices) == ref.indices and fast.size == ref.size > 0
    np.testing.assert_allclose(dic.probabilities, ref.probabilities, rtol=1e-9)
    np.testing.assert_allclose(dic.weights, ref.weights, rtol=1e-9)
    np.testing.assert_array_equal(dic.points, np.array(ref.points))
    # The maintained inverse is (W K W + mu I)^{-1}.
    w = dic.weights
    M = w[:, None] * kernel(dic.points) * w[None, :] + mu * np.eye(len(w))
    np.testing.assert_allclose(fast.minv() @ M, np.eye(len(w)), atol=1e-9)


def test_first_probability_is_three_quarters():
    kors = KORS(Gaussian(1.0), mu=1.0, eps=0.5, beta=1.0)
    assert kors.probability([0.3, -0.7, 0.1]) == pytest.approx(0.75, abs=1e-15)
    kors.step([0.3, -0.7, 0.1])
    assert kors.last_probability == pytest.approx(0.75, abs=1e-15)
    for x in points(200, 3, 2):
        kors.step(x)
        assert kors.last_probability <= 0.75 + 1e-15


def test_dictionary_never_shrinks_and_same_seed_same_dictionary():
    X = points(400, 4, 3)
    a, b, c = (KORS(Gaussian(1.0), seed=s) for s in (9, 9, 10))
    sizes = []
    for x in X:
        a.step(x)
        sizes.append(a.size)
    assert all(s2 >= s1 for s1, s2 in zip(sizes, sizes[1:]))
    assert list(b.step_many(X)).count(True) == a.size
    np.testing.assert_array_equal(a.dictionary.indices, b.dictionary.indices)
    c.step_many(X)
    assert not np.array_equal(a.dictionary.indices, c.dictionary.indices)


def test_repeated_point_stays_finite():
    kors = KORS(Gaussian(1.0), mu=1e-6, beta=100.0, weights="inverse")
    for _ in range(3000):
        kors.step([0.2, 0.2])
    assert np.all(np.isfinite(kors.minv())) and np.all(np.isfinite(kors.dictionary.weights))
    assert np.isfinite(kors.probability([0.2, 0.2]))


def test_bad_input_and_parameters():
    kors = KORS(Gaussian(1.0))
    kors.step_many(points(20, 2, 4))
    before = (kors.size, kors.n_seen)
    for bad in ([np.nan, 0.0], [0.0, 0.0, 0.0], [], "ab", [[0.0, 0.0]]):
        with pytest.raises(ks.InputError):
            kors.step(bad)
    with pytest.raises(ks.InputError):
        kors.step_many(np.array([[0.0, 0.0], [np.inf, 0.0]]))
    assert (kors.size, kors.n_seen) == before
    for kw in (
        dict(mu=0.0),
        dict(eps=-1.0),
        dict(beta=np.nan),
        dict(weights="paper"),
        dict(seed=-1),
    ):
        with pytest.raises(ks.ParameterError):
            KORS(Gaussian(1.0), **kw)


def test_pickle_mid_stream_continues_identically():
    X = points(300, 3, 5)
    a = KORS(Gaussian(1.0), seed=2)
    a.step_many(X[:150])
    b = pickle.loads(pickle.dumps(a))
    assert list(a.step_many(X[150:])) == list(b.step_many(X[150:]))
    np.testing.assert_array_equal(a.dictionary.points, b.dictionary.points)


def test_pickle_carries_a_format_version_and_refuses_others():
    from kernelstream._wrapped import PICKLE_FORMAT_VERSION

    a = KORS(Gaussian(1.0), seed=2)
    a.step_many(points(50, 3, 1))
    state = a.__getstate__()
    assert state["format_version"] == PICKLE_FORMAT_VERSION
    assert state["extra"]["last_probability"] is None
    a.step(points(1, 3, 2)[0])
    assert pickle.loads(pickle.dumps(a)).last_probability == a.last_probability
    state["format_version"] = PICKLE_FORMAT_VERSION + 1
    with pytest.raises(ks.InputError, match="format"):
        KORS(Gaussian(1.0)).__setstate__(state)
