"""Exceptions of the API contract, created by the extension (``kernelstream._core``).

``InputError`` and ``ParameterError`` subclass :class:`ValueError`, so code that
catches ``ValueError`` keeps working; ``NumericalError`` subclasses
:class:`ArithmeticError`; ``InternalError`` (a broken invariant, i.e. a bug)
subclasses :class:`RuntimeError`. All derive from :class:`KernelstreamError`.
"""

from ._core import (
    InputError,
    InternalError,
    KernelstreamError,
    NumericalError,
    ParameterError,
)

__all__ = ["KernelstreamError", "InputError", "ParameterError", "NumericalError", "InternalError"]
