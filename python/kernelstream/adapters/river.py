"""river-style adapters: ``learn_one(x: dict, y)`` and ``predict_one(x: dict)``.

If river is installed the adapters subclass ``river.base.Regressor`` /
``river.base.Classifier`` (so they compose with river's pipelines and work with
``river.evaluate.progressive_val_score``) and pass ``river.checks.check_estimator``
(tested). The wrapped ``learner`` is trained in place; ``clone()`` gives an adapter
around an untrained copy.

Feature policy (a kernel learner works on a fixed input dimension): each feature takes
an input slot of the learner the first time it is learned with a value (``feature_names``,
in slot order: the first row's keys sorted, then later keys as they come). A missing
key and the value ``None`` both mean ``0.0``. A key first seen after the first row is
never ignored: with ``max_features=N`` the learner has ``N`` inputs from the start and
the new key takes a free one, which was ``0`` in every past row, so this is exactly the
stream extended by zeros; for distance kernels (Gaussian, Laplacian, and TaylorAWV,
RFF, Nystrom, AutoKernel built on them) such an input changes no past feature or kernel
value. Without ``max_features`` (or when its slots are all taken) a new key raises
:class:`~kernelstream.InputError` saying so. Values must be numbers (encode categories,
e.g. with ``preprocessing.OneHotEncoder``, and give ``max_features`` room for the
categories to come).

Scale: the learners' defaults assume inputs whose distances are of order ``sigma = 1``
and targets of order one. By default (``scale=True``) the adapters standardize the
features (those already of order one pass unchanged, so a ``StandardScaler`` in front
is not applied twice), divide them by ``sqrt(d)`` (``d`` the features in use), and
standardize the target, all online; ``scale=False`` passes the values as they are
(``docs/adapters.md``).

Examples
--------
>>> from kernelstream import TaylorAWV
>>> from kernelstream.adapters import RiverRegressor
>>> model = RiverRegressor(TaylorAWV(degree=2), max_features=3)
>>> model.predict_one({"a": 0.1, "b": -0.3})
0.0
>>> model.learn_one({"a": 0.1, "b": -0.3}, 1.0)
>>> model.learn_one({"a": 0.2, "c": 1.0}, 2.0)
>>> model.learner.n_seen, model.learner.input_dim, model.feature_names
(2, 3, ['a', 'b', 'c'])
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


def _zero_extension_exact(learner) -> bool:
    """Whether an input that was 0 in every past row changes none of ``learner``'s past
    features or kernel values: true of distance kernels (Gaussian, Laplacian) and of the
    learners built on them, not of the kernels on ``[0, 1]`` (Min, Sobolev, periodic)."""
    from ..kernels import as_kernel
    from ..learners import AutoKernel, Mixture, TaylorAWV

    if isinstance(learner, (TaylorAWV, AutoKernel)):
        return True
    if isinstance(learner, Mixture):
        return all(_zero_extension_exact(e) for e in learner.get_params()["experts"])
    p = learner.get_params()
    kernels = [p["kernel"]] if "kernel" in p else list(p.get("kernels", ()))
    return bool(kernels) and all(as_kernel(k).spec[0] in ("gaussian", "laplacian") for k in kernels)


class _DictAdapter:
    _scale_target = False

    def __init__(self, learner, scale: bool = True, max_features: int | None = None):
        if not isinstance(scale, (bool, np.bool_)):
            raise ParameterError(f"scale must be True or False, got {scale!r}")
        if max_features is not None and (
            isinstance(max_features, (bool, np.bool_))
            or not isinstance(max_features, numbers.Integral)
            or max_features < 1
        ):
            raise ParameterError(
                f"max_features must be None or a positive integer, got {max_features!r}"
            )
        if max_features is not None and not _zero_extension_exact(learner):
            raise ParameterError(
                f"max_features needs a learner on which an input that was 0 in every past "
                f"row changes nothing (Gaussian or Laplacian kernels); "
                f"{type(learner).__name__} with its kernel would change, so give every row "
                "all its features instead"
            )
        self.learner = learner
        self.scale = scale
        self.max_features = max_features
        self.feature_names: list | None = None  # in slot order
        self.scaler = OnlineStandardizer(per_dimension=False, keep_unit=True) if scale else None
        self.target_scaler = (
            OnlineStandardizer(per_dimension=False) if scale and self._scale_target else None
        )

    def _slots(self, x: dict):
        """The feature names after ``x`` (new keys appended) and the input size."""
        if not isinstance(x, dict):
            raise InputError(f"x must be a dict of feature name -> value, got {type(x).__name__}")
        for k, v in x.items():
            if v is not None and (
                isinstance(v, (bool, np.bool_)) or not isinstance(v, numbers.Real)
            ):
                raise InputError(f"feature {k!r} must be a real number or None, got {v!r}")
        names = self.feature_names or []
        known = set(names)
        new = [k for k in _sorted_names(x) if k not in known and x[k] is not None]
        if self.feature_names is None:  # the first row fixes the input size
            size = len(new) if self.max_features is None else self.max_features
            if len(new) > size:
                raise InputError(
                    f"the first row has {len(new)} features, more than max_features={size}"
                )
            return new, max(size, 1)
        size = int(self.learner.input_dim or 0) or len(names)
        if new and len(names) + len(new) > size:
            hint = (
                "build the model with a larger max_features"
                if self.max_features is not None
                else "pass max_features=N to reserve N inputs, so that a feature first seen "
                "later takes a free one (exactly as if it had been 0 in every past row)"
            )
            raise InputError(
                f"feature {new[0]!r} was not in the rows learned before, and all {size} "
                f"inputs of the learner are taken by {names[:5]}"
                f"{'...' if len(names) > 5 else ''}: {hint} (docs/adapters.md)"
            )
        return names + new, size

    def _vector(self, x: dict):
        """``x`` as a float vector in slot order (see the module's feature policy)."""
        names, size = self._slots(x)
        v = np.zeros(size)
        for i, k in enumerate(names):
            value = x.get(k)
            if value is not None:
                v[i] = value
        return v, names

    def _unit_test_skips(self) -> set:
        # river's check_emerging_features learns rows whose keys come after the first row:
        # without reserved inputs that is the documented InputError
        skips = set(getattr(super(), "_unit_test_skips", set)())
        return skips | ({"check_emerging_features"} if self.max_features is None else set())

    def _standardize(self, scaler, v, n_used: int, learn: bool):
        z = scaler.learn_transform(v[None, :]) if learn else scaler.transform(v[None, :])
        return z[0] / np.sqrt(max(n_used, 1))

    def _learn_vector(self, x: dict, y: float) -> None:
        v, names = self._vector(x)
        xs = None if self.scaler is None else self.scaler.copy()
        ys = None if self.target_scaler is None else self.target_scaler.copy()
        if xs is not None:
            v = self._standardize(xs, v, len(names), learn=True)
        if ys is not None:
            y = float(ys.learn_transform(np.array([[as_label(y)]]))[0, 0])
        self.learner.learn_one(v, y)
        # the learner accepted the round: commit the features and the statistics
        self.scaler, self.target_scaler = xs, ys
        self.feature_names = list(names)

    def _input(self, x: dict) -> np.ndarray:
        """``x`` as the learner sees it at prediction time."""
        v, names = self._vector(x)
        if self.scaler is not None:
            v = self._standardize(self.scaler, v, len(names), learn=False)
        return v

    def _score(self, x: dict) -> float:
        return self.learner.predict_one(self._input(x))

    def clone(self, new_params=None, include_attributes=False):
        """A fresh adapter: the same parameters around an untrained copy of ``learner``."""
        params = {
            "learner": type(self.learner)(**self.learner.get_params()),
            "scale": self.scale,
            "max_features": self.max_features,
        }
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
    scale : bool, default True
        Standardize the features (divided by ``sqrt(d)`` too) and the target online, so
        that the learner's defaults suit the data (see :mod:`kernelstream.adapters._scaling`);
        ``False`` passes the values as they are.
    max_features : int, optional
        Inputs reserved for the features, so that keys first seen after the first row
        (categories one-hot encoded online) take a free one; ``None``: as many as the
        first row has, and a later new key is an error. See the module's feature policy.
    """

    _scale_target = True

    @classmethod
    def _unit_test_params(cls):
        from ..learners import TaylorAWV

        yield {"learner": TaylorAWV(degree=2), "scale": True, "max_features": 12}

    def learn_one(self, x: dict, y: float) -> None:
        self._learn_vector(x, y)

    def predict_one(self, x: dict, with_interval: bool = False):
        """The prediction for ``x``; with ``with_interval=True`` (a learner wrapped in
        :class:`kernelstream.Conformal`), a dict ``{"lower", "center", "upper"}`` in the
        target's units, as river's conformal regressors give."""
        if not with_interval:
            f = self._score(x)
            return f if self.target_scaler is None else self._unscale(np.array([f]))[0]
        interval = getattr(self.learner, "predict_interval_one", None)
        if interval is None:
            raise ParameterError(
                "with_interval=True needs a learner that gives intervals: wrap it, "
                "RiverRegressor(kernelstream.Conformal(learner))"
            )
        bounds = np.array(interval(self._input(x)))  # lower, centre, upper
        lo, centre, hi = (
            [float(b) for b in bounds]
            if self.target_scaler is None
            else self._unscale(bounds)  # an increasing affine map: bounds stay bounds
        )
        return {"lower": lo, "center": centre, "upper": hi}

    def _unscale(self, z: np.ndarray) -> list:
        """Scaled targets back to the target's units (an infinite bound stays infinite)."""
        assert self.target_scaler is not None
        finite = np.isfinite(z)
        out = np.array(z, dtype=np.float64)
        out[finite] = self.target_scaler.inverse(z[finite])
        return [float(v) for v in out]


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
    scale : bool, default True
        Standardize the features online (divided by ``sqrt(d)`` too); ``False`` passes
        them as they are.
    max_features : int, optional
        Inputs reserved for features first seen after the first row (see
        :class:`RiverRegressor`).

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

    def __init__(self, learner, scale: bool = True, max_features: int | None = None):
        super().__init__(learner, scale, max_features)
        self.classes: dict = {}  # learner label (+1 / -1) -> user label

    @classmethod
    def _unit_test_params(cls):
        from ..kernels import Gaussian
        from ..learners import FOGD

        yield {
            "learner": FOGD(Gaussian(1.0), n_features=20, loss="logistic"),
            "scale": True,
            "max_features": 12,
        }

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
