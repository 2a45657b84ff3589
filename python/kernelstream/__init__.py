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
from .learners import AveragedKernelSGD, Learner, OnlineProjection, TaylorAWV  # noqa: E402

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
    "OnlineProjection",
    "AveragedKernelSGD",
]
