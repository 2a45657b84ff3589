"""Exceptions of the API contract.

``InputError`` and ``ParameterError`` subclass :class:`ValueError`, so code that
catches ``ValueError`` keeps working; ``NumericalError`` subclasses
:class:`ArithmeticError`; ``InternalError`` (a bug: a Rust panic caught at the
binding boundary) subclasses :class:`RuntimeError`. All derive from
:class:`KernelstreamError`. Ctrl-C during a whole-stream call raises the usual
:class:`KeyboardInterrupt`, with ``rounds_completed`` (and ``predictions`` of the
completed rounds) set on it; the learner is as after the last completed round.
"""


class KernelstreamError(Exception):
    """Base class of every error raised by kernelstream."""


class InputError(KernelstreamError, ValueError):
    """Bad data: wrong shape or type, NaN or infinity, empty input, a bad label."""


class ParameterError(KernelstreamError, ValueError):
    """A bad constructor argument or an impossible parameter combination."""


class NumericalError(KernelstreamError, ArithmeticError):
    """A numerical failure that could not be repaired (names the quantity and what was tried)."""


class InternalError(KernelstreamError, RuntimeError):
    """A bug in kernelstream (a panic of the Rust core caught at the binding boundary)."""


__all__ = ["KernelstreamError", "InputError", "ParameterError", "NumericalError", "InternalError"]
