"""What a task of an experiment grid needs on a Dask worker: its datasets, and errors that
say where they happened.

The client sends a *data plan* with the tasks (:func:`kernelstream.executors.data_plan`):
for each dataset the entry reads (the registry's ``used_by``), its file name, the sha256
of the client's copy when the client has one, and, when the data are shipped, the file
itself (scattered once to every worker). On the worker, :func:`call` runs the task with
:func:`kernelstream.datasets.load` reading through :class:`WorkerFiles`:

* a shipped file is checked against the client's sha256 and written to the worker's local
  directory (removed with the worker);
* otherwise the file comes from the worker's own data directory (``$KERNELSTREAM_DATA``
  there, else its platform cache), downloaded through the registry
  (:func:`kernelstream.datasets.fetch`: sha256-checked release files) when it is missing;
  a copy that is not the client's (another sha256) is refused, so that the results are
  those of a local run.

The client's ``data_home`` names a directory of another machine and is ignored here.
"""

from __future__ import annotations

import hashlib
import socket
import tempfile
import traceback
from pathlib import Path

from .._files import write_bytes
from ..errors import KernelstreamError


class WorkerError(KernelstreamError):
    """A task failed on a Dask worker with a user-facing error (missing or damaged data, bad
    input or parameters, a failed download, no memory left): the message names the worker, its host, and
    the type and message of the error raised there."""


class WorkerInternalError(RuntimeError):
    """A task failed on a Dask worker with any other exception (a bug): the message names the
    worker and holds the traceback printed there."""


def call(fn, task, plan: dict, version: str | None = None):
    """Runs ``fn(task)`` on this worker, with the datasets of ``plan``; an exception comes
    back as :class:`WorkerError` or :class:`WorkerInternalError` naming the worker.
    ``version``: the client's kernelstream version, which the worker's must equal (other
    code, other results)."""
    from .._core import __version__
    from ..datasets.loaders import use_source

    try:
        if version is not None and version != __version__:
            raise _version_error(version, __version__)
        with use_source(WorkerFiles(plan)):
            return fn(task)
    except Exception as exc:  # noqa: BLE001 - every failure must name the worker
        text = f"on Dask worker {where()}: {type(exc).__name__}: {exc}"
        if isinstance(exc, (KernelstreamError, OSError, MemoryError)):
            raise WorkerError(text) from None
        trace = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
        raise WorkerInternalError(f"{text}\n{trace}") from None


def where() -> str:
    """This worker's name and address and the host's name (``"... on host NAME"``)."""
    host = socket.gethostname()
    try:
        from distributed import get_worker

        worker = get_worker()
    except (ImportError, ValueError):
        return f"(none: not in a worker) on host {host}"
    name, address = str(worker.name), str(worker.address)
    label = address if name == address else f"{name!r} ({address})"
    return f"{label} on host {host}"


def _local_directory() -> Path:
    try:
        from distributed import get_worker

        return Path(get_worker().local_directory)
    except (ImportError, ValueError):
        return Path(tempfile.gettempdir())


def sha256_of(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


class WorkerFiles:
    """``name -> path of a checked copy of the dataset on this worker`` (see the module's
    docstring for where the copy comes from)."""

    def __init__(self, plan: dict):
        self.plan = plan

    def __call__(self, name: str) -> Path:
        entry = self.plan.get(name)
        if entry is not None and entry.get("data") is not None:
            return self._shipped(entry)
        path = self._own(name)
        want = entry.get("sha256") if entry else None
        if want is not None:
            got = sha256_of(path.read_bytes())
            if got != want:
                raise _mismatch(
                    f"{path} (this worker's {name}) is not the client's file: sha256 "
                    f"{got[:16]}..., the client's {want[:16]}...; remove it (it is fetched "
                    "again) or let the client send its copy (--worker-data ship)"
                )
        return path

    def _shipped(self, entry: dict) -> Path:
        want = entry["sha256"]
        dest = _local_directory() / "kernelstream-data" / want[:24] / entry["file"]
        if dest.exists():  # written below by this worker, after the check
            return dest
        data = entry["data"]
        got = sha256_of(data)
        if got != want:
            raise _mismatch(
                f"the copy of {entry['file']} received from the client has sha256 {got[:16]}..., "
                f"the client's file {want[:16]}...: damaged in transit"
            )
        dest.parent.mkdir(parents=True, exist_ok=True)
        # atomic (a unique temporary file, fsync, rename): a concurrent task sees the
        # whole file or none
        write_bytes(dest, data)
        return dest

    @staticmethod
    def _own(name: str) -> Path:
        """The file in this worker's data directory (as :func:`kernelstream.datasets.load`
        looks for it); a registry dataset that is missing is fetched into it."""
        from ..datasets import DATASETS, data_home, fetch

        home = data_home()
        for path in (home / f"{name}.csv.gz", home / f"{name}.csv"):
            if path.exists():
                return path
        if name in DATASETS:
            return fetch(name, progress=False)
        raise FileNotFoundError(
            f"dataset {name!r} not found: looked for {home / (name + '.csv.gz')} on this worker "
            "(not a registry dataset, so it cannot be fetched; the client has no copy to send)"
        )


def _version_error(client: str, worker: str):
    from ..errors import ParameterError

    return ParameterError(
        f"this worker runs kernelstream {worker}, the client {client}: install the client's "
        "version on every worker (the results would differ)"
    )


def _mismatch(text: str):
    from ..datasets import FetchError

    return FetchError(text)
