"""Executors for experiment grids: serial, local processes (joblib), or a Dask cluster.

Tasks are independent and carry their own seeds, so the results do not depend on
the executor or on the number of workers; results come back in task order.
"""

from __future__ import annotations

from ..errors import ParameterError


def run_tasks(
    fn, tasks: list, jobs: int = 1, executor: str = "auto", scheduler: str | None = None
) -> list:
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
        client = scheduler if isinstance(scheduler, Client) else _connect(Client, scheduler)
        try:
            futures = client.map(fn, tasks, pure=False)
            return client.gather(futures)
        finally:
            if client is not scheduler:
                client.close()
    raise ParameterError(f"unknown executor {executor!r}")


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
