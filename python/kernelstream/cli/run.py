"""``kernelstream run``: a progressive run of one learner, with a progress bar and a
table of checkpoints; the predictions and the learner can be saved as the run goes."""

from __future__ import annotations

import argparse
import sys

from kernelstream.evaluate.metrics import NAMES as METRIC_NAMES

from .common import check_figure, check_outputs, count, number, seconds, seed
from .learner import LEARNERS, build_learner, resume
from .notes import check_extras
from .stream import load_stream, report_reading, scaled, weighted_chunks


def add_parser(sub) -> None:
    """The ``run`` subcommand on the CLI's subparsers."""
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
        type=number,
        nargs=2,
        metavar=("LO", "HI"),
        help="min-max scale inputs online to [LO, HI] (default for the projection learners: "
        "[0, 1]; the synthetic stream is drawn in it)",
    )
    r.add_argument(
        "--shuffle", type=seed, help="shuffle the rows with this seed (reads the whole file)"
    )
    r.add_argument("--limit", type=count, help="use only the first N rows")
    r.add_argument(
        "--n", type=count, default=100000, help="rounds of the built-in synthetic stream"
    )
    r.add_argument(
        "--kernel",
        default="gaussian",
        help="kernel of the learners that take one, with width --sigma (gaussian or laplacian)",
    )
    r.add_argument("--sigma", type=number, default=1.0, help="kernel width (default 1)")
    r.add_argument("--degree", type=int, help="Taylor degree M of taylor-awv")
    r.add_argument("--lam", type=number, help="regularisation lambda")
    r.add_argument("--seed", type=seed, help="seed of the learner's random generator")
    r.add_argument("--ridge", action="store_true", help="online ridge instead of AWV")
    r.add_argument("--param", "-p", action="append", help="other learner parameter, key=value")
    r.add_argument("--time-budget", type=seconds, help="stop after this many seconds")
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
        type=count,
        default=8,
        help="columns of the online one-hot encoding of each text column (default 8; values "
        "first seen after the first 7 share the last)",
    )
    r.add_argument("--positive", help="classification: this target value is +1, every other -1")
    r.add_argument(
        "--weight",
        metavar="COL",
        help="a numeric column of sample weights (finite, >= 0; 0: the row is predicted, not "
        "learned); not a feature",
    )
    r.add_argument(
        "--chunk-rows", type=count, default=65536, help="rows read at a time (default 65536)"
    )


def cmd_run(args) -> int:
    from kernelstream.evaluate import progressive

    check_outputs(
        ("--save-model", args.save_model),
        ("--save-predictions", args.save_predictions),
        ("--plot", args.plot),
    )
    check_extras(args)
    check_figure("--plot", args.plot)
    if args.resume:
        learner = resume(args.resume, args)
    else:
        args.learner = args.learner or "auto-kernel"
        learner = build_learner(args.learner, args)
    chunks, task, source, info = load_stream(args)
    if getattr(args, "weight", None):
        chunks = weighted_chunks(chunks, info, args.weight)
    if args.resume:
        print(f"resumed {learner!r} after {learner.n_seen} rounds from {args.resume}")
    run, scaling = scaled(learner, task, args)
    if args.resume and scaling != "none":
        print("kernelstream: note: online scaling starts its statistics anew on --resume",
              file=sys.stderr)  # fmt: skip
    width = info.width if info is not None else 5
    if getattr(args, "weight", None):
        width -= 1  # the weight column is no feature
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
    report_reading(info)
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
    from kernelstream._optional import available

    from .notes import metric_columns, metric_summary

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
