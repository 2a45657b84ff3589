"""kernelstream: online kernel regression and classification with a Rust core.

Learners follow one protocol (``predict_one``, ``learn_one``, ``progressive_predict``,
``predict_many``, ``learn_many``, ``n_seen``, ``dim``, ``get_params``, pickling);
see ``shared/spec/api.md`` and the README.
"""

from . import _core
from .errors import InputError, KernelstreamError, NumericalError, ParameterError

__version__ = _core.__version__

from . import kernels  # noqa: E402
from . import datasets, evaluate  # noqa: E402
from .learners import (  # noqa: E402
    AveragedKernelSGD,
    FOGD,
    KernelAWV,
    Learner,
    MultiKernelAWV,
    NOGD,
    NystromAWV,
    OMKLGF,
    OnlineProjection,
    ProsNKons,
    RFFAWV,
    Raker,
    TaylorAWV,
)
from . import samplers  # noqa: E402
from . import aggregation  # noqa: E402

__all__ = [
    "__version__",
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
]
