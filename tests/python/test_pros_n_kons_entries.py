"""The PROS-N-KONS Table 1 entry (quick form): the online RLS row is the exact sum, calibrated
rows carry their variant, and #SV rows sit beside the loss rows."""

from __future__ import annotations

import json

import numpy as np
import pytest
from kernelstream import datasets
from kernelstream.experiments import Context, run_entry
from kernelstream.experiments.pros_n_kons_common import _scaled
from kernelstream.experiments.pros_n_kons_table1 import CALIBRATED_SETTING, DATASETS
from kernelstream.kernels import Gaussian


@pytest.mark.slow  # an end-to-end quick run of the entry: 11 s on a loaded machine
def test_table1_quick_rows(tmp_path, data_dir):
    run_entry("pros-n-kons-table1", Context(tmp_path, quick=True, seeds=1, data_home=data_dir))
    data = json.loads((tmp_path / "pros-n-kons-table1.json").read_text())
    rows = data["rows"]
    cal = [r for r in rows if r["learner"].endswith(" (calibrated)")]
    assert cal and all(r["variant"] == "calibrated" for r in cal)
    assert all("variant" not in r for r in rows if r not in cal)
    assert data["settings"]["calibrated"]["chosen_on"] in DATASETS
    c = data["settings"]["calibrated"]
    assert abs(c["beta"] * (1 + c["eps"]) - 0.6) <= 1e-15
    assert {k: data["settings"]["calibrated"][k] for k in CALIBRATED_SETTING} == CALIBRATED_SETTING
    # the online RLS row of the smallest data set against a dense Cholesky of the same stream:
    # R_tt^2 = gamma + k_tt - k^T (K_{t-1} + gamma I)^{-1} k = gamma / (1 - tau_t)
    ds = min(DATASETS, key=lambda d: len(_scaled(d, data_dir, False)[0]))
    X, _ = _scaled(ds, data_dir, False)
    n = len(X)
    _, perm = datasets.shuffle(np.zeros((n, 1)), np.arange(n), 0)
    Xs = X[perm][:2000]
    K = Gaussian(8.0)(Xs) + np.eye(len(Xs))
    want = float(np.sum(1.0 - 1.0 / np.diag(np.linalg.cholesky(K)) ** 2))
    (rls,) = [r for r in rows if r["dataset"] == ds and r["learner"].startswith("online RLS")]
    # pivoted Cholesky residual <= 1e-8 gamma per row moves the sum by far less than 1e-4
    assert abs(rls["ours"] - want) <= 1e-4
    # every KORS learner has a dictionary-size row beside its loss row
    for r in rows:
        if r["metric"] == "avg_sq_loss" and "KONS" in r["learner"]:
            assert any(
                q["metric"] == "n_sv"
                and q["learner"] == r["learner"]
                and q["dataset"] == r["dataset"]
                for q in rows
            )
