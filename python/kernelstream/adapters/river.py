"""river-style adapters: ``learn_one(x: dict, y)`` and ``predict_one(x: dict)``.

If river is installed the adapters subclass ``river.base.Regressor`` /
``river.base.Classifier`` (so they compose with river's pipelines and work with
``river.evaluate.progressive_val_score``) and pass ``river.checks.check_estimator``
(tested). The wrapped ``learner`` is trained in place; ``clone()`` gives an adapter
around an untrained copy.

Feature policy (a kernel learner works on a fixed input dimension): the features are
the keys of the first dict *learned*, in sorted order (``feature_names``). Afterwards a
missing feature counts as ``0.0`` and a feature not in ``feature_names`` is ignored,
like the weights river's linear models keep for features they have not seen. Values
must be numbers (encode categories first, e.g. with ``preprocessing.OneHotEncoder``,
and do so before the first ``learn_one``).

Scale: the learners' defaults assume inputs whose distances are of order ``sigma = 1``
and targets of order one. ``scale=True`` standardizes the features (and divides them by
``sqrt(d)``) and the target online; or compose with river's ``preprocessing.StandardScaler``
and ``preprocessing.TargetStandardScaler`` (``docs/adapters.md``).

Examples
--------
>>> from kernelstream import TaylorAWV
>>> from kernelstream.adapters import RiverRegressor
>>> model = RiverRegressor(TaylorAWV(degree=2))
>>> model.predict_one({"a": 0.1, "b": -0.3})
0.0
>>> model.learn_one({"a": 0.1, "b": -0.3}, 1.0)
>>> model.learner.n_seen, model.feature_names
(1, ['a', 'b'])
"""

from __future__ import annotations

import copy
import numbers

import numpy as np

from .._validation import as_label
from ..errors import InputError, ParameterError
from ._scaling import OnlineStandardizer

try:
    from river.base import Classifier as _Classifier
    from river.base import Regressor as _Regressor
except ImportError:  # river is optional
    _Regressor = _Classifier = object  # type: ignore[assignment,misc]


def _sorted_names(x: dict) -> list:
    try:
        return sorted(x)
    except TypeError:  # keys of mixed types
        return sorted(x, key=lambda k: (type(k).__name__, repr(k)))


class _DictAdapter:
    _scale_target = False

    def __init__(self, learner, scale: bool = False):
        if not isinstance(scale, (bool, np.bool_)):
            raise ParameterError(f"scale must be True or False, got {scale!r}")
        self.learner = learner
        self.scale = scale
        self.feature_names: list | None = None
        self.scaler = OnlineStandardizer(per_dimension=True) if scale else None
        self.target_scaler = (
            OnlineStandardizer(per_dimension=False) if scale and self._scale_target else None
        )

    def _vector(self, x: dict):
        """``x`` as a float vector in the order of ``feature_names`` (see the module's policy)."""
        if not isinstance(x, dict):
            raise InputError(f"x must be a dict of feature name -> value, got {type(x).__name__}")
        names = _sorted_names(x) if self.feature_names is None else self.feature_names
        values = [x.get(k, 0.0) for k in names]
        for k, v in zip(names, values):
            if isinstance(v, (bool, np.bool_)) or not isinstance(v, numbers.Real):
                raise InputError(f"feature {k!r} must be a real number, got {v!r}")
        return np.array(values, dtype=float), names

    def _learn_vector(self, x: dict, y: float) -> None:
        v, names = self._vector(x)
        xs = None if self.scaler is None else self.scaler.copy()
        ys = None if self.target_scaler is None else self.target_scaler.copy()
        if xs is not None:
            v = xs.learn_transform(v[None, :])[0]
        if ys is not None:
            y = float(ys.learn_transform(np.array([[as_label(y)]]))[0, 0])
        self.learner.learn_one(v, y)
        # the learner accepted the round: commit the feature order and the statistics
        self.scaler, self.target_scaler = xs, ys
        if self.feature_names is None:
            self.feature_names = list(names)

    def _score(self, x: dict) -> float:
        v, _ = self._vector(x)
        if self.scaler is not None:
            v = self.scaler.transform(v[None, :])[0]
        return self.learner.predict_one(v)

    def clone(self, new_params=None, include_attributes=False):
        """A fresh adapter: the same parameters around an untrained copy of ``learner``."""
        params = {"learner": type(self.learner)(**self.learner.get_params()), "scale": self.scale}
        params.update({k: copy.deepcopy(v) for k, v in (new_params or {}).items()})
        new = type(self)(**params)
        if include_attributes:
            for attr, value in self.__dict__.items():
                if attr not in params:
                    setattr(new, attr, copy.deepcopy(value))
        return new


class RiverRegressor(_DictAdapter, _Regressor):
    """Regression on dict inputs: ``learner`` sees the values in ``feature_names`` order.

    Parameters
    ----------
    learner : kernelstream learner
        Trained in place.
    scale : bool, default False
        Standardize the features (divided by ``sqrt(d)`` too) and the target online, so
        that the learner's defaults suit the data (see :mod:`kernelstream.adapters._scaling`).
    """

    _scale_target = True

    @classmethod
    def _unit_test_params(cls):
        from ..learners import TaylorAWV

        yield {"learner": TaylorAWV(degree=2), "scale": True}

    def learn_one(self, x: dict, y: float) -> None:
        self._learn_vector(x, y)

    def predict_one(self, x: dict) -> float:
        f = self._score(x)
        if self.target_scaler is None:
            return f
        return float(self.target_scaler.inverse(np.array([f]))[0])


_UNSEEN = object()


def _boolish(label) -> bool:
    """True/False and the numbers 1, 0, -1: labels whose sign is conventional."""
    if isinstance(label, (bool, np.bool_)):
        return True
    return isinstance(label, numbers.Real) and label in (1, 0, -1)


def _preferred_sign(label) -> int:
    if isinstance(label, (bool, np.bool_)):
        return 1 if label else -1
    if isinstance(label, numbers.Real) and label in (1, 0, -1):
        return 1 if label == 1 else -1
    return 0  # no preference


class RiverClassifier(_DictAdapter, _Classifier):
    """Binary classification on dict inputs; labels of any hashable type.

    The two classes get the learner's labels ``+1`` and ``-1`` when first seen: ``True``
    and ``1`` are ``+1``; ``False``, ``0`` and ``-1`` are ``-1``; any other label takes
    ``+1`` if it is free, else ``-1``. A third distinct label is an
    :class:`~kernelstream.InputError`. The prediction is the ``+1`` class when the
    learner's score is ``>= 0``. Until both classes are seen: with boolean-like labels the
    unseen class is reported as ``True``/``False``; with other labels the one class seen
    is predicted.

    ``predict_proba_one`` is a real probability only for a logistic loss
    (``P(+1 | x) = 1 / (1 + exp(-f(x)))``); for other learners it raises
    ``NotImplementedError``, river's way of saying "labels only".

    Parameters
    ----------
    learner : kernelstream learner
        Trained in place on the ``+-1`` labels.
    scale : bool, default False
        Standardize the features online (divided by ``sqrt(d)`` too).

    Examples
    --------
    >>> from kernelstream import TaylorAWV
    >>> from kernelstream.adapters import RiverClassifier
    >>> clf = RiverClassifier(TaylorAWV(degree=2))
    >>> for a, label in [(0.9, "spam"), (-0.8, "ham"), (0.7, "spam"), (-0.9, "ham")]:
    ...     clf.learn_one({"a": a}, label)
    >>> clf.predict_one({"a": 0.8}), clf.predict_one({"a": -0.8}), clf.classes
    ('spam', 'ham', {1: 'spam', -1: 'ham'})
    """

    def __init__(self, learner, scale: bool = False):
        super().__init__(learner, scale)
        self.classes: dict = {}  # learner label (+1 / -1) -> user label

    @classmethod
    def _unit_test_params(cls):
        from ..kernels import Gaussian
        from ..learners import FOGD

        yield {"learner": FOGD(Gaussian(1.0), n_features=20, loss="logistic"), "scale": True}

    def _sign(self, y) -> float:
        """The learner's label for ``y``, assigning a free sign to a new class."""
        try:
            hash(y)
        except TypeError:
            raise InputError(f"a label must be hashable, got {type(y).__name__}") from None
        for sign, label in self.classes.items():
            if label == y:
                return float(sign)
        if len(self.classes) == 2:
            raise InputError(
                f"RiverClassifier is binary: it has seen the labels {self.classes[1]!r} and "
                f"{self.classes[-1]!r}, got a third label {y!r}"
            )
        sign = _preferred_sign(y) or (1 if 1 not in self.classes else -1)
        if sign in self.classes:
            sign = -sign
        return float(sign)

    def learn_one(self, x: dict, y) -> None:
        sign = self._sign(y)
        self._learn_vector(x, sign)
        self.classes.setdefault(int(sign), y)

    def _labels(self):
        neg, pos = self.classes.get(-1, _UNSEEN), self.classes.get(1, _UNSEEN)
        if neg is _UNSEEN and (pos is _UNSEEN or _boolish(pos)):
            neg = False
        if pos is _UNSEEN and _boolish(neg):
            pos = True
        return neg, pos

    def predict_one(self, x: dict, **kwargs):
        neg, pos = self._labels()
        s = self._score(x)
        if neg is _UNSEEN:
            return pos
        if pos is _UNSEEN:
            return neg
        return pos if s >= 0.0 else neg

    def predict_proba_one(self, x: dict, **kwargs) -> dict:
        if self.learner.get_params().get("loss") != "logistic":
            raise NotImplementedError(
                "predict_proba_one needs a probabilistic learner (loss='logistic'); "
                f"{type(self.learner).__name__} gives labels only"
            )
        neg, pos = self._labels()
        s = self._score(x)
        if neg is _UNSEEN:
            return {pos: 1.0}
        if pos is _UNSEEN:
            return {neg: 1.0}
        p = 1.0 / (1.0 + np.exp(-s)) if s >= 0 else np.exp(s) / (1.0 + np.exp(s))
        return {neg: float(1.0 - p), pos: float(p)}
