"""river-style adapters: ``learn_one(x: dict, y)`` and ``predict_one(x: dict)``.

The feature order is fixed by the first dict seen (sorted keys); a later dict with
other keys is an :class:`~kernelstream.InputError`. If river is installed the
adapters subclass ``river.base.Regressor`` / ``river.base.Classifier``, so they work
with ``river.evaluate.progressive_val_score``.

Examples
--------
>>> from kernelstream import TaylorAWV
>>> from kernelstream.adapters import RiverRegressor
>>> model = RiverRegressor(TaylorAWV(degree=2))
>>> model.predict_one({"a": 0.1, "b": -0.3})
0.0
>>> model.learn_one({"a": 0.1, "b": -0.3}, 1.0)
>>> model.learner.n_seen
1
"""

from __future__ import annotations

import numpy as np

from ..errors import InputError

try:
    from river import base as _river_base

    _Regressor, _Classifier = _river_base.Regressor, _river_base.Classifier
except ImportError:  # river is optional
    _Regressor = _Classifier = object


class _DictAdapter:
    def __init__(self, learner):
        self.learner = learner
        self.feature_names = None

    def _vector(self, x: dict) -> np.ndarray:
        if not isinstance(x, dict):
            raise InputError(f"x must be a dict of feature name -> value, got {type(x).__name__}")
        if self.feature_names is None:
            names = sorted(x)
        else:
            names = self.feature_names
            if set(x) != set(names):
                raise InputError(f"x has features {sorted(x)}, expected {names}")
        return np.array([x[k] for k in names], dtype=float), names


class RiverRegressor(_DictAdapter, _Regressor):
    """Regression on dict inputs."""

    def learn_one(self, x: dict, y: float) -> None:
        v, names = self._vector(x)
        self.learner.learn_one(v, y)
        self.feature_names = names

    def predict_one(self, x: dict) -> float:
        v, _ = self._vector(x)
        return self.learner.predict_one(v)


class RiverClassifier(_DictAdapter, _Classifier):
    """Binary classification on dict inputs; labels are ``True/False`` or ``+1/-1``."""

    def learn_one(self, x: dict, y) -> None:
        v, names = self._vector(x)
        self.learner.learn_one(v, 1.0 if (y is True or y == 1) else -1.0)
        self.feature_names = names

    def predict_proba_one(self, x: dict) -> dict:
        v, _ = self._vector(x)
        s = self.learner.predict_one(v)
        p = 1.0 / (
            1.0 + np.exp(-2.0 * s)
        )  # a monotone score in [0, 1], not a calibrated probability
        return {True: p, False: 1.0 - p}

    def predict_one(self, x: dict):
        v, _ = self._vector(x)
        return bool(self.learner.predict_one(v) >= 0.0)
