"""scikit-learn and river adapters agree with the learner protocol."""

from __future__ import annotations

import kernelstream as ks
import numpy as np
import pytest
from kernelstream.adapters import (
    RiverClassifier,
    RiverRegressor,
    SklearnClassifier,
    SklearnRegressor,
)


def test_sklearn_regressor_equals_learn_many(rng):
    X = rng.uniform(-1, 1, (200, 3))
    y = np.sin(2 * X[:, 0])
    est = SklearnRegressor(ks.TaylorAWV(degree=3)).fit(X, y)
    ref = ks.TaylorAWV(degree=3)
    ref.learn_many(X, y)
    np.testing.assert_array_equal(est.predict(X[:20]), ref.predict_many(X[:20]))
    est.fit(X, y)  # fit restarts from scratch
    assert est.learner_.n_seen == 200
    est.partial_fit(X[:50], y[:50])
    assert est.learner_.n_seen == 250
    assert est.get_params()["learner"].get_params() == {
        "sigma": 1.0,
        "degree": 3,
        "lam": 1.0,
        "ridge": False,
    }


def test_sklearn_clone_and_pipeline(rng):
    pytest.importorskip("sklearn")
    from sklearn.base import clone
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import MinMaxScaler

    X = rng.normal(size=(150, 2))
    y = X[:, 0] - X[:, 1]
    pipe = make_pipeline(MinMaxScaler((-1, 1)), SklearnRegressor(ks.TaylorAWV(degree=2)))
    pipe.fit(X, y)
    assert pipe.score(X, y) > 0.5
    c = clone(SklearnRegressor(ks.TaylorAWV(degree=4)))
    assert c.learner.get_params()["degree"] == 4


def test_sklearn_classifier_labels(rng):
    X = rng.uniform(-1, 1, (300, 2))
    y = np.where(X[:, 0] > 0, "pos", "neg")
    est = SklearnClassifier(ks.TaylorAWV(degree=2)).fit(X, y)
    assert set(est.predict(X)) <= {"pos", "neg"}
    assert est.score(X, y) > 0.8
    with pytest.raises(ks.InputError):
        est.partial_fit(X[:2], ["pos", "other"])


def test_river_adapters(rng):
    X = rng.uniform(-1, 1, (100, 2))
    y = X[:, 0] * X[:, 1]
    reg = RiverRegressor(ks.TaylorAWV(degree=2))
    ref = ks.TaylorAWV(degree=2)
    for x, yt in zip(X, y):
        d = {"b": x[1], "a": x[0]}
        assert reg.predict_one(d) == ref.predict_one(x)
        reg.learn_one(d, yt)
        ref.learn_one(x, yt)
    with pytest.raises(ks.InputError):
        reg.learn_one({"a": 1.0}, 0.0)
    clf = RiverClassifier(ks.TaylorAWV(degree=2))
    clf.learn_one({"a": 0.5}, True)
    assert clf.predict_one({"a": 0.5}) is True
    assert abs(sum(clf.predict_proba_one({"a": 0.1}).values()) - 1) < 1e-12
