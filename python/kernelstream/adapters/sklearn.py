"""scikit-learn estimators around any kernelstream learner.

``fit`` starts from a fresh copy of the learner and streams the rows once in order
(``learn_many``); ``partial_fit`` continues the stream; ``predict`` is ``predict_many``
(state unchanged). ``get_params``/``set_params``/``clone`` work as scikit-learn expects,
so the adapters fit in pipelines and grid searches.

Examples
--------
>>> import numpy as np
>>> from kernelstream import TaylorAWV
>>> from kernelstream.adapters import SklearnRegressor
>>> X = np.random.default_rng(0).uniform(-1, 1, (300, 2)); y = X[:, 0] ** 2
>>> est = SklearnRegressor(TaylorAWV(degree=3)).fit(X, y)
>>> est.learner_.n_seen, bool(est.score(X, y) > 0.8)
(300, True)
"""

from __future__ import annotations

import numpy as np

try:  # scikit-learn is optional: the adapters work without it (duck typing).
    from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
except ImportError:  # pragma: no cover

    class BaseEstimator:  # type: ignore[no-redef]  # minimal stand-in
        def get_params(self, deep=True):
            return {"learner": self.learner}

        def set_params(self, **params):
            for k, v in params.items():
                setattr(self, k, v)
            return self

    class RegressorMixin:  # type: ignore[no-redef]
        def score(self, X, y):
            y = np.asarray(y, dtype=float)
            p = self.predict(X)
            return 1.0 - np.sum((y - p) ** 2) / np.sum((y - y.mean()) ** 2)

    class ClassifierMixin:  # type: ignore[no-redef]
        def score(self, X, y):
            return float(np.mean(self.predict(X) == np.asarray(y)))


class _Base(BaseEstimator):
    def __init__(self, learner):
        self.learner = learner

    def _fresh(self):
        return type(self.learner)(**self.learner.get_params())

    def fit(self, X, y):
        self.learner_ = self._fresh()
        self.learner_.learn_many(X, self._encode(y))
        self.n_features_in_ = np.asarray(X).shape[1]
        return self

    def partial_fit(self, X, y):
        if not hasattr(self, "learner_"):
            self.learner_ = self._fresh()
            self.n_features_in_ = np.asarray(X).shape[1]
        self.learner_.learn_many(X, self._encode(y))
        return self

    def _encode(self, y):
        return np.asarray(y, dtype=float)

    def decision_function(self, X):
        return self.learner_.predict_many(X)


class SklearnRegressor(RegressorMixin, _Base):
    """A scikit-learn regressor streaming the rows through ``learner``."""

    def predict(self, X):
        return self.learner_.predict_many(X)


class SklearnClassifier(ClassifierMixin, _Base):
    """A binary scikit-learn classifier: labels are mapped to -1/+1, prediction is the sign
    (``sign(0) = +1``)."""

    def fit(self, X, y):
        self.classes_ = np.unique(np.asarray(y))
        if self.classes_.size != 2:
            from ..errors import InputError

            raise InputError(f"SklearnClassifier is binary; y has {self.classes_.size} classes")
        return super().fit(X, y)

    def partial_fit(self, X, y, classes=None):
        if not hasattr(self, "classes_"):
            self.classes_ = np.unique(np.asarray(classes if classes is not None else y))
        return super().partial_fit(X, y)

    def _encode(self, y):
        y = np.asarray(y)
        bad = ~np.isin(y, self.classes_)
        if bad.any():
            from ..errors import InputError

            raise InputError(
                f"label {y[bad][0]!r} is not one of the classes {self.classes_.tolist()}"
            )
        return np.where(y == self.classes_[1], 1.0, -1.0)

    def predict(self, X):
        s = self.learner_.predict_many(X)
        return np.where(s >= 0, self.classes_[1], self.classes_[0])
