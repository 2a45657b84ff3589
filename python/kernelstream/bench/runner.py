"""The runner of ``kernelstream bench``: each case times a Rust learner against its NumPy
reference (or another setting of itself) on the same stream, in one run, and reports
microseconds per round and the speed ratio."""

from __future__ import annotations

import time

import numpy as np

from kernelstream.buildinfo import build_info
from kernelstream.errors import InputError

from .case import BenchCase
from .catalog import CASES


def _time_fast(case: BenchCase):
    best = float("inf")
    n = case.X.shape[0] - case.warmup
    for _ in range(3):
        m = case.make_fast()
        if case.warmup:
            m.learn_many(case.X[: case.warmup], case.y[: case.warmup])
        t0 = time.perf_counter()
        m.progressive_predict(case.X[case.warmup :], case.y[case.warmup :])
        best = min(best, time.perf_counter() - t0)
    return best / n, m.dim


def _time_alternately(case: BenchCase, repeats: int = 3):
    """Best ``progressive_predict`` time per round of each side, alternating A and B."""
    best = [float("inf"), float("inf")]
    for _ in range(repeats):
        for i, make in enumerate((case.make_fast, case.make_reference)):
            m = make()
            t0 = time.perf_counter()
            m.progressive_predict(case.X, case.y)
            best[i] = min(best[i], time.perf_counter() - t0)
    fast = case.make_fast()
    fast.learn_many(case.X[:1], case.y[:1])
    n = case.X.shape[0]
    return best[0] / n, fast.dim, best[1] / n


def _time_reference(case: BenchCase):
    if case.reference_is_learner:
        best = float("inf")
        for _ in range(2):
            ref = case.make_reference()
            t0 = time.perf_counter()
            ref.progressive_predict(case.X, case.y)
            best = min(best, time.perf_counter() - t0)
        return best / case.X.shape[0]
    ref = case.make_reference()
    for x, y in zip(case.X[: case.warmup], case.y[: case.warmup]):
        ref.learn_one(x, y)
    n = case.reference_rounds or min(case.X.shape[0] - case.warmup, 300)
    Xr, yr = case.X[case.warmup : case.warmup + n], case.y[case.warmup : case.warmup + n]
    t0 = time.perf_counter()
    for x, y in zip(Xr, yr):
        ref.predict_one(x)
        ref.learn_one(x, y)
    return (time.perf_counter() - t0) / len(Xr)


def _serve_loop(model, X, y, start):
    """``predict_one`` then ``learn_one`` on each row (a learner's serving loop)."""
    predict_one, learn_one = model.predict_one, model.learn_one
    for x, yt in zip(X, y):
        predict_one(x)
        learn_one(x, yt)


def time_serve(case: BenchCase, chunk: int = 256, wall: list | None = None):
    """Seconds per round of ``progressive_predict`` and of the serving loop (``predict_one``
    then ``learn_one``, from Python) on two learners fed the same rows: chunks of rows
    alternate between the two (so that both see the same machine load), each timed
    once in CPU time of the process (on a shared machine wall-clock time mostly counts
    other processes: the learners of these cases run on the calling thread); the
    fastest chunk of each gives its rate. ``wall``: receives the wall-clock seconds per
    round of each side (over all chunks)."""
    fast, serve = case.make_fast(), case.make_reference()
    if case.warmup:
        for m in (fast, serve):
            m.learn_many(case.X[: case.warmup], case.y[: case.warmup])
    n = min(case.reference_rounds or case.X.shape[0], case.X.shape[0] - case.warmup)
    X, y = case.X[case.warmup : case.warmup + n], case.y[case.warmup : case.warmup + n]
    t_fast, t_serve, w = [], [], [0.0, 0.0]
    loop = case.serve_loop or _serve_loop
    for s in range(0, n - chunk + 1, chunk):
        Xc, yc = X[s : s + chunk], y[s : s + chunk]
        w0, t0 = time.perf_counter(), time.process_time()
        fast.progressive_predict(Xc, yc)
        w1, t1 = time.perf_counter(), time.process_time()
        loop(serve, Xc, yc, case.warmup + s)
        w2, t2 = time.perf_counter(), time.process_time()
        t_fast.append((t1 - t0) / chunk)
        t_serve.append((t2 - t1) / chunk)
        w[0] += w1 - w0
        w[1] += w2 - w1
    if wall is not None:
        rounds = max(len(t_fast) * chunk, 1)
        wall[:] = [w[0] / rounds, w[1] / rounds]
    return min(t_fast), fast.dim, min(t_serve)


def dgemm_gflops(n: int = 1024, repeats: int = 3) -> float:
    """Single-core dgemm rate of NumPy's BLAS (``n x n`` products, best of ``repeats``),
    the bound the blocked AWV rounds are compared with. The BLAS is held to one thread
    with ``threadpoolctl`` when it is installed."""
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((n, n)), rng.standard_normal((n, n))
    try:
        from threadpoolctl import threadpool_limits

        limit = threadpool_limits(limits=1, user_api="blas")
    except ImportError:  # pragma: no cover - threadpoolctl comes with scikit-learn
        limit = None
    try:
        best = float("inf")
        for _ in range(repeats):
            t0 = time.perf_counter()
            a @ b
            best = min(best, time.perf_counter() - t0)
    finally:
        if limit is not None:
            limit.restore_original_limits()
    return 2.0 * n**3 / best / 1e9


def run_bench(names=None, quick: bool = False, printer=print, progress=None) -> list:
    """Runs the registered cases (all, or ``names``) and prints a table; returns the rows.

    ``progress(i, n, name)`` is called before each case (the CLI prints a line on stderr).
    Unknown names raise :class:`~kernelstream.InputError` before anything runs.
    """
    rows = []
    all_cases = CASES
    selected = list(names or all_cases)
    unknown = [n for n in selected if n not in all_cases]
    if unknown:
        raise InputError(
            f"unknown bench case {', '.join(map(repr, unknown))}; known: {', '.join(all_cases)}"
        )
    info = build_info()
    printer(f"SIMD path: {info['simd_path']} (CPU supports {info['simd_detected']})")
    printer(
        f"{'case':<16} {'setting':<28} {'dim':>6} {'rust us/rd':>11} {'numpy us/rd':>12} {'ratio':>8}"
    )
    dgemm = None
    for i, name in enumerate(selected):
        if progress is not None:
            progress(i, len(selected), name)
        for case in all_cases[name](quick):
            if case.serve:
                wall: list = []
                fast, dim, ref = time_serve(case, wall=wall)
            elif case.cost_ratio:
                fast, dim, ref = _time_alternately(case)
            else:
                fast, dim = _time_fast(case)
                ref = _time_reference(case)
            row = {
                "case": name,
                "label": case.label,
                "dim": dim,
                "rust_us": fast * 1e6,
                "numpy_us": ref * 1e6,
                "ratio": ref / fast,
            }
            extra = ""
            if case.flops_per_round is not None:
                if dgemm is None:
                    dgemm = dgemm_gflops()
                flops = case.flops_per_round(dim)
                row["gflops"] = flops / fast / 1e9
                row["reference_gflops"] = flops / ref / 1e9
                row["dgemm_gflops"] = dgemm
                extra = (
                    f"  {row['gflops']:6.1f} GFlop/s (reference {row['reference_gflops']:.1f}, "
                    f"dgemm 1 core {dgemm:.1f})"
                )
            if case.cost_ratio:
                row["cost_ratio"] = fast / ref
                extra = f"  {case.cost_ratio} {fast / ref:.2f}"
            if case.serve and case.wall:
                row["rust_wall_us"], row["numpy_wall_us"] = (1e6 * wall[0], 1e6 * wall[1])
                extra = f"  wall us/rd {1e6 * wall[0]:.1f} vs {1e6 * wall[1]:.1f}"
            elif case.serve:
                row["serve_rate_ratio"] = fast / ref
                extra = f"  serve/progressive rate {fast / ref:.2f}"
            rows.append(row)
            printer(
                f"{name:<16} {case.label:<28} {dim:>6} {row['rust_us']:>11.2f} {row['numpy_us']:>12.1f} "
                f"{row['ratio']:>7.1f}x{extra}"
            )
    return rows
