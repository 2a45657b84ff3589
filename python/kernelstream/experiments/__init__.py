"""Paper experiments (``kernelstream reproduce``). One module per entry; each
registers itself with :func:`kernelstream.experiments.registry.register`."""

from .registry import Context, EntryResult, Row, entries, register, run_entry

__all__ = ["Context", "EntryResult", "Row", "entries", "register", "run_entry"]
