"""Ctrl-C and the Forecaster: during ``learn_one`` the interrupt takes effect at the
round's end (the forecaster equals one fed the same values without it); during
``progressive_forecast`` it leaves the forecaster as it was before the call. The
interrupt is raised deterministically from inside a learner's ``learn_one`` (midway
through a round), in a subprocess that installs Python's SIGINT handler itself (a shell
started with ``nohup ... &`` hands it SIGINT ignored)."""

from __future__ import annotations

import json
import subprocess
import sys

CHILD = r"""
import json, pickle, signal, sys
signal.signal(signal.SIGINT, signal.default_int_handler)
import numpy as np
import kernelstream as ks

class Ringing:
    # a TaylorAWV that raises SIGINT once it has learned its `at`-th row (all copies)
    count, at = [0], [None]

    def __init__(self):
        self.inner = ks.TaylorAWV(degree=2)

    def get_params(self):
        return {}

    def predict_one(self, x):
        return self.inner.predict_one(x)

    def learn_one(self, x, y):
        Ringing.count[0] += 1
        self.inner.learn_one(x, y)
        if Ringing.count[0] == Ringing.at[0]:
            signal.raise_signal(signal.SIGINT)

t = np.arange(160)
y = np.sin(2 * np.pi * t / 12) + 0.01 * t
make = lambda: ks.Forecaster(learner=Ringing(), horizon=2, lags=2, season=12)
out = {}

# learn_one: the interrupt comes from the 40th learned row after the build's replay
ref = make()
for v in y:
    ref.learn_one(v)
f = make()
Ringing.count[0] = 0
Ringing.at[0] = None
for v in y[:48]:
    f.learn_one(v)
Ringing.at[0] = Ringing.count[0] + 40
stopped = []
for i, v in enumerate(y[48:]):
    try:
        f.learn_one(v)
    except KeyboardInterrupt:
        stopped.append(i)
out["stopped"] = stopped
out["learn_same"] = bool(f.n_seen == ref.n_seen and np.array_equal(f.forecast(), ref.forecast())
                         and np.array_equal(f.forecast_interval(), ref.forecast_interval()))

# progressive_forecast: the interrupt comes after the warm-up, in the whole-series pass
g = make()
for v in y[:10]:
    g.learn_one(v)
before = pickle.dumps(g)
Ringing.count[0] = 0
Ringing.at[0] = 200
try:
    g.progressive_forecast(y[10:])
    out["progressive_interrupted"] = False
except KeyboardInterrupt:
    out["progressive_interrupted"] = True
out["progressive_unchanged"] = pickle.dumps(g) == before
Ringing.at[0] = None
fresh = make()
for v in y[:10]:
    fresh.learn_one(v)
out["progressive_then_same"] = bool(np.array_equal(
    g.progressive_forecast(y[10:]), fresh.progressive_forecast(y[10:]), equal_nan=True))
print(json.dumps(out))
"""


def test_ctrl_c_leaves_a_forecaster_whole():
    r = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    out = json.loads(r.stdout.strip().splitlines()[-1])
    assert len(out["stopped"]) == 1  # the interrupt came, once, inside a round
    assert out["learn_same"]
    assert out["progressive_interrupted"] and out["progressive_unchanged"]
    assert out["progressive_then_same"]
