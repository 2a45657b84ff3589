"""The registry of paper experiments behind ``kernelstream reproduce``.

An entry is a function ``run(ctx: Context) -> EntryResult`` registered with
:func:`register`. It declares its datasets, preprocessing, learners and parameters
in code and in ``EntryResult.settings``, and reports our numbers beside the
paper's in ``rows``. The framework (:func:`run_entry`) times it and writes
``<out>/<entry>.json`` (the shape fixed by the API contract), the table
(``<out>/<entry>.md``) and the figures the entry saved.

Entries run their independent pieces (dataset x learner x seed) through
:meth:`Context.map`, which executes them serially, on local cores (joblib) or on
a Dask cluster; the results are identical whatever the executor, because every
task carries its own seed and tasks never share state.
"""

from __future__ import annotations

import contextlib
import json
import math
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Callable

from .._files import save_figure, write_text
from ..errors import ParameterError


@dataclass(frozen=True)
class Entry:
    name: str
    paper: str
    description: str
    func: Callable


def register(name: str, paper: str, description: str = ""):
    """Decorator marking ``func(ctx) -> EntryResult`` as the entry ``name``: it gets an
    ``entry`` attribute; :mod:`kernelstream.experiments.catalog` lists the entry modules."""

    def deco(func):
        func.entry = Entry(name=name, paper=paper, description=description, func=func)
        return func

    return deco


@dataclass
class Row:
    """One number of a table: ours beside the paper's."""

    dataset: str
    learner: str
    metric: str
    ours: float
    ours_std: float | None = None
    paper: float | None = None
    dim: int | None = None
    seconds: float | None = None
    extra: dict = field(default_factory=dict)
    #: None: the paper's text as stated; else the label of a variant (e.g. "calibrated"),
    #: whose rows the report counts apart
    variant: str | None = None

    def to_json(self) -> dict:
        d = asdict(self)
        extra = d.pop("extra")
        if d["variant"] is None:
            d.pop("variant")
        for k in ("ours", "ours_std", "paper", "seconds"):
            v = d[k]
            d[k] = None if v is None or (isinstance(v, float) and math.isnan(v)) else float(v)
        d["dim"] = None if d["dim"] is None else int(d["dim"])
        if extra:
            d["extra"] = extra
        return d


@dataclass
class EntryResult:
    rows: list
    figures: list = field(default_factory=list)
    notes: list = field(default_factory=list)
    settings: dict = field(default_factory=dict)
    #: wall-clock seconds the paper reports for the same experiment, if it reports any
    paper_seconds: float | None = None


class Context:
    """What an entry gets: where to write, how big to run, and how to run tasks."""

    def __init__(
        self,
        out: Path,
        quick: bool = False,
        seeds: int | None = None,
        time_budget: float | None = None,
        data_home=None,
        jobs: int = 1,
        executor: str = "auto",
        scheduler: str | None = None,
        progress: bool | None = None,
        worker_data: str = "ship",
    ):
        self.out = Path(out)
        self.out.mkdir(parents=True, exist_ok=True)
        self.quick = bool(quick)
        self.seeds = seeds
        self.time_budget = time_budget
        self.data_home = data_home
        self.jobs = int(jobs)
        if executor not in ("auto", "serial", "joblib", "dask"):
            raise ParameterError(f"executor must be serial, joblib or dask, got {executor!r}")
        self.executor = executor
        self.scheduler = scheduler
        self.worker_data = worker_data
        #: the datasets the running entry reads (the dataset registry's ``used_by``), which
        #: reach Dask workers as ``worker_data`` says; set by :func:`run`
        self.datasets: tuple = ()
        self.progress = progress
        #: set when :meth:`plotting` skipped a figure because matplotlib is missing
        self.figures_skipped = False

    def n_runs(self, full: int, quick: int = 1) -> int:
        """Number of repetitions: ``seeds`` if given, else ``quick`` or ``full``."""
        if self.seeds is not None:
            return int(self.seeds)
        return quick if self.quick else full

    def map(self, fn: Callable, tasks: list) -> list:
        """``[fn(t) for t in tasks]``, in order, on the chosen executor.

        ``fn`` must be a module-level function and tasks picklable (for joblib and Dask).
        """
        from ..executors import run_tasks

        return run_tasks(
            fn,
            list(tasks),
            jobs=self.jobs,
            executor=self.executor,
            scheduler=self.scheduler,
            data=self.datasets,
            data_home=self.data_home,
            worker_data=self.worker_data,
        )

    @contextlib.contextmanager
    def plotting(self):
        """Wraps an entry's figure code: without matplotlib (the ``plots`` extra) the block
        is skipped from its first matplotlib import on, :attr:`figures_skipped` is set, and
        the entry's rows, notes and JSON are written as usual."""
        from .._optional import is_missing

        try:
            yield
        except ImportError as exc:
            if not is_missing(exc, "matplotlib"):
                raise
            self.figures_skipped = True

    def savefig(self, fig, name: str) -> str:
        path = self.out / name
        save_figure(fig, path, dpi=110, bbox_inches="tight")
        try:
            import matplotlib.pyplot as plt

            plt.close(fig)
        except Exception:  # pragma: no cover
            pass
        return str(path)


def format_table(name: str, rows: list) -> str:
    """Markdown table of rows: dataset, learner, metric, ours (+- std), paper, dim, seconds."""

    def fmt(v, std=None):
        if v is None or (isinstance(v, float) and math.isnan(v)):
            return "-"
        s = f"{v:.4g}"
        if std is not None and not (isinstance(std, float) and math.isnan(std)):
            s += f" ± {std:.2g}"
        return s

    lines = [
        "| dataset | learner | metric | ours | paper | dim | seconds |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r.dataset} | {r.learner} | {r.metric} | {fmt(r.ours, r.ours_std)} | {fmt(r.paper)} | "
            f"{'-' if r.dim is None else int(r.dim)} | {fmt(r.seconds)} |"
        )
    return "\n".join(lines)


def run(entry: Entry, ctx: Context, write: bool = True, force: bool = False) -> dict:
    """Runs one entry, writes its JSON and table under ``ctx.out``, returns the JSON dict.

    A result is cached under ``ctx.out/.cache``: when the entry's inputs (name, options,
    the entry's source code, the data files' checksums, the library version) are those of
    the cached run and its outputs still exist, the cached result is returned instead of
    recomputing, unless ``force``.
    """
    from ..datasets import DATASETS
    from .cache import cache_key, load_cached, store_cached

    name = entry.name
    ctx.datasets = tuple(d.name for d in DATASETS.values() if name in d.used_by)
    key = cache_key(entry, ctx)
    if not force:
        cached = load_cached(ctx.out, name, key)
        if cached is not None:
            cached["_table"] = format_table(name, [Row(**_row_args(r)) for r in cached["rows"]])
            cached["_cached"] = True
            return cached
    t0 = time.perf_counter()
    result = entry.func(ctx)
    seconds = time.perf_counter() - t0
    payload = {
        "entry": name,
        "paper": entry.paper,
        "seconds": seconds,
        "paper_seconds": result.paper_seconds,
        "settings": dict(result.settings, quick=ctx.quick),
        "rows": [r.to_json() for r in result.rows],
        "figures": [str(f) for f in result.figures],
        "notes": list(result.notes),
    }
    if write:
        # Outputs first (each atomic), the cache record last: it vouches for their checksums.
        outputs = [ctx.out / f"{name}.json", ctx.out / f"{name}.md"]
        write_text(outputs[0], json.dumps(payload, indent=2, default=_json_default))
        table = format_table(name, result.rows)
        notes = "\n".join(f"- {n}" for n in result.notes)
        write_text(
            outputs[1],
            f"## {name}\n\n{entry.paper}\n\n{table}\n\n{notes}\n\n(wall clock {seconds:.1f} s)\n",
        )
        if not ctx.figures_skipped:  # a later run with matplotlib must draw them
            store_cached(ctx.out, name, key, payload, outputs + payload["figures"])
    payload["_table"] = format_table(name, result.rows)
    return payload


def _row_args(r: dict) -> dict:
    args = {
        k: r.get(k)
        for k in ("dataset", "learner", "metric", "ours", "ours_std", "paper", "dim", "seconds")
    }
    args["extra"] = r.get("extra", {})
    args["variant"] = r.get("variant")
    return args


def _json_default(obj):
    try:
        import numpy as np

        if isinstance(obj, np.generic):
            return obj.item()
        if isinstance(obj, np.ndarray):
            return obj.tolist()
    except ImportError:  # pragma: no cover
        pass
    if isinstance(obj, Path):
        return str(obj)
    raise TypeError(f"not JSON serialisable: {type(obj).__name__}")
