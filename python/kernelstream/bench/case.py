"""One case of ``kernelstream bench`` (a Rust learner and its NumPy reference on one
stream) and the streams the cases draw."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np


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
    #: flops of one round for a learner of dimension ``r`` (prints GFlop/s and the
    #: single-core dgemm rate of the same run), e.g. ``3 r^2`` for the AWV engine.
    flops_per_round: Callable[[int], float] | None = None
    #: the reference is a learner too: time its ``progressive_predict`` like the fast one.
    reference_is_learner: bool = False
    #: the reference is the serving loop of the same learner: print the rate ratio
    #: (serving loop / ``progressive_predict``) too.
    serve: bool = False
    #: the serving loop of the reference, ``loop(model, X, y, start)`` over the rows
    #: ``start, start + 1, ...`` of the case (default: ``predict_one`` then ``learn_one``)
    serve_loop: Callable | None = None
    #: the two sides are the same work at two sizes: time them alternately in one run
    #: and print the cost ratio (fast / reference) under this name.
    cost_ratio: str | None = None
    #: a serving case (``serve``) that also prints each side's wall-clock time per round.
    wall: bool = False


def uniform_stream(n, d, seed=0):
    """``n`` rows uniform on ``[-1, 1]^d``, targets ``sin(2 x_1)`` plus noise 0.1."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, size=(n, d))
    y = np.sin(2 * X[:, 0]) + 0.1 * rng.standard_normal(n)
    return X, y


def bounded_stream(n, d, seed=0):
    """``n`` rows of norm at most 1, targets in ``[0, 1]``."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, size=(n, d)) / np.sqrt(d)
    y = np.clip(0.5 + 0.4 * np.sin(3 * X[:, 0]) + 0.1 * rng.standard_normal(n), 0, 1)
    return X, y


def awv_flops(r):
    """One AWV round: a symmetric mat-vec (2 r^2) and a rank-one update (r^2)."""
    return 3.0 * r * r
