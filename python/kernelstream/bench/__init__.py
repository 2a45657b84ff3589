"""``kernelstream bench``: the Rust learners timed against their NumPy references, the one
home of the package's benchmarks (``docs/performance.md``).

The layers: the learners (and the rest of the library) never import this package or
:mod:`kernelstream.experiments`; both may import the learners
(``tests/python/test_layers.py`` checks it).

* :data:`~kernelstream.bench.catalog.CASES`: every case by name;
* :func:`run_bench`: runs cases, prints the table, returns its rows;
* :func:`learners_timed`: which registered learners (``_core.registry()``) each case times;
* :mod:`kernelstream.bench.baseline`: committed results a run compares against.
"""

from __future__ import annotations

from typing import Callable

from .case import BenchCase
from .catalog import CASES
from .runner import dgemm_gflops, run_bench, time_serve

__all__ = ["BenchCase", "CASES", "cases", "dgemm_gflops", "learners_timed", "run_bench",
           "time_serve"]  # fmt: skip


def cases() -> dict[str, Callable]:
    """Every bench case by name: ``case(quick) -> list[BenchCase]``."""
    return dict(CASES)


def learners_timed(names=None) -> dict[str, list[str]]:
    """Case -> the registered learners (``_core.registry()``, in its order) whose
    ``progressive_predict`` the case times: the classes of its fast sides at the quick
    sizes (the cases are built, not run). A case of a sampler or an aggregation rule
    times no learner."""
    from kernelstream.learners import _registry

    registered = _registry.names()
    out = {}
    for name in names or CASES:
        built = {type(case.make_fast()).__name__ for case in CASES[name](True)}
        out[name] = [n for n in registered if n in built]
    return out
