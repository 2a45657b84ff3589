"""Inputs of the adapters and wrappers that once went wrong silently: missing labels
becoming classes, integers beyond float64, class counts whose columns do not fit in memory,
and objects of Python state shared by threads (a lost update)."""

from __future__ import annotations

import math
import pickle
import sys
import threading

import kernelstream as ks
import numpy as np
import pytest
from kernelstream.errors import InputError

river = pytest.importorskip("kernelstream.adapters")


@pytest.mark.parametrize("label", [float("nan"), np.nan, np.float32("nan"), None])
def test_river_classifier_refuses_a_missing_label_and_stays_as_it_was(label):
    from kernelstream.adapters import RiverClassifier

    clf = RiverClassifier(ks.TaylorAWV(degree=2))
    clf.learn_one({"a": 0.5}, "x")
    for _ in range(3):  # before: each NaN became a class of its own
        with pytest.raises(InputError, match="label is missing"):
            clf.learn_one({"a": 0.1}, label)
    assert clf.classes == ["x"] and clf.learner.n_seen == 1
    assert clf.predict_one({"a": 0.2}) == "x"


def test_river_classifier_refuses_pandas_missing_labels():
    pd = pytest.importorskip("pandas")
    from kernelstream.adapters import RiverClassifier

    clf = RiverClassifier(ks.TaylorAWV(degree=2))
    for label in (pd.NA, pd.NaT):
        with pytest.raises(InputError, match="label is missing"):
            clf.learn_one({"a": 0.1}, label)
    assert clf.classes == []


def test_sklearn_classifier_refuses_nan_labels():
    pytest.importorskip("sklearn")
    from kernelstream.adapters import SklearnClassifier

    X = np.zeros((3, 2))
    clf = SklearnClassifier(ks.TaylorAWV(degree=2))
    with pytest.raises(ValueError, match="NaN"):
        clf.fit(X, np.array([0.0, 1.0, np.nan]))
    assert not hasattr(clf, "classes_")


@pytest.mark.parametrize(
    "value", [10**400, -(10**400), 2**1024 - 2**970], ids=["1e400", "-1e400", "2^1024-2^970"]
)
def test_river_regressor_names_an_integer_beyond_float64(value):
    from kernelstream.adapters import RiverRegressor

    m = RiverRegressor(ks.TaylorAWV(degree=2))
    m.learn_one({"a": 1.0}, 1.0)
    with pytest.raises(InputError, match="overflows float64"):  # before: TypeError
        m.learn_one({"a": value}, 1)
    assert m.learner.n_seen == 1 and m.scaler.n == 1
    # the largest integer that is a finite double is a value like any other
    assert float(2**1024 - 2**971) == sys.float_info.max


def test_sklearn_classifier_counts_its_class_columns_before_allocating():
    pytest.importorskip("sklearn")
    from kernelstream.adapters import SklearnClassifier

    before = ks.get_memory_limit()
    ks.set_memory_limit(512 << 20)
    try:
        X = np.zeros((20_000, 2))
        y = np.arange(20_000)  # 20,000 classes: n x K columns of 3.2 GB each
        clf = SklearnClassifier(ks.TaylorAWV(degree=2))
        with pytest.raises(InputError, match=r"20000 rows x 20000 classes.*memory ceiling"):
            clf.fit(X, y)
        assert not hasattr(clf, "classes_")
    finally:
        ks.set_memory_limit(before)


def _hammer(step, threads=4, per=400):
    """``step(rng)`` ``per`` times in each of ``threads`` threads started together, with
    thread switches as often as possible; the exceptions raised."""
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    barrier, errors = threading.Barrier(threads), []

    def run(seed):
        rng = np.random.default_rng(seed)
        barrier.wait()
        for _ in range(per):
            try:
                step(rng)
            except Exception as exc:  # noqa: BLE001 - checked by the caller
                errors.append(exc)

    try:
        pool = [threading.Thread(target=run, args=(k,)) for k in range(threads)]
        for t in pool:
            t.start()
        for t in pool:
            t.join()
    finally:
        sys.setswitchinterval(old)
    return errors


def test_conformal_shared_by_threads_scores_every_round_it_learns():
    model = ks.Conformal(ks.TaylorAWV(degree=2), window=50)
    errors = _hammer(lambda rng: model.learn_one(rng.normal(size=2), float(rng.normal())))
    assert errors == []  # serialised: no call fails, none interleaves
    assert model.n_seen == 1600 and model._state["n"] == 1600
    assert 0.0 <= model.coverage <= 1.0


def test_river_adapters_shared_by_threads_lose_no_scaler_update():
    from kernelstream.adapters import RiverClassifier, RiverRegressor

    reg = RiverRegressor(ks.TaylorAWV(degree=2))
    errors = _hammer(
        lambda rng: reg.learn_one({"a": float(rng.normal()), "b": float(rng.normal())}, 1.0)
    )
    assert errors == []
    # before: learner 2000 rounds, scaler statistics of 1128 (updates overwritten)
    assert reg.learner.n_seen == reg.scaler.n == reg.target_scaler.n == 1600
    clf = RiverClassifier(ks.TaylorAWV(degree=2))
    errors = _hammer(lambda rng: clf.learn_one({"a": float(rng.normal())}, int(rng.integers(3))))
    assert errors == []
    assert clf.learner.n_seen == clf.scaler.n == 1600 and clf.calibrator.n_seen == 1600


def test_the_lock_is_no_part_of_pickles_or_copies():
    import copy

    from kernelstream.adapters import RiverRegressor

    reg = RiverRegressor(ks.TaylorAWV(degree=2))
    reg.learn_one({"a": 1.0}, 2.0)
    model = ks.Conformal(ks.TaylorAWV(degree=2))
    model.learn_one(np.array([0.1]), 1.0)
    for obj in (reg, model):
        for other in (pickle.loads(pickle.dumps(obj)), copy.deepcopy(obj), copy.copy(obj)):
            assert other.__dict__.get("_call_lock") is not obj.__dict__.get("_call_lock") or (
                obj.__dict__.get("_call_lock") is None
            )
    clone = reg.clone(include_attributes=True)
    assert clone.scaler.n == 1 and math.isfinite(clone.predict_one({"a": 1.0}))


@pytest.mark.parametrize("size", [1, 10, 64, 65, 500])  # both sides of the Python loop
@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf])
def test_the_scikit_learn_fast_checks_equal_numpy(size, bad):
    """The one-row checks of the scikit-learn adapters (finite values, the largest
    magnitude) give NumPy's answers on small arrays (a Python loop) and large ones."""
    from kernelstream.adapters.sklearn import _all_finite, _largest_magnitude

    a = np.random.default_rng(size).normal(size=(1, size)) * 1e300
    assert _all_finite(a) and _largest_magnitude(a) == float(np.max(np.abs(a)))
    for at in {0, size // 2, size - 1}:
        b = a.copy()
        b[0, at] = bad
        assert not _all_finite(b) and not _all_finite(b.T)


def test_a_served_scikit_learn_row_with_a_nan_is_refused_and_changes_nothing():
    from kernelstream.adapters import SklearnClassifier, SklearnRegressor

    X = np.random.default_rng(0).normal(size=(20, 3))
    for est, y in (
        (SklearnRegressor(ks.TaylorAWV(degree=2)), X[:, 0]),
        (SklearnClassifier(ks.TaylorAWV(degree=2)), X[:, 0] > 0),
    ):
        est.partial_fit(X[:10], y[:10])
        before = pickle.dumps(est)
        row = X[10:11].copy()
        row[0, 1] = math.nan
        with pytest.raises(ValueError):
            est.predict(row)
        with pytest.raises(ValueError):
            est.partial_fit(row, y[10:11])
        assert pickle.dumps(est) == before
