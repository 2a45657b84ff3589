"""Hyperparameters of every learner and aggregator: read-only attributes and set_params.

``set_params`` follows scikit-learn (returns ``self``, nested via the adapters) and is
allowed only before the object has seen data; it is atomic: a bad value raises
``ParameterError`` and leaves the object exactly as it was.
"""

from __future__ import annotations

import inspect
import numbers
import pickle

import kernelstream as ks
import numpy as np
import pytest
from kernelstream import aggregation
from kernelstream._wrapped import _RenamedAttribute
from test_protocol import assert_same_params
from zoo import ZOO

NAMES = sorted(ZOO)


AGGREGATORS = [
    lambda: aggregation.VAWMeta(3, lam=0.5),
    lambda: aggregation.EWA(3, eta=0.3),
    lambda: aggregation.AggregatingAlgorithm(3, lo=0.0, hi=1.0),
    lambda: aggregation.BOA(3),
    lambda: aggregation.MLPoly(3),
    lambda: aggregation.MLProd(3),
]


def _stream(e, n=30, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(*e.domain, size=(n, e.d))
    y = np.sign(X[:, 0] + 1e-9) if e.task == "classification" else np.sin(3 * X[:, 0])
    return X, y


def _snapshot(obj):
    if not hasattr(obj, "_core"):  # Conformal: a Python object around a learner
        return pickle.dumps(obj.get_params()), pickle.dumps(obj)
    return pickle.dumps(obj.get_params()), bytes(obj._core._state_bytes())


@pytest.mark.parametrize("name", NAMES)
def test_hyperparameters_are_read_only_attributes(name):
    learner = ZOO[name].factory()
    cls = type(learner).__name__
    params = learner.get_params()
    named = [
        p.name
        for p in inspect.signature(type(learner)).parameters.values()
        if p.kind is not p.VAR_KEYWORD  # a Mixture's **rule_params appear only when given
    ]
    assert list(params)[: len(named)] == named
    for key, value in params.items():
        if key not in named:
            continue
        renamed = inspect.getattr_static(type(learner), key)
        if isinstance(renamed, _RenamedAttribute):
            # Learned state that had the parameter's name: moved, the old name warns
            # until its removal release (then this branch must be gone).
            assert _release(ks.__version__) < _release(renamed.removed_in), (cls, key)
            with pytest.warns(DeprecationWarning, match=f"use {cls}.{renamed.new}"):
                old = getattr(learner, key)
            new = getattr(learner, renamed.new)
            if callable(new):
                assert old.__func__ is new.__func__
            else:
                np.testing.assert_equal(old, new)
            continue
        assert getattr(learner, key) is value
        with pytest.raises(AttributeError, match="read-only"):
            setattr(learner, key, value)


def _release(version: str) -> tuple:
    return tuple(int(part) for part in version.split(".")[:3])


@pytest.mark.parametrize("name", NAMES)
def test_set_params_before_data_equals_a_fresh_learner(name):
    e = ZOO[name]
    learner = e.factory()
    params = learner.get_params()
    assert learner.set_params() is learner
    assert learner.set_params(**params) is learner
    np.testing.assert_equal(learner.get_params(), params)
    X, y = _stream(e)
    np.testing.assert_array_equal(
        learner.progressive_predict(X, y), e.factory().progressive_predict(X, y)
    )


@pytest.mark.parametrize("name", NAMES)
def test_set_params_is_atomic_and_refused_after_data(name):
    e = ZOO[name]
    learner = e.factory()
    before = _snapshot(learner)
    with pytest.raises(ks.ParameterError, match="no parameter 'nope'"):
        learner.set_params(nope=1)
    numeric = [
        k
        for k, v in learner.get_params().items()
        if isinstance(v, numbers.Real) and not isinstance(v, bool)
    ]
    for key in numeric:
        with pytest.raises(ks.ParameterError):
            learner.set_params(**{key: "not a number"})
        assert _snapshot(learner) == before
    X, y = _stream(e)
    learner.learn_many(X, y)
    trained = _snapshot(learner)
    key = next(iter(learner.get_params()))
    with pytest.raises(ks.ParameterError, match="seen 30 rounds"):
        learner.set_params(**{key: learner.get_params()[key]})
    assert _snapshot(learner) == trained


def test_set_params_changes_the_configuration():
    m = ks.TaylorAWV(degree=2)
    m.set_params(degree=3, lam=0.5)
    assert (m.degree, m.lam) == (3, 0.5)
    X = np.random.default_rng(1).uniform(-1, 1, (40, 2))
    y = X[:, 0] ** 3
    ref = ks.TaylorAWV(degree=3, lam=0.5)
    np.testing.assert_array_equal(m.progressive_predict(X, y), ref.progressive_predict(X, y))
    assert m.dim == 10
    with pytest.raises(ks.ParameterError, match="degree"):
        ks.TaylorAWV().set_params(degree=-1)


@pytest.mark.parametrize("make", AGGREGATORS)
def test_aggregators_have_the_same_parameter_protocol(make):
    agg = make()
    params = agg.get_params()
    assert agg.set_params(**params) is agg
    for key, value in params.items():
        assert getattr(agg, key) == value
    agg.update([0.1, 0.2, 0.3], 0.2)
    with pytest.raises(ks.ParameterError, match="seen 1 rounds"):
        agg.set_params(n_experts=3)


@pytest.mark.parametrize("name", NAMES)
def test_sklearn_clone_works_for_every_learner(name):
    """get_params returns the arguments exactly as passed, which sklearn's clone checks."""
    base = pytest.importorskip("sklearn.base")
    e = ZOO[name]
    learner = e.factory()
    c = base.clone(learner)
    assert type(c) is type(learner) and c is not learner
    assert_same_params(c.get_params(), learner.get_params())
    X, y = _stream(e)
    np.testing.assert_array_equal(c.progressive_predict(X, y), learner.progressive_predict(X, y))
