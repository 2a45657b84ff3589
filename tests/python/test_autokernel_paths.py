"""AutoKernel's blocked and single-round paths agree to the bound docs/autokernel.md
states (rounding amplified by the experts' solves and the rule's weights: 1e-6 of
``max |y|``), not bit for bit; ``progressive_predict_std`` plays single rounds."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import kernelstream as ks
import numpy as np
import pytest

_TOOL = Path(__file__).resolve().parents[2] / "tools" / "autokernel_paths.py"
_spec = importlib.util.spec_from_file_location("autokernel_paths", _TOOL)
paths = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(paths)

#: The bound of docs/autokernel.md, relative to max |y|.
BOUND = 1e-6


@pytest.mark.slow
def test_loop_and_blocks_agree_to_the_documented_bound_on_a_drifting_stream():
    X, y = paths.stream("drift", 1200, 3, 0)
    scale = np.abs(y).max()
    blocked = ks.AutoKernel()
    p = blocked.progressive_predict(X, y)
    loop = ks.AutoKernel()
    q = np.empty(len(y))
    for i, (x, t) in enumerate(zip(X, y)):
        q[i] = loop.predict_one(x)
        loop.learn_one(x, t)
    withstd = ks.AutoKernel()
    s, sd = withstd.progressive_predict_std(X, y)
    assert np.abs(q - p).max() <= BOUND * scale
    assert np.abs(s - p).max() <= BOUND * scale
    assert np.all(np.isfinite(sd[200:]))
    # the states after the stream: their next predictions agree as closely
    Q = X[:40] * 0.9
    nxt = blocked.predict_many(Q)
    assert np.abs(loop.predict_many(Q) - nxt).max() <= BOUND * scale
    assert np.abs(withstd.predict_many(Q) - nxt).max() <= BOUND * scale
    # the warm-up is the same arithmetic on both paths
    np.testing.assert_array_equal(q[:200], p[:200])
