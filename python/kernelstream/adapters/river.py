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
import math
import numbers

import numpy as np

from .._validation import as_label, as_weight
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


_FLOAT64 = np.float64


class _DictAdapter:
    _scale_target = False
    #: ``(feature_names, {name: slot})`` for the list object in ``feature_names`` (derived,
    #: not pickled)
    _slot_cache: tuple | None = None

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

    def _known_row(self, x) -> np.ndarray | None:
        """The common case of :meth:`_vector` (a dict whose keys all have a slot and
        whose values are floats, ints or None) as a float vector; ``None`` otherwise."""
        names = self.feature_names
        if not names or type(x) is not dict:
            return None
        cache = self._slot_cache
        if cache is None or cache[0] is not names:  # `feature_names` is replaced, never mutated
            cache = self._slot_cache = (names, {k: i for i, k in enumerate(names)})
        slots = cache[1]
        v = [0.0] * (int(self.learner.input_dim or 0) or len(names))
        for k, value in x.items():
            i = slots.get(k)
            t = type(value)
            if i is None or not (t is float or t is int or t is _FLOAT64 or value is None):
                return None
            if value is not None:
                v[i] = value
        return np.array(v)

    def _vector(self, x: dict):
        """``x`` as a float vector in slot order (see the module's feature policy)."""
        known = self._known_row(x)
        if known is not None:
            return known, self.feature_names
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

    def _learn_vector(self, x: dict, y: float, w: float = 1.0) -> None:
        v, names = self._vector(x)
        xs, ys = self.scaler, self.target_scaler  # the statistics after x, once accepted
        if xs is not None:
            z, xs = xs.learned_row(v)
            v = z / np.sqrt(max(len(names), 1))
        if ys is not None:
            z, ys = ys.learned_row(np.array([as_label(y)]))
            y = float(z[0])
        self.learner.learn_one(v, y, w)
        # the learner accepted the round: commit the features and the statistics
        self.scaler, self.target_scaler = xs, ys
        if names is not self.feature_names:
            self.feature_names = list(names)

    def _input(self, x: dict) -> np.ndarray:
        """``x`` as the learner sees it at prediction time."""
        v, names = self._vector(x)
        if self.scaler is not None:
            v = self.scaler.transform_row(v) / np.sqrt(max(len(names), 1))
        return v

    def _score(self, x: dict) -> float:
        return self.learner.predict_one(self._input(x))

    def __getstate__(self):
        state = dict(self.__dict__)
        state.pop("_slot_cache", None)
        return state

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

    def learn_one(self, x: dict, y: float, w: float = 1.0) -> None:
        """Learn ``(x, y)`` with sample weight ``w`` (river's convention; a finite number
        ``>= 0``: the learner's loss counts ``w`` times, the online scaling sees the row
        once; ``w = 0`` changes nothing; docs/choices.md, "Sample weights")."""
        w = as_weight(w)
        if w == 0.0:
            return
        self._learn_vector(x, y, w)

    def predict_one(self, x: dict, with_interval: bool = False):
        """The prediction for ``x``; with ``with_interval=True`` (a learner wrapped in
        :class:`kernelstream.Conformal`), a dict ``{"lower", "center", "upper"}`` in the
        target's units, as river's conformal regressors give."""
        if not with_interval:
            f = self._score(x)
            if self.target_scaler is None:
                return f
            return (
                self.target_scaler.inverse_one(f)
                if math.isfinite(f)
                else self._unscale(np.array([f]))[0]
            )
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


class RiverClassifier(_DictAdapter, _Classifier):
    """Classification on dict inputs, any number of classes, labels of any hashable type.

    One score column per class (:mod:`kernelstream.adapters._columns`: targets ``1/0``,
    least-squares classification, or ``+1/-1`` for learners with a classification
    loss), in the order the classes were first seen (``classes``); the prediction is
    the class of the highest score (``None`` before any label). A multi-output
    learner (the AWV family) is trained in place with one output per class, and a
    class first seen at round ``t`` is added by ``add_outputs``, which derives exactly
    the column it would have had if it had been known from round 1 (past targets 0).
    Any other learner is trained in place as the column of a class never seen (target
    ``0``, or ``-1``, at every round), and a class first seen takes a copy of it, which
    is that column by definition (``columns``: one learner per class).
    ``predict_proba_one`` calibrates the scores online
    (:class:`kernelstream.calibration.SoftmaxCalibrator`, fitted on the scores each
    row had before its label); its most probable class is the predicted one.

    Parameters
    ----------
    learner : kernelstream learner
        Trained in place (the column of the classes not seen yet); each class's column
        starts as a copy of it.
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
    >>> rows = [(0.9, "spam"), (-0.8, "ham"), (0.7, "spam"), (-0.9, "ham"), (0.0, "eggs")]
    >>> for a, label in rows:
    ...     clf.learn_one({"a": a}, label)
    >>> clf.predict_one({"a": 0.8}), clf.predict_one({"a": -0.8}), clf.classes
    ('spam', 'ham', ['spam', 'ham', 'eggs'])
    >>> p = clf.predict_proba_one({"a": 0.8})
    >>> sorted(p), round(sum(p.values()), 12)
    (['eggs', 'ham', 'spam'], 1.0)
    """

    _multiclass = True

    def __init__(self, learner, scale: bool = True, max_features: int | None = None):
        from ..calibration import SoftmaxCalibrator
        from ._columns import is_native, target_values

        super().__init__(learner, scale, max_features)
        self.classes: list = []  # labels in column order
        self.columns: list = []  # one learner per class
        self.calibrator = SoftmaxCalibrator()
        self._on, self._off = target_values(learner)
        self._native = is_native(learner)

    @classmethod
    def _unit_test_params(cls):
        from ..kernels import Gaussian
        from ..learners import FOGD

        yield {
            "learner": FOGD(Gaussian(1.0), n_features=20, loss="logistic"),
            "scale": True,
            "max_features": 24,
        }

    def _index(self, y):
        """The column of ``y`` (``len(classes)`` for a new class)."""
        try:
            hash(y)
        except TypeError:
            raise InputError(f"a label must be hashable, got {type(y).__name__}") from None
        for k, label in enumerate(self.classes):
            if label == y:
                return k
        return len(self.classes)

    def _native_scores(self, v: np.ndarray) -> np.ndarray:
        if self.learner.n_outputs is None:
            return np.zeros(0)
        return np.atleast_1d(np.asarray(self.learner.predict_one(v), dtype=np.float64))

    def _column_predictions(self, V: np.ndarray) -> np.ndarray:
        """The ``(n, K)`` class scores of input rows as the learner sees them."""
        if self._native:
            return self.learner.predict_many(V).reshape(V.shape[0], len(self.classes))
        return np.column_stack([c.predict_many(V) for c in self.columns])

    def learn_one(self, x: dict, y, w: float = 1.0) -> None:
        """Learn ``(x, y)`` with sample weight ``w`` (river's convention; a finite number
        ``>= 0``: each class column's loss counts ``w`` times, the scaling and the
        calibration see the row once; ``w = 0`` changes nothing)."""
        w = as_weight(w)
        if w == 0.0:
            return
        k = self._index(y)
        v, names = self._vector(x)
        xs = self.scaler  # the statistics after x, once accepted
        if xs is not None:
            z, xs = xs.learned_row(v)
            v = z / np.sqrt(max(len(names), 1))
        calibrator = copy.copy(self.calibrator)
        new = k == len(self.classes)
        if new and calibrator.n_classes:
            calibrator.add_class()
        if self._native:
            scores = self._native_scores(v)  # before the label (and a check of v)
            if new and self.learner.n_outputs is not None:
                self.learner.add_outputs(1)  # exactly the column known from round 1
                scores = self._native_scores(v)
            elif new:
                scores = np.zeros(1)
            targets = np.full(scores.size, self._off)
            targets[k] = self._on
            self.learner.learn_one(v, targets, w)
            columns = self.columns
        else:
            columns = list(self.columns)
            if new:  # the never-seen column, as it is now
                columns.append(copy.copy(self.learner))
            scores = np.array([c.predict_one(v) for c in columns])  # before the label
            # The never-seen column first: a refused row (bad values) stops here,
            # unchanged; the columns then take the same row, which they accept likewise.
            self.learner.learn_one(v, self._off, w)
            for j, c in enumerate(columns):
                c.learn_one(v, self._on if j == k else self._off, w)
        calibrator.learn(scores[None, :], [k])
        self.columns, self.calibrator, self.scaler = columns, calibrator, xs
        if new:
            self.classes.append(y)
        if names is not self.feature_names:
            self.feature_names = list(names)

    def _current_scores(self, x: dict):
        v = self._input(x)
        if self._native:
            return self._native_scores(v)
        return np.array([c.predict_one(v) for c in self.columns])

    def predict_one(self, x: dict, **kwargs):
        if not self.classes:
            return None
        return self.classes[int(np.argmax(self._current_scores(x)))]

    def predict_proba_one(self, x: dict, **kwargs) -> dict:
        if not self.classes:
            return {}
        p = self.calibrator.predict_proba(self._current_scores(x)[None, :])[0]
        return {label: float(pk) for label, pk in zip(self.classes, p)}
