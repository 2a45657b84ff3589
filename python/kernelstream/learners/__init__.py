"""Online learners, one module per algorithm (the class docstring cites the paper)."""

from ._multi import MultiOutput
from .autokernel import AutoKernel
from .averaged_sgd import AveragedKernelSGD
from .base import Learner
from .conformal import Conformal
from .fogd import FOGD
from .kernel_awv import KernelAWV
from .mixture import Mixture
from .multi_kernel_awv import OMKLGF, MultiKernelAWV, Raker
from .nogd import NOGD
from .nystrom_awv import NystromAWV
from .online_projection import OnlineProjection
from .pros_n_kons import ProsNKons, batch_comparator
from .rff_awv import RFFAWV
from .taylor_awv import TaylorAWV

__all__ = [
    "Learner",
    "MultiOutput",
    "KernelAWV",
    "NystromAWV",
    "TaylorAWV",
    "RFFAWV",
    "MultiKernelAWV",
    "Raker",
    "OMKLGF",
    "FOGD",
    "NOGD",
    "ProsNKons",
    "batch_comparator",
    "OnlineProjection",
    "AveragedKernelSGD",
    "Mixture",
    "AutoKernel",
    "Conformal",
]
