"""Ctrl-C during AutoKernel's warm-up, whose rounds can cost milliseconds each.

Through the restart wrapper the learner runs its rows ahead of the restart's checks, in
pieces of up to 1,024 rows (``Restart::quiet_rows``); those pieces used to run without
stopping for Ctrl-C. Now the warm-up's rows stop at the next round boundary, and the
rows completed are combined and checked by the restart before the interrupt is passed
on: the learner equals a fresh one fed exactly those rows, with one output or several.
"""

from __future__ import annotations

import pickle
import threading
import time

import kernelstream as ks
import numpy as np
import pytest
from signals import sigint_during

WARMUP = 400  # the first quiet piece is min(50 + 2 * WARMUP, 1024) = 850 rows


def _stream(n: int, k: int):
    rng = np.random.default_rng(3)
    X = rng.uniform(-1, 1, (n, 4))
    Y = np.column_stack([np.sin(3 * X[:, 0]), X[:, 1] * X[:, 2]])[:, :k]
    Y = Y + 0.1 * rng.normal(size=Y.shape)
    return X, (Y[:, 0] if k == 1 else Y)


@pytest.mark.slow
@pytest.mark.skipif(threading.current_thread() is not threading.main_thread(), reason="signals")
@pytest.mark.parametrize("k", [1, 2])
def test_ctrl_c_in_the_warm_up_stops_there_and_keeps_the_restart_in_step(k, sigint):
    X, y = _stream(3 * WARMUP, k)
    make = lambda: ks.AutoKernel(warmup=WARMUP, seed=0)  # noqa: E731
    # How long the warm-up's rows take here: the signal is sent at a third of that,
    # so that it lands inside them (before the fix, Ctrl-C waited for 850 rows).
    t0 = time.perf_counter()
    make().learn_many(X[:WARMUP], y[:WARMUP])
    warm = time.perf_counter() - t0
    for frac in (1 / 3, 1 / 2, 2 / 3):
        m = make()
        stop = sigint_during(lambda: m.progressive_predict(X, y), frac * warm)  # noqa: B023
        if getattr(stop, "rounds_completed", 0) > 0:
            break
        assert m.n_seen in (0, len(X))  # landed outside the Rust loop
    else:
        pytest.fail("SIGINT never landed inside the warm-up in three attempts")
    done = stop.rounds_completed
    assert 0 < done < WARMUP, "the interrupt waited past the warm-up"
    assert m.n_seen == done
    fresh = make()
    kept = fresh.progressive_predict(X[:done], y[:done])
    np.testing.assert_array_equal(kept, stop.predictions)  # (done,) or (done, K)
    assert pickle.dumps(fresh) == pickle.dumps(m)
    # and both go on alike
    rest = slice(done, done + 60)
    np.testing.assert_array_equal(m.progressive_predict(X[rest], y[rest]),
                                  fresh.progressive_predict(X[rest], y[rest]))  # fmt: skip
