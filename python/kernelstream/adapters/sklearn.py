"""scikit-learn estimators around any kernelstream learner (requires scikit-learn >= 1.6).

``fit`` starts from a fresh copy of ``learner`` (the parameter itself is never trained)
and streams the rows once, in order (``learn_many``); ``partial_fit`` continues the
stream; ``predict`` is ``predict_many`` (state unchanged). Inputs are validated with
scikit-learn's own utilities, so errors are worded as scikit-learn words them, and both
estimators pass ``sklearn.utils.estimator_checks.check_estimator`` (tested).
``get_params``/``set_params``/``clone`` reach the learner's hyperparameters, so nested
grid searches work: ``{"sklearnregressor__learner__degree": [2, 3]}``.

Scale: the learners' defaults assume inputs whose distances are of order ``sigma = 1``
and targets of order one. By default (``scale=True``) the adapters standardize the
features (those already of order one pass unchanged) and divide them by ``sqrt(d)``,
and standardize the target, online as the rows stream through, so raw data and
pipelines that standardize the features first both suit them; ``scale=False`` passes
the values as they are (``docs/adapters.md``).

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

import functools
from typing import Any

import numpy as np

from ..errors import InputError, ParameterError
from ._scaling import OnlineStandardizer

try:
    from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
    from sklearn.utils.metaestimators import available_if
    from sklearn.utils.multiclass import check_classification_targets, type_of_target
    from sklearn.utils.validation import check_is_fitted, validate_data
except ImportError as exc:  # pragma: no cover - scikit-learn is an optional dependency
    raise ImportError(
        "kernelstream.adapters.SklearnRegressor/SklearnClassifier need scikit-learn >= 1.6 "
        "(pip install scikit-learn)"
    ) from exc


def _atomic(method):
    """On any error, put the estimator's attributes back as they were before the call."""

    @functools.wraps(method)
    def wrapper(self, *args, **kwargs):
        saved = dict(self.__dict__)
        try:
            return method(self, *args, **kwargs)
        except BaseException:
            self.__dict__.clear()
            self.__dict__.update(saved)
            raise

    return wrapper


def _fresh(learner):
    """An untrained learner with ``learner``'s parameters (``learner`` itself is untouched)."""
    return type(learner)(**learner.get_params())


class _StreamingEstimator(BaseEstimator):
    """Shared ``fit``/``partial_fit``/validation of the two adapters."""

    _scale_target = False

    def __init__(self, learner, scale=True):
        self.learner = learner
        self.scale = scale

    def _validate(self, X, y="no_validation", reset=True):
        # (scikit-learn's own convention: y="no_validation" for X only; y=None is refused)
        if isinstance(y, str) and y == "no_validation":
            return validate_data(self, X, reset=reset, dtype=np.float64)
        return validate_data(self, X, y, reset=reset, dtype=np.float64, y_numeric=self._y_numeric)

    def _learn(self, X, y, first: bool):
        """Stream ``(X, y)`` through ``learner_`` (a fresh one if ``first``) and the online
        scalers; the attributes change only when the learner accepted the rows."""
        if first:
            if not isinstance(self.scale, (bool, np.bool_)):
                raise ParameterError(f"scale must be True or False, got {self.scale!r}")
            learner = _fresh(self.learner)
            xs = OnlineStandardizer(per_dimension=True, keep_unit=True) if self.scale else None
            ys = (
                OnlineStandardizer(per_dimension=False)
                if self.scale and self._scale_target
                else None
            )
        else:
            learner = self.learner_
            xs = None if self.scaler_ is None else self.scaler_.copy()
            ys = None if self.target_scaler_ is None else self.target_scaler_.copy()
        y = self._encode(y)
        if xs is not None:
            X = xs.learn_transform(X)
        if ys is not None:
            y = ys.learn_transform(y[:, None])[:, 0]
        learner.learn_many(X, y)
        self.learner_: Any = learner
        self.scaler_: Any = xs
        self.target_scaler_: Any = ys

    def _fit(self, X, y):
        X, y = self._validate(X, y)
        self._start(y)
        self._learn(X, y, first=True)
        return self

    def _decision(self, X):
        check_is_fitted(self)
        X = self._validate(X, reset=False)
        if self.scaler_ is not None:
            X = self.scaler_.transform(X)
        return self.learner_.predict_many(X)


class SklearnRegressor(RegressorMixin, _StreamingEstimator):
    """A scikit-learn regressor streaming the rows through ``learner``.

    Parameters
    ----------
    learner : kernelstream learner
        The prototype; ``fit`` trains a fresh copy, ``learner_``.
    scale : bool, default True
        Standardize the features (divided by ``sqrt(d)`` too) and the target online, so
        that the learner's defaults suit the data (see :mod:`kernelstream.adapters._scaling`);
        ``False`` passes the values as they are.

    Attributes
    ----------
    learner_ : the trained learner
    scaler_, target_scaler_ : the online standardizers (``None`` without ``scale``)
    n_features_in_ : int
    feature_names_in_ : ndarray (only when ``X`` had string column names)
    """

    _y_numeric = True
    _scale_target = True

    def _start(self, y):
        pass

    def _encode(self, y):
        return y

    @_atomic
    def fit(self, X, y):
        """Stream the rows of ``X`` once, in order, through a fresh learner."""
        return self._fit(X, y)

    @_atomic
    def partial_fit(self, X, y):
        """Continue the stream with the rows of ``X`` (the first call starts it)."""
        if not hasattr(self, "learner_"):
            return self._fit(X, y)
        X, y = self._validate(X, y, reset=False)
        self._learn(X, y, first=False)
        return self

    def predict(self, X, return_std: bool = False):
        """``predict_many``: each row's prediction by the current learner (state unchanged).

        With ``return_std=True`` (as ``GaussianProcessRegressor.predict``), ``(mean, std)``:
        the learner's predictive standard deviation too, in the target's units (learners
        with ``has_predictive_std``; see ``docs/uncertainty.md``).
        """
        if not return_std:
            f = self._decision(X)
            return f if self.target_scaler_ is None else self.target_scaler_.inverse(f)
        check_is_fitted(self)
        X = self._validate(X, reset=False)
        if self.scaler_ is not None:
            X = self.scaler_.transform(X)
        f, s = self.learner_.predict_many_std(X)
        if self.target_scaler_ is not None:
            ys = self.target_scaler_
            f, s = ys.inverse(f), np.abs(ys.inverse(s) - ys.inverse(np.zeros_like(s)))
        return f, s


def _is_probabilistic(est) -> bool:
    return est.learner.get_params().get("loss") == "logistic"


class SklearnClassifier(ClassifierMixin, _StreamingEstimator):
    """A binary scikit-learn classifier streaming the rows through ``learner``.

    The two classes (sorted, ``classes_``) are mapped to ``-1`` and ``+1``; the prediction
    is ``classes_[1]`` where the learner's score is ``>= 0``. Binary only (tagged
    ``multi_class=False``): more than two classes is a ``ValueError``, as scikit-learn
    expects of binary classifiers (wrap it in ``sklearn.multiclass.OneVsRestClassifier``
    for more). ``predict_proba`` exists only when the learner's loss is ``"logistic"``,
    whose score is a log-odds: ``P(classes_[1] | x) = 1 / (1 + exp(-f(x)))``.

    Parameters
    ----------
    learner : kernelstream learner
        The prototype; ``fit`` trains a fresh copy, ``learner_``.
    scale : bool, default True
        Standardize the features online (divided by ``sqrt(d)`` too), so that the
        learner's defaults suit the data (see :mod:`kernelstream.adapters._scaling`);
        ``False`` passes them as they are.

    Attributes
    ----------
    classes_ : ndarray of the two labels
    learner_ : the trained learner
    n_features_in_ : int
    """

    _y_numeric = False

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        return tags

    @staticmethod
    def _two_classes(y, what):
        y_type = type_of_target(y, input_name="y", raise_unknown=True)
        if y_type not in ("binary", "multiclass"):
            check_classification_targets(y)  # raises sklearn's "Unknown label type" error
        classes = np.unique(y)
        if classes.size > 2:
            raise InputError(
                "Only binary classification is supported. The type of the target is "
                f"multiclass: {what} has {classes.size} classes."
            )
        return classes

    def _start(self, y):
        classes = self._two_classes(y, "y")
        if classes.size < 2:
            raise InputError(
                f"SklearnClassifier needs two classes to fit, but y has only one class: {classes[0]!r}"
            )
        self.classes_ = classes

    def _encode(self, y):
        bad = ~np.isin(y, self.classes_)
        if bad.any():
            raise InputError(
                f"y contains label {y[bad][0]!r}, not one of the classes {self.classes_.tolist()}"
            )
        return np.where(y == self.classes_[1], 1.0, -1.0)

    @_atomic
    def fit(self, X, y):
        """Stream the rows of ``X`` once, in order, through a fresh learner."""
        return self._fit(X, y)

    @_atomic
    def partial_fit(self, X, y, classes=None):
        """Continue the stream with the rows of ``X``.

        ``classes`` (both labels) is required on the first call unless ``y`` already holds
        both; afterwards it may be omitted, or must equal ``classes_``.
        """
        first = not hasattr(self, "learner_")
        if classes is not None:
            classes = self._two_classes(np.asarray(classes), "classes")
            if classes.size != 2:
                raise InputError(
                    f"classes must hold the two labels of a binary problem, got {classes.tolist()}"
                )
            if not first and not np.array_equal(classes, self.classes_):
                raise InputError(
                    f"classes={classes.tolist()} is not the same as on the first call to "
                    f"partial_fit, was: {self.classes_.tolist()}"
                )
        X, y = self._validate(X, y, reset=first)
        if not first:
            self._learn(X, y, first=False)
            return self
        if classes is None:
            classes = self._two_classes(y, "y")
            if classes.size < 2:
                raise InputError(
                    "the first call to partial_fit sees only one class "
                    f"({classes[0]!r}): pass classes=[negative, positive]"
                )
        self.classes_ = classes
        self._learn(X, y, first=True)
        return self

    def decision_function(self, X):
        """The learner's score ``f(x)``: positive for ``classes_[1]``."""
        return self._decision(X)

    def predict(self, X):
        s = self._decision(X)
        return np.where(s >= 0, self.classes_[1], self.classes_[0])

    @available_if(_is_probabilistic)
    def predict_proba(self, X):
        """``[P(classes_[0] | x), P(classes_[1] | x)]`` with ``P(+1 | x) = sigmoid(f(x))``
        (logistic loss only)."""
        from scipy.special import expit

        p = expit(self._decision(X))
        return np.column_stack([1.0 - p, p])

    @available_if(_is_probabilistic)
    def predict_log_proba(self, X):
        from scipy.special import log_expit

        s = self._decision(X)
        return np.column_stack([log_expit(-s), log_expit(s)])
