"""``kernelstream.evaluate.progressive``: the online protocol over a dataset with
checkpoints of running average loss, cumulative seconds, ``dim`` and memory.

The stream (arrays, or an iterable of ``(X, y)`` chunks such as
:func:`kernelstream.datasets.stream`) is processed in chunks between checkpoints by the learner's Rust
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

from .._validation import as_matrix, as_targets, as_weights
from ..errors import ParameterError
from .losses import LOSSES
from .metrics import Metrics


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
    """The process's resident memory in MiB: psutil's RSS if installed, else the
    kernel's count (``/proc/self/statm``, Linux), else the standard library's peak RSS
    (``resource.getrusage``: the peak, not the current size; macOS and the BSDs); NaN
    only where none exists (Windows without psutil)."""
    try:
        import psutil

        return psutil.Process(os.getpid()).memory_info().rss / 2**20
    except Exception:
        pass
    try:
        with open("/proc/self/statm") as f:
            resident_pages = int(f.read().split()[1])
        return resident_pages * os.sysconf("SC_PAGE_SIZE") / 2**20
    except (OSError, ValueError, IndexError, AttributeError):
        pass
    try:
        import resource

        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        # kilobytes on Linux, bytes on macOS
        return peak / (2**20 if sys.platform == "darwin" else 2**10)
    except (ImportError, OSError, ValueError):  # pragma: no cover - Windows
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
    #: Running average loss, at each checkpoint, of the running mean of the past targets.
    baseline: np.ndarray = field(default_factory=lambda: np.empty(0))
    #: Each metric's value at each checkpoint (name -> array; ``metrics=`` of
    #: :func:`progressive`, by default the task's loss: ``"mse"`` or ``"error"``).
    metrics: dict = field(default_factory=dict)

    @property
    def final_loss(self) -> float:
        """Running average loss at the last round run."""
        return float(self.loss[-1]) if self.loss.size else float("nan")

    @property
    def total_seconds(self) -> float:
        return float(self.seconds[-1]) if self.seconds.size else 0.0

    def to_frame(self):
        """Checkpoints as a pandas DataFrame (columns rounds, loss, seconds, dim, memory_mb,
        baseline, then one column per metric)."""
        from .._optional import require

        pd = require("pandas")

        base = self.baseline if self.baseline.size == self.rounds.size else np.nan
        return pd.DataFrame(
            {
                "rounds": self.rounds,
                "loss": self.loss,
                "seconds": self.seconds,
                "dim": self.dim,
                "memory_mb": self.memory_mb,
                "baseline": base,
                **{
                    name: values
                    for name, values in self.metrics.items()
                    if np.size(values) == self.rounds.size
                },
            }
        ).assign(learner=self.learner)

    def plot(self, axes=None, label=None):
        """Running average loss and cumulative time against rounds; returns the figure.

        Needs matplotlib (``pip install 'kernelstream[plots]'``); without it, a
        ``ModuleNotFoundError`` names that extra."""
        from .plots import plot_results

        return plot_results([self], axes=axes, labels=[label] if label else None)


#: Seconds between two plain progress lines (``_Lines``): on a terminal, in place.
_LINE_SECONDS = {True: 0.5, False: 10.0}


class _Lines:
    """Progress without tqdm: ``desc: 35,000/100,000 rounds (35%), 12.3 s, 2,850 rounds/s``
    on stderr every ``_LINE_SECONDS`` (rewritten in place on a terminal, a new line in a
    log), updated between the chunks of the run."""

    def __init__(self, total: int | None, desc: str) -> None:
        self.total, self.desc, self.done = total, desc, 0
        self.tty = sys.stderr.isatty()
        self.t0 = self.last = time.perf_counter()
        self.shown = False

    def update(self, k: int) -> None:
        self.done += int(k)
        now = time.perf_counter()
        if now - self.last >= _LINE_SECONDS[self.tty]:
            self.last = now
            self._show(now)

    def _show(self, now: float) -> None:
        dt = now - self.t0
        of = f"/{self.total:,}" if self.total else ""
        pct = f" ({100 * self.done / self.total:.0f}%)" if self.total else ""
        rate = f", {self.done / dt:,.0f} rounds/s" if dt > 0 else ""
        line = f"{self.desc}: {self.done:,}{of} rounds{pct}, {dt:.1f} s{rate}"
        sys.stderr.write(("\r" + line) if self.tty else (line + "\n"))
        sys.stderr.flush()
        self.shown = True

    def close(self) -> None:
        if self.tty and self.shown:
            self._show(time.perf_counter())
            sys.stderr.write("\n")
            sys.stderr.flush()


def _progress_bar(total: int | None, desc: str, progress):
    """tqdm's bar on a terminal when tqdm is installed, else :class:`_Lines`; None
    without progress (``progress=None``: on a terminal only)."""
    tty = sys.stderr.isatty()
    if progress is None:
        progress = tty
    if not progress:
        return None
    try:
        from tqdm.auto import tqdm
    except ImportError:
        tqdm = None
    if tqdm is None or not tty:
        return _Lines(total, desc)
    return tqdm(total=total, desc=desc, unit="rd", unit_scale=True, leave=True)


def _learner_name(learner) -> str:
    """The class name of ``learner``, or of the learner it wraps (the CLI's scaling)."""
    inner = getattr(learner, "learner", None)
    return type(inner if inner is not None and hasattr(inner, "dim") else learner).__name__


def _log_checkpoints():
    """1, 2, 5, 10, 20, 50, ...: the checkpoints of a stream of unknown length."""
    k = 1
    while True:
        for m in (1, 2, 5):
            yield m * k
        k *= 10


def progressive(
    learner,
    X,
    y=None,
    task: str | None = None,
    checkpoints=None,
    time_budget: float | None = None,
    progress: bool | None = None,
    max_chunk: int = 2048,
    on_chunk=None,
    store_predictions: bool | None = None,
    sample_weight=None,
    metrics=None,
) -> ProgressiveResult:
    """Runs the online protocol of ``learner`` over ``(X, y)`` and records checkpoints.

    Parameters
    ----------
    learner : a kernelstream learner (anything with ``progressive_predict`` and ``dim``)
    X, y : the stream, rows in order; or ``X`` an iterable of ``(X, y)`` chunks (or
        ``(X, y, sample_weight)``) and ``y`` None (for example :func:`kernelstream.datasets.stream`: a file read in constant
        memory)
    task : ``"regression"`` (squared loss) or ``"classification"`` (error rate, ``sign(0) = +1``);
        default: the learner's own ``task`` (a hinge- or logistic-loss learner is a classifier)
    checkpoints : increasing round counts (default: ~30 log-spaced points up to ``n``; for
        chunks, whose length is not known in advance, 1, 2, 5, 10, 20, 50, ... and the last)
    time_budget : seconds; the run stops at the first chunk boundary past the budget, and the
        result covers the rounds actually run (``n_rounds``; ``stopped_by_budget``)
    progress : show progress on stderr between chunks (default: when stderr is a
        terminal): a tqdm bar on a terminal when tqdm is installed, else a plain line
        (rounds done, seconds, rounds per second) every half second in place on a
        terminal, every 10 s in a log
    on_chunk : ``on_chunk(y, predictions)`` after each piece of the stream, in order
    store_predictions : keep every prediction in ``result.predictions`` (default: for
        arrays, not for chunks, so that memory does not grow with the stream)
    metrics : a name or a list of names among ``"mse"``, ``"rmse"``, ``"mae"``, ``"r2"``,
        ``"error"``, ``"accuracy"``, ``"log_loss"`` (``kernelstream.evaluate.metrics``), or
        river metric objects; default: ``"mse"`` for regression, ``"error"`` for
        classification. ``result.metrics`` has each one's running value at every
        checkpoint, and ``to_frame()`` a column each
    sample_weight : one finite weight ``>= 0`` a row of ``X`` (arrays only): the learner
        learns each row with its weight (``progressive_predict(..., sample_weight=...)``)
        and the losses are weighted means, ``sum_t w_t l_t / sum_t w_t``, the baseline's
        too (the weighted running mean of the past targets); ``metrics`` are over the rows
        of positive weight, unweighted; docs/choices.md, "Sample weights"

    Returns
    -------
    ProgressiveResult
        The checkpoints: rounds, loss, metrics, seconds, dim, memory.

    Notes
    -----
    The result has the loss of a baseline at every checkpoint (``baseline``): the running
    mean of the past targets (0 before any), scored by the same loss (for +-1 labels its
    sign is the majority label so far).

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
    >>> bool(res.loss[-1] < res.loss[0] < res.baseline[0])
    True
    >>> res = progressive(TaylorAWV(degree=2), X, y, metrics=["mae", "r2"], progress=False)
    >>> sorted(res.metrics), bool(res.metrics["r2"][-1] > 0.5)
    (['mae', 'r2'], True)
    """
    if task is None:
        task = getattr(learner, "task", "regression")
    if task not in LOSSES:
        raise ParameterError(f"task must be 'regression' or 'classification', got {task!r}")
    if time_budget is not None and not (time_budget > 0):
        raise ParameterError(f"time_budget must be > 0 seconds, got {time_budget!r}")
    total = None
    sw = None
    if sample_weight is not None and y is None:
        raise ParameterError(
            "sample_weight needs X and y as arrays; a stream of chunks gives (X, y, w) chunks"
        )
    if y is not None:
        X = as_matrix(X)
        n = total = X.shape[0]
        y = as_targets(y, n)
        sw = as_weights(sample_weight, n)
        chunks = iter([(X, y)])
        if checkpoints is None:
            cps = default_checkpoints(n)
        else:
            cps = np.asarray(
                sorted({int(c) for c in checkpoints if 1 <= int(c) <= n}), dtype=np.int64
            )
            if cps.size == 0 or cps[-1] != n:
                cps = np.append(cps, n)
        next_cp = iter(cps.tolist())
        keep = True if store_predictions is None else bool(store_predictions)
    else:
        n = None
        if isinstance(X, (list, tuple)):  # pieces in memory: the bar knows the total
            total = sum(len(c[1]) for c in X)
        chunks = iter(X)
        given = (
            None if checkpoints is None else sorted({int(c) for c in checkpoints if int(c) >= 1})
        )
        next_cp = _log_checkpoints() if given is None else iter(given)
        keep = bool(store_predictions)
    loss_fn = LOSSES[task]
    tracker = Metrics(metrics, task, learner)
    metric_values: dict = {name: [] for name in tracker.names}
    kept = []
    rounds, losses, base, secs, dims, mems = [], [], [], [], [], []
    cum_loss = cum_base = y_sum = 0.0
    w_sum = 0.0  # the weights of the rounds done (weighted runs)
    elapsed = 0.0
    done = 0
    stopped = False
    bar = _progress_bar(total, _learner_name(learner), progress)
    chunk = 64
    interrupt = None
    cp = next(next_cp, None)

    def account(yc, p, wc=None):
        # the learner's loss and the baseline's (running mean of the targets before)
        nonlocal cum_loss, cum_base, y_sum, done, w_sum
        if wc is not None:  # weighted means (the rounds' weights)
            cum_loss += float((wc * loss_fn(p, yc)).sum())
            before = y_sum + np.cumsum(wc * yc) - wc * yc
            count = w_sum + np.cumsum(wc) - wc
            mean = np.divide(before, count, out=np.zeros(yc.size), where=count > 0)
            cum_base += float((wc * loss_fn(mean, yc)).sum())
            y_sum += float((wc * yc).sum())
            w_sum += float(wc.sum())
            learned = wc > 0.0
            tracker.update(yc[learned], np.asarray(p)[learned])
            done += int(yc.size)
            if keep:
                kept.append(np.array(p, dtype=float))
            if on_chunk is not None:
                on_chunk(yc, p)
            if bar is not None:
                bar.update(yc.size)
            return
        cum_loss += float(loss_fn(p, yc).sum())
        before = y_sum + np.cumsum(yc) - yc
        count = done + np.arange(yc.size, dtype=float)
        mean = np.divide(before, count, out=np.zeros(yc.size), where=count > 0)
        cum_base += float(loss_fn(mean, yc).sum())
        y_sum += float(yc.sum())
        tracker.update(yc, p)
        done += int(yc.size)
        if keep:
            kept.append(np.array(p, dtype=float))
        if on_chunk is not None:
            on_chunk(yc, p)
        if bar is not None:
            bar.update(yc.size)

    def record():
        rounds.append(int(done))
        total = done if sw is None else w_sum
        losses.append(cum_loss / total if total > 0 else float("nan"))
        base.append(cum_base / total if total > 0 else float("nan"))
        secs.append(elapsed)
        dims.append(int(learner.dim))
        mems.append(_memory_mb())
        for name, value in tracker.values().items():
            metric_values[name].append(value)

    piece = None
    try:
        for item in chunks:
            Xc, yc = item[0], item[1]
            if n is None:
                Xc = as_matrix(Xc)
                yc = as_targets(yc, Xc.shape[0])
                sw = as_weights(item[2], Xc.shape[0]) if len(item) > 2 else None
            pos, m = 0, yc.size
            while pos < m:
                stop = min(m, pos + chunk)
                if cp is not None:
                    stop = min(stop, pos + cp - done)
                piece = (Xc, yc, pos)
                t0 = time.perf_counter()
                if sw is None:
                    p = learner.progressive_predict(Xc[pos:stop], yc[pos:stop])
                else:
                    p = learner.progressive_predict(
                        Xc[pos:stop], yc[pos:stop], sample_weight=sw[pos:stop]
                    )
                dt = time.perf_counter() - t0
                piece = None
                elapsed += dt
                account(yc[pos:stop], p, None if sw is None else sw[pos:stop])
                pos = stop
                if cp is not None and done == cp:
                    record()
                    cp = next(next_cp, None)
                    while cp is not None and cp <= done:
                        cp = next(next_cp, None)
                # Grow chunks while they are fast, so that the budget check stays cheap and timely.
                if dt < 0.05:
                    chunk = min(max_chunk, chunk * 2)
                elif dt > 0.25:
                    chunk = max(1, chunk // 2)
                if time_budget is not None and elapsed > time_budget:
                    stopped = pos < m or next(chunks, None) is not None
                    break
            if stopped:
                break
        if done > 0 and (not rounds or rounds[-1] != done):
            record()
    except KeyboardInterrupt as exc:
        # Keep what was computed: the completed rounds of the interrupted chunk too.
        interrupt = exc
        part = np.asarray(getattr(exc, "predictions", np.empty(0)), dtype=float)
        if part.size and piece is not None:
            Xc, yc, pos = piece
            wc = None if sw is None else sw[pos : pos + part.size]
            account(yc[pos : pos + part.size], part, wc)
        if done > 0 and (not rounds or rounds[-1] != done):
            record()
    finally:
        if bar is not None:
            bar.close()
    params = learner.get_params() if hasattr(learner, "get_params") else {}
    result = ProgressiveResult(
        learner=type(learner).__name__,
        task=task,
        rounds=np.asarray(rounds, dtype=np.int64),
        loss=np.asarray(losses, dtype=float),
        seconds=np.asarray(secs, dtype=float),
        dim=np.asarray(dims, dtype=np.int64),
        memory_mb=np.asarray(mems, dtype=float),
        predictions=np.concatenate(kept) if kept else np.empty(0),
        n_rounds=done,
        stopped_by_budget=stopped,
        params=params,
        interrupted=interrupt is not None,
        baseline=np.asarray(base, dtype=float),
        metrics={name: np.asarray(v, dtype=float) for name, v in metric_values.items()},
    )
    if interrupt is not None:
        interrupt.result = result  # type: ignore[attr-defined]
        raise interrupt
    return result
