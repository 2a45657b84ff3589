"""A pickle stores each constructor parameter once (envelope format 2, ``_pickled.py``):
in the core state when the state holds it as it was given, else in the envelope's
``params``. Before, ``params`` held every parameter beside the state's own copy.

For every zoo entry: ``get_params()`` after a round trip is ``get_params()`` before,
type for type, and the predictions are the same bits; the blob itself (read without
running the loader) holds no parameter the state gives back; for the learners whose
core reports its parameters, the envelope keeps only the settings the state does not
hold. Format 1 envelopes (the 0.1.0 fixtures, ``test_state_fixtures.py``) still load."""

from __future__ import annotations

import io
import pickle

import numpy as np
import pytest
from kernelstream import _pickled
from kernelstream._wrapped import _restore
from test_protocol import assert_same_params, stream
from zoo import ZOO

CORE = sorted(n for n in ZOO if getattr(type(ZOO[n].factory()), "_core_class", None) is not None)

#: Parameters that the core does not report, per class: run-time speed settings (not part
#: of any state), and those the state keeps only in derived forms (NystromAWV's KORS
#: settings and fixed dictionary, MultiKernelAWV's meta rule).
NOT_IN_STATE = {
    "TaylorAWV": {"block_size"},
    "RFFAWV": {"block_size"},
    "NystromAWV": {"mu", "eps", "beta", "kors_weights", "seed", "dictionary"}
    | {"max_dictionary", "block_size"},
    "MultiKernelAWV": {"aggregator", "eta", "gradient", "meta_ridge", "block_size", "threads"},
    "OnlineProjection": {"basis", "prefix", "count", "cos_first", "a", "eps"},
}
#: The learners whose core reports no parameter (a Mixture's state holds its experts and
#: rule, not the Python objects its parameters are); their envelopes hold every parameter.
REPORTS_NONE = {"Mixture"}


def _trained(name, n=60):
    e = ZOO[name]
    m = e.factory()
    X, y = stream(e, n, seed=7)
    m.learn_many(X, y)
    return m, X


class _Peek(pickle.Unpickler):
    """Reads a blob's envelope: the loader is replaced by one that returns its state."""

    def find_class(self, module, name):
        if (module, name) == ("kernelstream._wrapped", "_load"):
            return lambda cls, state: state
        return super().find_class(module, name)


def _envelope(blob: bytes) -> dict:
    return _Peek(io.BytesIO(blob)).load()


def _same_params_exactly(a: dict, b: dict) -> None:
    assert list(a) == list(b)
    assert_same_params(a, b)
    for k in a:  # and the same types: 1 stays 1, a list stays a list
        assert type(a[k]) is type(b[k]), (k, a[k], b[k])


@pytest.mark.parametrize("name", CORE)
def test_round_trip_gives_the_same_params_and_predictions(name):
    m, X = _trained(name)
    again = pickle.loads(pickle.dumps(m))
    _same_params_exactly(again.get_params(), m.get_params())
    assert again.n_seen == m.n_seen
    # the stream continued: the same bits
    Xn, yn = stream(ZOO[name], 30, seed=8)
    np.testing.assert_array_equal(
        again.copy().progressive_predict(Xn, yn), m.copy().progressive_predict(Xn, yn)
    )
    # (predict_many of RFFAWV-discounted after any round trip, format 1 too, differs from
    # the original's in the last bits: 1.4e-16 here; its progressive_predict does not)
    np.testing.assert_allclose(again.predict_many(X[:20]), m.predict_many(X[:20]), rtol=1e-13)
    # a fresh (never fed) learner too
    fresh = ZOO[name].factory()
    _same_params_exactly(pickle.loads(pickle.dumps(fresh)).get_params(), fresh.get_params())


@pytest.mark.parametrize("name", CORE)
def test_the_blob_stores_each_parameter_once(name):
    m, _ = _trained(name)
    env = _envelope(pickle.dumps(m))
    assert env["format_version"] == _pickled.PICKLE_FORMAT_VERSION == 2
    cls = type(m)
    held = _pickled.held_params_of_state(cls._core_class, env["core"])
    assert held == _pickled.held_params(cls._core_class, m._core)  # live = decoded
    stored = env["params"]
    # what the envelope stores, the state does not give back as it was given
    assert all(not _pickled.same(stored[k], held[k]) for k in set(stored) & set(held))
    assert {**m.get_params(), **stored}.keys() == m.get_params().keys()
    if cls.__name__ in REPORTS_NONE:
        assert held == {}
        return
    assert held, f"{cls.__name__}'s core reports no parameter"
    assert set(stored) - set(held) <= NOT_IN_STATE.get(cls.__name__, set())


def test_the_defaults_of_a_reporting_learner_leave_only_run_time_settings():
    from kernelstream import FOGD, NOGD, AutoKernel, TaylorAWV
    from kernelstream.kernels import Gaussian

    assert _envelope(pickle.dumps(TaylorAWV()))["params"] == {"block_size": None}
    assert _envelope(pickle.dumps(FOGD(Gaussian(2.0), n_features=7)))["params"] == {}
    # AutoKernel's state holds every parameter as given ("None" for the rule's share and
    # loss window too): the envelope holds none
    env = _envelope(pickle.dumps(AutoKernel()))
    assert env["params"] == {}
    assert pickle.loads(pickle.dumps(AutoKernel(share=None))).get_params()["share"] is None
    # NOGD's state holds the rank it resolved (20% of the budget), not "None"
    env = _envelope(pickle.dumps(NOGD(Gaussian(1.0), budget=50)))
    assert env["params"] == {"rank": None}
    again = pickle.loads(pickle.dumps(NOGD(Gaussian(1.0), budget=50, rank=10)))
    assert again.get_params()["rank"] == 10


def test_a_format_1_envelope_still_loads():
    """The envelope before this one: every parameter in ``params``, ``_restore`` named
    with them (what 0.1.0 wrote)."""
    from kernelstream import TaylorAWV

    m = TaylorAWV(sigma=0.7, degree=3)
    X = np.random.default_rng(0).uniform(-1, 1, size=(40, 2))
    m.learn_many(X, np.sin(X[:, 0]))
    state = {**m.__getstate__(), "format_version": 1, "params": m.get_params()}
    for again in (_restore(TaylorAWV, m.get_params(), state), TaylorAWV()):
        again.__setstate__(state)
        _same_params_exactly(again.get_params(), m.get_params())
        np.testing.assert_array_equal(again.predict_many(X), m.predict_many(X))


def test_a_parameter_absent_from_a_pickle_takes_its_declared_default():
    """A pickle made before an option existed (here: without ``block_size`` in its
    envelope) loads, the option at its declared default."""
    from kernelstream import TaylorAWV
    from kernelstream._wrapped import _load

    rng = np.random.default_rng(0)
    X = rng.uniform(-1, 1, size=(30, 2))
    y = np.sin(3 * X[:, 0])
    model = TaylorAWV(degree=3, lam=0.5)
    model.learn_many(X, y)
    state = model.__getstate__()
    assert state["params"] == {"block_size": None}
    state["params"] = {}
    again = _load(TaylorAWV, state)
    assert again.get_params() == model.get_params()
    np.testing.assert_array_equal(again.predict_many(X), model.predict_many(X))
