"""One case of ``kernelstream bench``: a Rust learner and its NumPy reference on one stream."""

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
