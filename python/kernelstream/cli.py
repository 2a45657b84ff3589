"""Command line: ``kernelstream`` (also ``python -m kernelstream``).

* ``run``: the main job, a progressive run with a progress bar and a results table;
* ``bench``: Rust learners against their NumPy references, per-round times and ratios;
* ``reproduce``: the registry of paper experiments (``--list``, ``NAME``, ``--all``);
* ``data``: the datasets of the papers (``list``, ``fetch NAME...``, ``fetch --all``, ``path``).

A user mistake prints one line ``kernelstream: error: ...`` on stderr and exits with
status 2; only a bug in kernelstream prints a traceback.
"""

from __future__ import annotations

import argparse
import inspect
import math
import sys
from pathlib import Path

from kernelstream.errors import KernelstreamError
from kernelstream.evaluate.metrics import NAMES as METRIC_NAMES
from kernelstream.learners import _registry


class UsageError(KernelstreamError):
    """A mistake in the command line or in what it points to (exit status 2)."""


#: CLI names of the learners (``--learner NAME``) and their classes in ``kernelstream``:
#: every learner the core registers (``_core.registry()``), AutoKernel first (the default).
LEARNERS = {
    _registry.cli_name(n): n for n in sorted(_registry.names(), key=lambda n: n != "AutoKernel")
}

#: Learners that scale their data themselves (``--scale auto`` leaves their data raw).
SELF_SCALING_LEARNERS = {c for c, n in LEARNERS.items() if _registry.face(n)._scales_itself}

#: Learners whose basis lives on [0, 1]^d: their inputs are scaled to [0, 1] instead of [-1, 1].
UNIT_CUBE_LEARNERS = {c for c, n in LEARNERS.items() if _registry.input_box(n) == (0.0, 1.0)}


def _parse_value(text: str):
    low = text.lower()
    if low in ("true", "false"):
        return low == "true"
    if low == "none":
        return None
    for cast in (int, float):
        try:
            return cast(text)
        except ValueError:
            pass
    return text


def build_learner(name: str, args) -> object:
    import kernelstream as ks
    from kernelstream import kernels

    if name not in LEARNERS:
        raise UsageError(f"unknown learner {name!r}; choose from: {', '.join(LEARNERS)}")
    cls = getattr(ks, LEARNERS[name], None)
    if cls is None:
        raise UsageError(f"learner {name!r} ({LEARNERS[name]}) is not available in this build")
    accepted = inspect.signature(cls.__init__).parameters
    params: dict = {}
    if "experts" in accepted:
        params["experts"] = _mixture_experts(args)
    if "kernels" in accepted:
        # multi-kernel learners: the VAW2 paper's 76-kernel grid unless --param overrides
        params["kernels"] = kernels.vaw2_grid()
    kernel = _kernel_option(name, args, accepted)
    if "kernel" in accepted:
        params["kernel"] = kernel
    elif "sigma" in accepted:
        params["sigma"] = args.sigma
    for key in ("degree", "lam", "seed"):
        value = getattr(args, key)
        if value is not None and key in accepted:
            params[key] = value
    if args.ridge and "ridge" in accepted:
        params["ridge"] = True
    for item in args.param or []:
        if "=" not in item:
            raise UsageError(f"--param expects key=value, got {item!r}")
        key, value = item.split("=", 1)
        if key not in accepted:
            raise UsageError(
                f"{LEARNERS[name]} has no parameter {key!r}; it takes {', '.join(list(accepted)[1:])}"
            )
        params[key] = _parse_value(value)
    return cls(**params)


def _kernel_option(name: str, args, accepted) -> object:
    """The kernel named by ``--kernel`` (width ``--sigma``); refused when the name is
    unknown, or names another kernel than the fixed one of a learner that takes none."""
    from kernelstream import kernels

    try:
        kernel = kernels.Kernel.from_spec(args.kernel, [args.sigma])
    except KernelstreamError as exc:
        if "experts" in accepted:  # the mixture's experts take a width
            raise UsageError(f"--kernel {args.kernel}: {_one_line(exc)}") from None
        try:  # a kernel without a width (e.g. min)
            kernel = kernels.Kernel.from_spec(args.kernel, [])
        except KernelstreamError:
            raise UsageError(f"--kernel {args.kernel}: {_one_line(exc)}") from None
    takes = "kernel" in accepted or "experts" in accepted
    if not takes and args.kernel != "gaussian":
        raise UsageError(f"--kernel {args.kernel}: {name} takes no --kernel")
    return kernel


def _mixture_experts(args) -> list:
    """``--learner mixture``: random-feature AWV experts (``--kernel``) of widths
    ``--sigma`` x (1/4, 1/2, 1, 2, 4), 100 cos-sin pairs each, ridge ``--lam``."""
    import kernelstream as ks
    from kernelstream import kernels

    lam = 1.0 if args.lam is None else args.lam
    seed = 0 if args.seed is None else args.seed
    return [
        ks.RFFAWV(
            kernels.Kernel.from_spec(args.kernel, [args.sigma * c]),
            n_features=100,
            lam=lam,
            seed=seed + j,
        )
        for j, c in enumerate((0.25, 0.5, 1.0, 2.0, 4.0))
    ]


def _x_range(args):
    if args.x_range is not None:
        lo, hi = args.x_range
        if not lo < hi:
            raise UsageError(f"--x-range needs LO < HI, got {lo:.6g} {hi:.6g}")
        return (lo, hi)
    return (0.0, 1.0) if args.learner in UNIT_CUBE_LEARNERS else (-1.0, 1.0)


def _load_stream(args):
    """``(chunks, task, source, notes)``: the run's data as an iterable of ``(X, y)``
    chunks, its task, a description and what the reader did (filled in while reading)."""
    if args.dataset and args.csv:
        raise UsageError("give either --dataset or --csv, not both")
    if args.dataset or args.csv:
        return _file_stream(args)
    from kernelstream import datasets

    X, y = datasets.synthetic.friedman_stream(n=args.n, d=5, seed=args.shuffle or 0)
    lo, hi = _x_range(args)
    X = lo + (hi - lo) * (X + 1.0) / 2.0
    if args.limit:
        X, y = X[: args.limit], y[: args.limit]
    source = f"built-in synthetic stream (Friedman #1, n={args.n}, d=5, x in [{lo:g}, {hi:g}]^5)"
    task = "regression" if args.task == "auto" else args.task
    return [(X, y)], task, source, None


def _file_stream(args):
    """``--csv FILE`` / ``--dataset NAME`` read in chunks (constant memory)."""
    from kernelstream import datasets

    if args.dataset:
        path = datasets.loaders.dataset_path(args.dataset, args.data_home)
        target = args.target if args.target is not None else -1
    else:
        path, target = args.csv, args.target
    positive = _parse_value(args.positive) if args.positive is not None else None
    chunks = datasets.stream(
        path,
        target=target,
        chunk_rows=args.chunk_rows,
        drop=args.drop or (),
        missing=args.missing,
        max_categories=args.max_categories,
        positive=positive,
    )
    it = iter(chunks)
    first = next(it, None)
    if first is None:
        raise UsageError(f"{path} has no complete rows (see --missing)")
    task = _stream_task(args, first[1], path)
    rest = _rest(it, first, task, path)
    if args.shuffle is not None:  # needs every row at once
        import numpy as np

        parts = list(rest)
        X = np.concatenate([p[0] for p in parts])
        y = np.concatenate([p[1] for p in parts])
        order = np.random.default_rng(args.shuffle).permutation(y.size)
        rest = iter([(X[order], y[order])])
    if args.limit:
        rest = _take_rows(rest, args.limit)
    return rest, task, f"{path} (target {chunks.target!r})", chunks


def _stream_task(args, y, path) -> str:
    """The task: ``--task``, else classification when the first chunk's targets are two
    of -1/0/+1 (or ``--positive`` is given)."""
    import numpy as np

    labels = np.unique(y)
    if args.positive is not None:
        return "classification"
    binary = set(labels.tolist()) <= {-1.0, 0.0, 1.0}
    if args.task == "auto":
        return "classification" if binary and labels.size == 2 else "regression"
    if args.task == "classification" and not (binary and labels.size <= 2):
        raise UsageError(
            f"--task classification needs a target with two classes (-1/+1 or 0/1, or name "
            f"the positive one with --positive); {path} has {labels.size} distinct values in "
            f"its first {y.size} rows (from {labels[0]:.6g} to {labels[-1]:.6g})"
        )
    return args.task


def _rest(it, first, task, path):
    """``first`` and the chunks after it, with labels -1/+1 for classification."""
    import numpy as np

    head = [first]
    rows = 0
    while True:
        X, y = head.pop() if head else next(it, (None, None))
        if X is None:
            return
        if task == "classification":
            bad = ~np.isin(y, (-1.0, 0.0, 1.0))
            if bad.any():
                i = int(np.flatnonzero(bad)[0])
                raise UsageError(
                    f"{path}: label {y[i]:.6g} in kept row {rows + i} of a classification "
                    "stream (labels are -1/+1 or 0/1); use --task regression or --positive"
                )
            y = np.where(y > 0, 1.0, -1.0)
        rows += y.size
        yield X, y


def _take_rows(chunks, limit: int):
    for X, y in chunks:
        if limit <= 0:
            return
        yield X[:limit], y[:limit]
        limit -= y.size


def _scaled(learner, task: str, args):
    """The learner behind online scaling (``--scale``), and a description of it."""
    from kernelstream.evaluate import OnlineScaled

    mode = "none" if args.no_scale else args.scale
    if mode == "auto":
        mode = "none" if args.learner in SELF_SCALING_LEARNERS and not args.resume else "online"
    if mode == "none" or not (args.csv or args.dataset):
        return learner, "none"
    box = args.x_range is not None or args.learner in UNIT_CUBE_LEARNERS
    wrapped = OnlineScaled(
        learner,
        inputs="minmax" if box else "standardize",
        x_range=_x_range(args),
        targets=task == "regression",
    )
    how = (
        f"inputs min-max to [{_x_range(args)[0]:g}, {_x_range(args)[1]:g}]"
        if box
        else ("inputs standardized")
    )
    if task == "regression":
        how += ", targets standardized"
    return wrapped, how + " online (statistics of the rows so far)"


def _report_reading(info) -> None:
    """What the reader dropped, imputed and encoded (stderr)."""
    if info is None:
        return
    if info.rows_dropped:
        print(f"dropped {info.rows_dropped} rows with missing values", file=sys.stderr)
    if info.values_imputed:
        print(f"imputed {info.values_imputed} missing values online", file=sys.stderr)
    from kernelstream._cli_notes import category_note

    for note in info.notes:
        print(f"kernelstream: note: {note}", file=sys.stderr)
    for col, cats in info.categories.items():
        print(category_note(info, col, cats), file=sys.stderr)


class _PredictionWriter:
    """``--save-predictions``: rows ``y,prediction`` in the target's units, written as
    the run goes to a temporary file that replaces ``path`` when the run ends
    (:func:`kernelstream._files.atomic_write`: fsync, rename; discarded on an error)."""

    def __init__(self, path: str):
        from kernelstream._files import atomic_write

        self.path = path
        self._file = atomic_write(path, "w")
        self.fh = self._file.__enter__()
        self.fh.write("y,prediction\n")

    def __call__(self, y, p) -> None:
        import numpy as np

        np.savetxt(self.fh, np.c_[y, p], delimiter=",", fmt="%.17g")

    def close(self, keep: bool) -> None:
        if keep:
            self._file.__exit__(None, None, None)
        else:  # the temporary file is removed, ``path`` left as it was
            stop = _Discard()
            self._file.__exit__(_Discard, stop, None)


class _Discard(Exception):
    """Thrown into :class:`_PredictionWriter`'s atomic write to discard it."""


def _resume(path: str, args):
    """The learner saved by ``--save-model`` at ``path`` (a model file,
    ``kernelstream.load``: no code runs on reading); a :class:`UsageError` if the file is
    unreadable, damaged, not a model file, holds something else than a learner, or a
    learner other than an explicit ``--learner``."""
    from kernelstream.learners import _registry
    from kernelstream.learners.base import Learner
    from kernelstream.modelfile import load

    try:
        learner = load(path)
    except OSError as exc:
        raise UsageError(f"--resume {path}: cannot read it ({exc.strerror or exc})") from None
    except KernelstreamError as exc:
        raise UsageError(
            f"--resume {path}: not a model file saved by --save-model ({exc})"
        ) from None
    if not isinstance(learner, Learner):
        raise UsageError(
            f"--resume {path}: holds a {type(learner).__name__}, not a learner saved by --save-model"
        )
    name = _registry.cli_name(type(learner).__name__)
    if args.learner is not None and args.learner != name:
        raise UsageError(
            f"--resume {path} holds a {name} learner, but --learner {args.learner} was given "
            "(leave out --learner to continue the saved one)"
        )
    args.learner = name
    return learner


def cmd_run(args) -> int:
    from kernelstream._cli_notes import check_extras
    from kernelstream.evaluate import progressive

    _check_output_paths(args)
    check_extras(args)
    if args.resume:
        learner = _resume(args.resume, args)
    else:
        args.learner = args.learner or "auto-kernel"
        learner = build_learner(args.learner, args)
    chunks, task, source, info = _load_stream(args)
    if args.resume:
        print(f"resumed {learner!r} after {learner.n_seen} rounds from {args.resume}")
    run, scaling = _scaled(learner, task, args)
    if args.resume and scaling != "none":
        print("kernelstream: note: online scaling starts its statistics anew on --resume",
              file=sys.stderr)  # fmt: skip
    width = info.width if info is not None else 5
    print(f"{learner!r} on {source}: d={width}, task={task}, scaling: {scaling}")
    writer = _PredictionWriter(args.save_predictions) if args.save_predictions else None
    try:
        res = progressive(
            run,
            chunks,
            task=task,
            time_budget=args.time_budget,
            progress=args.progress,
            on_chunk=writer,
            store_predictions=False,
            metrics=args.metric,
        )
    except BaseException:
        if writer is not None:
            writer.close(keep=False)
        raise
    _report_reading(info)
    _print_table(res, task, info)
    if args.plot:
        _save_plot(res.plot(label=repr(learner)), args.plot)
        print(f"plot written to {args.plot}")
    if writer is not None:
        writer.close(keep=True)
        print(f"predictions written to {args.save_predictions}")
    if args.save_model:
        _save_model(learner, args.save_model)
        print(f"learner saved to {args.save_model} (continue with --resume)")
    return 0


def _check_output_paths(args) -> None:
    """Every file ``run`` will write can be written: checked before the run, not after."""
    from kernelstream._files import check_writable

    if args.save_model is not None and not args.save_model.strip():
        raise UsageError("--save-model needs a file name, got an empty one")
    for flag, value in (
        ("--save-model", args.save_model),
        ("--save-predictions", args.save_predictions),
        ("--plot", args.plot),
    ):
        if value:
            try:
                check_writable(value, flag)
            except OSError as exc:
                raise UsageError(str(exc)) from None


def _save_model(learner, path: str) -> None:
    """Saves ``learner`` to the model file ``path`` (``kernelstream.save``: atomic, a kill
    or a full disk during the save leaves the previous file whole, so ``--resume m.ksm
    --save-model m.ksm`` is safe)."""
    from kernelstream.modelfile import save

    save(learner, path)


def _save_plot(fig, path: str) -> None:
    from kernelstream._files import save_figure

    save_figure(fig, path, dpi=110, bbox_inches="tight")


def _print_table(res, task: str, info) -> None:
    """The checkpoints, with the baseline's loss beside the learner's (target's units)."""
    from kernelstream._cli_notes import metric_columns, metric_summary
    from kernelstream._optional import available

    if available("pandas"):
        import pandas as pd

        frame = res.to_frame()
        frame["us_per_round"] = 1e6 * frame["seconds"] / frame["rounds"]
        extra = metric_columns(res)
        frame = frame[["rounds", "loss", "baseline", *extra, "seconds", "us_per_round", "dim",
                       "memory_mb"]]  # fmt: skip
        with pd.option_context("display.max_rows", 200, "display.width", 120):
            print(frame.to_string(index=False, float_format=lambda v: f"{v:.6g}"))
    else:  # the base install (numpy only): the same columns as plain text
        import numpy as np

        n = res.rounds.size
        base = res.baseline if res.baseline.size == n else np.full(n, np.nan)
        columns = {
            "rounds": [str(int(v)) for v in res.rounds],
            "loss": [f"{v:.6g}" for v in res.loss],
            "baseline": [f"{v:.6g}" for v in base],
            **{m: [f"{v:.6g}" for v in res.metrics[m]] for m in metric_columns(res)},
            "seconds": [f"{v:.6g}" for v in res.seconds],
            "us_per_round": [f"{1e6 * s / max(r, 1):.6g}" for s, r in zip(res.seconds, res.rounds)],
            "dim": [str(int(v)) for v in res.dim],
            "memory_mb": [f"{v:.6g}" for v in res.memory_mb],
        }
        width = {k: max([len(k)] + [len(c) for c in v]) for k, v in columns.items()}
        print(" ".join(k.rjust(width[k]) for k in columns))
        for i in range(n):
            print(" ".join(v[i].rjust(width[k]) for k, v in columns.items()))
    if task == "regression":
        metric = "average squared loss"
        units = " (in the target's units, squared)" if info is not None else ""
        base = "the running mean of the past targets"
    else:
        metric, units, base = "error rate", "", "the majority label so far"
    print(
        f"\n{res.n_rounds} rounds in {res.total_seconds:.3f} s "
        f"({1e6 * res.total_seconds / max(res.n_rounds, 1):.2f} us/round); final {metric} "
        f"{res.final_loss:.6g}{units}; baseline ({base}) {res.baseline[-1]:.6g}; "
        f"dim {res.dim[-1]}{metric_summary(res)}"
        + (" (stopped by the time budget)" if res.stopped_by_budget else "")
    )


def cmd_bench(args) -> int:
    from kernelstream.benchcases import cases, run_bench

    if args.list:
        for name in cases():
            print(name)
        return 0

    def progress(i, n, name):
        print(f"[{i + 1}/{n}] {name} ...", file=sys.stderr, flush=True)

    run_bench(args.cases or None, quick=args.quick, printer=_print_flush, progress=progress)
    return 0


def _print_flush(*a):
    print(*a, flush=True)


def cmd_reproduce(args) -> int:
    from kernelstream.experiments import Context, entries, run_entry

    all_entries = entries()
    if args.list:
        for name, entry in all_entries.items():
            print(f"{name:<22} {entry.description}")
        return 0
    names = list(all_entries) if args.all else args.names
    if not names:
        raise UsageError("name an experiment (see --list) or use --all")
    unknown = [n for n in names if n not in all_entries]
    if unknown:
        raise UsageError(
            f"unknown experiment {', '.join(map(repr, unknown))}; see kernelstream reproduce --list"
        )
    out = Path(args.out)
    if out.exists() and not out.is_dir():
        raise UsageError(f"--out {out} exists and is not a directory")
    _check_report_path(args)
    results = []
    for name in names:
        ctx = Context(
            out,
            quick=args.quick,
            seeds=args.seeds,
            time_budget=args.time_budget,
            data_home=args.data_home,
            jobs=args.jobs,
            executor=args.executor,
            scheduler=args.scheduler,
            worker_data=args.worker_data,
        )
        payload = run_entry(name, ctx, force=args.force)
        results.append(payload)
        print(f"\n## {name} ({payload['seconds']:.1f} s)\n{payload['paper']}\n")
        print(payload["_table"])
        for note in payload["notes"]:
            print(f"- {note}")
        for fig in payload["figures"]:
            print(f"figure: {fig}")
        print(f"json: {out / (name + '.json')}")
        if ctx.figures_skipped:
            from kernelstream._optional import hint

            print(f"kernelstream: {name}: figures skipped: " + hint("matplotlib"),
                  file=sys.stderr)  # fmt: skip
    if args.report:
        from kernelstream.experiments.report import write_report

        write_report(results, Path(args.report), out)
        print(f"report written to {args.report}")
    return 0


def _check_report_path(args) -> None:
    """``--report`` can be written: checked before the entries run, not after."""
    from kernelstream._files import check_writable

    if args.report:
        try:
            check_writable(args.report, "--report")
        except OSError as exc:
            raise UsageError(str(exc)) from None


def _count(text: str) -> int:
    """argparse type: a whole number >= 1."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def _seed(text: str) -> int:
    """argparse type: a seed, a whole number in [0, 2^64)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if not 0 <= value < 2**64:
        raise argparse.ArgumentTypeError("must be a whole number from 0 to 2^64 - 1")
    return value


def _seconds(text: str) -> float:
    """argparse type: a finite number > 0."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, got {text!r}") from None
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"must be a positive number, got {value:.6g}")
    return value


def _number(text: str) -> float:
    """argparse type: a finite float."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"must be finite, got {value:.6g}")
    return value


class _Parser(argparse.ArgumentParser):
    """argparse with the one-line error format of the whole CLI."""

    def error(self, message):
        self.exit(2, f"kernelstream: error: {message} (see {self.prog} --help)\n")


class _Version(argparse.Action):
    """``--version``: the version and, when the build reports it, how it was built."""

    def __init__(
        self, option_strings, dest=argparse.SUPPRESS, default=argparse.SUPPRESS, help=None
    ):
        super().__init__(option_strings, dest=dest, default=default, nargs=0, help=help)

    def __call__(self, parser, namespace, values, option_string=None):
        print(version_text())
        parser.exit(0)


def version_text() -> str:
    """``kernelstream X.Y.Z`` (``kernelstream info`` tells how it was built)."""
    import kernelstream as ks

    return f"kernelstream {ks.__version__}"


def build_text() -> str:
    """The version, then ``kernelstream.build_info()`` one item a line, if the build has it."""
    import kernelstream as ks

    lines = [version_text()]
    build_info = getattr(ks, "build_info", None)
    if callable(build_info):
        info = build_info()
        if isinstance(info, dict):
            lines += [f"{k}: {v}" for k, v in info.items() if k != "version"]
        else:
            lines.append(str(info))
    return "\n".join(lines)


def cmd_info(args) -> int:
    print(build_text())
    return 0


def cmd_data(args) -> int:
    from kernelstream import datasets

    home = datasets.data_home(args.data_home)
    if args.data_command == "path":
        print(home)
        return 0
    if args.data_command == "list":
        print(f"data directory: {home}")
        print(f"{'name':<14} {'rows':>9} {'d':>4} {'task':<15} {'source':<9} {'here':<5} used by")
        for ds in datasets.DATASETS.values():
            here = "yes" if (home / ds.filename).exists() else "no"
            print(
                f"{ds.name:<14} {ds.rows:>9} {ds.features:>4} {ds.task:<15} {ds.origin:<9} "
                f"{here:<5} {', '.join(ds.used_by)}"
            )
        return 0
    names = list(datasets.DATASETS) if args.all else args.names
    if not names:
        raise UsageError("name datasets to fetch (see kernelstream data list) or use --all")
    for name in names:
        datasets.registry.get(name)  # every name checked before any download
    for name in names:
        path = datasets.fetch(
            name,
            args.data_home,
            args.base_url,
            force=args.force,
            progress=args.progress,
            deadline=args.deadline,
            min_rate=args.min_rate,
        )
        print(f"{name}: {path}", flush=True)
    return 0


def _add_data_options(r) -> None:
    """The run command's options for a data file (read in chunks, in constant memory)."""
    r.add_argument(
        "--csv",
        metavar="FILE",
        help="a data file: CSV with a header (.gz/.bz2/.xz too), Parquet (.parquet) or "
        "LIBSVM (.svm); read in chunks",
    )
    r.add_argument("--target", help="target column of --csv (default: last)")
    r.add_argument("--drop", action="append", metavar="COL", help="leave out this column")
    r.add_argument(
        "--missing",
        choices=["drop", "impute"],
        default="drop",
        help="a row with a missing number is dropped (default), or the number is replaced "
        "by the column's mean over the rows before",
    )
    r.add_argument(
        "--max-categories",
        type=_count,
        default=8,
        help="columns of the online one-hot encoding of each text column (default 8; values "
        "first seen after the first 7 share the last)",
    )
    r.add_argument("--positive", help="classification: this target value is +1, every other -1")
    r.add_argument(
        "--chunk-rows", type=_count, default=65536, help="rows read at a time (default 65536)"
    )


def make_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="kernelstream", description=__doc__.split("\n\n")[0])
    p.add_argument(
        "--version", action=_Version, help="print the version and exit (the build: info)"
    )
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")

    r = sub.add_parser(
        "run", help="progressive run of one learner (default: TaylorAWV on a synthetic stream)"
    )
    r.add_argument(
        "--learner",
        default=None,
        help=f"one of: {', '.join(LEARNERS)} (default auto-kernel: no width to choose; "
        "with --resume, the saved learner)",
    )
    r.add_argument(
        "--dataset", help="dataset name in the data directory (see kernelstream data list)"
    )
    _add_data_options(r)
    r.add_argument("--data-home", help="data directory (default: $KERNELSTREAM_DATA)")
    r.add_argument(
        "--task",
        choices=["auto", "regression", "classification"],
        default="auto",
        help="squared loss or error rate (default auto: classification for +-1 / 0-1 targets)",
    )
    r.add_argument(
        "--scale",
        choices=["auto", "online", "none"],
        default="auto",
        help="scale --csv/--dataset data online with the rows so far: inputs standardized "
        "(or min-max to --x-range), regression targets standardized, predictions and loss "
        "in the target's units (default auto: online, except for auto-kernel, which scales "
        "itself)",
    )
    r.add_argument("--no-scale", action="store_true", help="same as --scale none")
    r.add_argument(
        "--x-range",
        type=_number,
        nargs=2,
        metavar=("LO", "HI"),
        help="min-max scale inputs online to [LO, HI] (default for the projection learners: "
        "[0, 1]; the synthetic stream is drawn in it)",
    )
    r.add_argument(
        "--shuffle", type=_seed, help="shuffle the rows with this seed (reads the whole file)"
    )
    r.add_argument("--limit", type=_count, help="use only the first N rows")
    r.add_argument(
        "--n", type=_count, default=100000, help="rounds of the built-in synthetic stream"
    )
    r.add_argument(
        "--kernel",
        default="gaussian",
        help="kernel of the learners that take one, with width --sigma (gaussian or laplacian)",
    )
    r.add_argument("--sigma", type=_number, default=1.0, help="kernel width (default 1)")
    r.add_argument("--degree", type=int, help="Taylor degree M of taylor-awv")
    r.add_argument("--lam", type=_number, help="regularisation lambda")
    r.add_argument("--seed", type=_seed, help="seed of the learner's random generator")
    r.add_argument("--ridge", action="store_true", help="online ridge instead of AWV")
    r.add_argument("--param", "-p", action="append", help="other learner parameter, key=value")
    r.add_argument("--time-budget", type=_seconds, help="stop after this many seconds")
    r.add_argument("--plot", help="write the loss/time plot to this PNG (needs the plots extra)")
    r.add_argument("--save-predictions", help="write y and predictions to this CSV")
    r.add_argument(
        "--save-model", help="save the learner to this model file after the run (kernelstream.save)"
    )
    r.add_argument("--resume", help="continue the learner of a model file saved by --save-model")
    r.add_argument(
        "--metric",
        action="append",
        choices=METRIC_NAMES,
        help="report this metric too, a column each (repeatable; default: mse for "
        "regression, error for classification)",
    )
    r.add_argument(
        "--progress",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="progress on stderr: a tqdm bar, else a plain line (default: on a terminal)",
    )
    r.set_defaults(func=cmd_run)

    b = sub.add_parser("bench", help="time Rust learners against the NumPy references")
    b.add_argument("cases", nargs="*", help="cases to run (default: all; see --list)")
    b.add_argument("--list", action="store_true", help="list the cases and exit")
    b.add_argument("--quick", action="store_true", help="small sizes")
    b.set_defaults(func=cmd_bench)

    e = sub.add_parser("reproduce", help="regenerate a paper table or figure")
    e.add_argument("names", nargs="*", help="experiment names (see --list)")
    e.add_argument("--list", action="store_true", help="list the experiments and exit")
    e.add_argument("--all", action="store_true", help="run every entry")
    e.add_argument("--quick", action="store_true", help="the reduced CI version")
    e.add_argument("--out", default="results", help="output directory (default: results)")
    e.add_argument("--seeds", type=_count, help="number of runs (overrides the entry's)")
    e.add_argument("--time-budget", type=_seconds, help="per-algorithm time budget in seconds")
    e.add_argument("--data-home", help="data directory (default: $KERNELSTREAM_DATA)")
    e.add_argument("--jobs", type=_count, default=1, help="parallel local workers (joblib)")
    e.add_argument(
        "--executor",
        choices=["auto", "serial", "joblib", "dask"],
        default="auto",
        help="how tasks run (default auto: dask with --scheduler, joblib with --jobs > 1)",
    )
    e.add_argument("--scheduler", help="Dask scheduler address for --executor dask")
    e.add_argument(
        "--worker-data",
        choices=["ship", "fetch"],
        default="ship",
        help="how Dask workers get the datasets: ship (default) sends this machine's files, "
        "sha256-checked; fetch makes each worker download them into its own data directory",
    )
    e.add_argument(
        "--report", help="write a Markdown report of the entries run (e.g. REPRODUCTION.md)"
    )
    e.add_argument("--force", action="store_true", help="recompute even if a cached result matches")
    e.set_defaults(func=cmd_reproduce)

    i = sub.add_parser("info", help="the version and how this build was made")
    i.set_defaults(func=cmd_info)

    d = sub.add_parser("data", help="list, download or locate the datasets of the papers")
    dsub = d.add_subparsers(dest="data_command", required=True, metavar="ACTION")
    dl = dsub.add_parser("list", help="every dataset: size, task, source, whether it is here")
    dp = dsub.add_parser("path", help="print the data directory")
    df = dsub.add_parser("fetch", help="download datasets (hash-checked) into the data directory")
    df.add_argument("names", nargs="*", help="dataset names (see kernelstream data list)")
    df.add_argument("--all", action="store_true", help="every dataset")
    df.add_argument(
        "--base-url", help="where release files are served (default: $KERNELSTREAM_DATA_URL)"
    )
    df.add_argument("--force", action="store_true", help="download again even if present")
    df.add_argument(
        "--deadline",
        type=_seconds,
        help="seconds each download may take in all (default $KERNELSTREAM_FETCH_DEADLINE, else 3600)",
    )
    df.add_argument(
        "--min-rate",
        type=_number,
        metavar="BYTES_PER_S",
        help="abandon a download slower than this over 60 s "
        "(default $KERNELSTREAM_FETCH_MIN_RATE, else 1024; 0: no minimum)",
    )
    df.add_argument(
        "--progress",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="progress on stderr: a tqdm bar, else a plain line (default: on a terminal)",
    )
    for q in (dl, dp, df):
        q.add_argument(
            "--data-home",
            help="data directory (default: $KERNELSTREAM_DATA, else the platform cache)",
        )
    d.set_defaults(func=cmd_data)
    from kernelstream.forecast.cli import add_parser as add_forecast

    add_forecast(sub)
    return p


class _Terminated(BaseException):
    """SIGTERM, raised in the main thread so that the run unwinds (temporary files of
    ``--save-predictions`` and the atomic writes removed) before the process ends."""


def _on_sigterm(signum, frame):
    raise _Terminated


def _terminate() -> int:
    """Ends the process by SIGTERM's default action (the status a parent expects)."""
    import os
    import signal

    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    os.kill(os.getpid(), signal.SIGTERM)
    return 128 + signal.SIGTERM  # pragma: no cover - not reached


def main(argv=None) -> int:
    import signal
    import threading

    args = make_parser().parse_args(argv)
    previous = None
    if threading.current_thread() is threading.main_thread():
        previous = signal.signal(signal.SIGTERM, _on_sigterm)
    try:
        return _main(args)
    except _Terminated:
        return _terminate()
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)


def _main(args) -> int:
    try:
        return args.func(args)
    except BrokenPipeError:  # the reader went away (`kernelstream ... | head`): stop quietly
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except (KernelstreamError, OSError) as exc:
        # user mistakes (bad input, parameters, files, downloads); a bug keeps its traceback
        print(f"kernelstream: error: {_one_line(exc)}", file=sys.stderr)
        return 2
    except ModuleNotFoundError as exc:
        # a command that needs an extra the install lacks (_optional.require names it)
        if "kernelstream[" not in str(exc):
            raise
        print(f"kernelstream: error: {_one_line(exc)}", file=sys.stderr)
        return 2
    except MemoryError:
        print("kernelstream: error: out of memory (try a smaller --n or --limit)", file=sys.stderr)
        return 2


def _one_line(exc: BaseException) -> str:
    text = str(exc) or type(exc).__name__
    return " ".join(text.split())


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
