"""The learner protocol of the API contract on every learner of the zoo: the public
battery (``kernelstream.checks``: purity, batch calls against the round loop, copies,
pickles and model files mid-stream, refusals, ``get_params``, block sizes, seeds) on
the zoo's other configurations (test ids read ``check[entry]``; each registered
learner's example runs it in test_registry.py), then what only some learners have
(predictive stds, several outputs)."""

from __future__ import annotations

import pickle

import kernelstream as ks
import numpy as np
import pytest
from kernelstream.checks import CHECKS, yield_checks
from kernelstream.checks._tools import same_params
from zoo import VARIANTS, ZOO

NAMES = sorted(ZOO)


def assert_same_params(a: dict, b: dict) -> None:
    """Equal parameters (the battery's comparison: arrays element-wise, learners by
    class and parameters)."""
    same_params(a, b)


def stream(entry, n, seed=0):
    rng = np.random.default_rng(seed)
    lo, hi = entry.domain
    X = rng.uniform(lo, hi, size=(n, entry.d))
    if entry.task == "classification":
        y = np.where(np.sin(3 * X[:, 0]) + 0.3 * rng.standard_normal(n) >= 0, 1.0, -1.0)
    else:
        y = np.sin(3 * X[:, 0]) * np.cos(X[:, -1]) + 0.1 * rng.standard_normal(n)
    return X, y


def _checks(name):
    # 60 rows (past AutoKernel's and Conformal's warm-ups); batch calls within 1e-12 of
    # the round loop, tighter than the documented 1e-10 (no block runs at these sizes)
    return list(yield_checks(ZOO[name].factory(), *stream(ZOO[name], 60), rtol=1e-12))


BATTERY = [(name, check) for name in sorted(VARIANTS) for check in _checks(name)]


@pytest.mark.parametrize(
    "check", [c for _, c in BATTERY], ids=[f"{c.name}[{n}]" for n, c in BATTERY]
)
def test_protocol(check):
    check()


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_the_whole_battery_applies(name):
    # nothing is skipped but what cannot apply: the label check on regressors, the
    # block-size check on learners without block_size
    ran = {c.name for n, c in BATTERY if n == name}
    assert ran == applicable(ZOO[name]), set(CHECKS) - ran


def applicable(entry) -> set:
    """The checks a zoo entry must run: all but the label check on regressors and the
    block-size check on learners without ``block_size``."""
    out = set(CHECKS)
    if entry.task != "classification":
        out.discard("check_classifier_refuses_other_labels")
    if "block_size" not in entry.factory().get_params():
        out.discard("check_block_size_independence")
    return out


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
