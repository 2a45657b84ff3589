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
        client = scheduler if isinstance(scheduler, Client) else Client(scheduler)
        try:
            futures = client.map(fn, tasks, pure=False)
            return client.gather(futures)
        finally:
            if client is not scheduler:
                client.close()
    raise ParameterError(f"unknown executor {executor!r}")
