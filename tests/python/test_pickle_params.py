"""A pickled state is validated as a whole, its parameter names included: an unknown
parameter is refused with InputError (it would be ignored by the core, and the object
would then pickle to a blob that does not load), in ``__setstate__`` and in ``_restore``."""

from __future__ import annotations

import pickle

import kernelstream as ks
import numpy as np
import pytest
from kernelstream._wrapped import _restore
from kernelstream.errors import InputError
from kernelstream.kernels import Gaussian

X = np.random.default_rng(0).uniform(-1, 1, size=(30, 3))
Y = np.sin(X[:, 0])

MAKERS = {
    "TaylorAWV": lambda: ks.TaylorAWV(sigma=1.0, degree=2),
    "NystromAWV": lambda: ks.NystromAWV(Gaussian(1.0), seed=1),
    "Mixture": lambda: ks.Mixture([ks.TaylorAWV(sigma=s, degree=2) for s in (0.5, 1.0)]),
    "EWA": lambda: ks.aggregation.EWA(n_experts=2, eta=1.0),
    "KORS": lambda: ks.samplers.KORS(Gaussian(1.0), mu=1.0),
}


def _trained(name):
    m = MAKERS[name]()
    if hasattr(m, "learn_many"):
        m.learn_many(X, Y)
    return m


@pytest.mark.parametrize("name", sorted(MAKERS))
def test_setstate_with_an_unknown_parameter_is_refused(name):
    src, dst = _trained(name), MAKERS[name]()
    st = src.__getstate__()
    st["params"] = {**st["params"], "foo": 1}
    before = pickle.dumps(dst)
    with pytest.raises(InputError, match="foo"):
        dst.__setstate__(st)
    assert pickle.dumps(dst) == before  # untouched
    # and the object still pickles to a blob that loads, and clones
    assert type(pickle.loads(pickle.dumps(dst))) is type(dst)
    dst.clone()


@pytest.mark.parametrize("name", sorted(MAKERS))
def test_restore_with_an_unknown_parameter_is_input_error(name):
    src = _trained(name)
    st = src.__getstate__()
    with pytest.raises(InputError, match="foo"):
        _restore(type(src), {**src.get_params(), "foo": 1}, st)
    with pytest.raises(InputError):
        _restore(type(src), ["not", "a", "dict"], st)
    # the genuine one still loads
    assert pickle.loads(pickle.dumps(src)).get_params() == src.get_params()


def test_setstate_with_a_wrong_parameter_value_is_input_error():
    src = _trained("TaylorAWV")
    st = src.__getstate__()
    st["params"] = {**st["params"], "sigma": -1.0}
    m = MAKERS["TaylorAWV"]()
    with pytest.raises(InputError, match="sigma"):
        m.__setstate__(st)
    assert m.get_params() == MAKERS["TaylorAWV"]().get_params()
    # block_size is not held by the state: an envelope without it (a pickle made before
    # the option existed) takes its declared default
    st["params"] = {k: v for k, v in src.get_params().items() if k != "block_size"}
    m.__setstate__(st)
    assert m.get_params()["block_size"] is None
