"""Cases of ``kernelstream bench``: each times a Rust learner against its NumPy
reference on the same stream, in one run, and reports microseconds per round and
the speed ratio. Modules register cases with :func:`register_bench`."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Callable

import numpy as np

from .buildinfo import build_info

_CASES: dict[str, Callable] = {}


@dataclass
class BenchCase:
    label: str
    make_fast: Callable
    make_reference: Callable
    X: np.ndarray
    y: np.ndarray
    #: rounds given to the reference (it is slow); the fast learner runs all of X.
    reference_rounds: int | None = None
    #: rounds of warm-up before timing (both learners), e.g. to fill a dictionary.
    warmup: int = 0


def register_bench(name: str):
    def deco(fn):
        _CASES[name] = fn
        return fn

    return deco


def cases() -> dict:
    from . import _bench_all  # noqa: F401

    return dict(_CASES)


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


def _time_reference(case: BenchCase):
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


def run_bench(names=None, quick: bool = False, printer=print) -> list:
    """Runs the registered cases (all, or ``names``) and prints a table; returns the rows."""
    rows = []
    all_cases = cases()
    selected = names or list(all_cases)
    info = build_info()
    printer(f"SIMD path: {info['simd_path']} (CPU supports {info['simd_detected']})")
    printer(
        f"{'case':<16} {'setting':<28} {'dim':>6} {'rust us/rd':>11} {'numpy us/rd':>12} {'ratio':>8}"
    )
    for name in selected:
        if name not in all_cases:
            raise KeyError(f"unknown bench case {name!r}; known: {', '.join(all_cases)}")
        for case in all_cases[name](quick):
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
            rows.append(row)
            printer(
                f"{name:<16} {case.label:<28} {dim:>6} {row['rust_us']:>11.2f} {row['numpy_us']:>12.1f} "
                f"{row['ratio']:>7.1f}x"
            )
    return rows
