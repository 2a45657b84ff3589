"""Ctrl-C in ``progressive_trace`` (Mixture, AutoKernel) follows the contract of
``progressive_predict``: it stops at a round boundary with a ``KeyboardInterrupt``
carrying ``rounds_completed``, the completed rounds' ``predictions`` and ``trace``,
and the learner equals a fresh one fed exactly those rounds. Run in a subprocess (a
missed interrupt would otherwise run the whole stream) that installs Python's SIGINT
handler itself (a shell started with ``nohup ... &`` hands it SIGINT ignored)."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

CHILD = r"""
import json, signal, sys, time
signal.signal(signal.SIGINT, signal.default_int_handler)
import numpy as np
import kernelstream as ks

kind, work = sys.argv[1], float(sys.argv[2])
sys.path.insert(0, sys.argv[3])
from sizing import rows_for_seconds

def data(n):
    rng = np.random.default_rng(0)
    X = rng.uniform(-1, 1, size=(n, 3))
    return X, np.sin(3 * X[:, 0]) + 0.1 * rng.normal(size=n)

def make():
    if kind == "autokernel":
        return ks.AutoKernel(warmup=100, threads=1)
    return ks.Mixture([ks.TaylorAWV(sigma=s, degree=3) for s in (0.5, 1.0, 2.0)], threads=1)

# a stream that would take `work` seconds: the interrupt must come long before its end
n = rows_for_seconds(lambda n: make().progressive_trace(*data(n)), work, start=512)
X, y = data(n)

m = make()
print("start", flush=True)
try:
    m.progressive_trace(X, y)
    print(json.dumps({"finished": True}), flush=True)
    sys.exit(0)
except KeyboardInterrupt as exc:
    print("interrupted", flush=True)
    info = exc
k = getattr(info, "rounds_completed", None)
out = {"finished": False, "k": k, "n": n, "n_seen": m.n_seen}
if k is not None:
    tr = info.trace
    fresh = make()
    ref = fresh.progressive_trace(X[:k], y[:k]) if k else None
    same = lambda a, b: bool(np.array_equal(a, b, equal_nan=True))
    out["shapes"] = [list(info.predictions.shape), list(tr.expert_predictions.shape),
                     list(tr.weights.shape)]
    out["k_experts"] = tr.expert_predictions.shape[1] if tr.expert_predictions.ndim == 2 else None
    out["same_trace"] = k == 0 or (
        same(ref.predictions, info.predictions) and same(ref.predictions, tr.predictions)
        and same(ref.expert_predictions, tr.expert_predictions) and same(ref.weights, tr.weights)
    )
    # the state: the next rounds predict exactly as the fresh learner's
    out["same_state"] = fresh.n_seen == m.n_seen and same(
        fresh.progressive_predict(X[k:k + 50], y[k:k + 50]),
        m.progressive_predict(X[k:k + 50], y[k:k + 50]),
    )
print(json.dumps(out), flush=True)
"""


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["mixture", "autokernel"])
def test_sigint_during_progressive_trace_stops_at_a_round_boundary(kind):
    proc = subprocess.Popen(
        [sys.executable, "-c", CHILD, kind, "0.8", str(Path(__file__).parent)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout.readline().strip() == "start", proc.stderr.read()[-2000:]
        time.sleep(0.08)  # a tenth of the stream's work
        sent = time.monotonic()
        proc.send_signal(signal.SIGINT)
        first = proc.stdout.readline().strip()
        stopped = time.monotonic() - sent
        rest, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert first == "interrupted", (first, err[-2000:])
    res = json.loads(rest.strip().splitlines()[-1])
    k, n = res["k"], res["n"]
    assert k is not None, "KeyboardInterrupt without rounds_completed"
    assert 0 < k < n and res["n_seen"] == k
    assert res["shapes"][0] == [k] and res["shapes"][1][0] == k and res["shapes"][2][0] == k
    assert res["same_trace"] and res["same_state"]
    print(f"{kind}: stopped {stopped:.3f} s after SIGINT at round {k} of {n}")
