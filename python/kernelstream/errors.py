"""Exceptions of the API contract.

``InputError`` and ``ParameterError`` subclass :class:`ValueError`, so code that
catches ``ValueError`` keeps working; ``NumericalError`` subclasses
:class:`ArithmeticError`. All derive from :class:`KernelstreamError`.
"""


class KernelstreamError(Exception):
    """Base class of every error raised by kernelstream."""


class InputError(KernelstreamError, ValueError):
    """Bad data: wrong shape or type, NaN or infinity, empty input, a bad label."""


class ParameterError(KernelstreamError, ValueError):
    """A bad constructor argument or an impossible parameter combination."""


class NumericalError(KernelstreamError, ArithmeticError):
    """A numerical failure that could not be repaired (names the quantity and what was tried)."""


__all__ = ["KernelstreamError", "InputError", "ParameterError", "NumericalError"]
