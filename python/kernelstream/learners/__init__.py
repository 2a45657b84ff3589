"""Online learners, one module per algorithm (the class docstring cites the paper)."""
from .base import Learner
from .taylor_awv import TaylorAWV
from .online_projection import OnlineProjection
from .averaged_sgd import AveragedKernelSGD

__all__ = ["Learner", "TaylorAWV", "OnlineProjection", "AveragedKernelSGD"]
