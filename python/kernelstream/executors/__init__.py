"""Executors of independent tasks (the grids of ``kernelstream reproduce``, the series of
:func:`kernelstream.forecast_panel`): serial, local processes (joblib), or a Dask cluster.

Tasks are independent and carry their own seeds, so the results do not depend on
the executor or on the number of workers; results come back in task order.

On a Dask cluster the workers need neither the client's data directory nor
``$KERNELSTREAM_DATA``: the datasets named in ``data`` travel with the tasks
(``worker_data="ship"``: the client's files, scattered once to every worker and
sha256-checked there) or are fetched by each worker into its own data directory through
the dataset registry (``"fetch"``), see :mod:`kernelstream.executors.worker`. An error
raised on a worker says so and names the worker (``docs/cluster.md``).
"""

from __future__ import annotations

from ..errors import ParameterError

#: how the datasets reach Dask workers (``--worker-data``)
WORKER_DATA = ("ship", "fetch")


def run_tasks(
    fn,
    tasks: list,
    jobs: int = 1,
    executor: str = "auto",
    scheduler: str | None = None,
    data=(),
    data_home=None,
    worker_data: str = "ship",
) -> list:
    """``[fn(t) for t in tasks]`` on the chosen executor, in task order.

    ``data``: names of the datasets the tasks read (only the Dask executor uses them: see
    the module's docstring); ``data_home``: the client's data directory.
    """
    if worker_data not in WORKER_DATA:
        raise ParameterError(f"worker_data must be ship or fetch, got {worker_data!r}")
    if executor == "auto":
        executor = "dask" if scheduler else ("joblib" if jobs != 1 and len(tasks) > 1 else "serial")
    if executor == "serial" or len(tasks) <= 1 and executor != "dask":
        return [fn(t) for t in tasks]
    if executor == "joblib":
        try:
            from joblib import Parallel, delayed
        except ImportError as exc:  # pragma: no cover
            raise ParameterError(
                "--jobs needs joblib: pip install 'kernelstream[parallel]'"
            ) from exc
        return Parallel(n_jobs=jobs, backend="loky")(delayed(fn)(t) for t in tasks)
    if executor == "dask":
        try:
            from distributed import Client
        except ImportError as exc:  # pragma: no cover
            raise ParameterError(
                "--executor dask needs dask.distributed: pip install 'kernelstream[parallel]'"
            ) from exc
        if scheduler is None:
            raise ParameterError("--executor dask needs --scheduler ADDRESS (or a Client object)")
        from .worker import call

        client = scheduler if isinstance(scheduler, Client) else _connect(Client, scheduler)
        try:
            plan = data_plan(data, data_home, worker_data)
            for entry in plan.values():
                if entry["data"] is not None:  # once to every worker, not once per task
                    entry["data"] = client.scatter([entry["data"]], broadcast=True)[0]
            from .._core import __version__

            futures = [client.submit(call, fn, t, plan, __version__, pure=False) for t in tasks]
            return _gather(client, futures)
        finally:
            if client is not scheduler:
                client.close()
    raise ParameterError(f"unknown executor {executor!r}")


#: seconds a Dask run waits with no worker left before it gives up (the scheduler would
#: wait forever for one to join)
LOST_WORKERS_GRACE = 30.0


def _gather(client, futures) -> list:
    """``client.gather(futures)``, polling the scheduler's workers: when every worker is
    gone for ``LOST_WORKERS_GRACE`` seconds the tasks are cancelled and a
    :class:`~kernelstream.executors.worker.WorkerError` names the workers lost."""
    import time

    from distributed import wait

    from .worker import WorkerError

    seen: set = set()
    alone_since = None
    while True:
        try:
            wait(futures, timeout=1.0)
            return client.gather(futures)
        except TimeoutError:
            pass
        workers = set(client.scheduler_info().get("workers", {}))
        seen |= workers
        if workers:
            alone_since = None
            continue
        alone_since = alone_since if alone_since is not None else time.monotonic()
        if time.monotonic() - alone_since >= LOST_WORKERS_GRACE:
            done = sum(f.done() for f in futures)
            client.cancel(futures)
            lost = ", ".join(sorted(seen)) or "none had joined"
            raise WorkerError(
                f"every Dask worker is gone ({lost}); {done} of {len(futures)} tasks were "
                f"done and no worker joined within {LOST_WORKERS_GRACE:g} s"
            )


def data_plan(names, data_home=None, worker_data: str = "ship") -> dict:
    """``{name: {"file", "sha256", "data"}}`` for the datasets ``names``: the client's file
    name and sha256 (``None`` when the client has no copy; the worker then fetches it) and,
    when shipping, its bytes."""
    import hashlib

    from ..datasets import DATASETS
    from ..datasets import data_home as resolve

    home = resolve(data_home)
    plan = {}
    for name in names:
        found = [p for p in (home / f"{name}.csv.gz", home / f"{name}.csv") if p.exists()]
        if not found:
            file = DATASETS[name].filename if name in DATASETS else f"{name}.csv.gz"
            plan[name] = {"file": file, "sha256": None, "data": None}
            continue
        raw = found[0].read_bytes()
        plan[name] = {
            "file": found[0].name,
            "sha256": hashlib.sha256(raw).hexdigest(),
            "data": raw if worker_data == "ship" else None,
        }
    return plan


#: seconds to wait for a Dask scheduler before giving up
CONNECT_TIMEOUT = 10


def _connect(Client, address):
    """A Client on ``address``; a :class:`ParameterError` if it cannot be reached."""
    import logging

    quiet = logging.getLogger("distributed")
    level = quiet.level
    quiet.setLevel(logging.CRITICAL)  # its retry warnings would bury the one-line error
    _probe(address)
    try:
        return Client(address, timeout=CONNECT_TIMEOUT)
    except (OSError, TimeoutError, ValueError) as exc:
        raise ParameterError(
            f"cannot reach the Dask scheduler at {address!r} within {CONNECT_TIMEOUT} s "
            f"({type(exc).__name__}: {exc})"
        ) from None
    finally:
        quiet.setLevel(level)


def _probe(address: str) -> None:
    """Fails at once when nothing listens at a ``[tcp://]host:port`` address (Dask would
    retry until its timeout)."""
    import socket
    from urllib.parse import urlsplit

    if not isinstance(address, str):
        return
    parts = urlsplit(address if "://" in address else "tcp://" + address)
    if parts.scheme != "tcp":
        return
    try:
        host, port = parts.hostname, parts.port
    except ValueError:
        raise ParameterError(f"bad Dask scheduler address {address!r}") from None
    if not host or port is None:
        raise ParameterError(f"Dask scheduler address {address!r} needs host:port")
    try:
        socket.create_connection((host, port), timeout=CONNECT_TIMEOUT).close()
    except OSError as exc:
        raise ParameterError(
            f"cannot reach the Dask scheduler at {address!r} ({exc.strerror or exc})"
        ) from None
