"""AutoKernel(warm_neighbour=True): the warm-up's AdaHedge mix of the kernel ridge
prediction and the nearest row's target (docs/autokernel.md, step 1), against a NumPy
reference from the definitions."""

from __future__ import annotations

import pickle

import kernelstream as ks
import numpy as np
import pytest
from test_autokernel_warm_widths import adahedge

# one kernel ridge predictor (warm_widths=()): the two-predictor mix of this test
PARAMS = dict(warmup=40, lams=(0.1, 1.0), max_taylor_features=35, warm_widths=())


def stream(n=120, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    level = np.where(np.arange(n) < 20, 5.0, -3.0)  # a level that moves in the warm-up
    y = level + np.sin(2 * X[:, 0]) + 0.3 * rng.standard_t(3, size=n)
    X[:, 1] += level  # an input that shows it
    return X, y


def nearest_targets(X, y, w):
    """The target of the nearest earlier row, rows standardised by their own mean and
    population standard deviation (no constant column here); 0 at the first row."""
    out = [0.0]
    for t in range(1, w):
        m, s = X[:t].mean(0), X[:t].std(0)
        if t == 1:
            s = np.where(m != 0, np.abs(m), 1.0)
        Z, q = (X[:t] - m) / s, (X[t] - m) / s
        out.append(y[:t][np.argmin(((Z - q) ** 2).sum(1))])
    return np.array(out)


def test_warm_up_equals_the_reference_and_the_rest_is_unchanged():
    X, y = stream()
    w = PARAMS["warmup"]
    off = ks.AutoKernel(**PARAMS, warm_neighbour=False).progressive_predict(X, y)
    on = ks.AutoKernel(**PARAMS, warm_neighbour=True).progressive_predict(X, y)
    ref = adahedge(np.column_stack([off[:w], nearest_targets(X, y, w)]), y[:w])
    np.testing.assert_allclose(on[:w], ref, rtol=1e-9, atol=1e-9 * np.abs(y).max())
    assert not np.allclose(on[:w], off[:w])  # the mix did move
    # The experts' replay does not use the warm-up predictions: the same bits after it.
    np.testing.assert_array_equal(on[w:], off[w:])
    # On this stream the level moves at row 20: the mix beats kernel ridge alone.
    assert np.mean((on[:w] - y[:w]) ** 2) < np.mean((off[:w] - y[:w]) ** 2)


def test_loops_pickles_and_units_agree():
    X, y = stream(seed=1)
    w = PARAMS["warmup"]
    ref = ks.AutoKernel(**PARAMS, warm_neighbour=True).progressive_predict(X, y)
    a = ks.AutoKernel(**PARAMS, warm_neighbour=True)
    got = []
    for i in range(w + 10):
        if i == 25:  # mid warm-up: the mix's sums travel with the pickle
            a = pickle.loads(pickle.dumps(a))
        got.append(a.predict_one(X[i]))
        a.learn_one(X[i], y[i])
    np.testing.assert_array_equal(got[:w], ref[:w])
    # after the warm-up the loop and the blocks agree to rounding (docs/autokernel.md)
    np.testing.assert_allclose(got[w:], ref[w : w + 10], rtol=1e-9)
    scaled = ks.AutoKernel(**PARAMS, warm_neighbour=True).progressive_predict(1e3 * X, 1e-3 * y)
    np.testing.assert_allclose(1e3 * scaled[:w], ref[:w], rtol=1e-6, atol=1e-9)


def test_the_option_is_validated_and_reported():
    assert ks.AutoKernel().get_params()["warm_neighbour"] is True
    assert ks.AutoKernel(warm_neighbour=False).get_params()["warm_neighbour"] is False
    with pytest.raises(ValueError):
        ks.AutoKernel(warm_neighbour="yes")


def test_a_state_without_the_option_warms_up_as_it_was_saved():
    """A state saved before warm_neighbour was the default lacks the field: it loads with
    warm_neighbour=False (its declared ``absent`` value, not the default) and goes on as
    AutoKernel(warm_neighbour=False), mid warm-up; a fresh AutoKernel() has True."""
    from kernelstream.modelfile.statebytes import seal

    X, y = stream(seed=2)
    old = ks.AutoKernel(**PARAMS, warm_neighbour=False)
    old.learn_many(X[:10], y[:10])
    state = old.__getstate__()
    key = b"warm_neighbour"
    assert key in state["core"]
    # Another name of the same length: the state's map no longer holds the field.
    state["core"] = seal(state["core"].replace(key, b"warm_xeighbour"))
    loaded = ks.AutoKernel(**PARAMS)
    assert loaded.get_params()["warm_neighbour"] is True
    loaded.__setstate__(state)
    assert loaded.get_params()["warm_neighbour"] is False
    want = old.progressive_predict(X[10:], y[10:])
    np.testing.assert_array_equal(loaded.progressive_predict(X[10:], y[10:]), want)
    # What the default would have given differs in the warm-up (the test can tell).
    on = ks.AutoKernel(**PARAMS, warm_neighbour=True)
    on.learn_many(X[:10], y[:10])
    assert not np.allclose(on.progressive_predict(X[10:], y[10:])[:30], want[:30])
