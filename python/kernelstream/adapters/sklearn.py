"""scikit-learn estimators around any kernelstream learner (requires scikit-learn >= 1.6).

``fit`` starts from a fresh copy of ``learner`` (the parameter itself is never trained)
and streams the rows once, in a seeded random order by default (``shuffle=True``, as
scikit-learn's own online estimators do in ``fit``; ``shuffle=False``: the given
order); ``partial_fit`` continues the stream in the given order; ``predict`` is ``predict_many`` (state unchanged). Inputs are validated with
scikit-learn's own utilities, so errors are worded as scikit-learn words them, and both
estimators pass ``sklearn.utils.estimator_checks.check_estimator`` (tested).
``get_params``/``set_params``/``clone`` reach the learner's hyperparameters, so nested
grid searches work: ``{"sklearnregressor__learner__degree": [2, 3]}``.

Scale: the learners' defaults assume inputs whose distances are of order ``sigma = 1``
and targets of order one. By default (``scale="auto"``) the adapters standardize the
features (those already of order one pass unchanged) and divide them by ``sqrt(d)``,
and standardize the target, online as the rows stream through, so raw data and
pipelines that standardize the features first both suit them, except in front of a
learner that scales itself (:class:`kernelstream.AutoKernel`), which gets the values as
they are; ``scale=True`` always scales, ``scale=False`` never (``docs/adapters.md``).

A 2-D ``y`` of ``K`` columns (``SklearnRegressor``) is learned as ``K`` outputs by a
multi-output learner (the AWV family: one shared matrix), and ``predict`` gives
``(n, K)``.

Examples
--------
>>> import numpy as np
>>> from kernelstream import TaylorAWV
>>> from kernelstream.adapters import SklearnRegressor
>>> X = np.random.default_rng(0).uniform(-1, 1, (300, 2)); y = X[:, 0] ** 2
>>> est = SklearnRegressor(TaylorAWV(degree=3)).fit(X, y)
>>> est.learner_.n_seen, bool(est.score(X, y) > 0.8)
(300, True)
>>> Y = np.column_stack([y, X[:, 1]])  # two outputs
>>> SklearnRegressor(TaylorAWV(degree=3)).fit(X, Y).predict(X[:4]).shape
(4, 2)
"""

from __future__ import annotations

import copy
import functools
import math
import weakref
from typing import Any

import numpy as np

from ..errors import InputError
from ._order import resolve_scale, stream_order, warn_if_poor_classifier
from ._scaling import OnlineStandardizer

try:
    from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
    from sklearn.utils.multiclass import check_classification_targets, type_of_target
    from sklearn.utils.validation import _check_sample_weight, check_is_fitted, validate_data
except ImportError as exc:  # pragma: no cover - scikit-learn is an optional dependency
    raise ImportError(
        "kernelstream.adapters.SklearnRegressor/SklearnClassifier need scikit-learn >= 1.6 "
        "(pip install scikit-learn)"
    ) from exc


#: set on an exception raised after a learner that learns in place had learned rows (a
#: Ctrl-C at a round boundary, or raised as the call returned): the attributes then hold
#: exactly those rows, learner and scalers together, and :func:`_atomic` keeps them
_ROWS_KEPT = "_kernelstream_rows_kept"


def _atomic(method):
    """On any error, put the estimator's attributes back as they were before the call
    (unless the error says the attributes hold the rows a learner kept: ``_ROWS_KEPT``)."""

    @functools.wraps(method)
    def wrapper(self, *args, **kwargs):
        saved = dict(self.__dict__)
        try:
            return method(self, *args, **kwargs)
        except BaseException as exc:
            if not getattr(exc, _ROWS_KEPT, False):
                self.__dict__.clear()
                self.__dict__.update(saved)
            raise

    return wrapper


def _check_fitted(estimator) -> None:
    """``check_is_fitted``, which passes without a look once ``learner_`` is set."""
    if "learner_" not in estimator.__dict__:
        check_is_fitted(estimator)


#: A classifier's scores of the last row it predicted alone, by its columns (kept out
#: of the estimator's attributes, which a prediction must not change):
#: ``(row bytes, rounds learned, learner, core, raw scores)``.
_PREDICTED: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()

#: the scores a one-row ``partial_fit`` that learns in place accepts (below: the
#: calibrator's step cannot overflow, so nothing can fail after the learner learned)
_SCORE_BOUND = 1e100


#: arrays up to this size are checked value by value in Python (a NumPy reduction's
#: call costs about 1 us, more than the loop over a serving loop's one row)
_SMALL = 64


def _all_finite(a: np.ndarray) -> bool:
    """Whether every value of the float array ``a`` is finite."""
    if a.size <= _SMALL:
        return all(map(math.isfinite, a.ravel().tolist()))
    return bool(np.isfinite(a).all())


def _largest_magnitude(a: np.ndarray) -> float:
    """``max |a|`` of a non-empty float array whose values are finite."""
    if a.size <= _SMALL:
        return max(map(abs, a.ravel().tolist()))
    return float(np.max(np.abs(a)))


def _plain_labels(y, n: int, classes) -> bool:
    """Whether ``y`` is what ``validate_data`` would return unchanged (values) for ``n``
    labels of a classifier fitted on ``classes``: a 1-D ``ndarray`` of their dtype, of
    integers or strings (nothing to check for finiteness)."""
    return (
        type(y) is np.ndarray
        and y.shape == (n,)
        and y.dtype == classes.dtype
        and y.dtype.kind in "iuU"
    )


def _plain_targets(y, n: int) -> bool:
    """Whether ``y`` is what ``validate_data`` would return unchanged for ``n`` rows of a
    regression: a finite float64 1-D ``ndarray`` of ``n`` values."""
    return type(y) is np.ndarray and y.dtype == np.float64 and y.shape == (n,) and _all_finite(y)


def _weights(sample_weight, X):
    """scikit-learn's ``_check_sample_weight`` (``None``: no weights; finite, ``>= 0``,
    one a row), its errors as :class:`InputError`; ``None`` too when every weight is 1."""
    if sample_weight is None:
        return None
    try:
        sw = _check_sample_weight(sample_weight, X, dtype=np.float64, ensure_non_negative=True)
    except (TypeError, ValueError) as exc:
        raise InputError(f"sample_weight: {exc}") from None
    return None if bool(np.all(sw == 1.0)) else sw


def _drop_unweighted(X, y, sw):
    """The rows of positive weight (a zero-weight row is not learned: docs/choices.md,
    "Sample weights"), with their weights."""
    if sw is None:
        return X, y, None
    keep = sw > 0.0
    return X[keep], y[keep], sw[keep]


def _fresh(learner):
    """An untrained learner with ``learner``'s parameters (``learner`` itself is untouched)."""
    return type(learner)(**learner.get_params())


class _StreamingEstimator(BaseEstimator):
    """Shared ``fit``/``partial_fit``/validation of the two adapters."""

    _scale_target = False
    _multi_output = False

    def __init__(self, learner, scale="auto"):
        self.learner = learner
        self.scale = scale

    def _validate(self, X, y="no_validation", reset=True):
        # (scikit-learn's own convention: y="no_validation" for X only; y=None is refused)
        if isinstance(y, str) and y == "no_validation":
            if not reset and self._plain_rows(X):
                return X
            return validate_data(self, X, reset=reset, dtype=np.float64)
        if not reset and self._y_numeric and self._plain_rows(X) and _plain_targets(y, len(X)):
            return X, y
        if (
            not reset
            and not self._y_numeric
            and _plain_labels(y, len(X), self.classes_)
            and self._plain_rows(X)
        ):
            return X, y
        return validate_data(
            self,
            X,
            y,
            reset=reset,
            dtype=np.float64,
            y_numeric=self._y_numeric,
            multi_output=self._multi_output and self._multi_capable(),
        )

    def _multi_capable(self) -> bool:
        from ._columns import is_native

        return is_native(self.learner)

    def _plain_rows(self, X) -> bool:
        """Whether ``X`` is what ``validate_data`` would return unchanged once fitted: a
        finite float64 ``ndarray`` of rows of ``n_features_in_`` values, the estimator
        fitted without column names (whose check, and warning, needs the general path).
        The serving loop's one-row calls then skip its conversions (about 80 us a call)."""
        return (
            type(X) is np.ndarray
            and X.dtype == np.float64
            and X.ndim == 2
            and X.shape[0] >= 1
            and X.shape[1] == getattr(self, "n_features_in_", -1)
            and not hasattr(self, "feature_names_in_")
            and _all_finite(X)
        )

    def _learn(self, X, y, first: bool, sw=None):
        """Stream ``(X, y)`` through ``learner_`` (a fresh one if ``first``) and the online
        scalers (which see each row of positive weight once); the attributes change only
        when the learner accepted the rows."""
        X, y, sw = _drop_unweighted(X, y, sw)
        if first:
            scale = resolve_scale(self.scale, self.learner)
            learner = _fresh(self.learner)
            xs = OnlineStandardizer(per_dimension=True, keep_unit=True) if scale else None
            ys = OnlineStandardizer(per_dimension=False) if scale and self._scale_target else None
        else:
            learner, xs, ys = self.learner_, self.scaler_, self.target_scaler_
        y = self._encode(y)
        if len(X):  # (every row of weight 0: nothing learned)
            Xs, ts, xs_all, ys_all = self._scaled_rows(X, y, xs, ys)
            n0 = learner.n_seen
            try:
                if len(Xs) == 1 and sw is None and ts.ndim == 1 and ts.dtype == np.float64:
                    # the serving loop's row: the learner's one-row round (the same
                    # arithmetic as a block of one row, in one call)
                    learner.learn_one(Xs[0], float(ts[0]))
                else:
                    learner.learn_many(Xs, ts, sample_weight=sw)
            except BaseException as exc:
                if first or learner.n_seen == n0:  # (a fresh learner: the old ones stay)
                    raise
                # the learner (in place) kept rows: the scalers of exactly those rows
                k = int(getattr(exc, "rounds_completed", len(X)))
                self._learned(learner, *self._scaled_rows(X[:k], y[:k], xs, ys)[2:])
                setattr(exc, _ROWS_KEPT, True)
                raise
            xs, ys = xs_all, ys_all
        self._learned(learner, xs, ys)

    def _learned(self, learner, xs, ys) -> None:
        """The attributes after rows were learned: the learner and its scalers."""
        self.learner_: Any = learner
        self.scaler_: Any = xs
        self.target_scaler_: Any = ys

    @staticmethod
    def _scaled_rows(X, y, xs, ys):
        """``(X, y)`` scaled by the scalers' statistics after them, and those statistics
        (new objects: committed once the learner accepted the rows); one row (the serving
        loop's) by the one-row methods, the same arithmetic, bit for bit."""
        if xs is not None and len(X) == 1:
            z, xs = xs.learned_row(X[0])
            X = z[None, :]
        elif xs is not None:
            xs = xs.copy()
            X = xs.learn_transform(X)
        if ys is not None and len(y) == 1 and y.ndim == 1 and y.dtype == np.float64:
            y, ys = ys.learned_row(y)
        elif ys is not None and y.ndim == 2:  # K outputs: each column standardized
            ys = ys.copy()
            y = ys.learn_transform(y)
        elif ys is not None:
            ys = ys.copy()
            y = ys.learn_transform(y[:, None])[:, 0]
        return X, y, xs, ys

    def _fit(self, X, y, sample_weight=None, shuffle=True, random_state=None):
        X, y = self._validate(X, y)
        sw = _weights(sample_weight, X)
        self._start(y)
        order = stream_order(len(X), shuffle, random_state, self.learner)
        if order is not None:
            X, y = X[order], y[order]
            sw = None if sw is None else sw[order]
        self._learn(X, y, first=True, sw=sw)
        return self

    def _decision(self, X):
        _check_fitted(self)
        X = self._validate(X, reset=False)
        if len(X) == 1:
            # The serving loop's row: predict_one keeps the learner's work for a
            # following partial_fit of the same row (one prediction a round, not two).
            x = X[0] if self.scaler_ is None else self.scaler_.transform_row(X[0])
            p = np.asarray(self.learner_.predict_one(x), dtype=np.float64)
            return p.reshape(1, -1) if p.ndim else p.reshape(1)
        if self.scaler_ is not None:
            X = self.scaler_.transform(X)
        return self.learner_.predict_many(X)


class SklearnRegressor(RegressorMixin, _StreamingEstimator):
    """A scikit-learn regressor streaming the rows through ``learner``.

    Parameters
    ----------
    learner : kernelstream learner
        The prototype; ``fit`` trains a fresh copy, ``learner_``.
    scale : "auto", True or False, default "auto"
        ``True``: standardize the features (divided by ``sqrt(d)`` too) and the target
        online, so that the learner's defaults suit the data (see
        ``kernelstream.adapters._scaling``); ``False`` passes the values as they are;
        ``"auto"``: ``True`` unless the learner scales itself (AutoKernel).

    Attributes
    ----------
    learner_ : the trained learner
    scaler_, target_scaler_ : the online standardizers (``None`` without scaling)
    n_features_in_ : int
    feature_names_in_ : ndarray (only when ``X`` had string column names)
    """

    _y_numeric = True
    _scale_target = True
    _multi_output = True

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.multi_output = self._multi_capable()
        return tags

    def _start(self, y):
        pass

    def _encode(self, y):
        return y

    @_atomic
    def fit(self, X, y, sample_weight=None, shuffle=True, random_state=None):
        """Stream the rows of ``X`` once through a fresh learner.

        Parameters
        ----------
        X : array-like (n, d)
        y : array-like (n,), or (n, K) for a multi-output learner
        sample_weight : array-like (n,), optional
            One finite weight ``>= 0`` a row (docs/choices.md, "Sample weights"); a row of
            weight 0 is not learned.
        shuffle : bool, default True
            Learn the rows in a random order (scikit-learn's online estimators shuffle in
            ``fit``): a file sorted by target or class would otherwise be learned as a
            drifting stream. ``False``: the given order.
        random_state : int, numpy Generator or RandomState, optional
            The seed of the order; ``None``: the learner's ``seed`` (0 without one), so
            that two fits give the same model.
        """
        return self._fit(X, y, sample_weight, shuffle, random_state)

    @_atomic
    def partial_fit(self, X, y, sample_weight=None):
        """Continue the stream with the rows of ``X`` (the first call starts it)."""
        if not hasattr(self, "learner_"):
            return self._fit(X, y, sample_weight, shuffle=False)
        X, y = self._validate(X, y, reset=False)
        self._learn(X, y, first=False, sw=_weights(sample_weight, X))
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
        _check_fitted(self)
        X = self._validate(X, reset=False)
        if self.scaler_ is not None:
            X = self.scaler_.transform(X)
        f, s = self.learner_.predict_many_std(X)
        if self.target_scaler_ is not None:
            ys = self.target_scaler_
            f, s = ys.inverse(f), s * ys.std()
        return f, s


class SklearnClassifier(ClassifierMixin, _StreamingEstimator):
    """A scikit-learn classifier (any number of classes) streaming the rows through
    ``learner``.

    Two classes (sorted, ``classes_``) are mapped to ``-1`` and ``+1``: one learner, whose
    score ``f`` is the ``decision_function``; the prediction is ``classes_[1]`` where
    ``f >= 0``. With ``K > 2`` classes there is one score column per class
    (:mod:`kernelstream.adapters._columns`: one-hot targets ``1/0``, least-squares
    classification, or ``+1/-1`` for learners with a classification loss), the
    ``decision_function`` is the ``(n, K)`` scores and the prediction the class of the
    highest score. ``predict_proba`` comes from an online calibration of the scores
    (:class:`kernelstream.calibration.SoftmaxCalibrator`), fitted on the scores each
    row had before its label: ``softmax(a s)``, with ``s = ((1 - f)/2, (1 + f)/2)`` for
    two classes, then a monotone binning of its top-label confidence. Its most probable
    class is always the predicted one
    (``docs/classification.md``).

    Parameters
    ----------
    learner : kernelstream learner
        The prototype; ``fit`` trains fresh copies.
    scale : "auto", True or False, default "auto"
        ``True``: standardize the features online (divided by ``sqrt(d)`` too), so that
        the learner's defaults suit the data (see ``kernelstream.adapters._scaling``);
        ``False`` passes them as they are; ``"auto"``: ``True`` unless the learner scales
        itself (AutoKernel).

    Attributes
    ----------
    classes_ : ndarray of the labels, sorted
    learner_ : the trained learner (two classes, or ``K > 2`` classes on a multi-output
        learner, one output per class); otherwise the class columns (a
        :class:`~kernelstream.adapters._columns.Columns`, one learner per class)
    calibrator_ : the fitted :class:`~kernelstream.calibration.SoftmaxCalibrator`
    n_features_in_ : int

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.datasets import load_iris
    >>> from kernelstream import TaylorAWV
    >>> from kernelstream.adapters import SklearnClassifier
    >>> X, y = load_iris(return_X_y=True)
    >>> order = np.random.default_rng(0).permutation(len(y))  # the file is sorted by class
    >>> X, y = X[order], y[order]
    >>> clf = SklearnClassifier(TaylorAWV(degree=3)).fit(X, y)
    >>> clf.classes_.tolist(), clf.predict_proba(X[:2]).shape
    ([0, 1, 2], (2, 3))
    >>> bool(clf.score(X, y) > 0.9)
    True
    """

    _y_numeric = False

    @staticmethod
    def _classes(y, what):
        y_type = type_of_target(y, input_name="y", raise_unknown=True)
        if y_type not in ("binary", "multiclass"):
            check_classification_targets(y)  # raises sklearn's "Unknown label type" error
        return np.unique(y)

    def _start(self, y):
        classes = self._classes(y, "y")
        if classes.size < 2:
            raise InputError(
                f"SklearnClassifier needs two classes to fit, but y has only one class: {classes[0]!r}"
            )
        self.classes_ = classes

    def _codes(self, y):
        bad = ~np.isin(y, self.classes_)
        if bad.any():
            raise InputError(
                f"y contains label {y[bad][0]!r}, not one of the classes {self.classes_.tolist()}"
            )
        return np.searchsorted(self.classes_, y)

    @staticmethod
    def _calibration_scores(raw):
        """The calibrator's ``(n, K)`` scores from the learner's raw scores."""
        if raw.shape[1] == 1:  # two classes, one -1/+1 learner: the one-hot equivalents
            f = raw[:, 0]
            return np.column_stack([(1.0 - f) / 2.0, (1.0 + f) / 2.0])
        return raw

    def _learn(self, X, y, first: bool, sw=None):
        """Stream ``(X, y)`` through the columns (fresh ones if ``first``), the online
        scaler and the calibrator (the rows of positive weight; the scaler and the
        calibrator see each once, the columns learn it with its weight); the attributes
        change only when all accepted the rows."""
        from ..calibration import SoftmaxCalibrator
        from ._columns import Columns

        codes = self._codes(y)
        X, codes, sw = _drop_unweighted(X, codes, sw)
        k = self.classes_.size
        _check_class_columns(len(codes), k)
        if first:
            scale = resolve_scale(self.scale, self.learner)
            warn_if_poor_classifier(self.learner, stacklevel=5)
            columns = Columns(self.learner, 1 if k == 2 else k, spare=False, signed=k == 2)
            xs = OnlineStandardizer(per_dimension=True, keep_unit=True) if scale else None
            calibrator = SoftmaxCalibrator()
        else:
            columns = self.columns_.copy()
            xs = None if self.scaler_ is None else self.scaler_.copy()
            calibrator = copy.copy(self.calibrator_)
        if len(X) == 0:  # every row had weight 0: nothing learned
            probs = np.empty((0, k))
        else:
            if xs is not None:
                X = xs.learn_transform(X)
            # two classes: the one column is classes_[1]'s, with targets +1/-1
            raw = columns.progressive(X, 1 - codes if k == 2 else codes, sw)
            probs = calibrator.progressive_proba(self._calibration_scores(raw), codes)
        self.columns_: Any = columns
        self.learner_: Any = columns.learners[0] if k == 2 or columns.native else columns
        self.scaler_: Any = xs
        self.calibrator_: Any = calibrator
        return probs

    def _raw(self, X):
        _check_fitted(self)
        X = self._validate(X, reset=False)
        if self.scaler_ is not None:
            X = self.scaler_.transform(X)
        columns = self.columns_
        if not (len(X) == 1 and len(columns.learners) == 1 and columns.spare is None):
            return columns.predict(X)
        lr = columns.learners[0]
        # The serving loop's row: predict_one keeps the learner's work for a following
        # partial_fit of the same row (its round then finishes from it: one prediction
        # a round, not two), the same scores as predict_many's up to rounding.
        raw = np.asarray(lr.predict_one(X[0]), dtype=np.float64).reshape(1, columns.n)
        _PREDICTED[columns] = (X.tobytes(), lr.n_seen, lr, getattr(lr, "_core", None), raw)
        return raw

    def _learn_row(self, X, y):
        """A one-row ``partial_fit`` of a fitted classifier whose columns are one learner
        and which is not scaled, right after a prediction of the same row on the same
        state whose scores the calibrator takes whatever their last bits: the learner
        and the calibrator learn in place (no copies; a refused row leaves both as they
        were): the learner's round (``learn_one``, on ``_learn``'s targets) and the
        calibration of the predicted scores. ``True``, or ``None``: not that case
        (``_learn`` takes it)."""
        columns, cal = self.columns_, self.calibrator_
        lr = columns.learners[0]
        kept = _PREDICTED.get(columns)
        if self.scaler_ is not None or kept is None or kept[0] != X.tobytes():
            return None
        if kept[1] != lr.n_seen or kept[2] is not lr or kept[3] is not getattr(lr, "_core", None):
            return None
        if not (self._classes_plain and y.dtype == self.classes_.dtype):
            return None
        codes = np.searchsorted(self.classes_, y)
        if not (codes[0] < self.classes_.size and self.classes_[codes[0]] == y[0]):
            return None  # (not a class: _learn's message)
        s = self._calibration_scores(kept[4])
        if not _all_finite(s):
            return None
        bound = _largest_magnitude(s)
        # |g| <= 2 max |s| (gradient of the step, SoftmaxCalibrator): with the learned
        # scores within rounding of the predicted ones, the curvature stays finite
        if not bound <= _SCORE_BOUND:
            return None
        gamma = float(cal.get_params()["gamma"])
        if not math.isfinite(cal._core.curvature + gamma * (2.01 * bound) ** 2):
            return None
        # The round as the learner's own learn_one (it finishes from the work the
        # prediction kept) with the targets `columns.progressive` gives the row: two
        # classes, the one column of classes_[1] (+1/-1); else one output per class.
        # The calibrator takes the predicted scores (the same up to rounding).
        if self.classes_.size == 2:
            target = columns.on if codes[0] == 1 else columns.off
        else:
            target = np.full(columns.n, columns.off)
            target[codes[0]] = columns.on
        n0, k = lr.n_seen, int(codes[0])
        try:
            lr.learn_one(X[0], target)
        except BaseException:
            if lr.n_seen != n0:  # learned (a Ctrl-C raised as the call returned)
                cal._core._learn_row(s[0], k)  # (both change in place)
            raise
        cal._core._learn_row(s[0], k)  # (`progressive_proba` of the row, in one call)
        return True

    @property
    def _classes_plain(self) -> bool:
        return self.classes_.dtype.kind in "iuU"

    @_atomic
    def fit(self, X, y, sample_weight=None, shuffle=True, random_state=None):
        """Stream the rows of ``X`` once through fresh learners.

        ``sample_weight``, ``shuffle`` and ``random_state`` as in :meth:`SklearnRegressor.fit`: by default a
        seeded random order (a file sorted by class, as iris, is otherwise learned as a
        stream whose classes arrive one after the other).
        """
        return self._fit(X, y, sample_weight, shuffle, random_state)

    @_atomic
    def partial_fit(self, X, y, classes=None, sample_weight=None):
        """Continue the stream with the rows of ``X``.

        ``classes`` (all the labels) is required on the first call unless ``y`` already
        holds them all; afterwards it may be omitted, or must equal ``classes_``.
        """
        first = not hasattr(self, "learner_")
        if classes is not None:
            classes = self._classes(np.asarray(classes), "classes")
            if classes.size < 2:
                raise InputError(f"classes must hold at least two labels, got {classes.tolist()}")
            if not first and not np.array_equal(classes, self.classes_):
                raise InputError(
                    f"classes={classes.tolist()} is not the same as on the first call to "
                    f"partial_fit, was: {self.classes_.tolist()}"
                )
        X, y = self._validate(X, y, reset=first)
        sw = _weights(sample_weight, X)
        if not first and sw is None and len(X) == 1 and self._learn_row(X, y) is not None:
            return self
        if not first:
            self._learn(X, y, first=False, sw=sw)
            return self
        if classes is None:
            classes = self._classes(y, "y")
            if classes.size < 2:
                raise InputError(
                    "the first call to partial_fit sees only one class "
                    f"({classes[0]!r}): pass classes=[all the labels]"
                )
        self.classes_ = classes
        self._learn(X, y, first=True, sw=sw)
        return self

    @_atomic
    def progressive_predict_proba(self, X, y, classes=None):
        """``partial_fit`` that returns each row's probabilities made before its label
        (progressive validation): row ``t`` of the ``(n, len(classes_))`` result comes
        from the learners and the calibration as they were after rows ``0..t-1``."""
        first = not hasattr(self, "learner_")
        if classes is not None or first:
            cls = self._classes(np.asarray(classes if classes is not None else y), "classes")
            if not first and not np.array_equal(cls, self.classes_):
                raise InputError(
                    f"classes={cls.tolist()} is not the same as on the first call, "
                    f"was: {self.classes_.tolist()}"
                )
            if cls.size < 2:
                raise InputError(f"classes must hold at least two labels, got {cls.tolist()}")
        X, y = self._validate(X, y, reset=first)
        if first:
            self.classes_ = cls
        return self._learn(X, y, first=first)

    def decision_function(self, X):
        """The scores: ``f(x)`` (positive for ``classes_[1]``) with two classes, else
        the ``(n, K)`` class columns."""
        raw = self._raw(X)
        return raw[:, 0] if raw.shape[1] == 1 else raw

    def predict(self, X):
        raw = self._raw(X)
        if raw.shape[1] == 1:
            return np.where(raw[:, 0] >= 0, self.classes_[1], self.classes_[0])
        return self.classes_[np.argmax(raw, axis=1)]

    def predict_proba(self, X):
        """``P(classes_[k] | x)`` from the online calibration of the scores."""
        scores = self._calibration_scores(self._raw(X))  # checks that it was fitted first
        if len(scores) == 1:  # the serving loop's row: one call, no matrices
            return np.array([self.calibrator_._core._predict_row(scores[0])])
        return self.calibrator_.predict_proba(scores)

    def predict_log_proba(self, X):
        return np.log(self.predict_proba(X))


def _check_class_columns(n: int, k: int) -> None:
    """Refuses (before allocating) the ``(n, K)`` targets, scores and probabilities of
    ``n`` rows of ``K > 2`` classes when they would pass the memory ceiling."""
    if k > 2:
        from .._limits import check_doubles

        check_doubles(
            f"{n} rows x {k} classes (the score, target and probability columns of each class)",
            3 * n * k,
            "; give fewer rows per partial_fit call",
        )
