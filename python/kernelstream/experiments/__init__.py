"""Paper experiments (``kernelstream reproduce``). One module per entry, listed in
:mod:`kernelstream.experiments.catalog`."""

from ..executors.worker import WorkerError, WorkerInternalError
from .catalog import entries, run_entry
from .registry import Context, EntryResult, Row, register

__all__ = [
    "Context",
    "EntryResult",
    "Row",
    "WorkerError",
    "WorkerInternalError",
    "entries",
    "register",
    "run_entry",
]
