"""Discounted NystromAWV with a KORS dictionary (``gamma < 1``; docs/choices.md,
"Discounted AWV", KORS). At round ``t`` on the dictionary ``D_t`` (the learner's own,
``learned_dictionary.indices``) the learner is AWV on ``phi_t(x) = R_t^{-1} k_{D_t}(x)``
(``R_t R_t^T = K_{D_t D_t}``) with past rounds weighted ``gamma^(t-s)`` and the
regulariser ``lam diag(omega)`` of the recursion "``omega <- gamma omega``, then
``omega[t mod m] += 1 - gamma^m``, then a joining point gets ``omega = 1``". The
reference below builds that problem from the rows and solves it each round (NumPy);
``gamma = 1`` is the plain learner bit for bit."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from kernelstream import NystromAWV
from kernelstream.kernels import Gaussian
from test_discounted_awv import _stream

SIGMA, LAM = 0.7, 0.1


def _gram(A, B, sigma=SIGMA):
    return np.exp(-((A[:, None, :] - B[None, :, :]) ** 2).sum(-1) / (2 * sigma**2))


def _direct_kors(X, y, rounds, gamma, ridge, tail=1e-20, sigma=SIGMA, check=None):
    """Each round's discounted ridge problem on the current dictionary's features,
    built from the rows (those of weight below ``tail`` left out) and solved; only at
    the rounds ``check`` if given (NaN elsewhere)."""
    n = len(X)
    window = int(np.ceil(np.log(tail) / np.log(gamma)))
    joins = {int(r): i for i, r in enumerate(rounds)}
    omega = np.zeros(0)
    k = 0  # the refill pointer: one coordinate a round, wrapping at the current size
    D = R = None
    preds = np.full(n, np.nan)
    for t in range(n):
        # the regulariser's recursion (before the round's insertion: m = len(omega))
        omega = gamma * omega
        m = len(omega)
        if m:
            omega[k] += 1 - gamma**m
        if t in joins:
            omega = np.append(omega, 1.0)
            D = X[np.sort(np.asarray(rounds[: joins[t] + 1]))]
            R = np.linalg.cholesky(_gram(D, D, sigma))
            if check is None:  # every round: the features of all rows once per dictionary
                F_all = np.linalg.solve(R, _gram(X, D, sigma).T).T
        k = (k + 1) % len(omega) if m else 0
        if check is not None and t not in check:
            continue
        if D is None:
            preds[t] = 0.0
            continue
        lo = max(0, t - window)
        # phi_t(x_s) = R^{-1} k_D(x_s) for the window's rows and x_t
        if check is None:
            F = F_all[lo : t + 1]
        else:
            F = np.linalg.solve(R, _gram(X[lo : t + 1], D, sigma).T).T
        w = gamma ** (t - np.arange(lo, t))
        Fp = F[:-1]
        A = (Fp.T * w) @ Fp + np.diag(LAM * omega)
        if not ridge:
            A += np.outer(F[-1], F[-1])
        b = Fp.T @ (w * y[lo:t])
        preds[t] = F[-1] @ np.linalg.solve(A, b)
    return preds


def _model(gamma=0.97, ridge=False, block_size=None, sigma=SIGMA, **kw):
    return NystromAWV(
        Gaussian(sigma), lam=LAM, ridge=ridge, gamma=gamma, seed=4, block_size=block_size, **kw
    )


def _close(got, ref):
    ok = ~np.isnan(ref)
    return np.max(np.abs(got[ok] - ref[ok])) <= 1e-9 * np.max(np.abs(ref[ok]))


# slow: the 10^4-round test below covers the same in the default run
@pytest.mark.slow
@pytest.mark.parametrize("ridge", [False, True])
def test_kors_discounted_equals_direct_solution(ridge):
    """Single rounds and blocks between insertions (the blocked discounted rounds of
    ``discount.rs``, a block cut by each insertion and by the end of a call) against
    the definition, to 1e-9 relative; ``predict_one``/``learn_one`` is the single-round
    path bit for bit."""
    X, y = _stream(n=2500)
    model = _model(ridge=ridge, block_size=1)
    got = model.progressive_predict(X, y)
    rounds = model.learned_dictionary.indices
    assert len(rounds) >= 10 and rounds[-1] > 500  # several insertions, late ones too
    ref = _direct_kors(X, y, rounds, 0.97, ridge)
    assert _close(got, ref)
    blk = _model(ridge=ridge, block_size=32)
    got_blk = np.concatenate(
        [blk.progressive_predict(X[:1200], y[:1200]), blk.progressive_predict(X[1200:], y[1200:])]
    )
    np.testing.assert_array_equal(blk.learned_dictionary.indices, rounds)
    assert _close(got_blk, ref)
    assert not np.array_equal(got_blk, got)  # blocks ran (they round differently)
    # learn_many in blocks, then the rest
    lm = _model(ridge=ridge, block_size=32)
    lm.learn_many(X[:1200], y[:1200])
    assert _close(lm.progressive_predict(X[1200:], y[1200:]), ref[1200:])
    one = _model(ridge=ridge)
    seq = []
    for x, t in zip(X[:400], y[:400]):
        seq.append(one.predict_one(x))
        one.learn_one(x, t)
    np.testing.assert_array_equal(seq, got[:400])
    plain = _model(gamma=1.0, ridge=ridge)
    assert np.max(np.abs(plain.progressive_predict(X, y) - ref)) > 1e-2


def _drifting_stream(n, seed=1):
    """Inputs whose centre moves along the first axis: new regions keep arriving, so
    KORS inserts points throughout."""
    rng = np.random.default_rng(seed)
    c = np.linspace(0, 6, n)
    X = np.stack([c + rng.uniform(-1, 1, n), 0.5 * rng.uniform(-1, 1, n)], axis=1)
    y = np.sin(2 * X[:, 0]) * np.cos(X[:, 1]) + 0.05 * rng.normal(size=n)
    return X, y


@pytest.mark.slow
@pytest.mark.parametrize("ridge", [False, True])
def test_kors_discounted_10k_rounds_single_and_blocked(ridge):
    """10^4 rounds with insertions throughout (every eighth of the stream has some),
    single rounds and blocks of 32, against the definition to 1e-9 relative, solved at
    every 20th round, each insertion round and the round after it. On a drifting
    stream the coordinates of points left behind keep only their regulariser, which
    decays between refills (by ``gamma^gap``, the gap growing with ``m`` and the
    insertions), so the problem's conditioning worsens with a denser dictionary:
    KORS's ``mu = 100`` keeps it sparse (87 points, ``cond(K_DD)`` ~ 1e5)."""
    n, gamma, sigma = 10_000, 0.9, 0.3
    X, y = _drifting_stream(n)
    kw = dict(gamma=gamma, ridge=ridge, sigma=sigma, mu=100.0)
    single = _model(block_size=1, **kw)
    got = single.progressive_predict(X, y)
    rounds = single.learned_dictionary.indices
    assert np.all(np.histogram(rounds, bins=8, range=(0, n))[0] >= 3)
    blk = _model(block_size=32, **kw)
    got_blk = blk.progressive_predict(X, y)
    np.testing.assert_array_equal(blk.learned_dictionary.indices, rounds)
    check = set(range(0, n, 20)) | set(rounds) | {r + 1 for r in rounds}
    ref = _direct_kors(X, y, rounds, gamma, ridge, sigma=sigma, check=check)
    assert _close(got, ref) and _close(got_blk, ref)


def test_gamma_one_is_the_plain_learner():
    X, y = _stream(n=1500)
    a = _model(gamma=1.0).progressive_predict(X, y)
    b = NystromAWV(Gaussian(SIGMA), lam=LAM, seed=4).progressive_predict(X, y)
    np.testing.assert_array_equal(a, b)


def test_predict_and_std_are_the_next_round():
    """``predict_one`` and ``predict_std`` (pure, on a discounted copy) give the number
    the next round predicts, on rounds with and without an insertion."""
    X, y = _stream(n=400)
    full = _model(block_size=1).progressive_predict(X, y)
    model = _model()
    model.learn_many(X[:200], y[:200])
    n_dict = len(model.learned_dictionary.indices)
    for i in range(200, 400):
        p = model.predict_one(X[i])
        mean, std = model.predict_many_std(X[i : i + 1])
        assert p == full[i] and mean[0] == full[i] and np.isfinite(std[0])
        model.learn_one(X[i], y[i])
    assert len(model.learned_dictionary.indices) > n_dict  # insertions among those rounds


def test_predict_one_leaves_the_state_and_learn_one_finishes_from_it():
    """``predict_one`` keeps the discounted factor it computed (copies of ``O(m^2)``,
    not the learner's ``O(t (m + d))`` caches): the state is unchanged (its pickle),
    and ``learn_one`` on the same input, which takes the kept factor in place of its
    own discount step, ends in the state a bare ``learn_one`` reaches, bit for bit,
    on rounds with and without an insertion, for ``predict_one`` on another input
    in between too (the kept factor is then not used)."""
    X, y = _stream(n=600)
    bare, kept = _model(), _model()
    bare.learn_many(X[:100], y[:100])
    kept.learn_many(X[:100], y[:100])
    n_dict = len(kept.learned_dictionary.indices)
    for i in range(100, 600):
        before = pickle.dumps(kept)
        kept.predict_one(X[i])
        if i % 5 == 0:
            kept.predict_one(X[i - 1])  # a prediction on another input in between
        assert pickle.dumps(kept) == before
        kept.learn_one(X[i], y[i])
        bare.learn_one(X[i], y[i])
        if i % 50 == 0:
            assert pickle.dumps(kept) == pickle.dumps(bare)
    assert pickle.dumps(kept) == pickle.dumps(bare)
    assert len(kept.learned_dictionary.indices) > n_dict + 5  # insertions among those rounds


# slow: tests/nystrom_discounted_bounded.rs runs 10^6 such rounds in `cargo test`
@pytest.mark.slow
def test_low_dimensional_inputs_stay_bounded():
    """Inputs on a line in R^3 excite few directions of ``k_D(x)``; every coordinate's
    regulariser is refilled at least every ``2 m`` rounds, so ``A >= lam gamma^(2m) ...``
    stays invertible: 200,000 rounds with ``gamma = 0.99``, finite bounded predictions."""
    rng = np.random.default_rng(7)
    u = rng.uniform(-1, 1, 200_000)
    X = np.stack([u, 2 * u, -u], axis=1)
    y = np.sin(3 * u) + 0.1 * rng.normal(size=len(u))
    model = NystromAWV(Gaussian(0.5), lam=0.1, gamma=0.99, seed=1)
    p = model.progressive_predict(X, y)
    assert model.stats["insertions"] >= 5
    assert np.all(np.isfinite(p)) and np.max(np.abs(p)) < 10
    assert np.all(np.isfinite(np.asarray(model._core.alpha(), dtype=float)))
    assert np.mean((p[-1000:] - np.sin(3 * u[-1000:])) ** 2) < 0.05


@pytest.mark.parametrize("block_size", [1, 32])
def test_two_outputs_are_two_learners(block_size):
    """``K = 2`` target columns: each column is the single-output discounted learner
    (same dictionary: KORS does not see the targets), in single rounds and blocks."""
    X, y = _stream(n=800)
    Y = np.stack([y, -2 * y + X[:, 0]], axis=1)
    got = _model(block_size=block_size).progressive_predict(X, Y)
    for j in range(2):
        one = _model(block_size=block_size).progressive_predict(X, Y[:, j])
        np.testing.assert_allclose(got[:, j], one, rtol=1e-10, atol=1e-12)
