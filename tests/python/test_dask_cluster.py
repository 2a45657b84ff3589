"""Experiment grids on a real Dask cluster: a ``dask scheduler`` and two ``dask worker``
processes on 127.0.0.1 whose environment has no ``KERNELSTREAM_DATA`` and an empty home,
as on machines that never saw the data. The results must be those of a local run; errors
raised on a worker must say so and name it.

Every process is started in its own session and killed with its group at the end (and
the scheduler and workers stop by themselves after a while without their peer); every
client command runs in a subprocess with a timeout.
"""

from __future__ import annotations

import functools
import gzip
import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

#: seconds any one step (a process starting, a command) may take
STEP = 240


def _dask():
    pytest.importorskip("distributed")
    exe = shutil.which("dask", path=os.path.dirname(sys.executable)) or shutil.which("dask")
    if exe is None:
        pytest.skip("the `dask` command is not installed")
    return exe


def _stop(proc: subprocess.Popen) -> None:
    """Ends the process group started with ``proc`` (TERM, then KILL)."""
    if proc.poll() is not None:
        return
    for sig, wait in ((signal.SIGTERM, 15), (signal.SIGKILL, 15)):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            return
        try:
            proc.wait(wait)
            return
        except subprocess.TimeoutExpired:
            continue


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, *args):  # no request log on stderr
        pass


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """A directory served over HTTP on 127.0.0.1: the workers' ``KERNELSTREAM_DATA_URL``."""
    root = tmp_path_factory.mktemp("served")
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=root))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield root, f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture(scope="module")
def cluster(tmp_path_factory, served):
    """``(address, worker names)`` of a scheduler and two single-thread workers."""
    exe = _dask()
    from distributed import Client

    tmp = tmp_path_factory.mktemp("cluster")
    home = tmp / "home"
    home.mkdir()
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("KERNELSTREAM_DATA") and not k.startswith("XDG_")
    }
    env.update(HOME=str(home), KERNELSTREAM_DATA_URL=served[1], PYTHONUNBUFFERED="1")
    procs = []

    def start(args, name):
        log = open(tmp / f"{name}.log", "wb")  # noqa: SIM115 - closed with the process
        procs.append(
            (
                subprocess.Popen(
                    [exe, *args],
                    env=env,
                    cwd=home,
                    stdout=log,
                    stderr=subprocess.STDOUT,
                    start_new_session=True,
                ),
                log,
            )
        )

    try:
        sched_file = tmp / "scheduler.json"
        start(
            [
                "scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
                "--scheduler-file", str(sched_file), "--idle-timeout", "900",
            ],
            "scheduler",
        )  # fmt: skip
        address, deadline = None, time.monotonic() + STEP
        while address is None:
            assert procs[0][0].poll() is None, (tmp / "scheduler.log").read_text()
            if time.monotonic() > deadline:  # a guard against a hang, not a speed target
                pytest.fail("the scheduler did not start")
            try:
                address = json.loads(sched_file.read_text())["address"]
            except (OSError, ValueError, KeyError):  # not written yet, or not whole
                time.sleep(0.2)
        names = ["w1", "w2"]
        for name in names:
            start(
                [
                    "worker", address, "--name", name, "--host", "127.0.0.1", "--nthreads", "1",
                    "--no-nanny", "--no-dashboard", "--death-timeout", "60",
                    "--local-directory", str(tmp / name),
                ],
                name,
            )  # fmt: skip
        with Client(address, timeout=STEP) as client:
            client.wait_for_workers(2, timeout=STEP)
        yield address, names
    finally:
        for proc, log in reversed(procs):
            _stop(proc)
            log.close()


def _reproduce(out: Path, data: Path, *extra):
    env = dict(os.environ, KERNELSTREAM_DATA=str(data))
    return subprocess.run(
        [sys.executable, "-m", "kernelstream", "reproduce", "taylor-casp", "--quick",
         "--out", str(out), *extra],
        env=env,
        capture_output=True,
        text=True,
        timeout=STEP,
    )  # fmt: skip


def _rows(out: Path):
    rows = json.loads((out / "taylor-casp.json").read_text())["rows"]
    return [(r["learner"], r["ours"], r["dim"], r["extra"]["rounds"]) for r in rows]


@pytest.fixture(scope="module")
def local_rows(tmp_path_factory):
    """The local run's rows (the tests that use it take ``data_dir``, which skips them
    without the data before this runs)."""
    from kernelstream.datasets import data_home

    out = tmp_path_factory.mktemp("local")
    done = _reproduce(out, data_home())
    assert done.returncode == 0, done.stderr
    return _rows(out)


def test_reproduce_on_workers_without_data_gives_the_local_results(
    cluster, local_rows, data_dir, tmp_path
):
    address, _ = cluster
    done = _reproduce(tmp_path, data_dir, "--executor", "dask", "--scheduler", address)
    assert done.returncode == 0, done.stderr
    assert _rows(tmp_path) == local_rows  # the same bits: same data, same code, same seeds
    assert len(local_rows) == 3 and all(r[3] == 3000 for r in local_rows)


def test_workers_fetch_the_data_hash_checked_and_name_themselves_on_errors(
    cluster, served, local_rows, data_dir, tmp_path
):
    address, names = cluster
    root, _ = served
    args = ("--executor", "dask", "--scheduler", address, "--worker-data", "fetch")

    # nothing served: the download fails on a worker, which the error names
    done = _reproduce(tmp_path / "a", data_dir, *args)
    assert done.returncode == 2, done.stderr
    err = done.stderr.strip()
    assert err.count("\n") == 0 and err.startswith("kernelstream: error: on Dask worker "), err
    assert any(f"'{n}' (tcp://127.0.0.1:" in err for n in names), err
    assert "FetchError" in err and "casp.csv.gz" in err, err

    # a damaged copy is refused by its sha256 and never used
    with gzip.open(root / "casp.csv.gz", "wt") as fh:
        fh.write("x0,y\n1,2\n")
    done = _reproduce(tmp_path / "b", data_dir, *args)
    assert done.returncode == 2, done.stderr
    assert "on Dask worker" in done.stderr and "checksum mismatch" in done.stderr, done.stderr

    # the right copy: fetched into each worker's cache (under its empty home), same results
    shutil.copyfile(data_dir / "casp.csv.gz", root / "casp.csv.gz")
    done = _reproduce(tmp_path / "c", data_dir, *args)
    assert done.returncode == 0, done.stderr
    assert _rows(tmp_path / "c") == local_rows


_ERRORS = """
import json
import sys
from kernelstream.experiments import WorkerError, WorkerInternalError
from kernelstream.experiments.common import make_learner
from kernelstream.executors import run_tasks

address, texts = sys.argv[1], []
for spec, kind in (
    ({"class": "TaylorAWV", "params": {"degree": -1}}, WorkerError),
    ({"class": "NoSuchLearner"}, WorkerInternalError),
):
    try:
        run_tasks(make_learner, [spec], executor="dask", scheduler=address)
    except kind as exc:
        texts.append(str(exc))
    else:
        raise SystemExit(f"no {kind.__name__} for {spec}")
print(json.dumps(texts))
"""


def test_worker_errors_say_where_and_keep_their_kind(cluster, tmp_path):
    address, names = cluster
    done = subprocess.run(
        [sys.executable, "-c", _ERRORS, address],
        capture_output=True,
        text=True,
        timeout=STEP,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    user, bug = json.loads(done.stdout)
    for text in (user, bug):
        assert "on Dask worker" in text and "tcp://127.0.0.1:" in text, text
        assert any(f"'{n}'" in text for n in names), text
    assert "ParameterError" in user and "degree" in user
    assert "AttributeError" in bug and "Traceback" in bug and "NoSuchLearner" in bug
