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


def _to_float(A, name):
    try:
        return np.asarray(A, dtype=float)
    except (TypeError, ValueError) as exc:
        raise InputError(f"{name} could not be read as a numeric array: {exc}") from None


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
        X = as_matrix(np.atleast_2d(_to_float(X, "X")), "X")
        Y = X if Y is None else as_matrix(np.atleast_2d(_to_float(Y, "Y")), "Y")
        for name, A in (("X", X), ("Y", Y)):
            if not np.all(np.isfinite(A)):
                i, j = np.argwhere(~np.isfinite(A))[0]
                raise InputError(f"{name}[{i}, {j}] = {A[i, j]} is not finite")
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


class _Parameterless(Kernel):
    __slots__ = ()

    @property
    def params(self) -> tuple:
        return ()

    def __repr__(self):
        return f"{type(self).__name__}()"


class Min(_Parameterless):
    """Kernel ``k(x, x') = prod_l min(x_l, x'_l)`` (first-order Sobolev space with ``f(0) = 0``).

    Zhang and Simon, Table 1 (Example 2); eigenbasis ``sqrt(2) sin((2j-1) pi x / 2)`` on [0, 1].

    Examples
    --------
    >>> from kernelstream.kernels import Min
    >>> float(Min()([[0.3]], [[0.7]])[0, 0])
    0.3
    """

    name = "min"
    __slots__ = ()


class BernoulliPeriodic(_Parameterless):
    """Periodic second-order Sobolev kernel ``k(s, t) = -B4({s - t}) / 24`` (product over coordinates).

    ``B4(x) = x^4 - 2x^3 + x^2 - 1/30``, ``{.}`` the fractional part; Zhang and Simon, Table 2
    (Example 1). ``k(x, x) = 1/720``.

    Examples
    --------
    >>> from kernelstream.kernels import BernoulliPeriodic
    >>> round(float(BernoulliPeriodic()([[0.2]], [[0.2]])[0, 0]) * 720, 12)
    1.0
    """

    name = "bernoulli_periodic"
    __slots__ = ()


class AdditiveSobolev2(_Parameterless):
    """Additive second-order Sobolev kernel ``sum_l [x_l x'_l + x_l^2 x'_l^2 - B4({x_l - x'_l}) / 24]``.

    The kernel of Zhang and Simon's additive example with the sign and scale of the Bernoulli
    term corrected (eq. (85) prints ``+ B4({s - t})``, which is not positive semi-definite).

    Examples
    --------
    >>> from kernelstream.kernels import AdditiveSobolev2
    >>> round(float(AdditiveSobolev2()([[1.0, 0.0]], [[1.0, 0.0]])[0, 0]), 6)
    2.002778
    """

    name = "additive_sobolev2"
    __slots__ = ()


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
