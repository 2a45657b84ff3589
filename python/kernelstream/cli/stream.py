"""The rows of ``kernelstream run``: the built-in synthetic stream or a data file read in
chunks (``--csv``/``--dataset``), its task, its weights (``--weight``) and the online
scaling around the learner (``--scale``)."""

from __future__ import annotations

import sys

from .common import UsageError, parse_value
from .learner import SELF_SCALING_LEARNERS, UNIT_CUBE_LEARNERS


def x_range(args):
    if args.x_range is not None:
        lo, hi = args.x_range
        if not lo < hi:
            raise UsageError(f"--x-range needs LO < HI, got {lo:.6g} {hi:.6g}")
        return (lo, hi)
    return (0.0, 1.0) if args.learner in UNIT_CUBE_LEARNERS else (-1.0, 1.0)


def load_stream(args):
    """``(chunks, task, source, notes)``: the run's data as an iterable of ``(X, y)``
    chunks, its task, a description and what the reader did (filled in while reading)."""
    if args.dataset and args.csv:
        raise UsageError("give either --dataset or --csv, not both")
    if args.dataset or args.csv:
        return _file_stream(args)
    from kernelstream import datasets

    X, y = datasets.synthetic.friedman_stream(n=args.n, d=5, seed=args.shuffle or 0)
    lo, hi = x_range(args)
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
    positive = parse_value(args.positive) if args.positive is not None else None
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


def scaled(learner, task: str, args):
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
        x_range=x_range(args),
        targets=task == "regression",
    )
    how = (
        f"inputs min-max to [{x_range(args)[0]:g}, {x_range(args)[1]:g}]"
        if box
        else ("inputs standardized")
    )
    if task == "regression":
        how += ", targets standardized"
    return wrapped, how + " online (statistics of the rows so far)"


def report_reading(info) -> None:
    """What the reader dropped, imputed and encoded (stderr)."""
    if info is None:
        return
    if info.rows_dropped:
        print(f"dropped {info.rows_dropped} rows with missing values", file=sys.stderr)
    if info.values_imputed:
        print(f"imputed {info.values_imputed} missing values online", file=sys.stderr)
    from .notes import category_note

    for note in info.notes:
        print(f"kernelstream: note: {note}", file=sys.stderr)
    for col, cats in info.categories.items():
        print(category_note(info, col, cats), file=sys.stderr)


def weighted_chunks(chunks, info, col: str):
    """``--weight COL``: the chunks as ``(X, y, w)``, the column ``COL`` taken out of the
    features as the rows' sample weights (docs/choices.md, "Sample weights")."""
    import numpy as np

    encoder = getattr(info, "_encoder", None)
    if encoder is None:
        raise UsageError("--weight needs --csv or --dataset (a table with named columns)")
    names = list(encoder.feature_names)
    if col not in names:
        target = getattr(info, "target", None)
        what = "the target" if col == target else "not a numeric feature column"
        raise UsageError(f"--weight {col}: {what}; the numeric columns are {names}")
    j = names.index(col)
    for X, y in chunks:
        w = np.ascontiguousarray(X[:, j])
        bad = ~(np.isfinite(w) & (w >= 0))
        if bad.any():
            raise UsageError(
                f"--weight {col}: the weight {w[bad][0]!r} is not a finite number >= 0"
            )
        yield np.ascontiguousarray(np.delete(X, j, axis=1)), y, w
