"""Online learners, one module per algorithm (the class docstring cites the paper)."""
from .base import Learner
from .taylor_awv import TaylorAWV

__all__ = ["Learner", "TaylorAWV"]
