"""The command line's notes and checks that are not the run itself: what the category
limit lumped, the extras an option needs, the metrics."""

from __future__ import annotations

import sys


def category_note(info, col: str, cats: list) -> str:
    """What the one-hot encoding of text column ``col`` did, naming what it lumped."""
    lumped = info.lumped.get(col, {})
    rows = info.values_in_last_category.get(col, 0)
    text = f"text column {col!r} one-hot encoded online: {len(cats)} categories"
    if not rows:
        return text
    total = max(info.rows_read - info.rows_dropped, 1)
    shown = ", ".join(repr(v) for v in list(lumped)[:5]) + (", ..." if len(lumped) > 5 else "")
    more = "" if len(lumped) < 1000 else " or more"
    return (
        f"{text}; the last column lumps {len(lumped)}{more} later values ({shown}): "
        f"{rows} rows, {100.0 * rows / total:.1f}% of the rows kept; "
        f"--max-categories {len(cats) + len(lumped)} gives each its own column"
    )


def check_extras(args) -> None:
    """Options whose extra is not installed: ``--plot`` is an error (before the run, exit
    2), ``--progress`` a note (the run goes on without a bar)."""
    from kernelstream._optional import available, hint

    if getattr(args, "plot", None) and not available("matplotlib"):
        # (main() prints a missing extra as one line, exit 2)
        raise ModuleNotFoundError(f"--plot {args.plot}: " + hint("matplotlib"), name="matplotlib")
    if getattr(args, "progress", None) and not available("tqdm"):
        print("kernelstream: note: --progress needs tqdm, not installed: " + hint("tqdm")
              + "; running without a progress bar", file=sys.stderr)  # fmt: skip


def metric_columns(res) -> list:
    """The metric columns of the table (``--metric``), those that are not the loss."""
    return [m for m in res.metrics if m not in ("mse", "error") or len(res.metrics) > 1]


def metric_summary(res) -> str:
    """``; mae 0.1, r2 0.9`` for the final line (empty with the default metric only)."""
    cols = metric_columns(res)
    return "".join(f"; final {m} {res.metrics[m][-1]:.6g}" for m in cols)
