"""Discounted AWV (``gamma``): the learners equal the discounted ridge problem solved
directly each round (NumPy, from the definition in docs/choices.md, "Discounted AWV").

At round ``t`` (0-based here) with features ``v_s``, ``r`` features and
``c = lam (1 - gamma^r)``:
``A_t = gamma^(t+1) lam I + sum_{s<=t} gamma^(t-s) c e_{s mod r} e_{s mod r}^T
+ sum_{s<t} gamma^(t-s) v_s v_s^T (+ v_t v_t^T unless ridge)``,
``b = sum_{s<t} gamma^(t-s) y_s v_s``, prediction ``v_t^T A_t^{-1} b``.
"""

from __future__ import annotations

import numpy as np
import pytest
from kernelstream import RFFAWV, TaylorAWV
from kernelstream.errors import ParameterError
from kernelstream.kernels import Gaussian


def _stream(n=10_000, d=2, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, size=(n, d))
    # The target's input swaps halfway (a drift the discounting must follow).
    y = np.where(np.arange(n) < n // 2, np.sin(3 * X[:, 0]), np.cos(3 * X[:, 1]))
    return X, y + 0.05 * rng.normal(size=n)


def _direct(F, y, lam, gamma, ridge, tail=1e-20):
    """Each round's weighted ridge problem built from its sums and solved; rows whose
    weight ``gamma^(t-s)`` is below ``tail`` (relative) are left out."""
    n, r = F.shape
    c = lam * (1 - gamma**r)
    window = int(np.ceil(np.log(tail) / np.log(gamma))) if gamma < 1 else n
    preds = np.empty(n)
    for t in range(n):
        lo = max(0, t - window)
        w = gamma ** (t - np.arange(lo, t))  # weights of the rounds s < t
        Fp = F[lo:t]
        A = (Fp.T * w) @ Fp
        # Regulariser: gamma^(t+1) lam I plus every refill s <= t.
        s = np.arange(max(0, t - window), t + 1)
        A[np.diag_indices(r)] += gamma ** (t + 1) * lam + np.bincount(
            s % r, weights=c * gamma ** (t - s), minlength=r
        )
        if not ridge:
            A += np.outer(F[t], F[t])
        b = Fp.T @ (w * y[lo:t])
        preds[t] = F[t] @ np.linalg.solve(A, b)
    return preds


def _features(model, X):
    model.learn_one(X[0], 0.0)  # builds the map (RFF draws its frequencies)
    phi = model.random_features if isinstance(model, RFFAWV) else model.features
    return np.array([phi(x) for x in X])


# 10^4 rounds in the full run; 1,500 in the default (fast) one.
ROUNDS = [pytest.param(10_000, marks=pytest.mark.slow), 1500]


@pytest.mark.parametrize("n", ROUNDS)
@pytest.mark.parametrize("ridge", [False, True])
@pytest.mark.parametrize("block_size", [1, 32])
def test_taylor_discounted_equals_direct_solution(ridge, block_size, n):
    X, y = _stream(n=n)
    gamma, lam = 0.99, 0.1
    F = _features(TaylorAWV(sigma=1.0, degree=3), X)  # r = 10
    ref = _direct(F, y, lam, gamma, ridge)
    model = TaylorAWV(sigma=1.0, degree=3, lam=lam, ridge=ridge, gamma=gamma, block_size=block_size)
    got = model.progressive_predict(X, y)
    assert np.max(np.abs(got - ref)) <= 1e-9 * np.max(np.abs(ref))
    # The discounting matters: the undiscounted learner is far from the reference.
    plain = TaylorAWV(sigma=1.0, degree=3, lam=lam, ridge=ridge).progressive_predict(X, y)
    assert np.max(np.abs(plain - ref)) > 1e-2


@pytest.mark.parametrize("n", ROUNDS)
@pytest.mark.parametrize("block_size", [1, 16])
def test_rff_discounted_equals_direct_solution(block_size, n):
    X, y = _stream(n=n, d=3, seed=1)
    gamma, lam = 0.95, 1.0
    kw = dict(kernel=Gaussian(0.7), n_features=8, seed=3, lam=lam)
    F = _features(RFFAWV(**kw), X)
    ref = _direct(F, y, lam, gamma, False)
    got = RFFAWV(**kw, gamma=gamma, block_size=block_size).progressive_predict(X, y)
    assert np.max(np.abs(got - ref)) <= 1e-9 * np.max(np.abs(ref))


def test_gamma_one_is_todays_learner_bit_for_bit():
    X, y = _stream(n=2000)
    for block_size in (1, 32):
        a = TaylorAWV(degree=3, block_size=block_size).progressive_predict(X, y)
        b = TaylorAWV(degree=3, block_size=block_size, gamma=1.0).progressive_predict(X, y)
        assert np.array_equal(a, b)
    # ... and today's learner is the undiscounted problem solved directly.
    F = _features(TaylorAWV(degree=3), X)
    ref = _direct(F, y, 1.0, 1.0, False)
    assert np.max(np.abs(a - ref)) <= 1e-9 * np.max(np.abs(ref))


@pytest.mark.parametrize("gamma", [0.0, -0.1, 1.5, float("nan"), float("inf")])
def test_bad_gamma_raises_parameter_error(gamma):
    with pytest.raises(ParameterError, match="gamma"):
        TaylorAWV(gamma=gamma)
    with pytest.raises(ParameterError, match="gamma"):
        RFFAWV(Gaussian(1.0), gamma=gamma)
