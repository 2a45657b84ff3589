"""kernelstream: online kernel regression and classification with a Rust core.

Learners follow one protocol (``predict_one``, ``learn_one``, ``progressive_predict``,
``predict_many``, ``learn_many``, ``n_seen``, ``dim``, ``get_params``, pickling);
see ``docs/api.md`` and the README.
"""

from . import _core
from .errors import InputError, KernelstreamError, NumericalError, ParameterError

__version__ = _core.__version__

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
]
