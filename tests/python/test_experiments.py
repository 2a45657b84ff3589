"""The reproduce framework: every registered entry runs in its reduced form and writes
its table, JSON and PNG; executors give identical results; the results cache."""

from __future__ import annotations

import json

import numpy as np
import pytest
from kernelstream.datasets import DATASETS
from kernelstream.executors import run_tasks
from kernelstream.experiments import Context, entries, run_entry
from kernelstream.experiments.common import progressive_task


def _needs_data(name):
    """Entries that read release datasets (the registry records which entry uses which)."""
    return any(name in d.used_by for d in DATASETS.values() if d.origin == "release")


# End-to-end reproduction runs (every entry in its --quick form): `pytest -m slow`.
@pytest.mark.slow
@pytest.mark.parametrize(
    "name",
    [pytest.param(n, marks=pytest.mark.data) if _needs_data(n) else n for n in sorted(entries())],
)
def test_entry_runs_quick(name, tmp_path):
    ctx = Context(tmp_path, quick=True)
    payload = run_entry(name, ctx)
    stored = json.loads((tmp_path / f"{name}.json").read_text())
    assert stored["entry"] == name and stored["rows"]
    for row in stored["rows"]:
        assert {
            "dataset",
            "learner",
            "metric",
            "ours",
            "ours_std",
            "paper",
            "dim",
            "seconds",
        } <= set(row)
    assert stored["figures"], "every entry draws at least one figure"
    for f in stored["figures"]:
        assert f.endswith(".png")
        with open(f, "rb") as fh:
            assert fh.read(8) == b"\x89PNG\r\n\x1a\n"
    assert (tmp_path / f"{name}.md").exists()
    assert payload["_table"].startswith("| dataset")


def _grid():
    return [
        {
            "dataset": "airfoil",
            "limit": 300,
            "shuffle_seed": s,
            "task": "regression",
            "label": f"M={m}",
            "learner": {"class": "TaylorAWV", "params": {"degree": m}},
        }
        for m in (1, 2)
        for s in (0, 1)
    ]


@pytest.mark.slow
@pytest.mark.data
def test_executors_give_identical_results():
    tasks = _grid()
    serial = run_tasks(progressive_task, tasks, executor="serial")
    joblib = run_tasks(progressive_task, tasks, jobs=2, executor="joblib")
    for a, b in zip(serial, joblib):
        assert a["loss"] == b["loss"] and a["rounds"] == b["rounds"]
    assert serial[0]["loss"] != serial[1]["loss"]  # different seeds, different orders


@pytest.mark.slow
@pytest.mark.data
def test_dask_local_cluster_gives_identical_results():
    distributed = pytest.importorskip("distributed")
    tasks = _grid()
    serial = run_tasks(progressive_task, tasks, executor="serial")
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    ) as cluster:
        with distributed.Client(cluster) as client:
            dask = run_tasks(progressive_task, tasks, executor="dask", scheduler=client)
    for a, b in zip(serial, dask):
        assert a["loss"] == b["loss"]


def test_cache_key_follows_the_entrys_own_code(monkeypatch):
    """An edit to one entry's module changes that entry's code checksum only; an edit to a
    shared module changes every entry's; the report writer changes none."""
    from pathlib import Path

    from kernelstream.experiments import cache

    real = Path.read_bytes

    def checksums(edited=None):
        def read_bytes(self):
            data = real(self)
            return data + b"# edited" if edited and self.name == edited else data

        monkeypatch.setattr(Path, "read_bytes", read_bytes)
        monkeypatch.setattr(cache, "_CODE_SUM", {})
        mods = ("pkawv_fig2", "taylor_casp")
        return [cache._code_checksum(f"kernelstream.experiments.{m}") for m in mods]

    base = checksums()
    assert base[0] != base[1]
    own = checksums("pkawv_fig2.py")
    assert own[0] != base[0] and own[1] == base[1]
    shared = checksums("registry.py")
    assert shared[0] != base[0] and shared[1] != base[1]
    assert checksums("report.py") == base


@pytest.mark.slow
@pytest.mark.data
def test_cache_skips_unchanged_and_force_recomputes(tmp_path):
    ctx = Context(tmp_path, quick=True)
    first = run_entry("taylor-casp", ctx)
    second = run_entry("taylor-casp", ctx)
    assert second.get("_cached") and second["seconds"] == first["seconds"]
    third = run_entry("taylor-casp", ctx, force=True)
    assert not third.get("_cached")
    other = run_entry("taylor-casp", Context(tmp_path, quick=True, seeds=2))
    assert not other.get("_cached")


@pytest.mark.slow
@pytest.mark.data
def test_report_is_written(tmp_path):
    from kernelstream.experiments.report import write_report

    payload = run_entry("taylor-casp", Context(tmp_path / "out", quick=True))
    report = tmp_path / "REPRODUCTION.md"
    write_report([payload], report, tmp_path / "out")
    text = report.read_text()
    assert "taylor-casp" in text and "## Summary" in text
    assert (tmp_path / "docs" / "figures" / "taylor-casp.png").exists()


def test_adversary_beats_random_points_and_leaves_learner_untouched():
    import kernelstream as ks
    from kernelstream.datasets.adversarial import GreedyAdversary, RegularisedComparator
    from kernelstream.kernels import Gaussian

    rng = np.random.default_rng(0)
    learner = ks.TaylorAWV(degree=2)
    X = rng.uniform(-1, 1, (5, 3))
    learner.learn_many(X, np.sign(X[:, 0]))
    adv = GreedyAdversary(Gaussian(1.0), lam=1.0, d=3, restarts=2, seed=1, maxiter=30)
    for x, y in zip(X, np.sign(X[:, 0])):
        adv.comparator.add(x, y)
    before = learner.__getstate__()["core"]
    x, y = adv.choose(learner)
    assert learner.__getstate__()["core"] == before and learner.n_seen == 5
    chosen = adv.objective(learner, x)[0]
    random_vals = [adv.objective(learner, rng.uniform(-1, 1, 3))[0] for _ in range(50)]
    assert chosen >= max(random_vals) - 1e-9
    assert abs(y) == 1.0
    # comparator value equals the closed form lam Y^T (K + lam I)^{-1} Y
    comp = RegularisedComparator(Gaussian(1.0), lam=0.5)
    for xi, yi in zip(X, X[:, 1]):
        comp.add(xi, yi)
    K = Gaussian(1.0)(X)
    assert comp.value == pytest.approx(
        0.5 * X[:, 1] @ np.linalg.solve(K + 0.5 * np.eye(5), X[:, 1]), rel=1e-10
    )
