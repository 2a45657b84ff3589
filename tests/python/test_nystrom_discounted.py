"""Discounted NystromAWV (``gamma``, fixed dictionary; KORS: test_nystrom_kors_discounted.py): AWV on the features
``R^{-1} k_D(x)`` (``R R^T = K_DD``, lower Cholesky) discounted as the linear engine
(docs/choices.md, "Discounted AWV"), so it equals the discounted ridge problem on those
features solved directly each round (NumPy, from the definition), to 1e-9 relative over
10^4 rounds; ``gamma = 1`` is the plain learner bit for bit."""

from __future__ import annotations

import numpy as np
import pytest
from kernelstream import NystromAWV
from kernelstream.errors import ParameterError
from kernelstream.kernels import Gaussian
from test_discounted_awv import _direct, _stream

ROUNDS = [pytest.param(10_000, marks=pytest.mark.slow), 1500]


def _features(X, D, sigma):
    K = np.exp(-((X[:, None, :] - D[None, :, :]) ** 2).sum(-1) / (2 * sigma**2))
    Kdd = np.exp(-((D[:, None, :] - D[None, :, :]) ** 2).sum(-1) / (2 * sigma**2))
    R = np.linalg.cholesky(Kdd)
    return np.linalg.solve(R, K.T).T


@pytest.mark.parametrize("n", ROUNDS)
@pytest.mark.parametrize("ridge", [False, True])
def test_discounted_equals_direct_solution(ridge, n):
    X, y = _stream(n=n)
    D = np.random.default_rng(3).uniform(-1, 1, (12, 2))
    gamma, lam, sigma = 0.99, 0.1, 0.7
    ref = _direct(_features(X, D, sigma), y, lam, gamma, ridge)
    model = NystromAWV(Gaussian(sigma), lam=lam, ridge=ridge, dictionary=D, gamma=gamma)
    assert model.stats["fixed_jitter"] == 0.0  # K_DD factorised as it is
    got = model.progressive_predict(X, y)
    assert np.max(np.abs(got - ref)) <= 1e-9 * np.max(np.abs(ref))
    # blocks of 16 discounted rounds (two plain rows each, docs/choices.md)
    blk = NystromAWV(
        Gaussian(sigma), lam=lam, ridge=ridge, dictionary=D, gamma=gamma, block_size=16
    )
    got_blk = blk.progressive_predict(X, y)
    assert np.max(np.abs(got_blk - ref)) <= 1e-9 * np.max(np.abs(ref))
    assert not np.array_equal(got_blk, got)  # blocks ran (they round differently)
    # round by round (predict, then learn) equals the batch
    one = NystromAWV(Gaussian(sigma), lam=lam, ridge=ridge, dictionary=D, gamma=gamma)
    seq = []
    for x, t in zip(X[:300], y[:300]):
        seq.append(one.predict_one(x))
        one.learn_one(x, t)
    np.testing.assert_array_equal(seq, got[:300])
    plain = NystromAWV(Gaussian(sigma), lam=lam, ridge=ridge, dictionary=D)
    assert np.max(np.abs(plain.progressive_predict(X, y) - ref)) > 1e-2


def test_gamma_one_is_the_plain_learner():
    X, y = _stream(n=600)
    D = X[:40]
    a = NystromAWV(Gaussian(0.5), dictionary=D, gamma=1.0).progressive_predict(X, y)
    b = NystromAWV(Gaussian(0.5), dictionary=D).progressive_predict(X, y)
    np.testing.assert_array_equal(a, b)


def test_gamma_out_of_range_is_refused():
    for g in (0.0, 1.5, float("nan")):
        with pytest.raises(ParameterError, match="gamma"):
            NystromAWV(Gaussian(1.0), dictionary=np.zeros((2, 2)) + [[0], [1]], gamma=g)


def test_inputs_in_a_few_points_stay_bounded():
    """Inputs drawn from 3 points excite 3 of the 12 directions of ``k_D(x)``; with the
    paper's discounted regulariser ``gamma^t lam K_DD`` the other 9 would decay to
    ``0.99^20000 ~ 1e-87`` (a singular factor); the refill keeps ``A >= lam
    gamma^(m-1) K_DD``: finite predictions and a bounded ``alpha`` throughout."""
    rng = np.random.default_rng(5)
    D = rng.uniform(-1, 1, (12, 2))
    P = rng.uniform(-1, 1, (3, 2))
    X = P[rng.integers(0, 3, 20_000)]
    y = np.sin(3 * X[:, 0]) + 0.1 * rng.normal(size=len(X))
    model = NystromAWV(Gaussian(0.5), lam=0.1, dictionary=D, gamma=0.99)
    p = model.progressive_predict(X, y)
    assert np.all(np.isfinite(p)) and np.max(np.abs(p)) < 10
    assert np.all(np.isfinite(np.asarray(model._core.alpha(), dtype=float)))
    assert np.mean((p[-1000:] - np.sin(3 * X[-1000:, 0])) ** 2) < 0.05
