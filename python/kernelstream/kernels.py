"""Kernels (API contract: ``kernelstream.kernels``).

A kernel is immutable, picklable, computes Gram matrices with ``k(X, Y)``, and
has a readable ``repr``. Learners receive it and pass its ``spec`` (name and
parameters) to the Rust core.
"""
from __future__ import annotations

import numpy as np

from . import _core
from ._validation import as_matrix, positive
from .errors import InputError


class Kernel:
    """Base class: a named, immutable kernel with Gram matrices computed in Rust."""

    name: str = ""
    __slots__ = ()

    @property
    def params(self) -> tuple:
        raise NotImplementedError

    @property
    def spec(self) -> tuple:
        """``(name, [params])``, the form the Rust core takes."""
        return self.name, [float(p) for p in self.params]

    def __call__(self, X, Y=None) -> np.ndarray:
        """Gram matrix ``K[i, j] = k(X[i], Y[j])`` (``Y = X`` if omitted)."""
        X = np.atleast_2d(as_matrix(np.atleast_2d(np.asarray(X, dtype=float)), "X"))
        Y = X if Y is None else as_matrix(np.atleast_2d(np.asarray(Y, dtype=float)), "Y")
        if X.shape[1] != Y.shape[1]:
            raise InputError(f"X has {X.shape[1]} columns but Y has {Y.shape[1]}")
        return _core.kernel_gram(self.name, list(self.spec[1]), X, Y)

    def __setattr__(self, key, value):
        raise AttributeError(f"{type(self).__name__} is immutable")

    def __eq__(self, other):
        return type(self) is type(other) and self.params == other.params

    def __hash__(self):
        return hash((type(self).__name__, self.params))

    def __reduce__(self):
        return (type(self), self.params)


class Gaussian(Kernel):
    """Gaussian kernel ``k(x, x') = exp(-||x - x'||^2 / (2 sigma^2))``.

    Examples
    --------
    >>> from kernelstream.kernels import Gaussian
    >>> k = Gaussian(sigma=1.0)
    >>> round(float(k([[0.0, 0.0]], [[1.0, 1.0]])[0, 0]), 6)
    0.367879
    """

    name = "gaussian"
    __slots__ = ("_sigma",)

    def __init__(self, sigma: float = 1.0):
        object.__setattr__(self, "_sigma", positive("sigma", sigma))

    @property
    def sigma(self) -> float:
        return self._sigma

    @property
    def params(self) -> tuple:
        return (self._sigma,)

    def __repr__(self):
        return f"Gaussian(sigma={self._sigma!r})"


class Laplacian(Kernel):
    """Laplacian kernel ``k(x, x') = exp(-||x - x'||_1 / sigma)``.

    Examples
    --------
    >>> from kernelstream.kernels import Laplacian
    >>> round(float(Laplacian(2.0)([[0.0]], [[1.0]])[0, 0]), 6)
    0.606531
    """

    name = "laplacian"
    __slots__ = ("_sigma",)

    def __init__(self, sigma: float = 1.0):
        object.__setattr__(self, "_sigma", positive("sigma", sigma))

    @property
    def sigma(self) -> float:
        return self._sigma

    @property
    def params(self) -> tuple:
        return (self._sigma,)

    def __repr__(self):
        return f"Laplacian(sigma={self._sigma!r})"


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


__all__ = ["Kernel", "Gaussian", "Laplacian", "as_kernel", "vaw2_grid"]
