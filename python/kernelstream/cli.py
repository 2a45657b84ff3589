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


class UsageError(KernelstreamError):
    """A mistake in the command line or in what it points to (exit status 2)."""


#: CLI names of the learners (``--learner NAME``) and their classes in ``kernelstream``.
LEARNERS = {
    "taylor-awv": "TaylorAWV",
    "kernel-awv": "KernelAWV",
    "nystrom-awv": "NystromAWV",
    "pros-n-kons": "ProsNKons",
    "fogd": "FOGD",
    "nogd": "NOGD",
    "rff-awv": "RFFAWV",
    "multi-kernel-awv": "MultiKernelAWV",
    "raker": "Raker",
    "omkl-gf": "OMKLGF",
    "online-projection": "OnlineProjection",
    "averaged-sgd": "AveragedKernelSGD",
}

#: Learners whose basis lives on [0, 1]^d: their inputs are scaled to [0, 1] instead of [-1, 1].
UNIT_CUBE_LEARNERS = {"online-projection", "averaged-sgd"}


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
        try:  # a kernel without a width (e.g. min)
            kernel = kernels.Kernel.from_spec(args.kernel, [])
        except KernelstreamError:
            raise UsageError(f"--kernel {args.kernel}: {_one_line(exc)}") from None
    if "kernel" not in accepted and args.kernel != "gaussian":
        raise UsageError(f"--kernel {args.kernel}: {name} takes no --kernel")
    return kernel


def _x_range(args):
    if args.x_range is not None:
        lo, hi = args.x_range
        if not lo < hi:
            raise UsageError(f"--x-range needs LO < HI, got {lo:.6g} {hi:.6g}")
        return (lo, hi)
    return (0.0, 1.0) if args.learner in UNIT_CUBE_LEARNERS else (-1.0, 1.0)


def _load_stream(args):
    import numpy as np

    from kernelstream import datasets

    if args.dataset and args.csv:
        raise UsageError("give either --dataset or --csv, not both")
    if args.dataset or args.csv:
        if args.dataset:
            X, y = datasets.load(args.dataset, args.data_home)
            source = f"dataset {args.dataset}"
        else:
            X, y = datasets.load_csv(args.csv, args.target)
            source = f"{args.csv}"
        X, y, dropped = datasets.drop_missing(X, y)
        if dropped:
            print(f"dropped {dropped} rows with missing values", file=sys.stderr)
        if y.size == 0:
            raise UsageError(f"{source} has no complete rows")
        task = args.task
        labels = np.unique(y)
        if task == "auto":
            task = (
                "classification"
                if set(labels) <= {-1.0, 1.0, 0.0} and len(labels) == 2
                else "regression"
            )
        if task == "classification" and len(labels) != 2:
            raise UsageError(
                f"--task classification needs a target with two classes; {source} has "
                f"{len(labels)} distinct values (from {labels[0]:.6g} to {labels[-1]:.6g})"
            )
        X, y = datasets.prepare_arrays(
            X,
            y,
            x_range=_x_range(args),
            classification=task == "classification",
            seed=args.shuffle,
            rescale=not args.no_scale,
        )
    else:
        X, y = datasets.synthetic.friedman_stream(n=args.n, d=5, seed=args.shuffle or 0)
        lo, hi = _x_range(args)
        X = lo + (hi - lo) * (X + 1.0) / 2.0
        source = (
            f"built-in synthetic stream (Friedman #1, n={args.n}, d=5, x in [{lo:g}, {hi:g}]^5)"
        )
        task = "regression" if args.task == "auto" else args.task
    if args.limit:
        X, y = X[: args.limit], y[: args.limit]
    return X, y, task, source


def _resume(path: str):
    """The learner pickled by ``--save-model`` at ``path``; a :class:`UsageError` if the
    file is unreadable, not a pickle, damaged, or holds something else than a learner."""
    import pickle

    from kernelstream.learners.base import Learner

    try:
        with open(path, "rb") as fh:
            learner = pickle.load(fh)
    except OSError as exc:
        raise UsageError(f"--resume {path}: cannot read it ({exc.strerror or exc})") from None
    except KernelstreamError as exc:
        raise UsageError(f"--resume {path}: the saved learner is damaged ({exc})") from None
    except Exception as exc:  # noqa: BLE001 - whatever unpickling a damaged file raises
        raise UsageError(
            f"--resume {path}: not a learner saved by --save-model ({type(exc).__name__}: {exc})"
        ) from None
    if not isinstance(learner, Learner):
        raise UsageError(
            f"--resume {path}: holds a {type(learner).__name__}, not a learner saved by --save-model"
        )
    return learner


def cmd_run(args) -> int:
    from kernelstream._optional import available, hint
    from kernelstream.evaluate import progressive

    _check_output_paths(args)
    if args.resume:
        learner = _resume(args.resume)
    else:
        learner = build_learner(args.learner, args)
    X, y, task, source = _load_stream(args)
    if args.resume:
        print(f"resumed {learner!r} after {learner.n_seen} rounds from {args.resume}")
    print(f"{learner!r} on {source}: {X.shape[0]} rounds, d={X.shape[1]}, task={task}")
    res = progressive(
        learner, X, y, task=task, time_budget=args.time_budget, progress=args.progress
    )
    frame = res.to_frame().drop(columns=["learner"])
    frame["us_per_round"] = 1e6 * frame["seconds"] / frame["rounds"]
    import pandas as pd

    with pd.option_context("display.max_rows", 200, "display.width", 120):
        print(frame.to_string(index=False, float_format=lambda v: f"{v:.6g}"))
    metric = "average squared loss" if task == "regression" else "error rate"
    print(
        f"\n{res.n_rounds} rounds in {res.total_seconds:.3f} s "
        f"({1e6 * res.total_seconds / max(res.n_rounds, 1):.2f} us/round); final {metric} {res.final_loss:.6g}; "
        f"dim {learner.dim}" + (" (stopped by the time budget)" if res.stopped_by_budget else "")
    )
    if args.plot and not available("matplotlib"):
        print(f"kernelstream: no plot written to {args.plot}: " + hint("matplotlib"),
              file=sys.stderr)  # fmt: skip
    elif args.plot:
        _save_plot(res.plot(label=repr(learner)), args.plot)
        print(f"plot written to {args.plot}")
    if args.save_predictions:
        _save_predictions(y[: res.n_rounds], res.predictions, args.save_predictions)
        print(f"predictions written to {args.save_predictions}")
    if args.save_model:
        _save_model(learner, args.save_model)
        print(f"learner saved to {args.save_model} (continue with --resume)")
    return 0


def _check_output_paths(args) -> None:
    """Every file ``run`` will write can be written: checked before the run, not after."""
    from kernelstream._files import check_writable

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
    """Pickles ``learner`` to ``path`` atomically: a kill or a full disk during the save
    leaves the previous file whole (``--resume m.pkl --save-model m.pkl`` is safe)."""
    import pickle

    from kernelstream._files import atomic_write

    with atomic_write(path, "wb") as fh:
        pickle.dump(learner, fh)


def _save_predictions(y, predictions, path: str) -> None:
    """``y,prediction`` rows to the CSV ``path``, atomically."""
    import numpy as np

    from kernelstream._files import atomic_write

    with atomic_write(path, "w") as fh:
        np.savetxt(fh, np.c_[y, predictions], delimiter=",", header="y,prediction", comments="")


def _save_plot(fig, path: str) -> None:
    from kernelstream._files import save_figure

    save_figure(fig, path, dpi=110, bbox_inches="tight")


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
    """``kernelstream X.Y.Z``, followed by ``kernelstream.build_info()`` if the build has it."""
    import kernelstream as ks

    text = f"kernelstream {ks.__version__}"
    build_info = getattr(ks, "build_info", None)
    if callable(build_info):
        info = build_info()
        if isinstance(info, dict):
            info = ", ".join(f"{k}: {v}" for k, v in info.items() if k != "version")
        text += f" ({info})"
    return text


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


def make_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="kernelstream", description=__doc__.split("\n\n")[0])
    p.add_argument("--version", action=_Version, help="print the version and build, then exit")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")

    r = sub.add_parser(
        "run", help="progressive run of one learner (default: TaylorAWV on a synthetic stream)"
    )
    r.add_argument("--learner", default="taylor-awv", help=f"one of: {', '.join(LEARNERS)}")
    r.add_argument(
        "--dataset", help="dataset name in the data directory (see kernelstream data list)"
    )
    r.add_argument("--csv", help="a CSV file with a header")
    r.add_argument("--target", help="target column of --csv (default: last)")
    r.add_argument("--data-home", help="data directory (default: $KERNELSTREAM_DATA)")
    r.add_argument(
        "--task",
        choices=["auto", "regression", "classification"],
        default="auto",
        help="squared loss or error rate (default auto: classification for +-1 / 0-1 targets)",
    )
    r.add_argument(
        "--no-scale", action="store_true", help="do not min-max scale x and y to [-1, 1]"
    )
    r.add_argument(
        "--x-range",
        type=_number,
        nargs=2,
        metavar=("LO", "HI"),
        help="scale inputs to [LO, HI] (default [-1, 1]; [0, 1] for the projection learners)",
    )
    r.add_argument("--shuffle", type=_seed, help="shuffle the rows with this seed")
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
    r.add_argument("--save-model", help="pickle the learner here after the run")
    r.add_argument("--resume", help="continue a learner pickled by --save-model")
    r.add_argument(
        "--progress",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="progress bar (default: on a terminal, if tqdm is installed)",
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
        "--report", help="write a Markdown report of the entries run (e.g. REPRODUCTION.md)"
    )
    e.add_argument("--force", action="store_true", help="recompute even if a cached result matches")
    e.set_defaults(func=cmd_reproduce)

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
        help="progress bar (default: on a terminal, if tqdm is installed)",
    )
    for q in (dl, dp, df):
        q.add_argument(
            "--data-home",
            help="data directory (default: $KERNELSTREAM_DATA, else the platform cache)",
        )
    d.set_defaults(func=cmd_data)
    return p


def main(argv=None) -> int:
    args = make_parser().parse_args(argv)
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
    except MemoryError:
        print("kernelstream: error: out of memory (try a smaller --n or --limit)", file=sys.stderr)
        return 2


def _one_line(exc: BaseException) -> str:
    text = str(exc) or type(exc).__name__
    return " ".join(text.split())


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
