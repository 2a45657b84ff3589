"""Online learners, one module per algorithm (the class docstring cites the paper)."""
from .base import Learner
from .fogd import FOGD
from .nogd import NOGD
from .pros_n_kons import ProsNKons, batch_comparator
from .taylor_awv import TaylorAWV

__all__ = ["Learner", "TaylorAWV", "FOGD", "NOGD", "ProsNKons", "batch_comparator"]
