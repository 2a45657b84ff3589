"""AutoKernel on finite values near the largest double: the warm-up's scale does not
overflow where the math is finite, and a call that fails changes nothing."""

from __future__ import annotations

import kernelstream as ks
import numpy as np
import pytest
from kernelstream.errors import NumericalError


def _rows(n, seed=0):
    rng = np.random.default_rng(seed)
    X = np.column_stack([rng.choice([-1e308, 1e308], n), rng.uniform(-1, 1, n)])
    return X, np.sin(3 * X[:, 1])


def test_warmup_closing_on_a_column_of_plus_minus_1e308_fits():
    # Before: the row closing the warm-up raised NumericalError (the column's mean and
    # variance overflowed), and so did every later learn_one.
    X, y = _rows(200)
    m = ks.AutoKernel()
    for x, t in zip(X, y):
        m.learn_one(x, t)
    assert m.n_seen == 200 and m.scale is not None
    m.learn_one(np.array([0.5, 0.2]), 0.3)  # an ordinary row after it
    assert m.n_seen == 201
    loc, scale = m.scale["x_loc"], m.scale["x_scale"]
    # the column's moments from their definition, on v / 1e308 (+-1)
    s = X[:, 0] / 1e308
    assert loc[0] == pytest.approx(1e308 * s.mean(), rel=1e-12)
    assert scale[0] == pytest.approx(1e308 * s.std(), rel=1e-12)
    p = m.predict_many(np.column_stack([np.full(5, 1e308), np.linspace(-1, 1, 5)]))
    assert np.all(np.isfinite(p))


def test_blocked_path_fits_the_same_column():
    X, y = _rows(260, seed=1)
    m = ks.AutoKernel()
    p = m.progressive_predict(X, y)
    assert m.n_seen == 260 and np.all(np.isfinite(p))


def test_a_block_that_fails_after_the_warm_up_leaves_the_learner_unchanged():
    # The warm-up (40 rows) fixes a spread of about 3e-11 for column 0; row 45 holds
    # 1e300 there, which overflows once standardised. Before: the error came after the
    # 40 warm-up rows and the first rounds of the mixture were learned, with no count
    # of them. After: the learner is as before the call, and learns ordinary rows.
    rng = np.random.default_rng(2)
    X = np.column_stack([1 + 1e-10 * rng.uniform(size=50), rng.uniform(-1, 1, 50)])
    y = np.sin(3 * X[:, 1])
    X[45, 0] = 1e300
    m = ks.AutoKernel(warmup=40, features="rff")
    before = bytes(m._core._state_bytes())
    with pytest.raises(NumericalError):
        m.progressive_predict(X, y)
    assert m.n_seen == 0 and bytes(m._core._state_bytes()) == before
    p = m.progressive_predict(X[:45], y[:45])
    assert m.n_seen == 45 and np.all(np.isfinite(p))
