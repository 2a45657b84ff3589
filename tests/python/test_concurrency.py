"""A learner shared by threads: ``set_params`` against a learning call either runs
before it, after it, or fails like any other method; a round is never lost and the
object never loses an attribute."""

from __future__ import annotations

import sys
import threading

import kernelstream as ks
import numpy as np
import pytest
from kernelstream.errors import ParameterError

X1 = np.array([0.3, -0.2, 0.5])
X2 = np.array([-0.1, 0.4, 0.2])


def _race(make, trials):
    """``learn_one`` in one thread, ``set_params(lam=2.0)`` in another, started together.
    Returns the outcomes seen; fails on a lost round or an unexpected exception."""
    outcomes = {}
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # switch threads as often as possible
    try:
        for _ in range(trials):
            m = make(1.0)
            barrier = threading.Barrier(2)
            errors = {}

            def learn(m=m, barrier=barrier, errors=errors):
                barrier.wait()
                try:
                    m.learn_one(X1, 0.7)
                except BaseException as exc:  # noqa: BLE001 - recorded and checked below
                    errors["learn"] = exc

            def setp(m=m, barrier=barrier, errors=errors):
                barrier.wait()
                try:
                    m.set_params(lam=2.0)
                except BaseException as exc:  # noqa: BLE001
                    errors["set"] = exc

            threads = [threading.Thread(target=learn), threading.Thread(target=setp)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            for where, err in errors.items():
                # the only acceptable failures: the contract's, never AttributeError
                ok = isinstance(err, RuntimeError) and "borrow" in str(err).lower()
                ok = ok or (where == "set" and isinstance(err, ParameterError))
                assert ok, f"{where}: {type(err).__name__}: {err}"
            learned, changed = "learn" not in errors, "set" not in errors
            # the object is exactly a fresh one with the resulting parameters that learned
            # the round iff learn_one succeeded: no lost round, params and core agree
            lam = 2.0 if changed else 1.0
            assert m.get_params()["lam"] == lam
            assert m.n_seen == int(learned)
            ref = make(lam)
            if learned:
                ref.learn_one(X1, 0.7)
            assert m.predict_one(X2) == ref.predict_one(X2)
            key = (learned, changed)
            outcomes[key] = outcomes.get(key, 0) + 1
    finally:
        sys.setswitchinterval(old)
    return outcomes


@pytest.mark.slow
@pytest.mark.parametrize(
    "make",
    [
        lambda lam: ks.TaylorAWV(sigma=1.0, degree=2, lam=lam),
        lambda lam: ks.RFFAWV(ks.kernels.Gaussian(1.0), n_features=20, lam=lam, seed=1),
    ],
    ids=["TaylorAWV", "RFFAWV"],
)
def test_set_params_racing_learn_one_never_loses_a_round(make):
    outcomes = _race(make, 400)
    assert sum(outcomes.values()) == 400


def test_set_params_after_learning_is_refused_under_the_borrow():
    m = ks.TaylorAWV(sigma=1.0, degree=2)
    m.learn_one(X1, 0.7)
    core = m._core
    with pytest.raises(ParameterError, match="seen 1 round"):
        m.set_params(lam=2.0)
    # the core refuses it itself too (the check and the swap are one step)
    with pytest.raises(ParameterError, match="seen 1 round"):
        core._adopt(ks.TaylorAWV(sigma=1.0, degree=2, lam=2.0)._core)
    assert m._core is core and m.get_params()["lam"] == 1.0 and m.n_seen == 1


def test_set_params_keeps_the_core_object_and_python_attributes():
    m = ks.FOGD(ks.kernels.Gaussian(1.0), loss="squared")
    core = m._core
    m.set_params(loss="hinge")
    assert m._core is core and m.task == "classification"
    assert m.get_params()["loss"] == "hinge"
    r = ks.aggregation.EWA(n_experts=2, eta=1.0)
    r.set_params(eta=2.0)
    assert r.get_params()["eta"] == 2.0
    k = ks.samplers.KORS(ks.kernels.Gaussian(1.0), mu=1.0)
    k.set_params(mu=2.0)
    assert k.get_params()["mu"] == 2.0


def test_a_forecaster_shared_by_threads_loses_no_round():
    """Two threads feed one Forecaster the same value, with thread switches as often as
    possible: every round lands (each ``learn_one`` holds the forecaster), so it equals
    one fed all the values in turn (the order of equal values does not matter)."""
    from test_adapter_inputs import _hammer

    make = lambda: ks.Forecaster(horizon=2, lags=2, learner=ks.TaylorAWV(degree=2))  # noqa: E731
    shared, alone = make(), make()
    for v in np.sin(np.arange(60) / 3):
        shared.learn_one(v)
        alone.learn_one(v)

    def step(rng):
        shared.learn_one(0.5)
        shared.forecast_interval()

    assert not _hammer(step, threads=2, per=40)
    for _ in range(80):
        alone.learn_one(0.5)
    assert shared.n_seen == alone.n_seen == 140
    np.testing.assert_array_equal(shared.forecast(), alone.forecast())
    np.testing.assert_array_equal(shared.forecast_interval(), alone.forecast_interval())
