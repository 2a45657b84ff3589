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

import pytest

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


SKLEARN = r"""
import json, os, signal, threading
signal.signal(signal.SIGINT, signal.default_int_handler)
import numpy as np
import kernelstream as ks
from kernelstream.adapters import SklearnClassifier, SklearnRegressor

class Ringing(ks.TaylorAWV):
    # rings once, right after the call that `ring` names has learned its rows
    ring = [None]

    def learn_many(self, X, y, sample_weight=None):
        super().learn_many(X, y, sample_weight=sample_weight)
        if Ringing.ring[0] == "many":
            Ringing.ring[0] = None
            signal.raise_signal(signal.SIGINT)

    def learn_one(self, x, y, w=1.0):
        super().learn_one(x, y, w)
        if Ringing.ring[0] == "one":
            Ringing.ring[0] = None
            signal.raise_signal(signal.SIGINT)

rng = np.random.default_rng(0)
X = rng.normal(size=(60, 3))
y = X[:, 0] + 0.1 * rng.normal(size=60)
out = {}

# a partial_fit whose learner learned its rows, the interrupt raised as the call returned
a = SklearnRegressor(Ringing(degree=2), scale=True)
b = SklearnRegressor(ks.TaylorAWV(degree=2), scale=True)
a.partial_fit(X[:20], y[:20])
b.partial_fit(X[:20], y[:20])
Ringing.ring[0] = "many"
try:
    a.partial_fit(X[20:30], y[20:30])
    out["returned"] = None
except KeyboardInterrupt:
    out["returned"] = [a.learner_.n_seen, a.scaler_.n, a.target_scaler_.n]
b.partial_fit(X[20:30], y[20:30])
out["returned_same"] = bool(np.array_equal(a.predict(X[30:]), b.predict(X[30:])))

# a partial_fit that the core stops at a round boundary: the rows it kept, scaled alike
class Timed(ks.TaylorAWV):
    # SIGINT 0.2 s into its next learn_many (the core's loop, which stops at a round)
    armed = [False]

    def learn_many(self, X, y, sample_weight=None):
        if Timed.armed[0]:
            Timed.armed[0] = False
            threading.Timer(0.2, lambda: os.kill(os.getpid(), signal.SIGINT)).start()
        super().learn_many(X, y, sample_weight=sample_weight)

big = rng.normal(size=(1_000_000, 5))
c = SklearnRegressor(Timed(degree=4), scale=True)
c.partial_fit(big[:20], big[:20, 0])
Timed.armed[0] = True
try:
    c.partial_fit(big[20:], big[20:, 0])
    out["stopped"] = None
except KeyboardInterrupt as exc:
    k = exc.rounds_completed
    out["stopped"] = [k, c.learner_.n_seen, c.scaler_.n, c.target_scaler_.n]
    d = SklearnRegressor(ks.TaylorAWV(degree=4), scale=True)
    d.partial_fit(big[:20], big[:20, 0])
    d.partial_fit(big[20 : 20 + k], big[20 : 20 + k, 0])
    out["stopped_same"] = bool(np.array_equal(c.predict(big[:50]), d.predict(big[:50])))

# a classifier's one-row partial_fit after predicting the row (it learns in place)
labels = (X[:, 0] > 0).astype(int)
e = SklearnClassifier(Ringing(degree=2), scale=False)
f = SklearnClassifier(ks.TaylorAWV(degree=2), scale=False)
e.fit(X[:20], labels[:20], shuffle=False)
f.fit(X[:20], labels[:20], shuffle=False)
stops = 0
for t in range(20, 40):
    row = X[t : t + 1]
    e.predict_proba(row)
    f.predict_proba(row)
    Ringing.ring[0] = "one" if t == 30 else None
    try:
        e.partial_fit(row, labels[t : t + 1])
    except KeyboardInterrupt:
        stops += 1
    f.partial_fit(row, labels[t : t + 1])
out["classifier"] = [stops, bool(np.array_equal(e.predict_proba(X[40:]), f.predict_proba(X[40:])))]
print(json.dumps(out))
"""


def test_ctrl_c_in_a_partial_fit_keeps_the_learner_and_its_scalers_together():
    pytest.importorskip("sklearn", minversion="1.6")
    r = subprocess.run([sys.executable, "-c", SKLEARN], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    out = json.loads(r.stdout.strip().splitlines()[-1])
    assert out["returned"] == [30, 30, 30] and out["returned_same"]
    k, *counts = out["stopped"]
    assert 0 < k < 1_000_000 - 20 and counts == [20 + k] * 3 and out["stopped_same"]
    assert out["classifier"] == [1, True]
