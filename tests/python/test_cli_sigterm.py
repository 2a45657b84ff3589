"""SIGTERM during ``kernelstream run --save-predictions``: the run unwinds, so that its
temporary file is removed and the old predictions file is left whole; the process still
ends by SIGTERM (status -15 for its parent)."""

from __future__ import annotations

import signal
import subprocess
import sys
import time

import numpy as np
import pytest


@pytest.mark.slow
def test_sigterm_during_save_predictions_leaves_no_temporary_file(tmp_path):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300_000, 3))
    csv = tmp_path / "t.csv"
    np.savetxt(csv, np.c_[X, X[:, 0]], delimiter=",", header="a,b,c,y", comments="", fmt="%.5g")
    out = tmp_path / "p.csv"
    out.write_text("old\n")
    cmd = [sys.executable, "-m", "kernelstream.cli", "run", "--csv", str(csv),
           "--learner", "taylor-awv", "--save-predictions", str(out), "--chunk-rows", "1000"]  # fmt: skip
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        for _ in range(3000):  # at most about 60 s of polling
            if any(".part" in f.name for f in tmp_path.iterdir()):
                break
            assert proc.poll() is None, proc.stderr.read()
            time.sleep(0.02)
        else:
            raise AssertionError("the run never started writing")
        time.sleep(0.2)  # well inside the run
        proc.send_signal(signal.SIGTERM)
        proc.wait(60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == -signal.SIGTERM
    assert sorted(f.name for f in tmp_path.iterdir()) == [
        "p.csv",
        "t.csv",
    ]  # before: .p.csv.partXXXX
    assert out.read_text() == "old\n"
