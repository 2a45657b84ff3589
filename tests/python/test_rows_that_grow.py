"""A bare learner fed a row wider than before (docs/streams.md, "Rows that grow"):
widened as an exact zero-extension where that is exact (TaylorAWV, KernelAWV with a
Gaussian or Laplacian kernel, mixtures of them: the learner equals the one fed every row extended by zeros
from the first round), refused with an InputError saying why where it is not (random
features drawn for the first width, product kernels, discounted refills, self-scaling
learners), and a narrower row refused as before. Before: every wider row was an
InputError ("input has 4 features but this learner was fed 3-dimensional inputs")."""

from __future__ import annotations

import pickle

import kernelstream as ks
import numpy as np
import pytest
from kernelstream.errors import InputError
from kernelstream.kernels import Gaussian, Laplacian, Min


def stream(n, d=4, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, size=(n, d))
    y = np.sin(2 * X[:, 0]) + X[:, -1] * X[:, 1] + 0.1 * rng.standard_normal(n)
    return X, y


def padded(X, d):
    out = np.zeros((X.shape[0], d))
    out[:, : X.shape[1]] = X
    return out


EXACT = {
    "taylor": lambda: ks.TaylorAWV(degree=3, lam=0.5),
    "taylor-ridge": lambda: ks.TaylorAWV(degree=2, ridge=True),
    "taylor-blocks": lambda: ks.TaylorAWV(degree=4, block_size=8),
    "kernel-gaussian": lambda: ks.KernelAWV(Gaussian(0.8)),
    "kernel-laplacian": lambda: ks.KernelAWV(Laplacian(1.5), lam=0.3),
    "mixture": lambda: ks.Mixture([ks.TaylorAWV(degree=2), ks.KernelAWV(Gaussian(0.8))]),
}


@pytest.mark.parametrize("name", sorted(EXACT))
def test_a_wider_row_widens_exactly(name):
    """Two columns, then three from row 60 (learn_one), then four from row 100
    (progressive_predict): the predictions equal those of the learner fed the rows
    extended by zeros from the first round, to 1e-10."""
    X, y = stream(160)
    grown, ref = EXACT[name](), EXACT[name]()
    got = [grown.progressive_predict(X[:60, :2], y[:60])]
    for t in range(60, 100):
        got.append([grown.predict_one(X[t, :3])])
        grown.learn_one(X[t, :3], float(y[t]))
    got.append(grown.progressive_predict(X[100:, :4], y[100:]))
    rows = np.vstack([padded(X[:60, :2], 4), padded(X[60:100, :3], 4), X[100:, :4]])
    want = ref.progressive_predict(rows, y)
    np.testing.assert_allclose(np.concatenate(got), want, rtol=0, atol=1e-10)
    assert grown.input_dim == 4 and grown.n_seen == 160
    Z = stream(20, seed=1)[0]
    np.testing.assert_allclose(grown.predict_many(Z), ref.predict_many(Z), rtol=0, atol=1e-10)
    back = pickle.loads(pickle.dumps(grown))
    np.testing.assert_array_equal(back.predict_many(Z), grown.predict_many(Z))


def test_widening_keeps_the_outputs_and_their_std():
    X, y = stream(120, seed=2)
    Y = np.column_stack([y, X[:, 0] ** 2])
    grown, ref = ks.TaylorAWV(degree=3), ks.TaylorAWV(degree=3)
    grown.learn_many(X[:70, :3], Y[:70])
    P, S = grown.progressive_predict_std(X[70:], Y[70:])
    Pr, Sr = ref.progressive_predict_std(np.vstack([padded(X[:70, :3], 4), X[70:]]), Y)
    np.testing.assert_allclose(P, Pr[70:], rtol=0, atol=1e-10)
    np.testing.assert_allclose(S, Sr[70:], rtol=1e-9)


def test_a_wider_prediction_is_pure():
    """predict_one / predict_many of a wider row: the widened learner's prediction, on
    a copy; the learner keeps its width until it learns a wider row."""
    X, y = stream(50, seed=3)
    m, ref = ks.TaylorAWV(degree=2), ks.TaylorAWV(degree=2)
    m.learn_many(X[:, :2], y)
    ref.learn_many(padded(X[:, :2], 3), y)
    assert abs(m.predict_one(X[0, :3]) - ref.predict_one(X[0, :3])) < 1e-10
    np.testing.assert_allclose(m.predict_many(X[:5, :3]), ref.predict_many(X[:5, :3]), atol=1e-10)
    assert m.input_dim == 2
    m.learn_one(X[1, :2], 0.5)  # still two inputs


def test_a_narrower_row_is_refused_and_the_learner_unchanged():
    X, y = stream(40, seed=4)
    m = ks.TaylorAWV(degree=2)
    m.learn_many(X[:, :3], y)
    before = m.predict_many(X[:5, :3])
    for call in (
        lambda: m.learn_one(X[0, :2], 1.0),
        lambda: m.learn_many(X[:4, :2], y[:4]),
        lambda: m.predict_one(X[0, :2]),
    ):
        with pytest.raises(InputError, match="fed 3-dimensional inputs"):
            call()
    assert m.n_seen == 40 and m.input_dim == 3
    np.testing.assert_array_equal(m.predict_many(X[:5, :3]), before)


def test_a_refused_call_after_widening_puts_the_learner_back():
    X, y = stream(30, seed=5)
    m = ks.TaylorAWV(degree=2)
    m.learn_many(X[:, :2], y)
    bad = y[:5].copy()
    bad[0] = np.nan
    with pytest.raises(InputError):
        m.learn_many(X[:5, :3], bad)
    assert m.input_dim == 2 and m.n_seen == 30


NOT_EXACT = {
    "rff (frequencies drawn for d inputs)": lambda: ks.RFFAWV(Gaussian(1.0), n_features=20),
    "taylor discounted (refill order over r features)": lambda: ks.TaylorAWV(gamma=0.99),
    "kernel-min (a product kernel)": lambda: ks.KernelAWV(Min()),
    "nystrom (not yet)": lambda: ks.NystromAWV(Gaussian(1.0)),
    "autokernel (scales drawn for d inputs)": lambda: ks.AutoKernel(),
    "mixture with an expert that cannot widen": lambda: ks.Mixture(
        [ks.TaylorAWV(degree=2), ks.RFFAWV(Gaussian(1.0), n_features=20)]
    ),
}


@pytest.mark.parametrize("name", sorted(NOT_EXACT))
def test_where_widening_is_not_exact_it_is_refused_saying_why(name):
    X, y = stream(40, seed=6)
    X = np.abs(X)  # (the Min kernel's domain)
    m = NOT_EXACT[name]()
    m.learn_many(X[:, :2], y)
    before = m.predict_many(X[:5, :2])
    with pytest.raises(InputError, match="cannot be widened exactly|fed 2-dimensional"):
        m.learn_one(X[0, :3], 1.0)
    assert m.n_seen == 40 and m.input_dim == 2
    np.testing.assert_array_equal(m.predict_many(X[:5, :2]), before)
