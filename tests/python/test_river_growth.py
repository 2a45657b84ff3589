"""The river adapters' dict targets, late keys and memory: a key first seen mid-stream widens
the learner exactly (no ``max_features`` needed), dict targets as
``river.base.MultiTargetRegressor``, and memory figures that count the learner's state."""

from __future__ import annotations

import sys

import kernelstream as ks
import numpy as np
import pytest
from kernelstream.adapters import RiverClassifier, RiverRegressor
from kernelstream.kernels import Gaussian


def _stream(n=700, late=500, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3)) * 0.7
    X[:late, 2] = 0.0
    y = np.sin(2 * X[:, 0]) + X[:, 1] + X[:, 2]
    rows = [{"a": x[0], "b": x[1], **({"c": x[2]} if t >= late else {})} for t, x in enumerate(X)]
    return rows, X, y


@pytest.mark.parametrize(
    "make",
    [
        lambda: ks.TaylorAWV(degree=3),
        lambda: ks.RFFAWV(Gaussian(1.0), n_features=40, seed=3),
        lambda: ks.KernelAWV(Gaussian(1.0)),
        lambda: ks.AutoKernel(warmup=40, widths=(1.0,), lams=(0.1,), nystrom_widths=()),
    ],
    ids=["TaylorAWV", "RFFAWV", "KernelAWV", "AutoKernel"],
)
def test_key_first_seen_at_row_500_equals_the_zero_padded_learner(make):
    # Before: InputError at row 500 ("pass max_features=N").
    rows, X, y = _stream()
    reg = RiverRegressor(make(), scale=False)
    preds = []
    for row, t in zip(rows, y):
        preds.append(reg.predict_one(row))
        reg.learn_one(row, t)
    width = reg.learner.input_dim
    assert reg.feature_names == ["a", "b", "c"] and width == 4  # doubled from 2
    ref = make()
    padded = np.hstack([X, np.zeros((len(X), width - 3))])
    ref_preds = []
    for x, t in zip(padded, y):
        ref_preds.append(ref.predict_one(x))
        ref.learn_one(x, t)
    # from row 501 on (row 500's prediction was made before its key had an input)
    assert preds[501:] == ref_preds[501:]
    Q = np.hstack([X[:20], np.zeros((20, width - 3))])
    np.testing.assert_array_equal(reg.learner.predict_many(Q), ref.predict_many(Q))


def test_scaled_widening_equals_the_reserved_inputs():
    rows, X, y = _stream(n=300, late=120)
    grown = RiverRegressor(ks.TaylorAWV(degree=2))
    reserved = RiverRegressor(ks.TaylorAWV(degree=2), max_features=4)
    for i, (row, t) in enumerate(zip(rows, y)):
        if i != 120:  # (row 120's key has no input in `grown` yet: left out)
            assert grown.predict_one(row) == pytest.approx(reserved.predict_one(row), rel=1e-9)
        grown.learn_one(row, t)
        reserved.learn_one(row, t)
    assert grown.learner.input_dim == reserved.learner.input_dim == 4


@pytest.mark.parametrize("native", [True, False], ids=["multi-output", "columns"])
def test_classifier_widens_every_column(native):
    from kernelstream.learners import FOGD

    rows, X, y = _stream(n=400, late=250)
    labels = np.where(y > 0.5, "hi", np.where(y < -0.5, "lo", "mid"))

    def make():
        return ks.TaylorAWV(degree=2) if native else FOGD(Gaussian(1.0), n_features=16, seed=1)

    grown = RiverClassifier(make(), scale=False)
    reserved = RiverClassifier(make(), scale=False, max_features=4)
    for row, label in zip(rows, labels):
        grown.learn_one(row, label)
        reserved.learn_one(row, label)
    assert grown.classes == reserved.classes
    # the class scores: every column is the learner fed the zero-padded rows (the
    # calibration keeps the scores the rows had when they were predicted)
    for row in rows[-30:]:
        np.testing.assert_allclose(
            grown._current_scores(row), reserved._current_scores(row), rtol=1e-9, atol=1e-12
        )


def test_dict_targets_are_one_output_each():
    # Before: InputError ("y must be a real number").
    rows, X, y = _stream(n=200, late=0)
    reg = RiverRegressor(ks.TaylorAWV(degree=2))
    ones = {k: RiverRegressor(ks.TaylorAWV(degree=2)) for k in ("u", "v")}
    for row, t in zip(rows, y):
        target = {"v": -2.0 * t + 30.0, "u": t}
        p = reg.predict_one(row)
        if reg.target_names is not None:
            assert sorted(p) == ["u", "v"]
            for k in ("u", "v"):  # each output is the one-output adapter on its column
                assert p[k] == pytest.approx(ones[k].predict_one(row), rel=1e-9, abs=1e-12)
        reg.learn_one(row, target)
        for k, one in ones.items():
            one.learn_one(row, target[k])
    assert reg.target_names == ["u", "v"]
    with pytest.raises(ks.InputError, match="keys"):
        reg.learn_one(rows[0], {"u": 1.0})
    with pytest.raises(ks.InputError, match="dict targets"):
        reg.learn_one(rows[0], 1.0)
    with pytest.raises(ks.InputError, match="multi-output learner"):
        RiverRegressor(ks.ProsNKons(Gaussian(1.0))).learn_one(rows[0], {"u": 1.0})


def test_memory_usage_counts_the_learner_state():
    # Before: river's walk saw only the Python objects (2.86 KiB for a KernelAWV of MBs).
    rows, X, y = _stream(n=400, late=0)
    reg = RiverRegressor(ks.KernelAWV(Gaussian(1.0)), max_features=3)
    for row, t in zip(rows, y):
        reg.learn_one(row, t)
    state = len(reg.learner._core._state_bytes())
    assert state > 400 * 400 * 8 / 2  # (the Gram factor of 400 rows, at least a triangle)
    assert sys.getsizeof(reg.learner) >= state
    assert reg._raw_memory_usage >= state
    grown = RiverRegressor(ks.TaylorAWV())
    for row, t in zip(rows, y):
        grown.learn_one(row, t)
    assert grown._raw_memory_usage >= grown._history.nbytes >= 400 * 3 * 8


def test_river_emerging_features_check_without_reservation():
    # Before: skipped for adapters without max_features (a new key was an InputError).
    checks = pytest.importorskip("river.checks")
    for model in (RiverRegressor(ks.TaylorAWV(degree=2)), RiverClassifier(ks.TaylorAWV())):
        ran = 0
        for check in checks.yield_checks(model):
            name = getattr(check, "func", check).__name__
            if name in ("check_emerging_features", "check_disappearing_features"):
                check(model.clone())
                ran += 1
        assert ran >= 2
