"""The serving path: ``predict_one(x)`` when a request arrives, ``learn_one(x, y)`` when
its label does. A learner keeps the prediction's work for the following round on the
same ``x``; every prediction and every state must be, bit for bit, those of a pure
prediction followed by a full round, whatever happens in between (checked on every
learner of the zoo, and through the river and scikit-learn adapters)."""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest
from test_protocol import stream
from zoo import ZOO

NAMES = sorted(ZOO)


def pure_prediction(learner, x):
    """Today's ``predict_one``: a prediction that keeps nothing (made on a copy)."""
    return copy.copy(learner).predict_one(x)


def state(learner):
    if not hasattr(learner, "_core"):  # Conformal: its learner's state and its own
        st = learner.__getstate__()
        own = (st["alpha_t"], st["scores"], st["n"], st["covered"])
        return bytes(learner.learner_._core._state_bytes()), own
    return bytes(learner._core._state_bytes())


@pytest.mark.parametrize("name", NAMES)
def test_predict_then_learn_equals_pure_rounds(name):
    e = ZOO[name]
    X, y = stream(e, 70, seed=8)
    ref, srv = e.factory(), e.factory()
    for i, (x, yt) in enumerate(zip(X, y)):
        other = X[(7 * i + 3) % len(X)]
        step = i % 6
        if step == 1:  # a prediction for another input: nothing kept may serve x
            assert pure_prediction(ref, other) == srv.predict_one(other)
        elif step == 2:  # a pickle round trip between the prediction and the label
            assert pure_prediction(ref, x) == srv.predict_one(x)
            srv = pickle.loads(pickle.dumps(srv))
        elif step == 3:  # a copy between them: the copy goes on
            assert pure_prediction(ref, x) == srv.predict_one(x)
            srv = copy.copy(srv)
        elif step == 4:  # scikit-learn's path: predict_many and learn_many of one row
            p = ref.predict_many(x[None, :])
            np.testing.assert_array_equal(p, srv.predict_many(x[None, :]))
            ref.learn_many(x[None, :], np.array([yt]))
            srv.learn_many(x[None, :], np.array([yt]))
            continue
        elif step == 5:  # a label without a prediction
            pass
        else:  # the serving path proper
            assert pure_prediction(ref, x) == srv.predict_one(x)
        ref.learn_one(x, yt)
        srv.learn_one(x, yt)
    assert state(ref) == state(srv)
    assert ref.n_seen == srv.n_seen


def test_kept_prediction_is_dropped_by_other_rounds():
    import kernelstream as ks

    X, y = stream(ZOO["TaylorAWV"], 30, seed=9)
    a, b = ks.TaylorAWV(degree=3), ks.TaylorAWV(degree=3)
    a.learn_many(X[:10], y[:10])
    b.learn_many(X[:10], y[:10])
    b.predict_one(X[10])
    # a batch, then the kept input again: the kept work belongs to an earlier round
    for m in (a, b):
        m.progressive_predict(X[11:13], y[11:13])
        m.learn_one(X[10], y[10])
    assert state(a) == state(b)
    np.testing.assert_array_equal(a.predict_many(X), b.predict_many(X))


def test_river_adapter_serving_loop_equals_learn_loop():
    pytest.importorskip("river")
    import kernelstream as ks
    from kernelstream.adapters import RiverRegressor

    X, y = stream(ZOO["TaylorAWV"], 60, seed=10)
    rows = [{f"x{j}": float(v) for j, v in enumerate(x)} for x in X]
    ref, srv = ks.TaylorAWV(degree=3), RiverRegressor(ks.TaylorAWV(degree=3), scale=False)
    for r, x, yt in zip(rows, X, y):
        assert pure_prediction(ref, x) == srv.predict_one(r)
        ref.learn_one(x, yt)
        srv.learn_one(r, yt)
    assert state(ref) == state(srv.learner)


def test_sklearn_adapter_serving_loop_equals_learn_loop():
    pytest.importorskip("sklearn")
    import kernelstream as ks
    from kernelstream.adapters import SklearnRegressor

    X, y = stream(ZOO["TaylorAWV"], 60, seed=11)
    ref = ks.TaylorAWV(degree=3)
    srv = SklearnRegressor(ks.TaylorAWV(degree=3), scale=False)
    ref.learn_one(X[0], y[0])
    srv.partial_fit(X[:1], y[:1])
    for i in range(1, len(X)):
        np.testing.assert_array_equal(ref.predict_many(X[i : i + 1]), srv.predict(X[i : i + 1]))
        ref.learn_one(X[i], y[i])
        srv.partial_fit(X[i : i + 1], y[i : i + 1])
    assert state(ref) == state(srv.learner_)
