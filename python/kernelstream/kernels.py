"""Kernels (API contract: ``kernelstream.kernels``).

A kernel is a frozen object of the extension (``Kernel`` and one subclass per kernel):
immutable, hashable, picklable, with ``k(X, Y)`` / ``k.gram`` (Gram matrix), ``k.diag``,
``k.eval``, ``params``, ``spec`` and a readable ``repr``. ``Kernel.from_spec(name, params)``
is the one table from names to kernels. Learners pass a kernel's ``spec`` to the Rust core.
"""

from __future__ import annotations

import numpy as np

from ._core import AdditiveSobolev2, BernoulliPeriodic, Gaussian, Kernel, Laplacian, Min


def as_kernel(kernel) -> Kernel:
    """Accepts a :class:`Kernel` (returned as is)."""
    from .errors import ParameterError

    if not isinstance(kernel, Kernel):
        raise ParameterError(f"kernel must be a kernelstream.kernels.Kernel, got {kernel!r}")
    return kernel


def vaw2_grid() -> list:
    """The 76-kernel dictionary of the VAW2 paper (Rokhlin & Gurtovaya 2025, sec. 4), in order.

    51 Gaussian kernels with ``sigma^2 = 10^(2i/25 - 2)``, ``i = 0..50`` (``sigma^2`` from
    0.01 to 100), then 25 Laplacian kernels with ``sigma = 10^(i/6 - 2)``, ``i = 0..24``.

    Examples
    --------
    >>> from kernelstream.kernels import vaw2_grid
    >>> g = vaw2_grid()
    >>> len(g), g[25], g[51 + 12]
    (76, Gaussian(sigma=1.0), Laplacian(sigma=1.0))
    """
    gauss = [Gaussian(float(np.sqrt(10.0 ** (2 * i / 25 - 2)))) for i in range(51)]
    lap = [Laplacian(float(10.0 ** (i / 6 - 2))) for i in range(25)]
    return gauss + lap


__all__ = [
    "Kernel",
    "Gaussian",
    "Laplacian",
    "Min",
    "BernoulliPeriodic",
    "AdditiveSobolev2",
    "as_kernel",
    "vaw2_grid",
]
