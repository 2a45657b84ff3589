"""Damaged states are refused by what they store (sizes checked before allocating; stored parameters out of range are InputErrors).

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

import pytest

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


@pytest.mark.slow
def test_projection_state_with_a_huge_dimension_is_refused_before_allocating():
    # Defect 1: the design's input dimension (``state.design.d``; in the positional
    # format the u64 at offset 42 of this configuration's core state) set to 2^64 - 1:
    # validation built a design of that many coordinates (gigabytes, then SIGABRT)
    # before comparing it with anything. The edit is re-sealed (``statebytes.seal``:
    # the checksum recomputed), as a crafted state would be, to reach the validation.
    out = _run(
        """
        import numpy as np, kernelstream as ks
        from kernelstream.errors import InputError
        from kernelstream.modelfile.statebytes import seal
        kw = dict(basis="trig", alpha=2, c=0.2, prefix="quadratic", additive=True, count="pair")
        m = ks.OnlineProjection(**kw)
        X = np.random.default_rng(0).uniform(0, 1, (30, 2))
        m.learn_many(X, np.sin(X.sum(1)))
        st = m.__getstate__()
        core = bytes(st["core"])
        # MessagePack: the key "design", a map, its key "d" (0xa1 'd') and the fixint 2
        at = core.index(b"\\xa1d\\x02", core.index(b"\\xa6design"))
        core = core[:at] + b"\\xa1d\\xcf" + b"\\xff" * 8 + core[at + 3 :]
        st["core"] = seal(core)
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
    from kernelstream.modelfile.statebytes import seal

    m = ks.TaylorAWV(degree=2, lam=0.75)
    X = np.random.default_rng(0).uniform(-1, 1, (6, 3))
    m.learn_many(X, np.sin(X[:, 0]))
    st = m.__getstate__()
    core = bytes(st["core"])
    # The state is MessagePack behind a checksummed header: a float64 is 0xcb and its
    # big-endian bytes; the edit is re-sealed so that the validation, not the checksum,
    # is what refuses it.
    lam, zero = b"\xcb" + struct.pack(">d", 0.75), b"\xcb" + struct.pack(">d", 0.0)
    assert core.count(lam) >= 1
    st["core"] = seal(core.replace(lam, zero))
    before = bytes(m._core._state_bytes())
    with pytest.raises(InputError, match="invalid learner state: lam"):
        m.__setstate__(st)
    assert bytes(m._core._state_bytes()) == before
