"""The memory ceiling counts the adapters' own row buffers (a huge max_features allocated its buffers unchecked).

``RiverRegressor(..., max_features=N)`` builds rows of ``N`` floats and its scaler keeps
and renews two more (``adapters/_scaling.py``, ``src/scaling.rs``): those sizes are
checked against :func:`kernelstream.get_memory_limit` and the learner's own limits before
any buffer exists. Run in subprocesses (an unchecked 800 MB row is the defect).
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import kernelstream as ks
import pytest
from kernelstream.adapters import RiverRegressor
from kernelstream.errors import InputError, ParameterError

pytest.importorskip("river")


def _run(code: str, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, **env},
    )


@pytest.mark.slow
def test_wide_reserved_rows_are_refused_before_the_buffers_exist():
    # Before: the first learn_one filled a 10^8-float row and the scaler's moments
    # (800 MB each) before the learner refused the width; now the learner's check runs
    # first and the process stays small.
    out = _run(
        """
        import resource, kernelstream as ks
        from kernelstream.adapters import RiverRegressor
        from kernelstream.errors import ParameterError
        m = RiverRegressor(ks.TaylorAWV(degree=2), max_features=10**8)
        try:
            m.learn_one({"a": 1.0}, 1.0)
        except ParameterError as e:
            print("refused:", e)
        assert m.feature_names is None and m.learner.n_seen == 0
        print("maxrss_kb", resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
        """,
        KERNELSTREAM_MEMORY_LIMIT="8G",
    )
    assert out.returncode == 0, out.stderr[-2000:]
    assert "refused:" in out.stdout and "Taylor features" in out.stdout
    rss_kb = int(out.stdout.split("maxrss_kb")[1])
    assert rss_kb < 400 * 1024, rss_kb  # one 10^8-float buffer alone is 781 MiB


def test_row_buffers_count_against_the_ceiling():
    limit = ks.get_memory_limit()
    a, b = (ks.RFFAWV(ks.kernels.Gaussian(1.0), n_features=8, seed=0) for _ in range(2))
    try:
        ks.set_memory_limit(64 << 20)
        # 6 buffers of 8 bytes a feature: 2 million features need 91.6 MiB.
        with pytest.raises(ParameterError, match="max_features=2000000.*memory limit"):
            RiverRegressor(a, max_features=2_000_000)
        m = RiverRegressor(b, max_features=100)
        ks.set_memory_limit(4 << 10)  # 4 KiB: 100 features need 4.7 KiB
        with pytest.raises(InputError, match="first row.*memory limit"):
            m.learn_one({"a": 1.0}, 1.0)
        assert m.feature_names is None and m.learner.n_seen == 0
        ks.set_memory_limit(limit)
        m.learn_one({"a": 1.0}, 1.0)
        assert m.learner.n_seen == 1
    finally:
        ks.set_memory_limit(limit)
