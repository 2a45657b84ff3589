"""``run_tasks`` on a Dask cluster whose workers are all killed mid-run: it stops with one
error naming the lost workers instead of waiting forever for a worker to join."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

pytestmark = pytest.mark.slow

CHILD = textwrap.dedent(
    """
    import os, subprocess, sys, threading, time
    from distributed import Client, LocalCluster
    from kernelstream import executors
    from kernelstream.executors.worker import WorkerError

    def task(t):
        time.sleep(120)
        return t

    executors.LOST_WORKERS_GRACE = 3.0
    cluster = LocalCluster(n_workers=0, processes=False, dashboard_address=None,
                           protocol="tcp", host="127.0.0.1")
    client = Client(cluster)
    # two worker processes without a nanny (a nanny would start them again)
    procs = [subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_worker",
                               cluster.scheduler_address, "--no-nanny", "--nthreads", "1",
                               "--no-dashboard"], stderr=subprocess.DEVNULL)
             for _ in range(2)]
    client.wait_for_workers(2, timeout=120)
    names = sorted(client.scheduler_info()["workers"])

    def kill():
        time.sleep(3)  # the tasks are running
        for p in procs:
            p.kill()

    threading.Thread(target=kill, daemon=True).start()
    try:
        executors.run_tasks(task, [1, 2, 3, 4], executor="dask", scheduler=client)
        print("RESULT no error")
    except WorkerError as exc:
        print("RESULT", exc)
        print("NAMES", " ".join(names))
    os._exit(0)
    """
)


def test_all_workers_killed_mid_run_is_one_error_naming_them():
    pytest.importorskip("distributed")
    done = subprocess.run(
        [sys.executable, "-c", CHILD], capture_output=True, text=True, timeout=180
    )  # before the fix: waits forever (the timeout fails the test)
    lines = dict(line.split(" ", 1) for line in done.stdout.splitlines() if " " in line)
    assert "RESULT" in lines, done.stderr[-3000:]
    message = lines["RESULT"]
    assert "every Dask worker is gone" in message and "0 of 4 tasks" in message
    for name in lines["NAMES"].split():
        assert name in message
