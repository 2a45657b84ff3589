"""kernelstream: online kernel regression and classification with a Rust core.

Learners follow one protocol (``predict_one``, ``learn_one``, ``progressive_predict``,
``predict_many``, ``learn_many``, ``n_seen``, ``dim``, ``get_params``, pickling);
see ``docs/api.md`` and the README.
"""

from . import _core
from .errors import (
    InputError,
    InternalError,
    KernelstreamError,
    NumericalError,
    ParameterError,
    ScaleWarning,
)

__version__ = _core.__version__


def set_memory_limit(bytes: int) -> None:
    """Sets the memory ceiling (bytes) that every configuration is checked against.

    Constructors (and decoded states) whose memory would exceed it raise
    :class:`ParameterError` naming the memory needed; a first row whose width would
    take a learner beyond it, or rounds that would grow a cache beyond it, raise
    :class:`InputError` before any change. The default is the environment variable
    ``KERNELSTREAM_MEMORY_LIMIT`` (a positive number of bytes with an optional binary
    unit: ``1e9``, ``512M``, ``1.5G``, ``2GiB``), else half of the memory the process
    may use (physical memory or the cgroup limit, whichever is lower), at most 8 GiB.
    A variable that is not a size (``0``, ``abc``, ``-1``) is not ignored: every check
    raises a one-line :class:`ParameterError` quoting it, until this function sets a
    value.
    """
    import numbers

    if isinstance(bytes, bool) or not isinstance(bytes, numbers.Integral) or not 0 < bytes < 2**64:
        raise ParameterError(
            f"the memory limit must be an integer number of bytes in [1, 2^64), got {bytes!r}"
        )
    _core.set_memory_limit(int(bytes))


def get_memory_limit() -> int:
    """The memory ceiling in bytes (see :func:`set_memory_limit`)."""
    return int(_core.get_memory_limit())


from . import (  # noqa: E402
    aggregation,  # noqa: E402
    datasets,
    evaluate,
    kernels,  # noqa: E402
    samplers,  # noqa: E402
)
from .buildinfo import build_info  # noqa: E402
from .learners import (  # noqa: E402
    FOGD,
    NOGD,
    OMKLGF,
    RFFAWV,
    AutoKernel,
    AveragedKernelSGD,
    Conformal,
    KernelAWV,
    Learner,
    Mixture,
    MultiKernelAWV,
    NystromAWV,
    OnlineProjection,
    ProsNKons,
    Raker,
    TaylorAWV,
)

__all__ = [
    "__version__",
    "build_info",
    "KernelstreamError",
    "InputError",
    "ParameterError",
    "NumericalError",
    "InternalError",
    "ScaleWarning",
    "set_memory_limit",
    "get_memory_limit",
    "kernels",
    "datasets",
    "evaluate",
    "Learner",
    "TaylorAWV",
    "KernelAWV",
    "NystromAWV",
    "samplers",
    "RFFAWV",
    "MultiKernelAWV",
    "Raker",
    "OMKLGF",
    "aggregation",
    "FOGD",
    "NOGD",
    "ProsNKons",
    "OnlineProjection",
    "AveragedKernelSGD",
    "Mixture",
    "AutoKernel",
    "Conformal",
]
