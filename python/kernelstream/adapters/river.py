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
never ignored, and the result is always the learner fed the rows extended by zeros:

- without ``max_features`` (the default) the adapter keeps the rows as the learner saw
  them, and a key that finds no free input widens the learner exactly: a fresh learner
  with twice the inputs replays them, zero-extended (``kernelstream.adapters._growth``;
  ``8 d`` bytes a row, at most 512 MB, counted in the memory usage);
- with ``max_features=N`` the learner has ``N`` inputs from the start and the new key
  takes a free one, which was ``0`` in every past row, so this is exactly the stream
  extended by zeros (no rows kept: faster, bounded memory; a key past the ``N`` raises
  :class:`~kernelstream.InputError`); for distance kernels (Gaussian, Laplacian, and
  TaylorAWV, RFF, Nystrom, AutoKernel built on them) such an input changes no past
  feature or kernel value.

Values must be numbers (encode categories, e.g. with ``preprocessing.OneHotEncoder``).
``RiverRegressor`` also takes dict targets, as ``river.base.MultiTargetRegressor``
models do (a multi-output learner: the AWV family and AutoKernel): ``learn_one(x, y)``
with ``y = {name: value}``, and ``predict_one`` returns a dict.

Scale: the learners' defaults assume inputs whose distances are of order ``sigma = 1``
and targets of order one. By default (``scale="auto"``) the adapters standardize the
features (those already of order one pass unchanged, so a ``StandardScaler`` in front
is not applied twice), divide them by ``sqrt(d)`` (``d`` the features in use), and
standardize the target, all online, except in front of a learner that scales itself
(AutoKernel); ``scale=True`` always scales, ``scale=False`` passes the values as they
are (``docs/adapters.md``).

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
>>> grows = RiverRegressor(TaylorAWV(degree=2))  # no reservation: widened when needed
>>> grows.learn_one({"a": 0.1}, 1.0)
>>> grows.learn_one({"a": 0.2, "b": 1.0, "c": 0.5}, 2.0)
>>> grows.learner.n_seen, grows.learner.input_dim, grows.feature_names
(2, 3, ['a', 'b', 'c'])
>>> multi = RiverRegressor(TaylorAWV(degree=2))  # dict targets: one output each
>>> multi.learn_one({"a": 0.1}, {"u": 1.0, "v": -1.0})
>>> sorted(multi.predict_one({"a": 0.1}))
['u', 'v']
"""

from __future__ import annotations

import copy
import math
import numbers
import operator

import numpy as np

from .._rounds import whole_round
from .._threads import LOCK_ATTR, serialised
from .._validation import as_label, as_weight
from ..errors import InputError, ParameterError
from . import _growth
from ._order import resolve_scale
from ._scaling import OnlineStandardizer, check_row_buffers

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
#: the value types of a row read without the general checks (bool is its own type)
_PLAIN_VALUES = frozenset((float, int, _FLOAT64))
#: integers at least this large (in magnitude) are not float64 values (they round to inf)
_INT_MAX = 2**1024 - 2**970


def _short_int(v) -> str:
    digits = len(str(abs(int(v))))
    return f"{'-' if v < 0 else ''}(a {digits}-digit integer)" if digits > 30 else str(v)


class _DictAdapter:
    _scale_target = False
    #: ``[feature_names, {name: slot}, (keys, width, slots of the keys)]`` for the list
    #: object in ``feature_names`` and the last key order seen (derived, not pickled)
    _slot_cache: list | None = None
    #: the classifier's last class scores and what they depend on (derived, not pickled)
    _scored: tuple | None = None
    #: the last row read by ``_known_row``: the dict, the names, the input size, its
    #: keys, its value objects and the vector (derived, not pickled)
    _row_kept: tuple | None = None
    #: the classifier's one-hot target rows, one per class (derived, not pickled)
    _targets: list | None = None

    #: the attributes above, derived from the others: left out of pickles, model
    #: files and clones
    _derived = frozenset(("_slot_cache", "_scored", "_row_kept", "_targets"))

    #: the rows as the learner saw them, for an exact widening (``None``: not kept)
    _history: _growth.History | None = None
    #: dict targets: their names, in output order (``None``: one number per round)
    target_names: list | None = None
    #: the rows stopped being kept (past ``_growth.MAX_BYTES``)
    _rows_dropped = False

    @property
    def n_learned(self) -> int:
        """Rows learned."""
        return int(self.learner.n_seen)

    def __init__(self, learner, scale="auto", max_features: int | None = None):
        scaled = resolve_scale(scale, learner)
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
        if max_features is not None:
            check_row_buffers(max_features, f"max_features={max_features}", ParameterError)
        self.learner = learner
        self.scale = scale
        self.max_features = max_features
        self.feature_names: list | None = None  # in slot order
        self.scaler = OnlineStandardizer(per_dimension=False, keep_unit=True) if scaled else None
        self.target_scaler = (
            OnlineStandardizer(per_dimension=False) if scaled and self._scale_target else None
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
            if isinstance(v, numbers.Integral) and not -_INT_MAX < int(v) < _INT_MAX:
                raise InputError(f"feature {k!r}: the integer {_short_int(v)} overflows float64")
        names = self.feature_names or []
        known = set(names)
        new = [k for k in _sorted_names(x) if k not in known and x[k] is not None]
        if self.feature_names is None:  # the first row fixes the input size
            size = len(new) if self.max_features is None else self.max_features
            if len(new) > size:
                raise InputError(
                    f"the first row has {len(new)} features, more than max_features={size}"
                )
            check_row_buffers(size, "the first row", InputError)
            check_width = getattr(getattr(self.learner, "_core", None), "_check_width", None)
            if check_width is not None:  # the learner's own limits, before any allocation
                check_width(max(size, 1))
            return new, max(size, 1)
        size = int(self.learner.input_dim or 0) or len(names)
        if new and len(names) + len(new) > size and self._history is not None:
            return names + new, _growth.grown_width(size, len(names) + len(new))
        if new and len(names) + len(new) > size:
            hint = (
                "build the model with a larger max_features"
                if self.max_features is not None
                else f"the rows kept for widening the learner passed {_growth.MAX_BYTES} "
                "bytes; pass max_features=N to reserve N inputs, so that a feature first "
                "seen later takes a free one (exactly as if it had been 0 in every past row)"
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
            cache = self._slot_cache = [names, {k: i for i, k in enumerate(names)}, None]
        slots = cache[1]
        size = int(self.learner.input_dim or 0) or len(names)
        values, keys = list(x.values()), list(x)
        row = self._row_kept
        if (  # the row of the last call (river's predict_one then learn_one of one dict)
            row is not None
            and row[0] is x
            and row[1] is names
            and row[2] == size
            and row[3] == keys
            and len(row[4]) == len(values)
            and all(map(operator.is_, row[4], values))
        ):
            return row[5]
        if set(map(type, values)) <= _PLAIN_VALUES:  # (no None: each key has a value)
            # The rows of a stream come with the same keys in the same order: the slots
            # of that order are kept (``cache[2]``), and the values placed by them.
            order = cache[2]
            if order is None or order[1] != size or order[0] != keys:
                idx = [slots.get(k) for k in keys]
                if None in idx:
                    return None
                identity = len(keys) == size and idx == list(range(size))
                order = cache[2] = (keys, size, None if identity else np.array(idx, np.intp))
            out = np.array(values)
            if out.dtype != _FLOAT64:
                if out.dtype.kind != "i":  # an integer beyond the doubles: the general path
                    return None
                out = out.astype(_FLOAT64)
            if order[2] is not None:
                placed = np.zeros(size)
                placed[order[2]] = out
                out = placed
            self._row_kept = (x, names, size, keys, values, out)
            return out
        v = [0.0] * size
        for k, value in x.items():
            i = slots.get(k)
            t = type(value)
            if i is None or not (t is float or t is int or t is _FLOAT64 or value is None):
                return None
            if value is not None:
                v[i] = value
        out = np.array(v)
        # an integer beyond the doubles makes an object array: the general path names it
        return out if out.dtype == _FLOAT64 else None

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
        # the rows kept for widening grow with the stream: river's memory check fails
        # by design without a reservation (max_features), which keeps none
        skips = set(getattr(super(), "_unit_test_skips", set)())
        return skips | ({"check_bounded_memory_growth"} if self.max_features is None else set())

    def _widened(self, v: np.ndarray, xs):
        """Before learning the row ``v`` (``size`` inputs, more than the learner's):
        the learner and scaler widened to ``v``'s size, exactly (see ``_growth``)."""
        size, old = v.shape[0], self.learner.input_dim
        if old is None or size == old:
            return self.learner, xs
        if xs is not None and xs.n:  # the new inputs were 0 in every past row
            xs = xs.copy()
            xs.mean = np.concatenate([xs.mean, np.zeros(size - old)])
            xs.m2 = np.concatenate([xs.m2, np.zeros(size - old)])
        return self._replay(size), xs

    def _replay(self, size: int):
        """A fresh learner that learned the rows kept, extended by zeros to ``size``."""
        h = self._history
        assert h is not None
        Y = h.targets[: h.n]
        return _growth.replayed(self.learner, h.widened(size), Y if Y.shape[1] > 1 else Y[:, 0])

    def _keep(self, v: np.ndarray, target, w: float = 1.0) -> None:
        """Keep the row the learner learned (or stop keeping rows, past the limit; or
        once a row has a weight other than 1, which the kept rows would not replay)."""
        if w != 1.0 and self.max_features is None:
            self._history, self._rows_dropped = None, True
        if self.max_features is not None or self._rows_dropped:
            return
        if self._history is None and self.n_learned == 1:  # the first row
            self._history = _growth.History(v.shape[0], np.size(target))
        h = self._history
        if h is not None:
            if h.rows.shape[1] < v.shape[0]:
                h.widen(v.shape[0])
            if not h.append(v, target):
                self._history = None  # no widening from now on
                self._rows_dropped = True

    @property
    def _raw_memory_usage(self) -> int:
        """river's size of the adapter, the learners' core states included (their
        ``sys.getsizeof`` counts the state the core holds)."""
        import sys

        from ._columns import is_native

        extra = 0 if self._history is None else self._history.nbytes
        learners = [self.learner, *getattr(self, "columns", [])]
        if is_native(self.learner):
            learners = [self.learner]
        return sys.getsizeof(self) + extra + sum(sys.getsizeof(lr) for lr in learners)

    def _target_row(self, y):
        """The target ``y`` as a number, or as an array in ``target_names`` order (dict
        targets, ``river.base.MultiTargetRegressor``'s convention)."""
        if not isinstance(y, dict):
            if self.target_names is not None:
                raise InputError(f"this model learns dict targets {self.target_names}, got {y!r}")
            return as_label(y)
        names = self.target_names
        if names is None:
            from ._columns import is_native

            if self.learner.n_seen:
                raise InputError("this model learns one number per round, got a dict target")
            # (a Conformal around one gives an interval per target)
            if not is_native(getattr(self.learner, "learner_", self.learner)):
                from ..learners import _registry
                from ..learners._multi import MultiOutput

                multi = [n for n in _registry.names() if issubclass(_registry.face(n), MultiOutput)]
                raise InputError(
                    f"dict targets need a multi-output learner ({', '.join(multi)}, or "
                    f"Conformal around one), not {type(self.learner).__name__}"
                )
            names = _sorted_names(y)
        if set(y) != set(names):
            raise InputError(f"the targets must have the keys {names}, got {_sorted_names(y)}")
        return np.array([as_label(y[k]) for k in names]), names

    def _learn_vector(self, x: dict, y, w: float = 1.0) -> None:
        v, names = self._vector(x)
        target = self._target_row(y)
        tnames = None
        if isinstance(target, tuple):
            target, tnames = target
        xs, ys = self.scaler, self.target_scaler  # the statistics after x, once accepted
        learner, xs = self._widened(v, xs)
        if xs is not None:
            z, xs = xs.learned_row(v)
            v = z / np.sqrt(max(len(names), 1))
        if ys is not None:
            z, ys = ys.learned_row(np.atleast_1d(np.asarray(target, dtype=np.float64)))
            target = float(z[0]) if tnames is None else z
        n0 = learner.n_seen
        try:
            learner.learn_one(v, target, w)
        finally:
            # the learner accepted the round (even if a Ctrl-C that came during the call
            # is raised as it returns): commit the features and the statistics
            if learner.n_seen != n0:
                self.learner = learner
                self.scaler, self.target_scaler = xs, ys
                if tnames is not None:
                    self.target_names = tnames
                if names is not self.feature_names:
                    self.feature_names = list(names)
                self._keep(v, target, w)

    def _input(self, x: dict) -> np.ndarray:
        """``x`` as the learner sees it at prediction time."""
        v, names = self._vector(x)
        width = self.learner.input_dim
        if width is not None and v.shape[0] > width:
            # keys past the learner's inputs (a widening is made by learning, not by
            # predicting): left out, as if missing
            v, names = v[:width], names[:width]
        if self.scaler is not None:
            v = self.scaler.transform_row(v) / np.sqrt(max(len(names), 1))
        return v

    def _score(self, x: dict) -> float:
        return self.learner.predict_one(self._input(x))

    def __getstate__(self):
        # (the lock: each copy has its own, kernelstream._threads)
        return {k: v for k, v in self.__dict__.items() if k not in self._derived | {LOCK_ATTR}}

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
                if attr not in params and attr not in self._derived | {LOCK_ATTR}:
                    setattr(new, attr, copy.deepcopy(value))
        return new


class RiverRegressor(_DictAdapter, _Regressor):
    """Regression on dict inputs: ``learner`` sees the values in ``feature_names`` order.

    Parameters
    ----------
    learner : kernelstream learner
        Trained in place.
    scale : "auto", True or False, default "auto"
        ``True``: standardize the features (divided by ``sqrt(d)`` too) and the target
        online, so that the learner's defaults suit the data (see
        ``kernelstream.adapters._scaling``); ``False`` passes the values as they are;
        ``"auto"``: ``True`` unless the learner scales itself (AutoKernel).
    max_features : int, optional
        Inputs reserved for the features, so that keys first seen after the first row
        (categories one-hot encoded online) take a free one, with no rows kept;
        ``None``: the learner is widened exactly when a new key needs it. See the
        module's feature policy.
    """

    _scale_target = True

    @classmethod
    def _unit_test_params(cls):
        from ..learners import TaylorAWV

        yield {"learner": TaylorAWV(degree=2), "scale": True, "max_features": 12}

    @serialised
    def learn_one(self, x: dict, y, w: float = 1.0) -> None:
        """Learn ``x`` with the target ``y``: a number, or a dict ``{name: value}`` (the
        same names every round, as for ``river.base.MultiTargetRegressor``). ``w``: the
        sample weight (river's convention; a finite number ``>= 0``: the learner's loss
        counts ``w`` times, the online scaling sees the row once; ``w = 0`` changes
        nothing; docs/choices.md, "Sample weights")."""
        if type(w) is not float or w != 1.0:
            w = as_weight(w)
            if w == 0.0:
                return
        self._learn_vector(x, y, w)

    @serialised
    def predict_one(self, x: dict, with_interval: bool = False):
        """The prediction for ``x`` (a dict ``{name: value}`` for dict targets); with
        ``with_interval=True`` (a learner wrapped in :class:`kernelstream.Conformal`), a
        dict ``{"lower", "center", "upper"}`` in the target's units, as river's
        conformal regressors give (dict targets: one such dict per target name)."""
        if self.target_names is not None and not with_interval:
            z = np.atleast_1d(np.asarray(self._score(x), dtype=np.float64))
            values = self._unscale(z) if self.target_scaler is not None else z.tolist()
            return {k: float(v) for k, v in zip(self.target_names, values)}
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
        if self.target_names is not None:  # an interval per output (Conformal, K outputs)
            parts = [
                np.atleast_1d(np.asarray(b, dtype=np.float64)) for b in interval(self._input(x))
            ]
            if self.target_scaler is not None:  # increasing affine maps, +-inf kept
                with np.errstate(invalid="ignore"):  # (inf * 0 of a constant target: unused)
                    parts = [self.target_scaler.inverse(b) for b in parts]
            return {
                k: {"lower": float(lo), "center": float(c), "upper": float(hi)}
                for k, lo, c, hi in zip(self.target_names, *parts)
            }
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
    scale : "auto", True or False, default "auto"
        Standardize the features online (divided by ``sqrt(d)`` too); ``False`` passes
        them as they are; ``"auto"``: ``True`` unless the learner scales itself.
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

    def __init__(self, learner, scale="auto", max_features: int | None = None):
        from ..calibration import SoftmaxCalibrator
        from ._columns import is_native, target_values

        super().__init__(learner, scale, max_features)
        from ._order import warn_if_poor_classifier

        warn_if_poor_classifier(learner, stacklevel=3)
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
        try:
            # a label equals itself: NaN, NaT, pandas.NA (and None) are missing labels,
            # which would otherwise each become a new class
            usable = y is not None and bool(y == y)
        except (TypeError, ValueError):
            usable = False
        if not usable:
            raise InputError(f"the label is missing ({y!r}): a class label must equal itself")
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

    def _replay(self, size: int):
        """The never-seen column and the class columns, fresh, after the rows kept
        extended by zeros to ``size`` (each class's targets from the labels kept)."""
        h = self._history
        assert h is not None
        X, codes = h.widened(size), h.targets[: h.n, 0]
        on, off = self._on, self._off
        if self._native:
            T = np.where(codes[:, None] == np.arange(len(self.classes))[None, :], on, off)
            return _growth.replayed(self.learner, X, T)
        self.columns = [  # (committed with the learner by learn_one)
            _growth.replayed(self.learner, X, np.where(codes == j, on, off))
            for j in range(len(self.columns))
        ]
        return _growth.replayed(self.learner, X, np.full(h.n, off))

    def _one_hot(self, n: int, k: int) -> np.ndarray:
        """The targets of a round of class ``k`` among ``n`` columns (read-only, kept:
        a round does not build them again)."""
        rows = self._targets
        if rows is None or len(rows) != n:
            rows = self._targets = []
            for j in range(n):
                t = np.full(n, self._off)
                t[j] = self._on
                t.flags.writeable = False
                rows.append(t)
        return rows[k]

    def _scores_key(self, v: np.ndarray) -> tuple:
        """What the class scores of the input ``v`` depend on: the row's bytes, the
        rounds the learners learned, the classes, and the learners themselves."""
        lr, columns = self.learner, self.columns
        seen = (v.tobytes(), lr.n_seen, len(self.classes), *[c.n_seen for c in columns])
        if self._native:
            seen += (lr.n_outputs,)
        return seen, (lr, getattr(lr, "_core", None), *columns)

    def _scores(self, v: np.ndarray) -> np.ndarray:
        """The class scores of the input ``v`` (a pure prediction of every column). The
        last ones are kept: a ``learn_one`` of the same row on the same state (river's
        ``predict_one`` or ``predict_proba_one``, then ``learn_one``) takes them instead
        of predicting again (the same values: a prediction is pure)."""
        seen, objects = key = self._scores_key(v)
        kept = self._scored
        if (
            kept is not None
            and kept[0][0] == seen
            and len(kept[0][1]) == len(objects)
            and all(map(operator.is_, kept[0][1], objects))
        ):
            return kept[1]
        if self._native:
            scores = self._native_scores(v)
        else:
            scores = np.array([c.predict_one(v) for c in self.columns])
        self._scored = (key, scores)
        return scores

    @serialised
    def learn_one(self, x: dict, y, w: float = 1.0) -> None:
        """Learn ``(x, y)`` with sample weight ``w`` (river's convention; a finite number
        ``>= 0``: each class column's loss counts ``w`` times, the scaling and the
        calibration see the row once; ``w = 0`` changes nothing)."""
        if type(w) is not float or w != 1.0:
            w = as_weight(w)
            if w == 0.0:
                return
        # a round learns in several calls (the class columns, the calibrator): Ctrl-C
        # waits for its end (holding it costs about 7 us; a round with AutoKernel, 0.4 ms)
        with whole_round():
            self._learn_class(x, y, w)

    def _learn_class(self, x: dict, y, w: float) -> None:
        k = self._index(y)
        v, names = self._vector(x)
        xs = self.scaler  # the statistics after x, once accepted
        if self.learner.input_dim is not None and v.shape[0] > self.learner.input_dim:
            before = self.columns
            try:
                self.learner, xs = self._widened(v, xs)
            except BaseException:
                self.columns = before
                raise
        if xs is not None:
            z, xs = xs.learned_row(v)
            v = z / np.sqrt(max(len(names), 1))
        new = k == len(self.classes)
        calibrator = self.calibrator
        if new:  # (a copy, committed once the learners accepted the row)
            calibrator = copy.copy(calibrator)
            if calibrator.n_classes:
                calibrator.add_class()
        if self._native:
            if new and self.learner.n_outputs is not None:
                self._native_scores(v)  # (a check of v before the learner changes)
                self.learner.add_outputs(1)  # exactly the column known from round 1
                scores = self._native_scores(v)
            elif new:
                self._native_scores(v)
                scores = np.zeros(1)
            else:
                scores = self._scores(v)  # before the label (and a check of v)
            self.learner.learn_one(v, self._one_hot(scores.size, k), w)
            columns = self.columns
        else:
            columns = list(self.columns)
            if new:  # the never-seen column, as it is now
                columns.append(copy.copy(self.learner))
                scores = np.array([c.predict_one(v) for c in columns])  # before the label
            else:
                scores = self._scores(v)
            # The never-seen column first: a refused row (bad values) stops here,
            # unchanged; the columns then take the same row, which they accept likewise.
            self.learner.learn_one(v, self._off, w)
            for j, c in enumerate(columns):
                c.learn_one(v, self._on if j == k else self._off, w)
        self._scored = None  # (the learners moved on)
        # (the calibrator checks the row before it changes: refused, it is as it was)
        calibrator._core._learn_row(scores, k)
        self.columns, self.calibrator, self.scaler = columns, calibrator, xs
        if new:
            self.classes.append(y)
        if names is not self.feature_names:
            self.feature_names = list(names)
        self._keep(v, k, w)

    def _current_scores(self, x: dict):
        return self._scores(self._input(x))

    @serialised
    def predict_one(self, x: dict, **kwargs):
        if not self.classes:
            return None
        return self.classes[int(np.argmax(self._current_scores(x)))]

    @serialised
    def predict_proba_one(self, x: dict, **kwargs) -> dict:
        if not self.classes:
            return {}
        return dict(zip(self.classes, self.calibrator._core._predict_row(self._current_scores(x))))
