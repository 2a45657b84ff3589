"""The learner protocol of the API contract, checked on every learner of the zoo
(test ids read ``check[Learner]``)."""

from __future__ import annotations

import copy
import pickle

import kernelstream as ks
import numpy as np
import pytest
from zoo import ZOO

NAMES = sorted(ZOO)


def assert_same_params(a: dict, b: dict) -> None:
    """Equal parameters: arrays element-wise, everything else by its own ``==`` (a
    Mixture's experts compare by class and parameters)."""
    assert a.keys() == b.keys()
    for k in a:
        if isinstance(a[k], np.ndarray) or isinstance(b[k], np.ndarray):
            np.testing.assert_array_equal(a[k], b[k], err_msg=k)
        elif isinstance(a[k], ks.learners.base.Learner):  # Conformal's learner: by value
            assert type(a[k]) is type(b[k]), k
            assert_same_params(a[k].get_params(), b[k].get_params())
        else:
            assert a[k] == b[k], k


def stream(entry, n, seed=0):
    rng = np.random.default_rng(seed)
    lo, hi = entry.domain
    X = rng.uniform(lo, hi, size=(n, entry.d))
    if entry.task == "classification":
        y = np.where(np.sin(3 * X[:, 0]) + 0.3 * rng.standard_normal(n) >= 0, 1.0, -1.0)
    else:
        y = np.sin(3 * X[:, 0]) * np.cos(X[:, -1]) + 0.1 * rng.standard_normal(n)
    return X, y


def assert_same_predictions(a, b, X):
    np.testing.assert_array_equal(a.predict_many(X), b.predict_many(X))


@pytest.mark.parametrize("name", NAMES)
def test_progressive_equals_python_loop(name):
    e = ZOO[name]
    X, y = stream(e, 120)
    fast = e.factory()
    slow = e.factory()
    p_fast = fast.progressive_predict(X, y)
    p_slow = []
    for x, yt in zip(X, y):
        p_slow.append(slow.predict_one(x))
        slow.learn_one(x, yt)
    np.testing.assert_allclose(p_fast, p_slow, rtol=0, atol=1e-12)
    assert fast.n_seen == slow.n_seen == len(X)
    assert fast.dim == slow.dim


@pytest.mark.parametrize("name", NAMES)
def test_learn_many_equals_loop_of_learn_one(name):
    e = ZOO[name]
    X, y = stream(e, 100, seed=1)
    Xq, _ = stream(e, 20, seed=2)
    a, b = e.factory(), e.factory()
    a.learn_many(X, y)
    for x, yt in zip(X, y):
        b.learn_one(x, yt)
    # Learners that run blocks of rounds (block_size) agree with single rounds up to
    # rounding (as in test_progressive_equals_python_loop); the others bit for bit.
    np.testing.assert_allclose(a.predict_many(Xq), b.predict_many(Xq), rtol=0, atol=1e-12)
    assert a.n_seen == b.n_seen == 100


@pytest.mark.parametrize("name", NAMES)
def test_predict_is_pure(name):
    e = ZOO[name]
    X, y = stream(e, 60, seed=3)
    a = e.factory()
    a.learn_many(X[:40], y[:40])
    before = a.predict_many(X[40:])
    for x in X[40:]:
        a.predict_one(x)
    a.predict_many(X)
    np.testing.assert_array_equal(before, a.predict_many(X[40:]))
    assert a.n_seen == 40
    np.testing.assert_array_equal(before, [a.predict_one(x) for x in X[40:]])


@pytest.mark.parametrize("name", NAMES)
def test_pickle_mid_stream_then_continue(name):
    e = ZOO[name]
    X, y = stream(e, 150, seed=4)
    whole = e.factory()
    p_whole = whole.progressive_predict(X, y)
    part = e.factory()
    p1 = part.progressive_predict(X[:70], y[:70])
    part = pickle.loads(pickle.dumps(part))
    p2 = part.progressive_predict(X[70:], y[70:])
    np.testing.assert_array_equal(p_whole, np.r_[p1, p2])
    assert part.n_seen == 150
    assert_same_params(part.get_params(), whole.get_params())


@pytest.mark.parametrize("name", NAMES)
def test_pickle_carries_format_version(name):
    e = ZOO[name]
    a = e.factory()
    state = a.__getstate__()
    assert state["format_version"] >= 1
    bad = dict(state, format_version=999)
    b = e.factory()
    with pytest.raises(ks.InputError):
        b.__setstate__(bad)


@pytest.mark.parametrize("name", NAMES)
def test_copy_is_independent(name):
    e = ZOO[name]
    X, y = stream(e, 80, seed=5)
    a = e.factory()
    a.learn_many(X[:40], y[:40])
    b = copy.copy(a)
    b.learn_many(X[40:], y[40:])
    c = e.factory()
    c.learn_many(X[:40], y[:40])
    assert_same_predictions(a, c, X[40:])
    assert b.n_seen == 80 and a.n_seen == 40


@pytest.mark.parametrize("name", NAMES)
def test_get_params_rebuilds_identical_learner(name):
    e = ZOO[name]
    X, y = stream(e, 60, seed=6)
    a = e.factory()
    b = type(a)(**a.get_params())
    np.testing.assert_array_equal(a.progressive_predict(X, y), b.progressive_predict(X, y))


@pytest.mark.parametrize("name", NAMES)
def test_same_seed_same_run(name):
    e = ZOO[name]
    X, y = stream(e, 100, seed=7)
    runs = [e.factory().progressive_predict(X, y) for _ in range(2)]
    np.testing.assert_array_equal(runs[0], runs[1])


def _bad_inputs(e):
    d = e.d
    good = np.full(d, 0.5 * (e.domain[0] + e.domain[1]))
    y_ok = 1.0
    nan_x = good.copy()
    nan_x[0] = np.nan
    inf_x = good.copy()
    inf_x[-1] = np.inf
    return [
        ("nan in x", lambda l: l.learn_one(nan_x, y_ok)),
        ("inf in x", lambda l: l.learn_one(inf_x, y_ok)),
        ("nan y", lambda l: l.learn_one(good, float("nan"))),
        ("inf y", lambda l: l.learn_one(good, float("inf"))),
        # (narrower rows: a wider one widens the learners for which the zero-extension
        # is exact, test_rows_that_grow.py; OnlineProjection, on one input, refuses it)
        ("wrong length", lambda l: l.learn_one(good[:-1] if d > 1 else np.r_[good, good], y_ok)),
        (
            "wrong length predict",
            lambda l: l.predict_one(good[:-1] if d > 1 else np.r_[good, good]),
        ),
        ("wrong width batch", lambda l: l.learn_many(np.zeros((2, d - 1 or 2)), np.ones(2))),
        ("0-d x", lambda l: l.learn_one(np.float64(0.3), y_ok)),
        ("2-d x", lambda l: l.learn_one(good[None, :], y_ok)),
        ("3-d X", lambda l: l.learn_many(np.zeros((2, 2, d)), np.ones(2))),
        ("1-d X", lambda l: l.learn_many(good, np.ones(d))),
        ("empty X", lambda l: l.learn_many(np.zeros((0, d)), np.zeros(0))),
        ("empty x", lambda l: l.predict_one(np.zeros(0))),
        ("string x", lambda l: l.learn_one("abc", y_ok)),
        ("string entries", lambda l: l.learn_many([["a"] * d], [1.0])),
        ("string y", lambda l: l.learn_one(good, "1.0")),
        ("y length", lambda l: l.learn_many(np.tile(good, (3, 1)), np.ones(2))),
        ("nan in X batch", lambda l: l.learn_many(np.vstack([good, nan_x]), np.ones(2))),
        (
            "nan in progressive",
            lambda l: l.progressive_predict(np.vstack([good, nan_x]), np.ones(2)),
        ),
        (
            "nan in y batch",
            lambda l: l.progressive_predict(np.vstack([good, good]), np.array([1.0, np.nan])),
        ),
    ]


@pytest.mark.parametrize("name", NAMES)
def test_bad_input_raises_and_leaves_learner_untouched(name):
    e = ZOO[name]
    X, y = stream(e, 50, seed=8)
    Xq, _ = stream(e, 10, seed=9)
    for label, call in _bad_inputs(e):
        if not label.startswith("wrong"):  # a wrong length is only wrong once d is fixed
            fresh = e.factory()
            with pytest.raises(ks.InputError) as info:
                call(fresh)
            assert str(info.value), label
            assert fresh.n_seen == 0 and fresh.input_dim is None, label
        learned = e.factory()
        learned.learn_many(X, y)
        ref = e.factory()
        ref.learn_many(X, y)
        with pytest.raises(ks.InputError):
            call(learned)
        assert learned.n_seen == 50, label
        assert learned.dim == ref.dim, label
        assert_same_predictions(learned, ref, Xq)
        # and it keeps learning exactly like the untouched copy
        np.testing.assert_array_equal(
            learned.progressive_predict(Xq, y[:10]), ref.progressive_predict(Xq, y[:10])
        )


@pytest.mark.parametrize("name", NAMES)
def test_inputerror_is_a_valueerror(name):
    e = ZOO[name]
    with pytest.raises(ValueError):
        e.factory().learn_one(np.full(e.d, np.nan), 0.0)


@pytest.mark.parametrize("name", [n for n in NAMES if ZOO[n].task == "classification"])
def test_classification_rejects_labels_other_than_pm1(name):
    e = ZOO[name]
    X, y = stream(e, 20, seed=10)
    a = e.factory()
    a.learn_many(X, y)
    for bad in (0.0, 2.0, 0.5):
        with pytest.raises(ks.InputError):
            a.learn_one(X[0], bad)
    assert a.n_seen == 20


STD_NAMES = [n for n in NAMES if getattr(ZOO[n].factory(), "has_predictive_std", False)]


@pytest.mark.parametrize("name", STD_NAMES)
def test_progressive_std_equals_python_loop(name):
    """Predictive stds: the whole-stream call equals a loop of predict_one(return_std)
    and learn_one, predict_std is pure, and a pickle mid-stream carries the noise level."""
    e = ZOO[name]
    X, y = stream(e, 120, seed=11)
    fast, slow = e.factory(), e.factory()
    p_fast, s_fast, n_fast = fast.progressive_predict_std(X, y, return_noise=True)
    p_slow, s_slow, n_slow = [], [], []
    for x, yt in zip(X, y):
        p, s = slow.predict_one(x, return_std=True)
        # the mean of predict_std is the prediction (up to rounding: a mixture may
        # share work between experts in predict_one, in another order)
        assert p == pytest.approx(slow.predict_one(x), rel=1e-12, abs=1e-12)
        p_slow.append(p)
        s_slow.append(s)
        n_slow.append(slow.noise_std)
        slow.learn_one(x, yt)
    np.testing.assert_allclose(n_fast, n_slow, rtol=1e-12, atol=0)
    # the std is at least the noise level (1 + phi^T A^-1 phi >= 1; a mixture adds spread)
    assert np.all(s_fast[-50:] >= n_fast[-50:] * (1 - 1e-12))
    np.testing.assert_allclose(p_fast, p_slow, rtol=0, atol=1e-12)
    np.testing.assert_allclose(s_fast, s_slow, rtol=1e-12, atol=0)
    # single rounds here; progressive_predict may run blocks (equal up to rounding)
    np.testing.assert_allclose(p_fast, e.factory().progressive_predict(X, y), rtol=0, atol=1e-12)
    assert np.all(np.isfinite(s_fast[-50:]) & (s_fast[-50:] > 0))
    Xq, _ = stream(e, 10, seed=12)
    means, stds = slow.predict_many_std(Xq)
    np.testing.assert_array_equal(stds, slow.predict_std(Xq))
    np.testing.assert_allclose(means, slow.predict_many(Xq), rtol=1e-12, atol=1e-12)
    again = pickle.loads(pickle.dumps(slow))
    np.testing.assert_array_equal(again.predict_std(Xq), stds)
    assert slow.n_seen == 120


NO_STD = [n for n in NAMES if n not in STD_NAMES and hasattr(ZOO[n].factory(), "predict_std")]


@pytest.mark.parametrize("name", NO_STD)
def test_no_std_is_a_parameter_error_and_changes_nothing(name):
    e = ZOO[name]
    X, y = stream(e, 20, seed=13)
    a = e.factory()
    with pytest.raises(ks.ParameterError):
        a.predict_std(X)
    with pytest.raises(ks.ParameterError):
        a.progressive_predict_std(X, y)
    assert a.n_seen == 0 and a.noise_std is None


# -- multi-output (the AWV family: docs/choices.md, "Multi-output AWV") ---------------
def multi_stream(entry, n, k=3, seed=0):
    X, y = stream(entry, n, seed)
    return X, np.column_stack([y] + [np.cos((j + 1) * X[:, 0]) for j in range(k - 1)])


def _learns_outputs(name) -> bool:
    """A multi-output class whose configuration takes several outputs (a mixture
    with an expert outside the AWV family refuses them)."""
    m = ZOO[name].factory()
    if not isinstance(m, ks.learners.MultiOutput):
        return False
    try:
        m.learn_many(*multi_stream(ZOO[name], 2))
    except ks.InputError as e:
        assert "one output" in str(e)
        return False
    return True


MULTI = [n for n in NAMES if _learns_outputs(n)]


def test_the_awv_family_is_multi_output():
    assert {"TaylorAWV", "RFFAWV", "NystromAWV", "KernelAWV", "Mixture-vaw-threads"} <= set(MULTI)


@pytest.mark.parametrize("name", MULTI)
def test_multi_output_progressive_equals_python_loop(name):
    e = ZOO[name]
    X, Y = multi_stream(e, 80)
    fast, slow = e.factory(), e.factory()
    p_fast = fast.progressive_predict(X, Y)
    p_slow = [np.zeros(3)]
    slow.learn_one(X[0], Y[0])
    for x, yt in zip(X[1:], Y[1:]):
        p_slow.append(slow.predict_one(x))
        slow.learn_one(x, yt)
    assert p_fast.shape == (80, 3) and fast.n_outputs == slow.n_outputs == 3
    np.testing.assert_allclose(p_fast[1:], np.array(p_slow)[1:], rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(fast.predict_many(X[:5]), slow.predict_many(X[:5]), rtol=1e-10)


@pytest.mark.parametrize("name", MULTI)
def test_multi_output_learn_many_equals_loop_and_pickles(name):
    e = ZOO[name]
    X, Y = multi_stream(e, 60)
    a, b = e.factory(), e.factory()
    a.learn_many(X[:30], Y[:30])
    for x, yt in zip(X[:30], Y[:30]):
        b.learn_one(x, yt)
    np.testing.assert_allclose(a.predict_many(X), b.predict_many(X), rtol=1e-10, atol=1e-12)
    c = pickle.loads(pickle.dumps(a))
    assert c.n_outputs == 3
    np.testing.assert_array_equal(
        a.progressive_predict(X[30:], Y[30:]), c.progressive_predict(X[30:], Y[30:])
    )


@pytest.mark.parametrize("name", MULTI)
def test_multi_output_bad_targets_leave_learner_untouched(name):
    e = ZOO[name]
    X, Y = multi_stream(e, 20)
    m = e.factory()
    m.learn_many(X[:10], Y[:10])
    before = pickle.dumps(m)
    for call in (
        lambda: m.learn_one(X[10], Y[10, :2]),
        lambda: m.learn_one(X[10], 0.5),
        lambda: m.learn_many(X[10:], Y[10:, :2]),
        lambda: m.progressive_predict(X[10:], np.full((10, 3), np.nan)),
        lambda: m.progressive_predict(X[10:], Y[10:, 0]),
    ):
        with pytest.raises(ks.InputError):
            call()
        assert pickle.dumps(m) == before
