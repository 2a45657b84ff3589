"""Online learners, one module per algorithm (the class docstring cites the paper)."""
from .base import Learner
from .kernel_awv import KernelAWV
from .nystrom_awv import NystromAWV
from .taylor_awv import TaylorAWV

__all__ = ["Learner", "KernelAWV", "NystromAWV", "TaylorAWV"]
