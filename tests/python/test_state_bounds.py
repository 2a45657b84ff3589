"""Damaged states are refused by what they store (issue 35, defects 1, 7 and 19).

A decoded state is checked against bounds before anything is built or allocated from
its sizes, and against the invariants the updates maintain (finite numbers, positive
pivots of stored Cholesky factors, aggregation weights on the simplex), so a damaged
state is an ``InputError`` even where no checksum covers it (``python/protocol.rs``
``decode``, ``src/state.rs``). Anything that could abort runs in a subprocess.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _run(code: str, timeout: float = 120.0) -> subprocess.CompletedProcess:
    """``code`` in a fresh interpreter under a 2 GiB address space: an abort or an
    allocation of gigabytes there is a failed test, not a crash of the suite."""
    prelude = "import resource\nresource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))\n"
    return subprocess.run(
        [sys.executable, "-c", prelude + textwrap.dedent(code)],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=str(ROOT),
        env={**os.environ, "KERNELSTREAM_MEMORY_LIMIT": str(1 << 30)},
    )


def test_projection_state_with_a_huge_dimension_is_refused_before_allocating():
    # Defect 1: offset 42 of this configuration's core state is the design's input
    # dimension (u64); set to 2^64 - 1, validation built a design of that many
    # coordinates (gigabytes, then SIGABRT) before comparing it with anything.
    out = _run(
        """
        import numpy as np, kernelstream as ks
        from kernelstream.errors import InputError
        kw = dict(basis="trig", alpha=2, c=0.2, prefix="quadratic", additive=True, count="pair")
        m = ks.OnlineProjection(**kw)
        X = np.random.default_rng(0).uniform(0, 1, (30, 2))
        m.learn_many(X, np.sin(X.sum(1)))
        st = m.__getstate__()
        core = bytearray(st["core"])
        assert int.from_bytes(core[42:50], "little") == 2
        core[42:50] = b"\\xff" * 8
        st["core"] = bytes(core)
        fresh = ks.OnlineProjection(**kw)
        try:
            fresh.__setstate__(st)
        except InputError as e:
            print("refused:", e)
        """
    )
    assert out.returncode == 0, out.stderr[-2000:]
    assert "refused:" in out.stdout and "coordinates" in out.stdout


def test_out_of_range_stored_parameter_is_an_input_error():
    # Defect 19: a state whose stored lam is 0 (out of its range) was refused with the
    # constructor's ParameterError; a damaged state is data, an InputError.
    import struct

    import kernelstream as ks
    import numpy as np
    import pytest
    from kernelstream.errors import InputError

    m = ks.TaylorAWV(degree=2, lam=0.75)
    X = np.random.default_rng(0).uniform(-1, 1, (6, 3))
    m.learn_many(X, np.sin(X[:, 0]))
    st = m.__getstate__()
    core = bytes(st["core"])
    assert core.count(struct.pack("<d", 0.75)) >= 1
    st["core"] = core.replace(struct.pack("<d", 0.75), struct.pack("<d", 0.0))
    before = bytes(m._core._state_bytes())
    with pytest.raises(InputError, match="invalid learner state: lam"):
        m.__setstate__(st)
    assert bytes(m._core._state_bytes()) == before
