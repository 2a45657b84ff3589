"""Synthetic streams defined in code (the papers' simulations and a default stream).

Generators take a ``seed`` and use :class:`kernelstream._core.Rng` or NumPy's
``default_rng(seed)``; the same seed gives the same stream.
"""

from __future__ import annotations

import numpy as np


def friedman_stream(n: int = 20_000, d: int = 5, noise: float = 0.1, seed: int = 0):
    """The default stream of ``kernelstream run``: Friedman's #1 regression function.

    ``x ~ U[-1, 1]^d`` (``d >= 5``; coordinates past the fifth are irrelevant) and, with
    ``u = (x + 1) / 2`` in ``[0, 1]^d``,
    ``f(u) = 10 sin(pi u1 u2) + 20 (u3 - 1/2)^2 + 10 u4 + 5 u5`` rescaled by ``1/25`` so that
    ``y = f(u)/25 - 0.5 + noise * N(0, 1)`` lies roughly in ``[-0.5, 0.5]``.
    (Friedman, 1991, *Multivariate adaptive regression splines*, eq. (2).)

    Returns ``(X, y)`` with ``X`` of shape ``(n, d)``.
    """
    if d < 5:
        raise ValueError(f"friedman_stream needs d >= 5, got {d}")
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1.0, 1.0, size=(n, d))
    y = friedman1((X + 1.0) / 2.0) / 25.0 - 0.5 + noise * rng.standard_normal(n)
    return X, y


def friedman1(u: np.ndarray) -> np.ndarray:
    """Friedman's #1 function of the rows of ``u`` (inputs in ``[0, 1]``, at least five
    columns; those past the fifth are irrelevant):
    ``10 sin(pi u1 u2) + 20 (u3 - 1/2)^2 + 10 u4 + 5 u5`` (Friedman, 1991, eq. (2)).

    >>> float(friedman1(np.array([[0.5, 1.0, 0.5, 0.0, 0.0]]))[0])
    10.0
    """
    return (
        10 * np.sin(np.pi * u[:, 0] * u[:, 1])
        + 20 * (u[:, 2] - 0.5) ** 2
        + 10 * u[:, 3]
        + 5 * u[:, 4]
    )


from .adversarial import GreedyAdversary, RegularisedComparator  # noqa: E402
from .ar4 import ar4  # noqa: E402
from .projection_examples import (  # noqa: E402
    EXAMPLES as PROJECTION_EXAMPLES,
)
from .projection_examples import (  # noqa: E402
    additive_doppler,
    example1,
    example2,
    example_a1,
    example_a2,
    l2_error,
)

__all__ = [
    "friedman_stream",
    "friedman1",
    "GreedyAdversary",
    "RegularisedComparator",
    "ar4",
    "PROJECTION_EXAMPLES",
    "example1",
    "example2",
    "example_a1",
    "example_a2",
    "additive_doppler",
    "l2_error",
]
