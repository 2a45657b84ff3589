"""Ctrl-C that comes while a core learner learns one row is raised as the call returns,
in the Python wrapper's code: :class:`kernelstream.Conformal`, ``RiverRegressor`` and
``RiverClassifier`` then still close the round (scores, scaler statistics, feature names), so the wrapper
equals one that learned the same rows without the interrupt. A learner subclass raises
SIGINT right after its row is learned (as a signal received during the call would be),
in a subprocess that installs Python's SIGINT handler itself."""

from __future__ import annotations

import json
import subprocess
import sys

CHILD = r"""
import json, signal
signal.signal(signal.SIGINT, signal.default_int_handler)
import numpy as np
import kernelstream as ks
from kernelstream.adapters import RiverClassifier, RiverRegressor

class Ringing(ks.TaylorAWV):
    # rings once it has learned its `at`-th row (over every copy)
    count, at = [0], [None]

    def learn_one(self, x, y, w=1.0):
        super().learn_one(x, y, w)
        Ringing.count[0] += 1
        if Ringing.count[0] == Ringing.at[0]:
            signal.raise_signal(signal.SIGINT)

rng = np.random.default_rng(0)
X = rng.uniform(-1, 1, size=(60, 3))
y = np.sin(3 * X[:, 0]) + 0.1 * rng.normal(size=60)
out = {}
for name, make in {
    "conformal": lambda cls: ks.Conformal(cls(degree=2)),
    "river": lambda cls: RiverRegressor(cls(degree=2), scale=True),
    "river classifier": lambda cls: RiverClassifier(cls(degree=2)),
}.items():
    Ringing.count[0], Ringing.at[0] = 0, 30
    rung, plain, stopped = make(Ringing), make(ks.TaylorAWV), 0
    for xi, yi in zip(X, y):
        row = xi if name == "conformal" else dict(enumerate(xi))
        label = int(yi > 0) if name == "river classifier" else yi
        try:
            rung.learn_one(row, label)
        except KeyboardInterrupt:
            stopped += 1
        plain.learn_one(row, label)
    probe = X[0] if name == "conformal" else dict(enumerate(X[0]))
    if name == "river classifier":
        same = rung.predict_proba_one(probe) == plain.predict_proba_one(probe)
        same = same and rung.scaler.n == plain.scaler.n == 60 and rung.classes == plain.classes
    elif name == "conformal":
        same = rung.predict_interval_one(probe) == plain.predict_interval_one(probe)
        same = same and rung.n_seen == plain.n_seen == 60 and rung.alpha_t == plain.alpha_t
    else:
        same = rung.predict_one(probe) == plain.predict_one(probe)
        same = same and rung.scaler.n == plain.scaler.n == 60
        same = same and rung.learner.n_seen == 60 and rung.feature_names == plain.feature_names
    out[name] = {"stopped": stopped, "same": bool(same)}
print(json.dumps(out))
"""


def test_ctrl_c_as_a_core_call_returns_leaves_the_wrapper_whole():
    r = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    out = json.loads(r.stdout.strip().splitlines()[-1])
    for name in ("conformal", "river", "river classifier"):
        assert out[name] == {"stopped": 1, "same": True}, (name, out)
