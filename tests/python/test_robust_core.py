"""Robustness of the Rust core: thread pools across fork, the memory ceiling (every
allocation that grows with a parameter or the input width is counted before it
happens; the default respects cgroup limits; an oversized allocation is an error, not
an abort), NaN from finite input, and the KERNELSTREAM_MEMORY_LIMIT syntax. Anything
that could hang or abort runs in a subprocess with a timeout."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import kernelstream as ks
import numpy as np
import pytest
from kernelstream.errors import InputError, NumericalError, ParameterError
from kernelstream.kernels import Gaussian

ROOT = Path(__file__).resolve().parents[2]


def _run(code: str, timeout: float = 60.0, **env: str) -> subprocess.CompletedProcess:
    """``code`` in a fresh interpreter: an abort or a hang there fails the test only."""
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=str(ROOT),
        env={**os.environ, **env},
    )


# --- thread pools across fork ------------------------------------------------------

_FORK = """
import os, sys, time, numpy as np, kernelstream as ks
from kernelstream.kernels import Gaussian
X = np.random.default_rng(0).normal(size=(300, 4)); y = X[:, 0]
make = {
    "MultiKernelAWV": lambda t: ks.MultiKernelAWV(
        [Gaussian(1.0), Gaussian(2.0)], n_features=200, threads=t),
    "AutoKernel": lambda t: ks.AutoKernel(features="rff", n_features=100, warmup=20, threads=t),
    "Mixture": lambda t: ks.Mixture(
        [ks.RFFAWV(Gaussian(1.0), n_features=200), ks.MultiKernelAWV(
            [Gaussian(1.0), Gaussian(2.0)], n_features=200, threads=0)], threads=t),
}[sys.argv[1]]
t = int(sys.argv[2])
p0 = make(t).progressive_predict(X, y)
pid = os.fork()
if pid == 0:
    p1 = make(t).progressive_predict(X, y)
    os._exit(0 if np.array_equal(p0, p1) else 1)
deadline = time.monotonic() + 20
while time.monotonic() < deadline:
    done, status = os.waitpid(pid, os.WNOHANG)
    if done:
        sys.exit(os.waitstatus_to_exitcode(status))
    time.sleep(0.02)
os.kill(pid, 9)
os.waitpid(pid, 0)
sys.exit(3)
"""


@pytest.mark.parametrize("name", ["MultiKernelAWV", "AutoKernel", "Mixture"])
@pytest.mark.parametrize("threads", [0, 2])
def test_thread_pools_survive_fork(name, threads):
    """A learner run with threads in the parent, then again in a forked child: the
    child finishes (exit 3 = the child hung, killed after 20 s) with the same result."""
    res = subprocess.run(
        [sys.executable, "-c", _FORK, name, str(threads)],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=str(ROOT),
    )
    assert res.returncode == 0, (res.returncode, res.stderr[-2000:])
