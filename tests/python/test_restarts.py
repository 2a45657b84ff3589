"""AutoKernel's restarts (``restarts=True``, docs/autokernel.md step 7): after an abrupt
change a fresh AutoKernel starts as a successor and takes over; from 2,000 rounds after
the change on, the rolling error (window 500) is within 20% of that of an AutoKernel
started fresh at the change. Any way of feeding the stream takes the same path, and a
pickle taken while a successor runs continues as the original."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from kernelstream import AutoKernel

# Small grid (Taylor experts of 84 features run single rounds: equal bit for bit
# whatever the feeding; no dictionary experts, whose blocks round differently).
KW = dict(
    warmup=100,
    widths=(0.5, 1.0, 2.0),
    lams=(0.1,),
    nystrom_widths=(),
    laplace_widths=(),
    discount_widths=(1.0,),
    max_taylor_features=84,
)


def swap(n, change, seed=0):
    """Friedman-like target on 6 inputs whose relevant three swap at ``change``."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(0, 1, (n, 6))

    def f(Z):
        return 10 * np.sin(np.pi * Z[:, 0] * Z[:, 1]) + 20 * (Z[:, 2] - 0.5) ** 2

    after = np.arange(n) >= change
    y = np.where(after, f(X[:, [3, 4, 5, 0, 1, 2]]), f(X)) + 0.5 * rng.normal(size=n)
    return X, y


def _rolling(e, w=500):
    return np.convolve(e, np.ones(w) / w, "valid")


@pytest.mark.slow
def test_recovers_like_a_learner_started_at_the_change():
    X, y = swap(5000, 2000)
    ak = AutoKernel(**KW)
    p = ak.progressive_predict(X, y)
    assert ak.restart_events == dict(changes=1, promotions=1, successor=False)
    fresh = AutoKernel(**KW).progressive_predict(X[2000:], y[2000:])
    plain = AutoKernel(**KW, restarts=False).progressive_predict(X, y)
    r_fresh = _rolling((fresh - y[2000:]) ** 2)[1501:]  # windows ending 2000+ rounds after
    r_ak = _rolling((p[2000:] - y[2000:]) ** 2)[1501:]
    r_plain = _rolling((plain[2000:] - y[2000:]) ** 2)[1501:]
    assert np.max(r_ak / r_fresh) <= 1.2
    assert np.max(r_plain / r_fresh) > 2.0  # what the restart fixes


def test_no_change_declared_on_a_stationary_stream():
    X, y = swap(5000, 10**9)
    ak = AutoKernel(**KW)
    ak.learn_many(X, y)
    assert ak.restart_events == dict(changes=0, promotions=0, successor=False)


@pytest.mark.slow
@pytest.mark.parametrize("pieces", [[1] * 3 + [997, 3000, 1000], [50] * 100, [7, 4993]])
def test_any_feeding_takes_the_same_path(pieces):
    X, y = swap(5000, 2000)
    whole = AutoKernel(**KW).progressive_predict(X, y)
    ak, out, t = AutoKernel(**KW), [], 0
    for k in pieces:
        if k == 1:
            out.append(ak.predict_one(X[t]))
            ak.learn_one(X[t], y[t])
        else:
            out.extend(ak.progressive_predict(X[t : t + k], y[t : t + k]))
        t += k
    np.testing.assert_allclose(out, whole, rtol=1e-10, atol=1e-10 * np.abs(y).max())
    assert ak.restart_events["promotions"] == 1


def test_pickle_while_a_successor_runs():
    X, y = swap(5000, 2000)
    ak, t = AutoKernel(**KW), 0
    while not ak.restart_events["successor"]:
        ak.learn_many(X[t : t + 50], y[t : t + 50])
        t += 50
        assert t < 4000
    twin = pickle.loads(pickle.dumps(ak))
    assert twin.restart_events == ak.restart_events
    np.testing.assert_array_equal(
        twin.progressive_predict(X[t:], y[t:]), ak.progressive_predict(X[t:], y[t:])
    )
    assert ak.restart_events["promotions"] == 1
