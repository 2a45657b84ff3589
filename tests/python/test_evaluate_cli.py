"""Progressive evaluation, the command line and the reproduce framework."""

from __future__ import annotations

import json

import kernelstream as ks
import numpy as np
import pytest
from kernelstream.evaluate import error_rate, progressive


def test_progressive_matches_learner_and_loss(rng):
    X = rng.uniform(-1, 1, (500, 3))
    y = np.sin(X[:, 0])
    res = progressive(ks.TaylorAWV(), X, y, checkpoints=[10, 100, 500], progress=False)
    preds = ks.TaylorAWV().progressive_predict(X, y)
    np.testing.assert_array_equal(res.predictions, preds)
    assert res.rounds.tolist() == [10, 100, 500]
    for t, loss in zip(res.rounds, res.loss):
        assert loss == pytest.approx(np.mean((preds[:t] - y[:t]) ** 2), rel=1e-12)
    assert np.all(np.diff(res.seconds) >= 0) and res.dim.tolist() == [10, 10, 10]
    frame = res.to_frame()
    assert list(frame.columns[:5]) == ["rounds", "loss", "seconds", "dim", "memory_mb"]


def test_progressive_scores_with_the_learners_own_task(rng):
    X = rng.normal(size=(400, 3))
    y = np.where(X[:, 0] + 0.3 * X[:, 1] > 0, 1.0, -1.0)

    def make():
        return ks.FOGD(ks.kernels.Gaussian(1.0), n_features=20, loss="hinge", seed=3)

    res = progressive(make(), X, y, checkpoints=[400], progress=False)
    preds = make().progressive_predict(X, y)
    assert res.task == "classification"
    assert res.loss[-1] == pytest.approx(np.mean(np.where(preds >= 0, 1.0, -1.0) != y), rel=1e-12)
    # an explicit task still wins
    squared = progressive(make(), X, y, task="regression", checkpoints=[400], progress=False)
    assert squared.loss[-1] == pytest.approx(np.mean((preds - y) ** 2), rel=1e-12)


def test_classification_error_counts_sign_zero_as_plus_one():
    assert error_rate([0.0, 0.0, -0.1, 0.2], [1, -1, -1, -1]).tolist() == [0, 1, 0, 1]


def test_time_budget_stops_early(rng):
    X = rng.uniform(-1, 1, (20000, 8))
    y = X[:, 0]
    res = progressive(ks.TaylorAWV(degree=4), X, y, time_budget=1e-4, progress=False)
    assert res.stopped_by_budget and res.n_rounds < 20000
    assert res.predictions.size == res.n_rounds == res.rounds[-1]


@pytest.mark.slow
def test_cli_run_default_stream(capsys, tmp_path):
    from kernelstream.cli import main

    plot = tmp_path / "run.png"
    model = tmp_path / "model.pkl"
    assert (
        main(
            ["run", "--n", "1000", "--plot", str(plot), "--save-model", str(model), "--no-progress"]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert "rounds" in out and "loss" in out and "1000 rounds" in out
    assert plot.stat().st_size > 1000
    assert main(["run", "--n", "1000", "--resume", str(model), "--no-progress"]) == 0
    assert "resumed" in capsys.readouterr().out


def test_cli_run_dataset_and_bad_learner(capsys, data_dir):
    from kernelstream.cli import main

    assert (
        main(["run", "--dataset", "airfoil", "--limit", "500", "--degree", "3", "--no-progress"])
        == 0
    )
    assert "500 rounds" in capsys.readouterr().out
    assert main(["run", "--learner", "no-such-learner"]) == 2
    assert "unknown learner" in capsys.readouterr().err
    assert main(["run", "--dataset", "nope", "--data-home", str(data_dir)]) == 2
    assert "nope" in capsys.readouterr().err


@pytest.mark.slow
@pytest.mark.data
def test_reproduce_list_and_quick_entry(capsys, tmp_path):
    from kernelstream.cli import main

    assert main(["reproduce", "--list"]) == 0
    assert "taylor-casp" in capsys.readouterr().out
    assert main(["reproduce", "taylor-casp", "--quick", "--out", str(tmp_path)]) == 0
    payload = json.loads((tmp_path / "taylor-casp.json").read_text())
    assert payload["entry"] == "taylor-casp"
    assert {"entry", "paper", "seconds", "settings", "rows", "figures", "notes"} <= set(payload)
    assert len(payload["rows"]) == 3 and all(r["dim"] in (55, 220, 715) for r in payload["rows"])
    for f in payload["figures"]:
        assert (tmp_path / f.split("/")[-1]).stat().st_size > 1000


@pytest.mark.slow
def test_bench_quick_prints_ratios(capsys):
    from kernelstream.bench import run_bench

    rows = run_bench(["taylor-awv"], quick=True, printer=lambda *a: None)
    assert rows and all(r["ratio"] > 0 and r["rust_us"] > 0 for r in rows)


@pytest.mark.parametrize(
    "name", sorted(__import__("kernelstream.cli", fromlist=["LEARNERS"]).LEARNERS)
)
def test_cli_runs_every_learner(name, capsys):
    from kernelstream.cli import main

    assert main(["run", "--learner", name, "--n", "300", "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "300 rounds" in out and "final average squared loss" in out
