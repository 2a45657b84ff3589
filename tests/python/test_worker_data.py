"""The data of a task on a Dask worker (kernelstream.executors.worker), in process: a
shipped file is used only if its sha256 is the client's, a worker's own copy only if it is
the client's file, and an error says where it happened."""

from __future__ import annotations

import gzip
import hashlib

import numpy as np
import pytest
from kernelstream.datasets import load
from kernelstream.executors import data_plan
from kernelstream.executors.worker import WorkerError, WorkerInternalError, call


def _csv_gz(path, rows):
    with gzip.open(path, "wt") as fh:
        fh.write("x0,y\n" + "".join(f"{a},{b}\n" for a, b in rows))
    return path.read_bytes()


def _load(plan, name):
    return call(lambda n: load(n, "/a/path/of/the/client"), name, plan)


def test_a_shipped_file_is_checked_and_read(tmp_path, monkeypatch):
    monkeypatch.setenv("KERNELSTREAM_DATA", str(tmp_path / "empty"))
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path / "local"))
    (tmp_path / "local").mkdir()
    raw = _csv_gz(tmp_path / "mine.csv.gz", [(1, 2), (3, 4)])
    good = {"file": "mine.csv.gz", "sha256": hashlib.sha256(raw).hexdigest(), "data": raw}
    X, y = _load({"mine": good}, "mine")
    assert np.array_equal(X, [[1.0], [3.0]]) and np.array_equal(y, [2.0, 4.0])

    damaged = dict(good, data=raw[:-3] + b"xyz", sha256="0" * 64)
    with pytest.raises(WorkerError, match=r"on Dask worker .*FetchError: .*damaged in transit"):
        _load({"other": damaged}, "other")


def test_a_workers_own_copy_must_be_the_clients(tmp_path, monkeypatch):
    client, worker = tmp_path / "client", tmp_path / "worker"
    client.mkdir(), worker.mkdir()
    _csv_gz(client / "mine.csv.gz", [(1, 2)])
    _csv_gz(worker / "mine.csv.gz", [(1, 5)])
    plan = data_plan(["mine"], client, worker_data="fetch")
    assert plan["mine"]["data"] is None and plan["mine"]["sha256"]
    monkeypatch.setenv("KERNELSTREAM_DATA", str(worker))
    with pytest.raises(WorkerError, match="is not the client's file"):
        _load(plan, "mine")
    (worker / "mine.csv.gz").write_bytes((client / "mine.csv.gz").read_bytes())
    X, y = _load(plan, "mine")
    assert y.tolist() == [2.0]


def test_errors_off_a_worker_name_the_host_and_keep_their_kind(tmp_path, monkeypatch):
    monkeypatch.setenv("KERNELSTREAM_DATA", str(tmp_path))
    with pytest.raises(WorkerError, match=r"not in a worker\) on host .*FileNotFoundError"):
        _load({}, "nowhere")
    with pytest.raises(WorkerInternalError, match=r"(?s)ZeroDivisionError.*Traceback"):
        call(lambda t: 1 / t, 0, {})
    assert not isinstance(WorkerInternalError("x"), ValueError)  # a bug is no user error


def test_shipping_needs_a_known_mode():
    from kernelstream.errors import ParameterError
    from kernelstream.executors import run_tasks

    with pytest.raises(ParameterError, match="ship or fetch"):
        run_tasks(abs, [1], worker_data="both")


def test_a_worker_with_another_version_refuses_the_task():
    import kernelstream

    assert call(abs, -2, {}, kernelstream.__version__) == 2
    with pytest.raises(WorkerError, match=r"runs kernelstream .*, the client 0\.0\.0-other"):
        call(abs, -2, {}, "0.0.0-other")
