"""The entries of ``kernelstream reproduce``: one line per entry module (keep alphabetical).

Each module defines ``run(ctx) -> EntryResult`` decorated with
:func:`kernelstream.experiments.registry.register`; adding an entry = writing its
module and adding it here.
"""

from __future__ import annotations

import importlib

from ..errors import ParameterError
from .registry import Context, Entry, run

#: The entry modules of this package, one per entry (keep alphabetical).
ENTRY_MODULES = (
    "pkawv_fig2",
    "pkawv_fig3",
    "pkawv_fig4",
    "projection_fig1",
    "projection_fig3",
    "projection_fig4",
    "projection_fig5",
    "pros_n_kons_table1",
    "pros_n_kons_table2",
    "taylor_casp",
    "vaw2_table2",
)


def entries() -> dict[str, Entry]:
    """Every entry by name, sorted."""
    modules = [importlib.import_module(f".{m}", __package__) for m in ENTRY_MODULES]
    found = [module.run.entry for module in modules]
    return {e.name: e for e in sorted(found, key=lambda e: e.name)}


def run_entry(name: str, ctx: Context, write: bool = True, force: bool = False) -> dict:
    """Runs the entry ``name`` (see :func:`kernelstream.experiments.registry.run`)."""
    all_entries = entries()
    if name not in all_entries:
        raise ParameterError(f"unknown experiment {name!r}; known: {', '.join(all_entries)}")
    return run(all_entries[name], ctx, write=write, force=force)
