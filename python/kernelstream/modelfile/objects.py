"""The adapters in model files: the classes and checks behind the ``$object`` and
``$wrapped`` values of :mod:`.values`, and the adapters as learner nodes.

An adapter (``SklearnRegressor``, ``SklearnClassifier``, ``RiverRegressor``,
``RiverClassifier``) is written as a learner node: its class, its constructor
parameters (readable, compared on reading) and its attributes (the wrapped learners'
states, the scalers' moments, the classes, the feature keys). Its helper objects are
``$object`` values (their attributes, checked field by field on reading) of the
classes named in ``_FIELDS``, and the calibrator a ``$wrapped`` value (a core object:
its pickled state, read by the path of unpickling). Reading builds only these classes;
an attribute of another name or type is an ``InputError``.
"""

from __future__ import annotations

import numpy as np

from ..errors import InputError

#: Format version of an adapter's attributes in a model file (bump it when they change).
ADAPTER_STATE_VERSION = 1


def learner_classes() -> dict:
    """The classes a model file may name as learners: the registry's, Conformal and the
    adapters."""
    from ..learners import Conformal
    from ..learners import _registry as registry

    faces = {n: registry.face(n) for n in registry.names()}
    return {**faces, "Conformal": Conformal, **adapter_classes()}


def is_learner(obj) -> bool:
    classes = learner_classes()
    return type(obj).__name__ in classes and type(obj) is classes[type(obj).__name__]


def _bad(what: str):
    raise InputError(f"damaged model file: {what}")


def _array(v, name: str, ndim: int) -> np.ndarray:
    if not (isinstance(v, np.ndarray) and v.dtype == np.float64 and v.ndim == ndim):
        _bad(f"{name} is not a {ndim}-D float64 array")
    if not np.all(np.isfinite(v)):
        _bad(f"{name} holds values that are not finite")
    return v


def _count(v, name: str) -> int:
    if type(v) is not int or v < 0:
        _bad(f"{name} is not a count")
    return v


def _flag(v, name: str) -> bool:
    if type(v) is not bool:
        _bad(f"{name} is not True or False")
    return v


def _check_standardizer(st: dict) -> None:
    _flag(st["per_dimension"], "a scaler's per_dimension")
    _flag(st["keep_unit"], "a scaler's keep_unit")
    n = _count(st["n"], "a scaler's count")
    mean, m2 = st["mean"], st["m2"]
    if n == 0 and mean is None and m2 is None:
        return
    mean, m2 = _array(mean, "a scaler's mean", 1), _array(m2, "a scaler's m2", 1)
    if n == 0 or mean.shape != m2.shape or np.any(m2 < 0):
        _bad("a scaler's moments are inconsistent (m2 < 0, or sizes that differ)")


def _check_history(st: dict) -> None:
    n = _count(st["n"], "the kept rows' count")
    rows, targets = _array(st["rows"], "the kept rows", 2), _array(st["targets"], "targets", 2)
    if rows.shape[0] != targets.shape[0] or n > rows.shape[0]:
        _bad("the kept rows and their targets disagree in length")


def _check_columns(st: dict) -> None:
    n = _count(st["n"], "the number of class columns")
    native = _flag(st["native"], "the columns' native flag")
    for k in ("on", "off"):
        if type(st[k]) is not float:
            _bad(f"the columns' target {k!r} is not a float")
    learners = st["learners"]
    if not isinstance(learners, list) or len(learners) != (1 if native else n):
        _bad("the class columns do not match their count")
    if not all(is_learner(lr) for lr in learners) or not (
        st["spare"] is None or is_learner(st["spare"])
    ):
        _bad("a class column is not a learner")


#: The attributes of each helper class (what its ``__init__`` sets).
_FIELDS = {
    "OnlineStandardizer": ("per_dimension", "keep_unit", "n", "mean", "m2"),
    "History": ("n", "rows", "targets"),
    "Columns": ("on", "off", "n", "native", "learners", "spare"),
}


def _plain() -> dict:
    from ..adapters._columns import Columns
    from ..adapters._growth import History
    from ..adapters._scaling import OnlineStandardizer

    return {
        "OnlineStandardizer": (OnlineStandardizer, _check_standardizer),
        "History": (History, _check_history),
        "Columns": (Columns, _check_columns),
    }


def plain_name(v) -> str | None:
    """The helper-class name of ``v``'s class, or ``None``."""
    name = type(v).__name__
    if name not in _FIELDS:
        return None
    return name if type(v) is _plain()[name][0] else None


def build_plain(name, state) -> object:
    """The helper object of class ``name`` with the attributes ``state`` (checked)."""
    table = {n: (cls, _FIELDS[n], check) for n, (cls, check) in _plain().items()}
    return build_checked(table, name, state)


def build_checked(table: dict, name, state) -> object:
    """The object of class ``name`` of ``table`` (``{name: (class, fields, check)}``)
    with the attributes ``state``: exactly its fields, in their order, then checked."""
    if not isinstance(name, str) or name not in table or not isinstance(state, dict):
        _bad(f"an object of unknown class {name!r}")
    cls, fields, check = table[name]
    if set(state) != set(fields):
        _bad(f"a {name} with the fields {sorted(state)}, expected {sorted(fields)}")
    state = {k: state[k] for k in fields}
    check(state)
    obj = cls.__new__(cls)
    obj.__dict__.update(state)
    return obj


def wrapped_classes() -> dict:
    """Core objects that are not learners but held by adapters: the calibrator."""
    from ..calibration import SoftmaxCalibrator

    return {"SoftmaxCalibrator": SoftmaxCalibrator}


def adapter_classes() -> dict:
    """The adapters a model file may hold (those whose optional dependency is installed:
    scikit-learn's need it; the river adapters stand alone)."""
    out: dict = {}
    try:
        from ..adapters import river

        out.update(RiverRegressor=river.RiverRegressor, RiverClassifier=river.RiverClassifier)
    except ImportError:  # pragma: no cover (river.py needs no optional package)
        pass
    try:
        from ..adapters import sklearn

        out.update(
            SklearnRegressor=sklearn.SklearnRegressor, SklearnClassifier=sklearn.SklearnClassifier
        )
    except ImportError:
        pass
    return out


def adapter_params(obj) -> dict:
    """The constructor parameters of an adapter (scikit-learn's shallow ``get_params``)."""
    names = ["learner", "scale"]
    if "max_features" in type(obj).__init__.__code__.co_varnames:
        names.append("max_features")
    return {k: getattr(obj, k) for k in names}


def adapter_state(obj) -> dict:
    """The attributes an adapter is saved with (without its lock and caches; a
    SklearnClassifier's ``learner_``, which is a view of its columns, is rebuilt)."""
    from .._threads import LOCK_ATTR

    skip = {LOCK_ATTR, *getattr(obj, "_derived", ())}
    if type(obj).__name__ == "SklearnClassifier":
        skip.add("learner_")
    return {k: v for k, v in obj.__dict__.items() if k not in skip}


#: An adapter's attributes: ``(always, set together once fitted, optional)``.
_RIVER = {"learner", "scale", "max_features", "feature_names", "scaler", "target_scaler"}
_KEYS = {
    "SklearnRegressor": (
        {"learner", "scale"},
        {"learner_", "n_features_in_", "scaler_", "target_scaler_"},
        {"feature_names_in_"},
    ),
    "SklearnClassifier": (
        {"learner", "scale"},
        {"calibrator_", "classes_", "columns_", "n_features_in_", "scaler_"},
        {"feature_names_in_"},
    ),
    "RiverRegressor": (_RIVER, set(), {"_history", "_rows_dropped", "target_names"}),
    "RiverClassifier": (
        _RIVER | {"_native", "_off", "_on", "calibrator", "classes", "columns"},
        set(),
        {"_history", "_rows_dropped", "target_names"},
    ),
}


def build_adapter(cls, state: dict):
    """The adapter ``cls`` with the attributes ``state``, each checked by name and type
    and against the others (sizes, classes, columns)."""
    name = cls.__name__
    always, fitted, optional = _KEYS[name]
    keys = set(state)
    if (
        not always <= keys
        or not keys <= always | fitted | optional
        or (keys & fitted and not fitted <= keys)
    ):
        _bad(f"a {name} with the attributes {sorted(keys)}")
    if not is_learner(state["learner"]):
        _bad(f"the {name}'s learner is not a kernelstream learner")
    kinds = {
        "learner_": is_learner,
        "columns_": lambda v: plain_name(v) == "Columns",
        "calibrator_": lambda v: type(v) in wrapped_classes().values(),
        "calibrator": lambda v: type(v) in wrapped_classes().values(),
        "n_features_in_": lambda v: type(v) is int and v >= 1,
        "classes_": lambda v: isinstance(v, np.ndarray) and v.ndim == 1 and v.size >= 2,
        "feature_names_in_": lambda v: isinstance(v, np.ndarray) and v.ndim == 1,
        "_history": lambda v: v is None or plain_name(v) == "History",
        "_rows_dropped": lambda v: type(v) is bool,
        "_native": lambda v: type(v) is bool,
        "_on": lambda v: type(v) is float,
        "_off": lambda v: type(v) is float,
        "target_names": lambda v: v is None or isinstance(v, list),
        "feature_names": lambda v: v is None or isinstance(v, list),
        "classes": lambda v: isinstance(v, list),
        "columns": lambda v: isinstance(v, list) and all(is_learner(c) for c in v),
        "max_features": lambda v: v is None or (type(v) is int and v >= 1),
    }
    for key, ok in kinds.items():
        if key in state and not ok(state[key]):
            _bad(f"the {name}'s {key} is of the wrong kind ({type(state[key]).__name__})")
    for key in ("scaler", "target_scaler", "scaler_", "target_scaler_"):
        v = state.get(key)
        if v is not None and plain_name(v) != "OnlineStandardizer":
            _bad(f"the {name}'s {key} is not a scaler")
    obj = cls.__new__(cls)
    obj.__dict__.update(state)
    if name == "SklearnClassifier" and "columns_" in state:
        cols, k = state["columns_"], state["classes_"].size
        if cols.n != (1 if k == 2 else k):
            _bad(f"the SklearnClassifier has {cols.n} class columns for {k} classes")
        obj.learner_ = cols.learners[0] if k == 2 or cols.native else cols
    width = state.get("n_features_in_")
    names = state.get("feature_names_in_")
    if width is not None and names is not None and names.size != width:
        _bad(f"the {name} has {names.size} feature names for {width} inputs")
    if width is not None and not _fitted_widths(obj) <= {width}:
        _bad(f"the {name} expects {width} inputs, its scaler or learner another number")
    if name == "RiverClassifier":
        _check_river_classes(obj)
    return obj


def _fitted_widths(obj) -> set:
    """The input widths of a fitted scikit-learn adapter's parts that have one: the
    scaler's moments and the learners' input width."""
    seen = set()
    scaler = getattr(obj, "scaler_", None)
    if scaler is not None and scaler.mean is not None:
        seen.add(scaler.mean.size)
    cols = getattr(obj, "columns_", None)
    learners = cols.learners if cols is not None else [obj.learner_]
    seen.update(lr.input_dim for lr in learners if getattr(lr, "input_dim", None))
    return seen


def _is_helper(v) -> bool:
    return plain_name(v) is not None or type(v) in wrapped_classes().values()


def _check_river_classes(obj) -> None:
    if not isinstance(obj.classes, list) or not isinstance(obj.columns, list):
        _bad("the RiverClassifier's classes or columns are not lists")
    if not obj._native and len(obj.columns) != len(obj.classes):
        _bad("the RiverClassifier has another number of columns than of classes")
    if not all(is_learner(c) for c in obj.columns):
        _bad("a RiverClassifier column is not a learner")
    if type(obj.calibrator) not in wrapped_classes().values():
        _bad("the RiverClassifier's calibrator is not a SoftmaxCalibrator")
