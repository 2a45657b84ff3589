"""The PKAWV figure entries (pkawv-fig4, pkawv-fig2) on a tiny budget: they run,
write the contract's JSON, cover every learner of LEARNERS, and say what is missing."""

import json

import pytest
from kernelstream.experiments import Context, pkawv_common, run_entry


@pytest.mark.slow
def test_fig4_and_fig2_tiny(tmp_path, data_dir, monkeypatch):
    monkeypatch.setattr(pkawv_common, "QUICK_ROWS", 200)
    ctx = Context(tmp_path, quick=True, time_budget=1.0, data_home=data_dir)
    out = run_entry("pkawv-fig4", ctx)
    data = json.loads((tmp_path / "pkawv-fig4.json").read_text())
    assert data["entry"] == "pkawv-fig4" and len(data["figures"]) == 2
    labels = {(r["dataset"], r["learner"]) for r in data["rows"]}
    for spec in pkawv_common.LEARNERS:
        assert ("casp", spec["label"]) in labels
    nys = [r for r in data["rows"] if r["learner"].startswith("NystromAWV")]
    assert all(0 < r["dim"] <= 200 for r in nys)
    krr = [r for r in data["rows"] if r["learner"] == "KRR (exact)"]
    assert all(r["dim"] == r["extra"]["rounds"] for r in krr)
    assert "| casp |" in out["_table"]
    run_entry("pkawv-fig2", ctx)
    fig2 = json.loads((tmp_path / "pkawv-fig2.json").read_text())
    assert {r["dataset"] for r in fig2["rows"]} == {"cod-rna"}
    assert any("SUSY is not available" in n for n in fig2["notes"])
    assert any("training split" in n for n in fig2["notes"])
