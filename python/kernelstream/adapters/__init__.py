"""Adapters to the scikit-learn estimator API and to river's dict-based online API."""

from .river import RiverClassifier, RiverRegressor
from .sklearn import SklearnClassifier, SklearnRegressor

__all__ = ["SklearnRegressor", "SklearnClassifier", "RiverRegressor", "RiverClassifier"]
