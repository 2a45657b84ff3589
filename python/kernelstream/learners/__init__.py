"""Online learners, one module per algorithm (the class docstring cites the paper)."""
from .base import Learner
from .kernel_awv import KernelAWV
from .multi_kernel_awv import OMKLGF, MultiKernelAWV, Raker
from .nystrom_awv import NystromAWV
from .rff_awv import RFFAWV
from .taylor_awv import TaylorAWV

__all__ = [
    "Learner",
    "KernelAWV",
    "NystromAWV",
    "TaylorAWV",
    "RFFAWV",
    "MultiKernelAWV",
    "Raker",
    "OMKLGF",
]
