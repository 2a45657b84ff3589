"""Multiclass classification through the adapters: one score column per class (one-hot
targets), the argmax as the prediction, calibrated probabilities made before each
label, and a class first seen mid-stream getting the column it would have had from
round 1."""

from __future__ import annotations

import kernelstream as ks
import numpy as np
import pytest
from kernelstream.adapters import RiverClassifier, SklearnClassifier
from kernelstream.reference.calibration import SoftmaxCalibrator as Reference


def _three_blobs(rng, n=240):
    centers = np.array([[-1.0, 0.0], [1.0, 0.0], [0.0, 1.2]])
    y = rng.integers(0, 3, n)
    return centers[y] + 0.35 * rng.normal(size=(n, 2)), y


@pytest.mark.slow
def test_sklearn_multiclass_is_one_hot_columns_and_calibrated(rng):
    X, y = _three_blobs(rng)
    labels = np.array(["c", "a", "b"])[y]  # classes_ sorted: a, b, c
    est = SklearnClassifier(ks.TaylorAWV(degree=2), scale=False).fit(X, labels, shuffle=False)
    assert est.classes_.tolist() == ["a", "b", "c"]
    assert est.learner_.n_outputs == 3  # one multi-output learner, a column per class
    codes = np.searchsorted(est.classes_, labels)
    prog, final = [], []
    for k in range(3):
        ref = ks.TaylorAWV(degree=2)
        prog.append(ref.progressive_predict(X, (codes == k).astype(float)))
        final.append(ref.predict_many(X))
    S, F = np.column_stack(prog), np.column_stack(final)
    np.testing.assert_array_equal(est.decision_function(X), F)
    np.testing.assert_array_equal(est.predict(X), est.classes_[F.argmax(axis=1)])
    cal = Reference()
    cal.progressive_proba(S, codes)
    P = est.predict_proba(X)
    np.testing.assert_allclose(P, np.array([cal.predict_proba(f) for f in F]), rtol=1e-11)
    np.testing.assert_allclose(P.sum(axis=1), 1.0, atol=1e-14)
    np.testing.assert_array_equal(est.classes_[P.argmax(axis=1)], est.predict(X))
    assert est.score(X, labels) > 0.9


def _river_run(clf, X, y, labels):
    """Stream the rows; return the probabilities made before each label."""
    probs = []
    for x, k in zip(X, y):
        d = {"u": x[0], "v": x[1]}
        p = clf.predict_proba_one(d)
        if p:
            assert sum(p.values()) == pytest.approx(1.0, abs=1e-14)
            assert max(p, key=p.get) == clf.predict_one(d)
        probs.append(p)
        clf.learn_one(d, labels[k])
    return probs


@pytest.mark.parametrize(
    "make",
    [
        lambda: ks.TaylorAWV(degree=2),
        lambda: ks.AutoKernel(warmup=40, widths=(1.0, 2.0), lams=(0.1,), nystrom_widths=()),
    ],
    ids=["TaylorAWV", "AutoKernel"],
)
def test_river_class_first_seen_mid_stream_has_its_round_one_column(rng, make):
    """Class 2 first seen at round t: its column equals a learner that knew it from
    round 1 (targets 0 before t), on every later prediction."""
    X, y = _three_blobs(rng, 160)
    t = 90
    y[:t] %= 2
    y[t] = 2
    clf = RiverClassifier(make(), scale=False)
    probs = _river_run(clf, X, y, ["x", "y", "z"])
    assert all(len(p) <= 2 for p in probs[: t + 1]) and len(probs[t + 1]) == 3
    assert clf.classes == [["x", "y", "z"][k] for k in (y[0], 1 - y[0], 2)]
    Q = rng.normal(size=(20, 2))
    for j, label in enumerate(clf.classes):
        k = ["x", "y", "z"].index(label)
        ref = make()
        for x, yk in zip(X, y):  # known from round 1: the same rounds, one at a time
            ref.learn_one(x, float(yk == k))
        np.testing.assert_allclose(
            clf._column_predictions(Q)[:, j], ref.predict_many(Q), rtol=1e-10, atol=1e-12
        )
    if not clf._native:  # the learner is the never-seen column
        never = make()
        never.learn_many(X, np.zeros(len(X)))
        np.testing.assert_array_equal(clf.learner.predict_many(Q), never.predict_many(Q))


def test_river_multiclass_probabilities_come_before_the_label(rng):
    """Changing the label of round t changes nothing made before it is learned."""
    X, y = _three_blobs(rng, 120)
    a, b = RiverClassifier(ks.TaylorAWV(degree=2)), RiverClassifier(ks.TaylorAWV(degree=2))
    y2 = y.copy()
    y2[60] = (y[60] + 1) % 3
    pa = _river_run(a, X, y, [0, 1, 2])
    pb = _river_run(b, X, y2, [0, 1, 2])
    assert pa[:61] == pb[:61] and pa[61] != pb[61]


@pytest.mark.slow
def test_sklearn_progressive_predict_proba_is_partial_fit_with_its_probabilities(rng):
    X, y = _three_blobs(rng, 150)
    a = SklearnClassifier(ks.TaylorAWV(degree=2), scale=False)
    P = a.progressive_predict_proba(X[:100], y[:100], classes=[0, 1, 2])
    P2 = a.progressive_predict_proba(X[100:], y[100:])
    b = SklearnClassifier(ks.TaylorAWV(degree=2), scale=False).fit(X, y, shuffle=False)
    np.testing.assert_array_equal(a.predict_proba(X), b.predict_proba(X))
    # row t: the columns' scores before y[t], through the layer before y[t]
    S = ks.TaylorAWV(degree=2).progressive_predict(X, np.eye(3)[y])
    np.testing.assert_allclose(np.vstack([P, P2]), Reference().progressive_proba(S, y), rtol=1e-11)
    with pytest.raises(ks.InputError, match="not the same"):
        a.progressive_predict_proba(X, y, classes=[0, 1])


def test_river_metrics_and_one_vs_rest_take_the_probabilities(rng):
    """river's ROCAUC and LogLoss (which read predict_proba_one) and its
    OneVsRestClassifier run on the adapter."""
    from river import evaluate, metrics, multiclass

    X, y = _three_blobs(rng, 200)
    binary = [({"u": x[0], "v": x[1]}, bool(k == 1)) for x, k in zip(X, y)]
    auc, ll = metrics.ROCAUC(), metrics.LogLoss()
    evaluate.progressive_val_score(binary, RiverClassifier(ks.TaylorAWV(degree=2)), auc + ll)
    assert auc.get() > 0.9 and ll.get() < 0.4
    rows = [({"u": x[0], "v": x[1]}, int(k)) for x, k in zip(X, y)]
    ce, acc = metrics.CrossEntropy(), metrics.Accuracy()
    ovr = multiclass.OneVsRestClassifier(RiverClassifier(ks.TaylorAWV(degree=2)))
    evaluate.progressive_val_score(rows, ovr, ce + acc)
    assert acc.get() > 0.8 and np.isfinite(ce.get())


@pytest.mark.slow
def test_sklearn_two_classes_are_one_signed_learner_as_one_vs_rest_fits_it(rng):
    """Two classes: one learner on -1/+1 targets (``classes_[1]`` is +1), exactly the
    learner scikit-learn's one-vs-rest fits for two classes; the probabilities are the
    calibration of the scores ((1 - f)/2, (1 + f)/2): Platt scaling ``sigmoid(a f)`` and
    the binning stage (the NumPy reference of both)."""
    from sklearn.multiclass import OneVsRestClassifier

    X, y = _three_blobs(rng, 200)
    labels = np.array(["no", "yes"])[(y == 2).astype(int)]
    make = lambda: ks.AutoKernel(warmup=40, widths=(1.0, 2.0), lams=(0.1,), nystrom_widths=())  # noqa: E731
    est = SklearnClassifier(make(), scale=False).fit(X, labels)
    assert est.learner_.n_outputs in (None, 1)  # one score column, not two
    t = np.where(labels == "yes", 1.0, -1.0)
    # (fit streams the rows in the order seeded by the learner's seed, 0)
    o = np.random.default_rng(0).permutation(len(t))
    t = t[o]
    ref = make()
    f_prog = ref.progressive_predict(X[o], t)
    Q = rng.normal(size=(30, 2))
    f = ref.predict_many(Q)
    np.testing.assert_array_equal(est.decision_function(Q), f)
    ovr = OneVsRestClassifier(SklearnClassifier(make(), scale=False)).fit(X, labels)
    np.testing.assert_array_equal(ovr.decision_function(Q), f)
    np.testing.assert_array_equal(est.predict(Q), ovr.predict(Q))
    cal = Reference()
    cal.progressive_proba(
        np.column_stack([(1 - f_prog) / 2, (1 + f_prog) / 2]), (t > 0).astype(int)
    )
    p_yes = np.array([cal.predict_proba([(1 - v) / 2, (1 + v) / 2])[1] for v in f])
    np.testing.assert_allclose(est.predict_proba(Q)[:, 1], p_yes, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(est.predict_proba(Q)[:, 0], 1.0 - p_yes, rtol=1e-12, atol=1e-15)
