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
    """The core state's bytes; a wrapper without a core (Conformal): its own state with
    its wrapped learner's bytes in place of the learner."""
    core = getattr(learner, "_core", None)
    if core is not None:
        return bytes(core._state_bytes())
    st = learner.__getstate__()
    inner = state(st.pop("learner"))
    st.pop("prototype")
    st["scores"] = [float(v) for v in st["scores"]]  # np.float64 and float alike
    return repr(sorted(st.items())).encode() + inner


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


@pytest.mark.parametrize("name", NAMES)
def test_one_call_path_equals_the_general_path(name):
    """A float64 row and a float go to the core in one call (``_serve_predict``,
    ``_serve_learn``); a list, a masked array and a 0-d target take the general path.
    Both give the same predictions and states bit for bit, and the one-call path
    refuses what the general path refuses, leaving the learner as it was."""
    e = ZOO[name]
    X, y = stream(e, 60, seed=12)
    fast, general = e.factory(), e.factory()
    for i, (x, yt) in enumerate(zip(X, y)):
        row, label = [
            ([float(v) for v in x], float(yt)),
            (np.ma.masked_array(x), yt),
            (x, np.array(yt)),
        ][i % 3]
        assert fast.predict_one(x) == general.predict_one(row)
        fast.learn_one(x, yt)
        general.learn_one(row, label)
    assert state(fast) == state(general)
    if getattr(fast, "_core", None) is None:
        return
    before, core = state(fast), fast._core
    # which path is which: the one-call entry points decline all but the common case
    assert fast._scale_rows == ()  # the scale check is done: learn_one calls the core once
    assert core._serve_predict(X[0]) == fast.predict_one(X[0])
    assert core._serve_predict(X[0].tolist()) is None
    assert core._serve_predict(np.ma.masked_array(X[0])) is None
    assert core._serve_predict(X[0].astype(np.float32)) is None
    assert core._serve_predict(X[0][:0]) is None
    assert core._serve_predict(X[0].astype(">f8")) is None  # another byte order: converted
    strided = np.repeat(X[:1], 2, axis=0).T[:, 0]  # a column view: read as it is
    assert core._serve_predict(strided) == core._serve_predict(X[0][::-1][::-1].copy())
    assert core._serve_learn(X[0], 1) is False
    assert core._serve_learn(X[0], np.array(0.5)) is False
    assert core._serve_learn(X[0].tolist(), 0.5) is False
    assert state(fast) == before
    for bad_x, bad_y in ((X[0][:-1], 0.5), (X[0], float("nan")), (X[0] * np.inf, 0.5)):
        with pytest.raises(ValueError):
            fast.learn_one(bad_x, bad_y)
        assert state(fast) == before
    with pytest.raises(ValueError):
        fast.predict_one(X[0][:-1])
    assert state(fast) == before


@pytest.mark.parametrize("scale", [False, True])
def test_sklearn_one_row_path_equals_the_general_path(scale):
    """Once fitted, float64 arrays of the fitted width skip scikit-learn's conversions and
    one row goes through the standardizer's one-row methods; lists take the general path
    (``validate_data``, block standardizing). The same predictions and states bit for bit;
    an estimator fitted on named columns still warns on unnamed rows (the general path)."""
    pytest.importorskip("sklearn")
    import kernelstream as ks
    from kernelstream.adapters import SklearnRegressor

    X, y = stream(ZOO["TaylorAWV"], 60, seed=13)
    y = y * 30.0 + 5.0
    fast = SklearnRegressor(ks.TaylorAWV(degree=3), scale=scale).partial_fit(X[:1], y[:1])
    general = SklearnRegressor(ks.TaylorAWV(degree=3), scale=scale).partial_fit(X[:1], y[:1])
    assert fast._plain_rows(X[1:2]) and not fast._plain_rows(X[1:2, :-1])
    for i in range(1, len(X)):
        rows, targets = X[i : i + 1], y[i : i + 1]
        np.testing.assert_array_equal(fast.predict(rows), general.predict(rows.tolist()))
        fast.partial_fit(rows, targets)
        general.partial_fit(rows.tolist(), targets.tolist())
    assert state(fast.learner_) == state(general.learner_)
    if scale:
        for a, b in (
            (fast.scaler_, general.scaler_),
            (fast.target_scaler_, general.target_scaler_),
        ):
            np.testing.assert_array_equal(a.mean, b.mean)
            np.testing.assert_array_equal(a.m2, b.m2)
    with pytest.raises(ValueError):
        fast.partial_fit(X[:1, :-1], y[:1])
    with pytest.raises(ValueError):
        fast.predict(np.full_like(X[:1], np.nan))
    pd = pytest.importorskip("pandas")
    named = SklearnRegressor(ks.TaylorAWV(degree=3), scale=scale)
    named.partial_fit(pd.DataFrame(X[:5], columns=[f"c{j}" for j in range(X.shape[1])]), y[:5])
    assert not named._plain_rows(X[5:6])
    with pytest.warns(UserWarning, match="feature names"):
        named.predict(X[5:6])


def _calibrator_state(model, attr):
    return bytes(getattr(model, attr)._core._state_bytes())


def _classifier_learner(kind):
    import kernelstream as ks

    if kind == "native":  # the K class columns in one multi-output learner
        return ks.TaylorAWV(degree=2)
    return ks.FOGD(ks.kernels.Gaussian(1.0), n_features=20, seed=0)  # one learner a class


@pytest.mark.parametrize("kind, scale", [("native", False), ("native", True), ("columns", False)])
def test_river_classifier_serving_loop_equals_learn_loop(kind, scale):
    """``predict_proba_one`` / ``predict_one`` then ``learn_one`` (the learn takes the
    scores the prediction made) gives, bit for bit, the probabilities and states of a
    model that only learns (its predictions made on copies): classes first seen
    mid-stream, rows with their keys in another order, a prediction of another row
    between a row's prediction and its label, a label with no prediction."""
    pytest.importorskip("river")
    from kernelstream.adapters import RiverClassifier

    X, y = stream(ZOO["TaylorAWV"], 90, seed=14)
    labels = np.digitize(y, np.quantile(y, [0.3, 0.6]))
    labels[:20] = np.minimum(labels[:20], 1)  # the third class first seen at round 20
    ref = RiverClassifier(_classifier_learner(kind), scale=scale)
    srv = RiverClassifier(_classifier_learner(kind), scale=scale)
    for i, (x, label) in enumerate(zip(X, labels)):
        row = {f"x{j}": float(v) for j, v in enumerate(x)}
        if i % 4 == 1:
            row = dict(reversed(row.items()))
        other = {f"x{j}": float(v) for j, v in enumerate(X[(5 * i + 2) % len(X)])}
        step = i % 5
        if step == 1:  # another row's prediction in between
            assert srv.predict_proba_one(row) == copy.deepcopy(ref).predict_proba_one(row)
            assert srv.predict_one(other) == copy.deepcopy(ref).predict_one(other)
        elif step == 2:
            assert srv.predict_one(row) == copy.deepcopy(ref).predict_one(row)
        elif step != 3:  # (3: a label without a prediction)
            assert srv.predict_proba_one(row) == copy.deepcopy(ref).predict_proba_one(row)
        ref.learn_one(row, int(label))
        srv.learn_one(row, int(label))
    assert srv.classes == ref.classes and sorted(ref.classes) == [0, 1, 2]
    assert state(srv.learner) == state(ref.learner)
    assert [state(c) for c in srv.columns] == [state(c) for c in ref.columns]
    assert _calibrator_state(srv, "calibrator") == _calibrator_state(ref, "calibrator")
    # the learn after a prediction of its row predicts nothing
    row = {f"x{j}": float(v) for j, v in enumerate(X[0])}
    srv.predict_proba_one(row)
    kept = srv._scored
    srv._native_scores = None  # (not called)
    srv.columns = [c for c in srv.columns]  # a new list, the same learners
    assert srv._scores(srv._input(row)) is kept[1]
    del srv._native_scores
    # the kept scores are no part of the model's state
    assert "_scored" not in srv.__getstate__()
    with pytest.raises(ValueError):  # a refused row changes nothing, kept scores included
        srv.learn_one({"x0": float("nan")}, 1)
    assert state(srv.learner) == state(ref.learner)
    assert _calibrator_state(srv, "calibrator") == _calibrator_state(ref, "calibrator")


@pytest.mark.parametrize("n_classes", [2, 3])
def test_sklearn_classifier_one_row_path_equals_the_general_path(n_classes):
    """``predict`` then ``partial_fit`` of the same row (the learner and the calibrator
    learn in place, no copies) gives the probabilities and states of the general path
    (lists: ``validate_data``, copies committed after success) bit for bit; a label
    that is no class is refused by both, leaving the estimator as it was."""
    pytest.importorskip("sklearn")
    import kernelstream as ks
    from kernelstream.adapters import SklearnClassifier

    X, y = stream(ZOO["TaylorAWV"], 70, seed=15)
    labels = np.digitize(y, np.quantile(y, np.linspace(0, 1, n_classes + 1)[1:-1]))
    fast = SklearnClassifier(ks.TaylorAWV(degree=3), scale=False)
    general = SklearnClassifier(ks.TaylorAWV(degree=3), scale=False)
    for m in (fast, general):
        m.partial_fit(X[:5], labels[:5], classes=list(range(n_classes)))
    for i in range(5, len(X)):
        rows, targets = X[i : i + 1], labels[i : i + 1]
        if i % 3:  # (otherwise a label without a prediction)
            np.testing.assert_array_equal(fast.predict(rows), general.predict(rows.tolist()))
        if i % 5 == 0:  # a prediction of another row in between
            fast.predict_proba(X[:1])
        learner = fast.learner_
        fast.partial_fit(rows, targets)
        general.partial_fit(rows.tolist(), targets.tolist())
        # in place right after the row's own prediction, otherwise on copies
        assert (fast.learner_ is learner) == bool(i % 3 and i % 5)
        np.testing.assert_array_equal(fast.predict_proba(rows), general.predict_proba(rows))
    assert state(fast.learner_) == state(general.learner_)
    assert _calibrator_state(fast, "calibrator_") == _calibrator_state(general, "calibrator_")
    before = state(fast.learner_)
    fast.predict(X[:1])
    with pytest.raises(ValueError, match="not one of the classes"):
        fast.partial_fit(X[:1], np.array([n_classes + 4]))
    assert state(fast.learner_) == before
    assert _calibrator_state(fast, "calibrator_") == _calibrator_state(general, "calibrator_")


MULTI = [n for n in NAMES if getattr(ZOO[n].factory(), "add_outputs", None) is not None]


@pytest.mark.parametrize("name", MULTI)
def test_one_call_path_of_several_outputs_equals_the_general_path(name):
    """A multi-output learner's ``learn_one(x, y)`` with ``y`` a float64 array of ``K``
    targets goes to the core in one call (``_serve_learn``); a list takes the general
    path. The same predictions and states bit for bit; a ``y`` of another length is
    refused by both, the learner unchanged."""
    e = ZOO[name]
    X, y = stream(e, 50, seed=16)
    Y = np.column_stack([y, -0.5 * y, np.cos(y)])
    fast, general = e.factory(), e.factory()
    weighted = _weights_ok(e.factory(), X[0], Y[0])
    for i, (x, t) in enumerate(zip(X, Y)):
        np.testing.assert_array_equal(fast.predict_one(x), general.predict_one(x))
        w = 2.0 if weighted and i % 4 == 3 else 1.0
        fast.learn_one(x, t, w)
        general.learn_one(x, t.tolist(), w)
    assert state(fast) == state(general)
    core = fast._core
    assert core._serve_learn(X[0], Y[0].tolist()) is False
    assert core._serve_learn(X[0], Y[0][:0]) is False
    assert state(fast) == state(general)
    for bad in (Y[0][:2], np.array([np.nan, 0.0, 0.0])):
        with pytest.raises(ValueError):
            fast.learn_one(X[0], bad)
        assert state(fast) == state(general)
    assert core._serve_learn(X[0], Y[0]) is True


def _weights_ok(learner, x, t) -> bool:
    """Whether ``learner`` learns a weight of 2 with several outputs."""
    try:
        learner.learn_one(x, t, 2.0)
    except ValueError:
        return False
    return True


@pytest.mark.parametrize("name", MULTI)
def test_kept_predictions_of_several_outputs_equal_pure_rounds(name):
    """``predict_one`` of a multi-output learner with ``K > 1`` keeps its work for the
    following ``learn_one`` of the same row (AutoKernel and its mixture included: a
    served classifier's round predicts once): its predictions and states are, bit for
    bit, those of pure predictions (on copies) followed by full rounds, with a pickle
    round trip, a copy or another row's prediction between a prediction and its label."""
    e = ZOO[name]
    X, y = stream(e, 70, seed=17)
    Y = np.column_stack([y, -0.5 * y, np.cos(y)])
    ref, srv = e.factory(), e.factory()
    for i, (x, t) in enumerate(zip(X, Y)):
        other = X[(7 * i + 3) % len(X)]
        step = i % 5
        if step == 1:  # another row's prediction: nothing kept may serve x
            np.testing.assert_array_equal(pure_prediction(ref, other), srv.predict_one(other))
        elif step == 2:
            np.testing.assert_array_equal(pure_prediction(ref, x), srv.predict_one(x))
            srv = pickle.loads(pickle.dumps(srv))
        elif step == 3:
            np.testing.assert_array_equal(pure_prediction(ref, x), srv.predict_one(x))
            srv = copy.copy(srv)
        elif step != 4:  # (4: a label without a prediction)
            np.testing.assert_array_equal(pure_prediction(ref, x), srv.predict_one(x))
        ref.learn_one(x, t)
        srv.learn_one(x, t)
    assert state(ref) == state(srv)


def test_autokernel_served_outputs_equal_progressive_predict():
    """AutoKernel with ``K = 3`` outputs (a classifier's one-hot columns): the served
    loop (``predict_one`` keeping its work, then ``learn_one``) against
    ``progressive_predict``, whose dictionary experts run blocks of rounds. The two
    compute the same rounds in another order of operations: the predictions agree to
    rounding, amplified by the conditioning of the experts' ridge-regularised matrices
    (``A = lambda I + K^T K``, its smallest eigenvalue at least ``lambda``), well within
    1e-9 of the targets' unit scale on this stream."""
    import kernelstream as ks

    X, y = stream(ZOO["TaylorAWV"], 400, seed=18)
    codes = np.digitize(y, np.quantile(y, [1 / 3, 2 / 3]))
    Y = np.where(codes[:, None] == np.arange(3)[None, :], 1.0, 0.0)
    batch, served = ks.AutoKernel(warmup=60, threads=1), ks.AutoKernel(warmup=60, threads=1)
    expected = batch.progressive_predict(X, Y)
    got = np.zeros_like(expected)
    for i, (x, t) in enumerate(zip(X, Y)):
        if i:  # (before the first round K is unknown: one value)
            got[i] = served.predict_one(x)
        served.learn_one(x, t)
    np.testing.assert_allclose(got[1:], expected[1:], rtol=0, atol=1e-9)
    np.testing.assert_allclose(served.predict_many(X[:50]), batch.predict_many(X[:50]), atol=1e-9)


def test_autokernel_kept_outputs_with_a_successor_equal_pure_rounds():
    """A change of the stream starts a successor (``crate::mixture::restart``): with
    ``K = 3`` outputs the kept predictions combine the learner's and the successor's
    kept work; bit for bit the pure predictions, and the same state after a pickle."""
    import kernelstream as ks

    rng = np.random.default_rng(0)
    n = 1500
    X = rng.uniform(-1, 1, (n, 3))
    late = 4 * np.cos(5 * X[:, 1]) + 3
    y = np.where(np.arange(n) < 700, np.sin(3 * X[:, 0]), late) + 0.05 * rng.standard_normal(n)
    Y = np.column_stack([y, -y, y**2])
    ref, srv = ks.AutoKernel(warmup=40, threads=1), ks.AutoKernel(warmup=40, threads=1)
    for i, (x, t) in enumerate(zip(X, Y)):
        if i:
            np.testing.assert_array_equal(pure_prediction(ref, x), srv.predict_one(x))
        if i == 1000:
            srv = pickle.loads(pickle.dumps(srv))
        ref.learn_one(x, t)
        srv.learn_one(x, t)
    assert ref.restart_events["changes"] >= 1 and ref.restart_events["successor"]
    assert state(ref) == state(srv)
