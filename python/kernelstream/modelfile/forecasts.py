"""The Forecaster in model files: its attributes as a node's state, the classes and
checks behind its helper objects, and the checks of the whole on reading.

A :class:`~kernelstream.Forecaster` is written as a node like a learner's: its class,
its constructor parameters (readable, compared on reading) and its attributes (without
its lock), of the version :data:`FORECASTER_STATE_VERSION` (the header's component
``"Forecaster"``). Its learners are learner nodes, its aggregation rules (the rules of
``learners.mixture.RULES``) ``$wrapped`` values (their pickled state, read by the path
of unpickling), and its helpers (``Leader``, ``Guarded``, ``Pooled``,
``HorizonConformal``, ``_Buffer``) ``$object`` values of the classes named in
``_FIELDS``, each checked field by field on reading. Three attributes are written in
another form than they are held:

- a ``_Buffer``'s rows (the series, the exogenous rows) as the bytes of its float64
  array, little-endian (a blob: a long series would not fit a readable header);
- ``Pooled._cols`` (its columns by a tuple of keys) as a list of ``[keys, columns]``;
- each pending forecast (``_pending[k][origin]``, a tuple) as a dict of named fields,
  where the rule it was made with (``_agg0[0]``, ``_agg[k]``: the same object, which
  ``Forecaster._settle`` updates) and its columns (a ``Pooled._cols`` array) are references
  (``"_agg[2]"``, ``"_pool._cols[1]"``), rebuilt as the same objects on reading.

Reading checks each helper, then the forecaster as a whole (:mod:`.forecast_checks`:
sizes per horizon and per expert, the buffers against ``n_seen``, the build against the
warm-up, the pending origins, the keys of the pooled leader); any departure is an ``InputError`` and nothing
is returned. The strings the code makes (expert kinds and keys) are made again by that
code, so that a loaded forecaster pickles as the one that was saved; numbers come back
as Python floats (a NumPy float that ``progressive_forecast`` left in a score list is
the same number, and the rounds after it are the same bit for bit).
"""

from __future__ import annotations

import math
from collections import deque

import numpy as np

from ..errors import InputError, KernelstreamError
from .forecast_checks import _ENTRY, Whole, _float, _floats, _same
from .objects import _bad, _count, _flag, build_checked, is_learner

#: Format version of a Forecaster's attributes in a model file (bump it when they change).
FORECASTER_STATE_VERSION = 1

#: The Forecaster's attributes, in the order its ``__init__`` sets them.
_STATE = (
    "_params",
    "_y",
    "_x",
    "_dx",
    "_built",
    "season_",
    "lags_",
    "_kinds",
    "_experts",
    "_agg",
    "_agg0",
    "_pool",
    "_level",
    "_scale",
    "_conf",
    "_pending",
)
_PARAMS = ("learner", "horizon", "lags", "season", "alpha")
#: The attributes of each helper class (what its ``__init__`` sets, in its order).
_FIELDS = {
    "Leader": ("margin", "loss", "best"),
    "Guarded": ("rule", "n_learners", "lead", "pick"),
    # fmt: off
    "Pooled": (
        "margin",
        "H",
        "keys",
        "late",
        "full",
        "n_full",
        "common",
        "n_common",
        "best",
        "built",
        "_cols",
    ),
    "HorizonConformal": (
        "alpha",
        "gamma",
        "window",
        "alpha_t",
        "scores",
        "sorted",
        "errors",
        "sorted_errors",
        "n_nan",
        "n_covered",
        "n_scored",
    ),
    # fmt: on
    "_Buffer": ("width", "data", "n"),
}


def _classes() -> dict:
    from ..forecast.forecaster import _Buffer
    from ..forecast.intervals import HorizonConformal
    from ..forecast.leader import Guarded, Leader, Pooled

    return {
        "Leader": Leader,
        "Guarded": Guarded,
        "Pooled": Pooled,
        "HorizonConformal": HorizonConformal,
        "_Buffer": _Buffer,
    }


def is_forecaster(obj) -> bool:
    if type(obj).__name__ != "Forecaster":
        return False
    from ..forecast.forecaster import Forecaster

    return type(obj) is Forecaster


def is_helper_class(name) -> bool:
    """Whether ``name`` (a file's ``$object`` class) names a Forecaster's helper."""
    return isinstance(name, str) and name in _FIELDS


def rule_classes() -> dict:
    """The aggregation rules a Forecaster may hold (``$wrapped`` values)."""
    from ..learners.mixture import RULES

    return {cls.__name__: cls for cls in RULES.values()}


def _is_rule(v) -> bool:
    return type(v) in rule_classes().values()


# -- writing -------------------------------------------------------------------------
def helper_name(v) -> str | None:
    """The helper-class name of ``v``'s class, or ``None``."""
    name = type(v).__name__
    if name not in _FIELDS:
        return None
    return name if type(v) is _classes()[name] else None


def helper_state(v) -> dict:
    """The attributes ``v`` is written with (in the form of the module docstring)."""
    name = type(v).__name__
    if set(v.__dict__) != set(_FIELDS[name]):
        raise ValueError(f"cannot save a {name} with the attributes {sorted(v.__dict__)}")
    state = {k: v.__dict__[k] for k in _FIELDS[name]}
    if name == "Pooled":
        state["_cols"] = [[keys, cols] for keys, cols in v._cols.items()]
    elif name == "_Buffer":
        state["data"] = np.ascontiguousarray(v.data, "<f8").tobytes()
    return state


def forecaster_state(fc) -> dict:
    """The attributes of the Forecaster ``fc`` (read under its lock), its pending
    forecasts with references for the objects they share."""
    from .._threads import LOCK_ATTR

    attrs = {k: v for k, v in fc.__dict__.items() if k != LOCK_ATTR}
    if set(attrs) != set(_STATE):
        raise ValueError(f"cannot save a Forecaster with the attributes {sorted(attrs)}")
    lr = fc._params["learner"]
    if lr is not None and not is_learner(lr):
        raise TypeError(
            "kernelstream.save saves a Forecaster whose learner is None or a kernelstream "
            f"learner, not {type(lr).__name__}"
        )
    state = {k: attrs[k] for k in _STATE}
    cols = list(fc._pool._cols.values())
    state["_pending"] = [
        [_entry_out(fc, k, o, entry, cols) for o, entry in pending.items()]
        for k, pending in enumerate(fc._pending)
    ]
    return state


def _entry_out(fc, k: int, o: int, entry: tuple, cols: list) -> dict:
    f, lo, hi, z, c, sc, agg, (guard, col, levels), d = entry
    if agg is None:
        rule = None
    elif fc._agg0 and agg is fc._agg0[0]:
        rule = "_agg0[0]"
    elif k < len(fc._agg) and agg is fc._agg[k]:
        rule = f"_agg[{k}]"
    else:
        raise ValueError(f"cannot save a pending forecast of horizon {k + 1} made with a rule "
                         "the forecaster does not hold")  # fmt: skip
    at = [i for i, c_ in enumerate(cols) if c_ is col]
    if not at:
        raise ValueError(f"cannot save a pending forecast of horizon {k + 1} whose columns "
                         "the pooled leader does not hold")  # fmt: skip
    values = (o, f, lo, hi, z, c, sc, rule, guard, f"_pool._cols[{at[0]}]", levels, d)
    return dict(zip(_ENTRY, values))


# -- reading: the helpers ------------------------------------------------------------
def build_helper(name, state) -> object:
    """The helper object of class ``name`` with the attributes ``state`` (checked)."""
    table = {n: (cls, _FIELDS[n], _CHECKS[n]) for n, cls in _classes().items()}
    return build_checked(table, name, state)


def _check_leader(st: dict) -> None:
    _float(st["margin"], "a leader's margin", 0.0)
    if not isinstance(st["loss"], np.ndarray) or st["loss"].ndim != 1 or st["loss"].size == 0:
        _bad("a leader's losses are not a float64 array of one per expert")
    _floats(st["loss"], "a leader's losses", st["loss"].shape, lo=0.0)
    if type(st["best"]) is not int or not 0 <= st["best"] < st["loss"].size:
        _bad(f"a leader's incumbent {st['best']!r} is not one of its {st['loss'].size} experts")


def _check_guarded(st: dict) -> None:
    from ..forecast.leader import Leader

    if not _is_rule(st["rule"]):
        _bad("a guarded combination's rule is not an aggregation rule")
    n = _count(st["n_learners"], "a guarded combination's number of learners")
    if type(st["lead"]) is not Leader or type(st["pick"]) is not Leader:
        _bad("a guarded combination's leaders are not Leader objects")
    if st["pick"].loss.size != 2:
        _bad("a guarded combination picks between other than two forecasts")
    if int(st["rule"].n_experts) != n + st["lead"].loss.size:
        _bad(f"a guarded combination's rule has {int(st['rule'].n_experts)} experts, not "
             f"{n} learners and {st['lead'].loss.size} simple experts")  # fmt: skip


def _check_pooled(st: dict) -> None:
    _float(st["margin"], "the pooled leader's margin", 0.0)
    H = _count(st["H"], "the pooled leader's horizon")
    keys = st["keys"]
    if not isinstance(keys, list) or not keys or not all(type(k) is str for k in keys) \
            or len(set(keys)) != len(keys):  # fmt: skip
        _bad("the pooled leader's keys are not distinct names")
    J = len(keys)
    late = st["late"]
    if not (isinstance(late, np.ndarray) and late.dtype == np.bool_ and late.shape == (J,)):
        _bad(f"the pooled leader's late flags are not {J} booleans")
    for name in ("full", "common"):
        _floats(st[name], f"the pooled leader's {name} losses", (2, H, J), lo=0.0)
    for name in ("n_full", "n_common"):
        n = _floats(st[name], f"the pooled leader's {name}", (H,), finite=True, lo=0.0)
        if np.any(n != np.floor(n)):
            _bad(f"the pooled leader's {name} are not counts")
    best = st["best"]
    if not isinstance(best, list) or len(best) != H or \
            not all(type(b) is int and 0 <= b < J for b in best):  # fmt: skip
        _bad(f"the pooled leader's incumbents are not {H} of its {J} candidates")
    _flag(st["built"], "the pooled leader's built flag")
    pairs = st["_cols"]
    if not isinstance(pairs, list):
        _bad("the pooled leader's columns are not a list")
    cols: dict = {}
    for pair in pairs:
        if not (isinstance(pair, list) and len(pair) == 2 and isinstance(pair[0], tuple)):
            _bad("the pooled leader's columns are not pairs of keys and columns")
        tk, arr = pair
        if not all(type(k) is str and k in keys for k in tk) or tk in cols:
            _bad(f"the pooled leader's columns name keys it does not have: {tk!r}")
        want = np.array([keys.index(k) for k in tk])
        if not (isinstance(arr, np.ndarray) and arr.dtype == want.dtype
                and np.array_equal(arr, want)):  # fmt: skip
            _bad(f"the pooled leader's columns of {tk!r} are not those of its keys")
        cols[tk] = arr
    st["_cols"] = cols


def _is_float_list(v) -> bool:
    return all(type(x) is float and not x < 0 for x in v)  # NaN passes: scored as NaN


def _check_conformal(st: dict) -> None:
    a = st["alpha"]
    if type(a) is not float or not 0 < a < 1:
        _bad("a horizon's interval level alpha is not in (0, 1)")
    _float(st["gamma"], "a horizon's ACI step", 0.0)
    window = _count(st["window"], "a horizon's window")
    _float(st["alpha_t"], "a horizon's alpha_t")
    scores, srt, errors, srt_e = st["scores"], st["sorted"], st["errors"], st["sorted_errors"]
    if type(scores) is not deque or scores.maxlen is not None or not isinstance(srt, list):
        _bad("a horizon's scores are not a deque and a sorted list")
    if type(errors) is not deque or errors.maxlen is None or errors.maxlen < 1 \
            or not isinstance(srt_e, list):  # fmt: skip
        _bad("a horizon's errors are not a bounded deque and a sorted list")
    if not all(_is_float_list(v) for v in (scores, srt, errors, srt_e)):
        _bad("a horizon's scores or errors are not numbers >= 0")
    if window < 1 or len(scores) > window or len(srt) != len(scores):
        _bad(f"a horizon has {len(scores)} scores and {len(srt)} sorted, for a window of {window}")
    # a NaN score (a NaN forecast's) leaves the sorted list's order undefined: only
    # scores that are numbers are compared with it
    if not any(math.isnan(x) for x in (*scores, *srt)) and srt != sorted(scores):
        _bad("a horizon's sorted scores are not its scores in order")
    n_nan = _count(st["n_nan"], "a horizon's count of NaN errors")
    if n_nan != sum(math.isnan(x) for x in errors) or \
            srt_e != sorted(x for x in errors if not math.isnan(x)):  # fmt: skip
        _bad("a horizon's sorted errors are not its errors in order")
    covered = _count(st["n_covered"], "a horizon's count of covered labels")
    scored = _count(st["n_scored"], "a horizon's count of labels")
    if covered > scored or len(errors) != min(scored, errors.maxlen) or len(scores) > scored:
        _bad(f"a horizon's counts ({covered} covered of {scored}) disagree with its "
             f"{len(errors)} errors and {len(scores)} scores")  # fmt: skip


def _check_buffer(st: dict) -> None:
    width, data = st["width"], st["data"]
    if width is not None and (type(width) is not int or width < 1):
        _bad(f"a buffer's width {width!r} is not None or a count >= 1")
    w = 1 if width is None else width
    if not isinstance(data, bytes) or len(data) % (8 * w) or not data:
        _bad(f"a buffer's data are not rows of {w} float64 values")
    rows = len(data) // (8 * w)
    n = _count(st["n"], "a buffer's count")
    if n > rows:
        _bad(f"a buffer holds {n} rows in an array of {rows}")
    arr = np.array(np.frombuffer(data, "<f8"), dtype=np.float64)
    arr = arr.reshape((rows,) if width is None else (rows, width))
    if not np.all(np.isfinite(arr[:n])):
        _bad("a buffer's rows hold values that are not finite")
    st["data"] = arr


_CHECKS = {
    "Leader": _check_leader,
    "Guarded": _check_guarded,
    "Pooled": _check_pooled,
    "HorizonConformal": _check_conformal,
    "_Buffer": _check_buffer,
}


# -- reading: the whole --------------------------------------------------------------
def build_forecaster(state, readable):
    """The Forecaster with the attributes ``state`` (decoded by :class:`.values.Reader`),
    checked as a whole; an ``InputError`` for any departure. ``readable``: a value's
    readable form (``values.Writer(readable=True).value``: the experts' parameters are
    compared in it)."""
    from ..forecast.forecaster import Forecaster

    if not isinstance(state, dict) or set(state) != set(_STATE):
        got = sorted(state) if isinstance(state, dict) else type(state).__name__
        _bad(f"a Forecaster with the attributes {got}, expected {sorted(_STATE)}")
    fc = Forecaster.__new__(Forecaster)  # filled in here; returned only once whole
    fc._params = _params(state["_params"])
    out = {"_params": fc._params}
    Whole(fc, state, out, readable).run()
    fc.__dict__.clear()
    fc.__dict__.update({k: out[k] for k in _STATE})
    return fc


def _params(p) -> dict:
    from ..forecast.forecaster import Forecaster

    if not isinstance(p, dict) or set(p) != set(_PARAMS):
        _bad(f"the Forecaster's parameters are not {sorted(_PARAMS)}")
    if p["learner"] is not None and not is_learner(p["learner"]):
        _bad("the Forecaster's learner is not a kernelstream learner")
    lags = "auto" if _same(p["lags"], "auto") else p["lags"]  # the code's string (pickles alike)
    params = dict(learner=p["learner"], horizon=p["horizon"], lags=lags, season=p["season"],
                  alpha=p["alpha"])  # fmt: skip
    kinds = {"horizon": (int,), "lags": (int, str), "season": (int, type(None)), "alpha": (float,)}
    if any(type(params[k]) not in t for k, t in kinds.items()):
        _bad("the Forecaster's parameters are of the wrong types")
    probe = Forecaster.__new__(Forecaster)
    probe._params = params
    try:
        probe._check_params()
    except KernelstreamError as exc:
        _bad(f"the Forecaster's parameters: {exc}")
    return params


def check_components(node, comps: dict) -> None:
    """A Forecaster's node needs its component version in the header (any learner's
    are checked by the header's ``components``)."""
    if isinstance(node, dict) and node.get("class") == "Forecaster" and "Forecaster" not in comps:
        raise InputError("damaged model file: no component version of its Forecaster")
