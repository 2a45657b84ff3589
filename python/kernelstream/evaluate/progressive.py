"""``kernelstream.evaluate.progressive``: the online protocol over a dataset with
checkpoints of running average loss, cumulative seconds, ``dim`` and memory.

The stream is processed in chunks between checkpoints by the learner's Rust
``progressive_predict`` (GIL released), so the bookkeeping costs nothing per round;
the time budget is checked between chunks (chunks are capped so that the budget
is honoured to within a fraction of a second).
"""

from __future__ import annotations

import os
import sys
import time
from dataclasses import dataclass, field

import numpy as np

from .._validation import as_matrix, as_targets
from ..errors import ParameterError
from .losses import LOSSES


def default_checkpoints(n: int, n_points: int = 30) -> np.ndarray:
    """About ``n_points`` log-spaced round counts in ``[1, n]``, always including ``n``."""
    if n <= 0:
        return np.array([], dtype=np.int64)
    pts = np.unique(np.round(np.logspace(0, np.log10(n), n_points)).astype(np.int64))
    pts = pts[(pts >= 1) & (pts <= n)]
    if pts.size == 0 or pts[-1] != n:
        pts = np.append(pts, n)
    return pts


def _memory_mb() -> float:
    try:
        import psutil

        return psutil.Process(os.getpid()).memory_info().rss / 2**20
    except Exception:  # pragma: no cover - psutil missing
        return float("nan")


@dataclass
class ProgressiveResult:
    """Checkpointed results of a progressive run (one value per checkpoint)."""

    learner: str
    task: str
    rounds: np.ndarray
    loss: np.ndarray
    seconds: np.ndarray
    dim: np.ndarray
    memory_mb: np.ndarray
    predictions: np.ndarray
    n_rounds: int
    stopped_by_budget: bool = False
    params: dict = field(default_factory=dict)
    #: The run was stopped by Ctrl-C (the result covers the completed rounds).
    interrupted: bool = False

    @property
    def final_loss(self) -> float:
        """Running average loss at the last round run."""
        return float(self.loss[-1]) if self.loss.size else float("nan")

    @property
    def total_seconds(self) -> float:
        return float(self.seconds[-1]) if self.seconds.size else 0.0

    def to_frame(self):
        """Checkpoints as a pandas DataFrame (columns rounds, loss, seconds, dim, memory_mb)."""
        import pandas as pd

        return pd.DataFrame(
            {
                "rounds": self.rounds,
                "loss": self.loss,
                "seconds": self.seconds,
                "dim": self.dim,
                "memory_mb": self.memory_mb,
            }
        ).assign(learner=self.learner)

    def plot(self, axes=None, label=None):
        """Running average loss and cumulative time against rounds; returns the figure.

        Needs matplotlib (``pip install 'kernelstream[plots]'``); without it, a
        ``ModuleNotFoundError`` names that extra."""
        from .plots import plot_results

        return plot_results([self], axes=axes, labels=[label] if label else None)


def _progress_bar(total: int, desc: str, progress):
    if progress is None:
        progress = sys.stderr.isatty()
    if not progress:
        return None
    try:
        from tqdm.auto import tqdm
    except ImportError:  # pragma: no cover
        return None
    return tqdm(total=total, desc=desc, unit="rd", unit_scale=True, leave=True)


def progressive(
    learner,
    X,
    y,
    task: str | None = None,
    checkpoints=None,
    time_budget: float | None = None,
    progress: bool | None = None,
    max_chunk: int = 2048,
) -> ProgressiveResult:
    """Runs the online protocol of ``learner`` over ``(X, y)`` and records checkpoints.

    Parameters
    ----------
    learner : a kernelstream learner (anything with ``progressive_predict`` and ``dim``)
    X, y : the stream, rows in order
    task : ``"regression"`` (squared loss) or ``"classification"`` (error rate, ``sign(0) = +1``);
        default: the learner's own ``task`` (a hinge- or logistic-loss learner is a classifier)
    checkpoints : increasing round counts (default: ~30 log-spaced points up to ``n``)
    time_budget : seconds; the run stops at the first chunk boundary past the budget, and the
        result covers the rounds actually run (``n_rounds``; ``stopped_by_budget``)
    progress : show a tqdm progress bar (default: when stderr is a terminal)

    Ctrl-C stops the run at a round boundary: the ``KeyboardInterrupt`` is re-raised
    with ``result`` set to the result of the rounds completed (``interrupted=True``),
    and the learner is as after the last of them.

    Examples
    --------
    >>> from kernelstream import TaylorAWV
    >>> from kernelstream.datasets.synthetic import friedman_stream
    >>> from kernelstream.evaluate import progressive
    >>> X, y = friedman_stream(n=2000, seed=1)
    >>> res = progressive(TaylorAWV(degree=2), X, y, checkpoints=[100, 1000, 2000], progress=False)
    >>> res.rounds.tolist(), res.n_rounds
    ([100, 1000, 2000], 2000)
    >>> bool(res.loss[-1] < res.loss[0])
    True
    """
    if task is None:
        task = getattr(learner, "task", "regression")
    if task not in LOSSES:
        raise ParameterError(f"task must be 'regression' or 'classification', got {task!r}")
    X = as_matrix(X)
    n = X.shape[0]
    y = as_targets(y, n)
    if checkpoints is None:
        cps = default_checkpoints(n)
    else:
        cps = np.asarray(sorted({int(c) for c in checkpoints if 1 <= int(c) <= n}), dtype=np.int64)
        if cps.size == 0 or cps[-1] != n:
            cps = np.append(cps, n)
    if time_budget is not None and not (time_budget > 0):
        raise ParameterError(f"time_budget must be > 0 seconds, got {time_budget!r}")
    loss_fn = LOSSES[task]
    preds = np.empty(n)
    rounds, losses, secs, dims, mems = [], [], [], [], []
    cum_loss = 0.0
    elapsed = 0.0
    done = 0
    stopped = False
    bar = _progress_bar(n, type(learner).__name__, progress)
    chunk = 64
    interrupt = None
    try:
        for cp in cps:
            while done < cp:
                stop = min(cp, done + chunk)
                t0 = time.perf_counter()
                p = learner.progressive_predict(X[done:stop], y[done:stop])
                dt = time.perf_counter() - t0
                elapsed += dt
                preds[done:stop] = p
                cum_loss += float(loss_fn(p, y[done:stop]).sum())
                if bar is not None:
                    bar.update(stop - done)
                done = int(stop)
                # Grow chunks while they are fast, so that the budget check stays cheap and timely.
                if dt < 0.05:
                    chunk = min(max_chunk, chunk * 2)
                elif dt > 0.25:
                    chunk = max(1, chunk // 2)
                if time_budget is not None and elapsed > time_budget:
                    stopped = done < n
                    break
            rounds.append(int(done))
            losses.append(cum_loss / done)
            secs.append(elapsed)
            dims.append(int(learner.dim))
            mems.append(_memory_mb())
            if stopped:
                break
    except KeyboardInterrupt as exc:
        # Keep what was computed: the completed rounds of the interrupted chunk too.
        interrupt = exc
        part = np.asarray(getattr(exc, "predictions", np.empty(0)), dtype=float)
        if part.size:
            preds[done : done + part.size] = part
            cum_loss += float(loss_fn(part, y[done : done + part.size]).sum())
            done += int(part.size)
        if done > 0 and (not rounds or rounds[-1] != done):
            rounds.append(int(done))
            losses.append(cum_loss / done)
            secs.append(elapsed)
            dims.append(int(learner.dim))
            mems.append(_memory_mb())
    finally:
        if bar is not None:
            bar.close()
    # Deduplicate a checkpoint repeated by an early stop.
    rounds_arr = np.asarray(rounds, dtype=np.int64)
    keep = np.r_[True, np.diff(rounds_arr) > 0] if rounds_arr.size else np.array([], dtype=bool)
    params = learner.get_params() if hasattr(learner, "get_params") else {}
    result = ProgressiveResult(
        learner=type(learner).__name__,
        task=task,
        rounds=rounds_arr[keep],
        loss=np.asarray(losses)[keep],
        seconds=np.asarray(secs)[keep],
        dim=np.asarray(dims, dtype=np.int64)[keep],
        memory_mb=np.asarray(mems)[keep],
        predictions=preds[:done],
        n_rounds=done,
        stopped_by_budget=stopped,
        params=params,
        interrupted=interrupt is not None,
    )
    if interrupt is not None:
        interrupt.result = result  # type: ignore[attr-defined]
        raise interrupt
    return result
