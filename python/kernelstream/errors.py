"""Exceptions of the API contract, created by the extension (``kernelstream._core``).

``InputError`` and ``ParameterError`` subclass :class:`ValueError`, so code that
catches ``ValueError`` keeps working; ``NumericalError`` subclasses
:class:`ArithmeticError`; ``InternalError`` (a broken invariant, i.e. a bug)
subclasses :class:`RuntimeError`. All derive from :class:`KernelstreamError`.

``ScaleWarning`` (a :class:`UserWarning`, not an error) is issued once per learner when
the first rows of its stream are far from the scale its parameters assume
(``docs/adapters.md``, "Scale").
"""

from ._core import (
    InputError,
    InternalError,
    KernelstreamError,
    NumericalError,
    ParameterError,
)


class ScaleWarning(UserWarning):
    """The data are far from the scale the learner's parameters assume (inputs far
    outside the kernel width, or targets far from order one): its predictions will be
    poor until the data are scaled (the adapters' ``scale=True``, ``AutoKernel``, or a
    ``sigma`` matched to the data). Silence it with ``warnings.filterwarnings``."""


__all__ = [
    "KernelstreamError",
    "InputError",
    "ParameterError",
    "NumericalError",
    "InternalError",
    "ScaleWarning",
]
