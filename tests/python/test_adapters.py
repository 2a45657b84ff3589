"""scikit-learn and river adapters agree with the learner protocol."""

from __future__ import annotations

from fractions import Fraction

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
    est = SklearnRegressor(ks.TaylorAWV(degree=3), scale=False).fit(X, y, shuffle=False)
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
        "block_size": None,
        "gamma": 1.0,
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
    reg = RiverRegressor(ks.TaylorAWV(degree=2), scale=False)
    ref = ks.TaylorAWV(degree=2)
    for x, yt in zip(X, y):
        d = {"b": x[1], "a": x[0]}
        assert reg.predict_one(d) == ref.predict_one(x)
        reg.learn_one(d, yt)
        ref.learn_one(x, yt)
    assert reg.feature_names == ["a", "b"]
    # The documented feature policy: a missing feature and None are 0; a key not learned
    # yet is left out of a prediction (the learner has no input for it).
    assert reg.predict_one({"a": 0.3}) == ref.predict_one([0.3, 0.0])
    assert reg.predict_one({"a": 0.3, "b": None}) == ref.predict_one([0.3, 0.0])
    assert reg.predict_one({"a": 0.3, "b": 0.2, "c": 9.0}) == ref.predict_one([0.3, 0.2])
    reg.learn_one({"b": -0.4, "z": None}, 0.5)  # None: no new feature
    ref.learn_one([0.0, -0.4], 0.5)
    assert reg.predict_one({"a": 0.1, "b": 0.1}) == ref.predict_one([0.1, 0.1])
    assert reg.feature_names == ["a", "b"]
    with pytest.raises(ks.InputError, match="feature 'a'"):
        reg.learn_one({"a": "high", "b": 0.0}, 0.0)
    assert reg.learner.n_seen == 101
    clf = RiverClassifier(ks.TaylorAWV(degree=2))
    clf.learn_one({"a": 0.5}, True)
    assert clf.predict_one({"a": 0.5}) is True
    assert clf.predict_proba_one({"a": 0.1}) == {True: 1.0}  # one class seen


def _blobs(rng, n=200):
    y = rng.integers(0, 2, n)
    X = rng.normal(size=(n, 2)) * 0.4 + np.where(y[:, None] == 1, 1.0, -1.0)
    return X, y


@pytest.mark.parametrize("labels", [("spam", "ham"), ("ham", "spam"), (3, 7), ("b", False)])
def test_river_classifier_learns_any_hashable_labels(rng, labels):
    """Columns in first-seen order, each a learner on one-hot targets (1 on its class);
    a third label is a new class, not an error."""
    X, y01 = _blobs(rng)
    clf = RiverClassifier(ks.TaylorAWV(degree=2), scale=False)
    for x, k in zip(X, y01):
        clf.learn_one({"u": x[0], "v": x[1]}, labels[k])
    assert clf.classes == [labels[y01[0]], labels[1 - y01[0]]]
    refs = []
    for label in clf.classes:
        ref = ks.TaylorAWV(degree=2)
        ref.learn_many(X, np.array([labels[k] == label for k in y01], dtype=float))
        refs.append(ref.predict_many(X))
    best = np.argmax(np.column_stack(refs), axis=1)
    preds = [clf.predict_one({"u": x[0], "v": x[1]}) for x in X]
    assert preds == [clf.classes[b] for b in best]
    assert np.mean([p == labels[k] for p, k in zip(preds, y01)]) > 0.9
    clf.learn_one({"u": 0.0, "v": 0.0}, "other")
    assert clf.classes[-1] == "other" and clf.learner.n_outputs == 3  # one output per class
    with pytest.raises(ks.InputError, match="hashable"):
        clf.learn_one({"u": 0.0, "v": 0.0}, ["a"])
    assert clf.learner.n_seen == len(X) + 1  # the refused label left the learner untouched


def test_river_classifier_before_any_class():
    clf = RiverClassifier(ks.TaylorAWV(degree=2))
    assert clf.predict_one({"a": 0.1}) is None and clf.predict_proba_one({"a": 0.1}) == {}
    clf.learn_one({"a": 0.1}, "spam")
    assert clf.predict_one({"a": -5.0}) == "spam"  # the one class seen
    clf.learn_one({"a": -0.1}, "ham")
    assert clf.classes == ["spam", "ham"]


def test_river_classifier_probabilities_are_the_calibrated_scores(rng):
    """predict_proba_one = the calibration layer on the columns' scores, the layer fitted
    on the scores each row had before its label (the NumPy reference of the layer)."""
    from kernelstream.kernels import Gaussian
    from kernelstream.reference.calibration import SoftmaxCalibrator as Reference

    X, y01 = _blobs(rng, 100)
    clf = RiverClassifier(
        ks.FOGD(Gaussian(1.0), n_features=20, loss="logistic", seed=0), scale=False
    )
    ref = Reference()
    for x, k in zip(X, y01):
        d = {"u": x[0], "v": x[1]}
        s = list(clf._column_predictions(x[None, :])[0]) if clf.classes else []
        if len(clf.classes) == 2:
            p = clf.predict_proba_one(d)
            np.testing.assert_allclose(
                [p[c] for c in clf.classes], ref.predict_proba(s), rtol=1e-12
            )
        if bool(k) not in clf.classes:  # a new class: its column is the never-seen one
            s.append(clf.learner.predict_one(x))
        if len(s) == 2:  # (with one class the layer's gradient is 0)
            ref.learn(s, (clf.classes + [bool(k)]).index(bool(k)))
        clf.learn_one(d, bool(k))
    p = clf.predict_proba_one({"u": X[0, 0], "v": X[0, 1]})
    assert p[True] + p[False] == pytest.approx(1.0, abs=1e-15)


def test_river_clone_is_fresh(rng):
    reg = RiverRegressor(ks.RFFAWV(ks.kernels.Gaussian(1.0), n_features=5, seed=3))
    reg.learn_one({"a": 0.2}, 1.0)
    c = reg.clone()
    assert c.learner.n_seen == 0 and c.feature_names is None
    assert c.learner.get_params() == reg.learner.get_params()


def test_sklearn_classifier_partial_fit_with_three_classes(rng):
    X, y01 = _blobs(rng, 50)
    y = np.where(y01 == 1, "pos", "neg")
    est = SklearnClassifier(ks.TaylorAWV(degree=2))
    est.partial_fit(X, y, classes=["a", "neg", "pos"])
    assert est.classes_.tolist() == ["a", "neg", "pos"]
    assert est.decision_function(X).shape == (50, 3) and est.predict_proba(X).shape == (50, 3)
    with pytest.raises(ks.InputError, match="not one of the classes"):
        est.partial_fit(X, np.append(y[:-1], "b"))
    assert est.learner_.n_seen == 50  # the refused batch changed nothing


def test_sklearn_classifier_first_batch_with_one_class(rng):
    X, y01 = _blobs(rng, 60)
    y = np.where(y01 == 1, "pos", "neg")
    est = SklearnClassifier(ks.TaylorAWV(degree=2), scale=False)
    with pytest.raises(ks.InputError, match="pass classes"):
        est.partial_fit(X[:3], ["pos", "pos", "pos"])
    assert not hasattr(est, "classes_")
    est.partial_fit(X[:3], ["pos", "pos", "pos"], classes=["pos", "neg"])
    est.partial_fit(X[3:], y[3:])
    assert est.classes_.tolist() == ["neg", "pos"]
    ref = ks.TaylorAWV(degree=2)
    ref.learn_many(X, np.r_[[1.0, 1.0, 1.0], np.where(y[3:] == "pos", 1.0, -1.0)])
    np.testing.assert_array_equal(est.decision_function(X), ref.predict_many(X))
    with pytest.raises(ks.InputError, match="not the same"):
        est.partial_fit(X[:2], y[:2], classes=["neg", "zzz"])
    assert est.learner_.n_seen == 60


@pytest.mark.slow
@pytest.mark.parametrize("loss", ["logistic", "squared"])
def test_sklearn_predict_proba_is_the_calibrated_score(rng, loss):
    """Two classes: P(classes_[1]) is the layer on the scores ((1 - f)/2, (1 + f)/2),
    the layer fitted on the progressive scores (its NumPy reference); without the
    binning stage it is sigmoid(a f) with the layer's slope a."""
    from kernelstream.calibration import SoftmaxCalibrator
    from kernelstream.kernels import Gaussian
    from kernelstream.reference.calibration import SoftmaxCalibrator as Reference

    X, y = _blobs(rng, 100)
    learner = ks.FOGD(Gaussian(1.0), n_features=20, loss=loss, seed=0)
    est = SklearnClassifier(learner, scale=False).fit(X, y, shuffle=False)
    f_prog = type(learner)(**learner.get_params()).progressive_predict(
        X, np.where(y == 1, 1.0, -1.0)
    )
    ref = Reference()
    ref.progressive_proba(np.column_stack([(1 - f_prog) / 2, (1 + f_prog) / 2]), y)
    assert est.calibrator_.slope == pytest.approx(ref.a, rel=1e-12)
    f = est.decision_function(X)
    p = est.predict_proba(X)
    expected = np.array([ref.predict_proba([(1 - v) / 2, (1 + v) / 2])[1] for v in f])
    np.testing.assert_allclose(p[:, 1], expected, rtol=1e-12)
    plain = SoftmaxCalibrator(binning=False)
    plain.learn(np.column_stack([(1 - f_prog) / 2, (1 + f_prog) / 2]), y)
    np.testing.assert_allclose(
        plain.predict_proba(np.column_stack([(1 - f) / 2, (1 + f) / 2]))[:, 1],
        1 / (1 + np.exp(-ref.a * f)),
        rtol=1e-12,
    )
    np.testing.assert_allclose(p.sum(axis=1), 1.0, rtol=0, atol=1e-15)
    np.testing.assert_allclose(np.exp(est.predict_log_proba(X)), p, rtol=1e-12)
    np.testing.assert_array_equal(est.classes_[p.argmax(axis=1)], est.predict(X))


def test_sklearn_errors_before_fit_and_on_bad_shapes(rng):
    from sklearn.exceptions import NotFittedError

    est = SklearnRegressor(ks.TaylorAWV())
    with pytest.raises(NotFittedError):
        est.predict([[0.0, 1.0]])
    est.fit(rng.normal(size=(20, 2)), rng.normal(size=20))
    with pytest.raises(ValueError, match="X has 3 features"):
        est.predict(np.zeros((2, 3)))
    assert not hasattr(est, "decision_function")


# Two jobs: the learners cross process boundaries (pickled to the workers and back);
# starting the workers takes seconds, so that case is slow.
@pytest.mark.parametrize("n_jobs", [1, pytest.param(2, marks=pytest.mark.slow)])
def test_nested_grid_search_in_pipeline(rng, n_jobs):
    from sklearn.model_selection import GridSearchCV
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    X = rng.uniform(-1, 1, (120, 2))
    y = np.sin(3 * X[:, 0]) + 0.1 * rng.normal(size=120)
    pipe = make_pipeline(StandardScaler(), SklearnRegressor(ks.TaylorAWV(sigma=1.0, degree=1)))
    grid = {"sklearnregressor__learner__degree": [1, 4], "sklearnregressor__learner__lam": [0.5]}
    search = GridSearchCV(pipe, grid, cv=2, n_jobs=n_jobs).fit(X, y)
    assert search.best_params_["sklearnregressor__learner__degree"] == 4
    best = search.best_estimator_[-1]
    assert best.learner.degree == 4 and best.learner_.degree == 4 and best.learner_.lam == 0.5
    assert best.learner_.n_seen == 120
    assert pipe[-1].learner.degree == 1  # the searched pipeline itself is untouched


@pytest.mark.parametrize(
    "make",
    [
        lambda K: ks.MultiKernelAWV(K, n_features=5),
        lambda K: ks.Raker(K, n_features=5),
        lambda K: ks.OMKLGF(K, n_features=5, n_samples=1),
        lambda K: ks.NystromAWV(K[0], dictionary=np.linspace(-1, 1, 8)[:, None]),
    ],
    ids=["MultiKernelAWV", "Raker", "OMKLGF", "NystromAWV-fixed"],
)
def test_clone_and_grid_search_keep_parameters_as_passed(rng, make):
    from sklearn.base import clone
    from sklearn.model_selection import GridSearchCV

    kernels = [ks.kernels.Gaussian(0.5), ks.kernels.Laplacian(1.0)]
    learner = make(kernels)
    for name, value in learner.get_params().items():
        assert name == "dictionary" or getattr(learner, name) is value
    c = clone(learner)
    np.testing.assert_equal(c.get_params(), learner.get_params())
    X = rng.uniform(-1, 1, (60, 1))
    y = X[:, 0] ** 2
    search = GridSearchCV(SklearnRegressor(learner), {"learner__lam": [0.5, 1.0]}, cv=2)
    if "lam" not in learner.get_params():
        search.set_params(param_grid={"learner__seed": [0, 1]})
    search.fit(X, y)
    assert search.best_estimator_.learner_.n_seen == 60


def _welford_reference(X):
    """Row-by-row Welford: the scaled row t uses the mean and variance of rows 0..t."""
    n, mean, m2, out = 0, np.zeros(X.shape[1]), np.zeros(X.shape[1]), []
    for x in X:
        n += 1
        delta = x - mean
        mean = mean + delta / n
        m2 = m2 + delta * (x - mean)
        std = np.sqrt(m2 / n)
        out.append(np.where(std > 0, (x - mean) / np.where(std > 0, std, 1), 0.0))
    return np.array(out), mean, np.sqrt(m2 / n)


def test_online_standardizer_equals_row_by_row_welford(rng):
    from kernelstream.adapters._scaling import OnlineStandardizer

    # offsets and spreads of very different sizes, like TrumpApproval's date and polls
    X = rng.normal(size=(300, 3)) * [1e-3, 1.0, 50.0] + [7.36e5, -2.0, 40.0]
    X[:, 1] = np.round(X[:, 1])  # many ties
    ref, mean, std = _welford_reference(X)
    s = OnlineStandardizer(per_dimension=True)
    Z = np.vstack([s.learn_transform(X[a:b]) for a, b in [(0, 1), (1, 70), (70, 71), (71, 300)]])
    # Conditioning: x - mean loses eps |mean| / std relative to the scaled value (in the
    # reference too), and the prefix sums accumulate up to n such errors.
    tol = len(X) * np.finfo(float).eps * (1 + np.abs(mean) / std)
    for j in range(3):
        np.testing.assert_allclose(Z[:, j] * np.sqrt(3), ref[:, j], rtol=0, atol=tol[j])
    np.testing.assert_allclose(s.mean, mean, rtol=1e-13)
    np.testing.assert_allclose(np.sqrt(s.m2 / s.n), std, rtol=0, atol=(tol * std).max())
    expected = (X[:5] - mean) / std / np.sqrt(3)
    np.testing.assert_allclose(s.transform(X[:5]), expected, rtol=0, atol=tol.max())
    assert np.all(OnlineStandardizer(True).learn_transform(np.ones((4, 2))) == 0)  # constant


@pytest.mark.parametrize("keep_unit", [False, True])
@pytest.mark.parametrize("per_dimension", [False, True])
def test_standardizer_row_methods_are_the_block_methods_bit_for_bit(rng, keep_unit, per_dimension):
    """The one-row methods (the core's arithmetic) against blocks of one row (NumPy):
    features of order one (kept), far from it, constant, with ties and a -0.0."""
    from kernelstream.adapters._scaling import OnlineStandardizer

    X = rng.normal(size=(200, 5)) * [1e-3, 1.0, 50.0, 0.0, 0.5] + [7.36e5, 0.3, 40.0, 2.0, 0.0]
    X[:, 1] = np.round(X[:, 1])
    X[0, 4] = -0.0
    block, row = (
        OnlineStandardizer(per_dimension, keep_unit),
        OnlineStandardizer(per_dimension, keep_unit),
    )

    def assert_bits(a, b):
        return np.testing.assert_array_equal(a.view(np.int64), b.view(np.int64))

    assert_bits(block.transform(X[:1])[0], row.transform_row(X[0]))  # before any row: zeros
    for x in X:
        zb = block.learn_transform(x[None, :])[0]
        zr, after = row.learned_row(x)
        assert row.n == after.n - 1  # the standardizer itself is unchanged
        row = after
        assert_bits(zb, zr)
        assert_bits(block.mean, row.mean)
        assert_bits(block.m2, row.m2)
        assert_bits(block.transform(X[7:8])[0], row.transform_row(X[7]))
    assert block.n == row.n == len(X)
    for f in (0.0, -3.5, 1e3):
        assert row.inverse_one(f) == block.inverse(np.array([f]))[0]
    for bad in (np.array([np.nan, 0, 0, 0, 0.0]), np.full(5, 1e200), X[0][:3]):
        with pytest.raises(ks.InputError):
            row.learned_row(bad)
    assert row.n == len(X)


def test_river_fast_slots_equal_the_general_path(rng):
    """Rows whose keys all have a slot and whose values are floats, ints, numpy floats
    or None take the adapter's short path; the results equal a copy fed through the
    general path (keys in another order, values that need its checks) bit for bit."""
    X = rng.normal(size=(80, 3)) * [3.0, 0.01, 1.0] + [10.0, -5.0, 0.0]
    fast = RiverRegressor(ks.TaylorAWV(), scale=True, max_features=4)
    general = RiverRegressor(ks.TaylorAWV(), scale=True, max_features=4)
    for i, (x, yt) in enumerate(zip(X, X[:, 0] * 2.0)):
        row = {"a": float(x[0]), "b": np.float64(x[1]), "c": None if i % 5 == 0 else x[2]}
        if i % 7 == 3:
            row["b"] = int(round(x[1]))
        if i == 40:
            row["d"] = 1.5  # a key first seen now takes the general path once
        # the same values as Fractions (exact), which only the general path takes
        other = {k: (v if v is None else Fraction(v)) for k, v in reversed(row.items())}
        assert fast.predict_one(row) == general.predict_one(other)
        fast.learn_one(row, yt)
        general.learn_one(other, yt)
    assert fast.feature_names == general.feature_names == ["a", "b", "c", "d"]
    assert fast.learner._core._state_bytes() == general.learner._core._state_bytes()
    assert fast._known_row({"a": 1.0}) is not None and general._known_row(other) is None
    with pytest.raises(ks.InputError, match="real number"):
        fast.learn_one({"a": 1.0, "b": True, "c": 0.0}, 1.0)
    with pytest.raises(ks.InputError, match="real number"):
        fast.predict_one({"a": 1.0, "b": "x", "c": 0.0})


def test_sklearn_scale_streams_the_standardized_rows(rng):
    from kernelstream.adapters._scaling import OnlineStandardizer

    X = rng.normal(size=(120, 4)) * 30 + 100
    y = X[:, 0] * 5 + 1000
    est = SklearnRegressor(ks.TaylorAWV(), scale=True).fit(X, y, shuffle=False)
    xs, ys = OnlineStandardizer(True, keep_unit=True), OnlineStandardizer(False)
    ref = ks.TaylorAWV()
    ref.learn_many(xs.learn_transform(X), ys.learn_transform(y[:, None])[:, 0])
    f = ref.predict_many(xs.transform(X[:10]))
    np.testing.assert_allclose(est.predict(X[:10]), ys.inverse(f), rtol=1e-12)
    # split equals whole
    part = SklearnRegressor(ks.TaylorAWV(), scale=True).partial_fit(X[:50], y[:50])
    part.partial_fit(X[50:], y[50:])
    np.testing.assert_allclose(part.predict(X[:10]), est.predict(X[:10]), rtol=1e-10)
    assert est.score(X, y) > 0.8
    with pytest.raises(ks.ParameterError, match="scale"):
        SklearnRegressor(ks.TaylorAWV(), scale="yes").fit(X, y)


def test_river_scale_equals_sklearn_scale(rng):
    X = rng.normal(size=(60, 2)) * [3.0, 0.01] + [10.0, -5.0]
    y = 100 * X[:, 0] - 7
    est = SklearnRegressor(ks.TaylorAWV(), scale=True)
    reg = RiverRegressor(ks.TaylorAWV(), scale=True)
    for x, yt in zip(X, y):
        reg.learn_one({"a": x[0], "b": x[1]}, yt)
    est.fit(X, y, shuffle=False)
    np.testing.assert_allclose(
        [reg.predict_one({"a": x[0], "b": x[1]}) for x in X[:10]], est.predict(X[:10]), rtol=1e-9
    )
    n_seen = reg.learner.n_seen
    for bad_x, bad_y in [({"a": 1.0, "b": 1.0}, float("nan")), ({"a": np.inf, "b": 1.0}, 1.0)]:
        with pytest.raises(ks.InputError, match="NaN or infinite"):
            reg.learn_one(bad_x, bad_y)
    with pytest.raises(ks.InputError, match="too large"):
        reg.learn_one({"a": 1e300, "b": 1.0}, 1.0)
    assert reg.learner.n_seen == n_seen and reg.target_scaler.n == n_seen == reg.scaler.n


def test_sklearn_classifier_one_vs_rest_for_multiclass(rng):
    """scikit-learn's one-vs-rest still wraps the adapter: one binary learner per class."""
    from sklearn.multiclass import OneVsRestClassifier

    centers = np.array([[-2.0, 0.0], [2.0, 0.0], [0.0, 2.5]])
    y = rng.integers(0, 3, 300)
    X = centers[y] + 0.5 * rng.normal(size=(300, 2))
    labels = np.array(["a", "b", "c"])[y]
    ovr = OneVsRestClassifier(SklearnClassifier(ks.TaylorAWV(sigma=2.0, degree=2), scale=False))
    ovr.fit(X, labels)
    assert ovr.classes_.tolist() == ["a", "b", "c"]
    # one binary learner per class, each on its class against the rest
    # (each fit streams the rows in the order seeded by the learner's seed, 0 here)
    o = np.random.default_rng(0).permutation(len(y))
    for k, est in enumerate(ovr.estimators_):
        ref = ks.TaylorAWV(sigma=2.0, degree=2)
        ref.learn_many(X[o], np.where(y[o] == k, 1.0, -1.0))
        np.testing.assert_array_equal(est.decision_function(X), ref.predict_many(X))
    assert np.mean(ovr.predict(X) == labels) > 0.9
