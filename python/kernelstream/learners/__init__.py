"""Online learners, one module per algorithm (the class docstring cites the paper)."""
from .base import Learner
from .multi_kernel_awv import OMKLGF, MultiKernelAWV, Raker
from .rff_awv import RFFAWV
from .taylor_awv import TaylorAWV

__all__ = ["Learner", "TaylorAWV", "RFFAWV", "MultiKernelAWV", "Raker", "OMKLGF"]
