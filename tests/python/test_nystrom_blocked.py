"""NystromAWV in blocks of rounds (PKAWV paper sec. 3.2, App. H.1; Algorithm 1's
rounds by Woodbury between dictionary insertions) against single rounds
(``block_size=1``) and the NumPy reference: same predictions up to rounding, same
dictionary, KORS draws and repair counts; ``block_size`` is a checked setting."""

import copy
import pickle

import kernelstream as ks
import numpy as np
import pytest
from kernelstream.kernels import Gaussian
from kernelstream.reference import NystromAWVReference


def stream(n, d, seed):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, size=(n, d))
    y = np.sin(3 * X[:, 0]) * np.cos(X[:, -1]) + 0.1 * rng.standard_normal(n)
    return X, y


def same_state(a, b, atol):
    """Equal dictionary, KORS draws and repairs, and the same next predictions to
    ``atol`` (the factor ``A = L L^T`` itself is compared in tests/nystrom_blocked.rs;
    ``alpha = A^{-1} q`` is too ill-conditioned here to compare)."""
    assert a.n_seen == b.n_seen and a.dim == b.dim
    assert a.stats == b.stats
    np.testing.assert_array_equal(a.learned_dictionary.points, b.learned_dictionary.points)
    np.testing.assert_array_equal(a.learned_dictionary.indices, b.learned_dictionary.indices)
    assert a._core.kors_size == b._core.kors_size
    Xt = np.random.default_rng(5).uniform(-1, 1, size=(20, a.input_dim))
    np.testing.assert_allclose(b.predict_many(Xt), a.predict_many(Xt), rtol=0, atol=atol)


@pytest.mark.slow
@pytest.mark.parametrize("ridge", [False, True])
@pytest.mark.parametrize("block_size", [None, 5, 64])
def test_kors_blocks_equal_single_rounds_and_reference(ridge, block_size):
    # sigma = 0.5 on [-1, 1]^2: KORS grows a dictionary past 48 points (blocks of
    # 32 under block_size=None) and insertions keep cutting blocks.
    X, y = stream(300, 2, 1)
    kw = dict(lam=1.0, mu=0.05, eps=0.5, beta=1.0, seed=3, ridge=ridge)
    single = ks.NystromAWV(Gaussian(0.5), **kw, block_size=1)
    blocked = ks.NystromAWV(Gaussian(0.5), **kw, block_size=block_size)
    p1 = single.progressive_predict(X, y)
    pb = np.concatenate(
        [
            blocked.progressive_predict(X[:133], y[:133]),
            blocked.progressive_predict(X[133:], y[133:]),
        ]
    )
    assert blocked.dim > 48
    scale = np.abs(p1).max()
    np.testing.assert_allclose(pb, p1, rtol=0, atol=1e-10 * scale)
    if block_size is None:
        # A is ill-conditioned (close dictionary points): single rounds and the
        # reference's dense solves differ by rounding times cond(A); blocks are no
        # further from it.
        ref = NystromAWVReference(Gaussian(0.5), **kw).progressive_predict(X, y)
        np.testing.assert_allclose(pb, ref, rtol=0, atol=np.abs(p1 - ref).max() + 1e-10 * scale)
    same_state(single, blocked, 1e-10 * scale)
    learned = ks.NystromAWV(Gaussian(0.5), **kw, block_size=block_size)
    learned.learn_many(X, y)
    same_state(single, learned, 1e-10 * scale)


@pytest.mark.slow
@pytest.mark.parametrize("ridge", [False, True])
def test_fixed_dictionary_blocks_equal_single_rounds_and_reference(ridge):
    X, y = stream(300, 3, 2)
    D, _ = stream(70, 3, 7)
    kw = dict(lam=0.5, ridge=ridge, dictionary=D)
    single = ks.NystromAWV(Gaussian(0.8), **kw, block_size=1)
    blocked = ks.NystromAWV(Gaussian(0.8), **kw)
    p1, pb = single.progressive_predict(X, y), blocked.progressive_predict(X, y)
    ref = NystromAWVReference(Gaussian(0.8), **kw).progressive_predict(X, y)
    scale = np.abs(p1).max()
    np.testing.assert_allclose(pb, p1, rtol=0, atol=1e-10 * scale)
    np.testing.assert_allclose(pb, ref, rtol=0, atol=np.abs(p1 - ref).max() + 1e-10 * scale)
    same_state(single, blocked, 1e-10 * scale)


def test_repeated_points_and_singular_dictionary():
    # Every input five times in a row, a dictionary with duplicates (a jitter) and a
    # tiny lam: ill-conditioned blocks rerun as single rounds; all agree with them.
    X0, y0 = stream(300, 2, 3)
    X, y = np.repeat(X0, 5, axis=0), np.repeat(y0, 5)
    D, _ = stream(40, 2, 8)
    D = np.vstack([D, D[:20]])
    for lam in (1e-6, 1.0):
        single = ks.NystromAWV(Gaussian(0.3), lam=lam, dictionary=D, block_size=1)
        blocked = ks.NystromAWV(Gaussian(0.3), lam=lam, dictionary=D, block_size=32)
        assert single.stats["jitters"] > 0
        p1, pb = single.progressive_predict(X, y), blocked.progressive_predict(X, y)
        np.testing.assert_allclose(pb, p1, rtol=0, atol=1e-9 * np.abs(p1).max())
        assert single.stats == blocked.stats


def test_block_size_is_a_setting_kept_by_copies_and_checked():
    X, y = stream(200, 2, 4)
    m = ks.NystromAWV(Gaussian(0.5), mu=0.05, block_size=7)
    m.learn_many(X, y)
    assert m.get_params()["block_size"] == 7
    for make_copy in (lambda o: pickle.loads(pickle.dumps(o)), copy.copy):
        other = make_copy(m)
        assert other.get_params()["block_size"] == 7
        np.testing.assert_array_equal(other.predict_many(X[:20]), m.predict_many(X[:20]))
        np.testing.assert_array_equal(other.progressive_predict(X, y), m.progressive_predict(X, y))
    fresh = ks.NystromAWV(Gaussian(0.5), mu=0.05)
    assert fresh.set_params(block_size=1).get_params()["block_size"] == 1
    with pytest.raises(ks.ParameterError):
        fresh.set_params(block_size=0)
    assert fresh.get_params()["block_size"] == 1
    for bad in (0, -1, 1.5, 10**6, "8"):
        with pytest.raises(ks.ParameterError):
            ks.NystromAWV(Gaussian(1.0), block_size=bad)


@pytest.mark.parametrize("n", [10_000, pytest.param(100_000, marks=pytest.mark.slow)])
def test_fixed_dictionary_blocks_over_long_streams(n):
    # n rounds on m = 60 (blocks of the automatic size, hundreds of them): the
    # predictions agree to 1e-9 of their scale (the gap is rounding times cond(A);
    # tests/nystrom_blocked.rs bounds it round by round).
    X, y = stream(n, 3, 5)
    D, _ = stream(60, 3, 9)
    for ridge in (False, True):
        single = ks.NystromAWV(Gaussian(0.7), dictionary=D, ridge=ridge, block_size=1)
        blocked = ks.NystromAWV(Gaussian(0.7), dictionary=D, ridge=ridge)
        p1, pb = single.progressive_predict(X, y), blocked.progressive_predict(X, y)
        np.testing.assert_allclose(pb, p1, rtol=0, atol=1e-9 * np.abs(p1).max())
        same_state(single, blocked, 1e-9 * np.abs(p1).max())
