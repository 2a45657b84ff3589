"""The values of a model file's header as JSON, and back, with no code run on reading.

A learner is written as its class's registry name and its pickled state
(``__getstate__``: the constructor parameters, the core state's bytes, which go to the
file's blob section, and any Python-side state), recursively: a Mixture's experts and a
Conformal's learner are learners too. Reading builds only what this table names: the
JSON types, tuples, dicts, floats that JSON cannot hold, float64/int64/bool arrays,
kernels by their ``spec`` (``Kernel.from_spec``, the one table of kernels) and learners
of the registry (``learners._registry``), ``Conformal`` and the adapters with their
helper objects (``$object``, ``$wrapped``: :mod:`.objects`), and, at the top, a
``Forecaster`` with its helper objects, aggregation rules and deques (``$deque``: items
and ``maxlen``; :mod:`.forecasts`). Anything else in a file is refused; nothing is ever
imported by a name the file gives.
"""

from __future__ import annotations

import contextlib
import math
from collections import deque

import numpy as np

from .._threads import lock_of
from ..errors import InputError
from . import forecasts, objects

#: Nesting a header may have at most (a Conformal around a Mixture of learners: ~10).
MAX_DEPTH = 48
_ARRAY_DTYPES = ("float64", "int64", "bool")


_classes = objects.learner_classes
is_learner = objects.is_learner


def _is_adapter(obj) -> bool:
    return type(obj).__name__ in objects.adapter_classes()


def _params(obj) -> dict:
    return objects.adapter_params(obj) if _is_adapter(obj) else obj.get_params()


def _wrapped_classes() -> dict:
    """The core objects written as ``$wrapped``: the adapters' calibrator and the
    Forecaster's aggregation rules."""
    return {**objects.wrapped_classes(), **forecasts.rule_classes()}


class Writer:
    """Encodes values; byte strings are appended to ``blobs`` and referred to by index.
    ``readable``: a learner inside is its class and parameters only (the form of a
    node's ``params``, which is compared, never built from)."""

    def __init__(self, readable: bool = False):
        self.blobs: list[bytes] = []
        self.readable = readable
        #: ``{core class: its state format version}`` of every learner written
        self.components: dict = {}

    def value(self, v, depth: int = 0):
        from ..kernels import Kernel

        if depth > MAX_DEPTH:
            raise ValueError("the learner is nested too deeply to save")
        if v is None or isinstance(v, (bool, str)):
            return v
        if isinstance(v, (int, np.integer)) and not isinstance(v, np.bool_):
            return int(v)
        if isinstance(v, (float, np.floating)):
            v = float(v)
            return v if math.isfinite(v) else {"$float": repr(v)}
        if isinstance(v, (bytes, bytearray)) and not self.readable:
            self.blobs.append(bytes(v))
            return {"$blob": len(self.blobs) - 1}
        if isinstance(v, Kernel):
            name, params = v.spec
            return {"$kernel": [name, [self.value(p, depth + 1) for p in params]]}
        if isinstance(v, np.ndarray) and v.dtype.kind in "UO":
            return self.labels(v)
        if isinstance(v, np.ndarray):
            if v.dtype.name not in _ARRAY_DTYPES:
                raise ValueError(f"cannot save an array of dtype {v.dtype}")
            return {"$array": {"dtype": v.dtype.name, "shape": list(v.shape),
                               "data": [self.value(x) for x in v.ravel().tolist()]}}  # fmt: skip
        if is_learner(v) and self.readable:
            return {"$learner": {"class": type(v).__name__,
                                 "params": self.value(_params(v), depth + 1)}}  # fmt: skip
        if is_learner(v):
            return {"$learner": self.learner(v, depth + 1)}
        if objects.plain_name(v) is not None and not self.readable:
            state = {k: self.value(x, depth + 1) for k, x in v.__dict__.items()}
            return {"$object": {"class": type(v).__name__, "state": {"$dict": state}}}
        if forecasts.helper_name(v) is not None and not self.readable:
            state = {k: self.value(x, depth + 1) for k, x in forecasts.helper_state(v).items()}
            return {"$object": {"class": type(v).__name__, "state": {"$dict": state}}}
        if type(v) in _wrapped_classes().values() and not self.readable:
            core = type(v)._core_class
            self.components[core.__name__] = int(core._state_version())
            return {"$wrapped": {"class": type(v).__name__,
                                 "state": self.value(v.__getstate__(), depth + 1)}}  # fmt: skip
        if isinstance(v, deque):
            return {"$deque": {"maxlen": v.maxlen, "items": [self.value(x, depth + 1) for x in v]}}
        if isinstance(v, tuple):
            return {"$tuple": [self.value(x, depth + 1) for x in v]}
        if isinstance(v, list):
            return [self.value(x, depth + 1) for x in v]
        if isinstance(v, dict) and all(isinstance(k, str) for k in v):
            return {"$dict": {k: self.value(x, depth + 1) for k, x in v.items()}}
        raise ValueError(f"cannot save a value of type {type(v).__name__} in a model file")

    def labels(self, v: np.ndarray) -> dict:
        """An array of strings, or of objects that are strings and numbers (class labels,
        column names): ``"str"`` or ``"object"`` arrays of those values."""
        items = v.ravel().tolist()
        if not all(type(x) in (str, int, float, bool) for x in items):
            raise ValueError("cannot save an object array of values other than str and numbers")
        return {"$array": {"dtype": "str" if v.dtype.kind == "U" else "object",
                           "shape": list(v.shape), "data": [self.value(x) for x in items]}}  # fmt: skip

    def learner(self, obj, depth: int = 0) -> dict:
        """``{"class", "params", "state"}``: ``params`` (readable, checked on reading) is
        ``get_params()``; ``state`` is what the object pickles (a Forecaster's:
        :func:`.forecasts.forecaster_state`)."""
        if forecasts.is_forecaster(obj):  # its attributes, of their own version
            self.components["Forecaster"] = forecasts.FORECASTER_STATE_VERSION
            with lock_of(obj):  # a racing learn_one is in the file wholly or not at all
                state = self.value(forecasts.forecaster_state(obj), depth + 1)
                params = Writer(readable=True).value(obj.get_params(), depth + 1)
                return {"class": "Forecaster", "params": params, "state": state}
        core = getattr(type(obj), "_core_class", None)
        if core is not None:
            self.components[core.__name__] = int(core._state_version())
        elif _is_adapter(obj):  # its attributes, of the adapters' own version
            self.components[type(obj).__name__] = objects.ADAPTER_STATE_VERSION
        else:  # Conformal: a Python state of its own version
            from ..learners import conformal

            self.components[type(obj).__name__] = conformal._STATE_VERSION
        # Conformal and the river adapters keep state in Python: read it under the lock
        # their methods hold (kernelstream._threads), so that a save racing a learn_one
        # sees the round wholly or not at all (scikit-learn estimators are not shared).
        locked = core is None and not type(obj).__name__.startswith("Sklearn")
        with lock_of(obj) if locked else contextlib.nullcontext():
            state = objects.adapter_state(obj) if _is_adapter(obj) else obj.__getstate__()
            return {
                "class": type(obj).__name__,
                "params": Writer(readable=True).value(_params(obj), depth + 1),
                "state": self.value(state, depth + 1),
            }


class Reader:
    """Decodes what :class:`Writer` wrote; every departure is an ``InputError``."""

    def __init__(self, blobs: list):
        self.blobs = blobs

    def value(self, v, depth: int = 0):
        if depth > MAX_DEPTH:
            raise InputError("damaged model file: values nested too deeply")
        if v is None or isinstance(v, (bool, str, int, float)):
            return v
        if isinstance(v, list):
            return [self.value(x, depth + 1) for x in v]
        if not isinstance(v, dict) or len(v) != 1:
            raise InputError(f"damaged model file: unknown value {_short(v)}")
        ((tag, body),) = v.items()
        try:
            return getattr(self, "_" + tag.lstrip("$"))(body, depth) if tag in _TAGS else _bad(v)
        except InputError:
            raise
        except (TypeError, ValueError, KeyError, IndexError, OverflowError) as exc:
            raise InputError(f"damaged model file: bad {tag} value ({exc})") from None

    def _float(self, body, depth):
        if body not in ("nan", "inf", "-inf"):
            _bad(body)
        return float(body)

    def _blob(self, body, depth):
        if type(body) is not int or not 0 <= body < len(self.blobs):
            raise InputError(f"damaged model file: no blob {_short(body)}")
        return self.blobs[body]

    def _tuple(self, body, depth):
        if not isinstance(body, list):
            _bad(body)
        return tuple(self.value(x, depth + 1) for x in body)

    def _dict(self, body, depth):
        if not isinstance(body, dict):
            _bad(body)
        return {k: self.value(x, depth + 1) for k, x in body.items()}

    def _kernel(self, body, depth):
        from ..errors import KernelstreamError
        from ..kernels import Kernel

        name, params = body
        if not isinstance(name, str) or not isinstance(params, list):
            _bad(body)
        try:
            return Kernel.from_spec(name, [self.value(p, depth + 1) for p in params])
        except (KernelstreamError, TypeError) as exc:
            raise InputError(f"damaged model file: kernel {name!r}: {exc}") from None

    def _array(self, body, depth):
        dtype, shape, data = body["dtype"], body["shape"], body["data"]
        kinds = (*_ARRAY_DTYPES, "str", "object")
        if dtype not in kinds or not isinstance(shape, list) or not isinstance(data, list):
            _bad(body)
        if not all(type(n) is int and n >= 0 for n in shape) or math.prod(shape) != len(data):
            raise InputError(
                f"damaged model file: an array of shape {shape} holds {len(data)} values"
            )
        values = [self.value(x) for x in data]
        if dtype in ("str", "object"):
            return _label_array(dtype, shape, values)
        if not all(
            type(x) is {"float64": float, "int64": int, "bool": bool}[dtype] for x in values
        ):
            raise InputError(f"damaged model file: an array of {dtype} holds other values")
        return np.array(values, dtype=dtype).reshape(shape)

    def _deque(self, body, depth):
        maxlen, items = body["maxlen"], body["items"]
        if (
            set(body) != {"maxlen", "items"}
            or not isinstance(items, list)
            or not (maxlen is None or (type(maxlen) is int and maxlen >= 0))
        ):
            _bad(body)
        if maxlen is not None and len(items) > maxlen:
            raise InputError(
                f"damaged model file: a deque of {len(items)} items, longer than its maxlen {maxlen}"
            )
        return deque([self.value(x, depth + 1) for x in items], maxlen)

    def _object(self, body, depth):
        state = self.value(body["state"], depth + 1)
        if forecasts.is_helper_class(body["class"]):
            return forecasts.build_helper(body["class"], state)
        return objects.build_plain(body["class"], state)

    def _wrapped(self, body, depth):
        from .._wrapped import _load

        cls = _wrapped_classes().get(body["class"])
        if cls is None:
            raise InputError(f"damaged model file: no object class {_short(body['class'])}")
        state = self.value(body["state"], depth + 1)
        if not isinstance(state, dict):
            _bad(body)
        return _load(cls, state)

    def _learner(self, body, depth):
        return self.learner(body, depth + 1)

    def top(self, node):
        """The object of the file's top node: a learner, or a Forecaster (only there)."""
        if isinstance(node, dict) and node.get("class") == "Forecaster":
            return self.forecaster(node)
        return self.learner(node)

    def forecaster(self, node, depth: int = 0):
        """The Forecaster of a node: its attributes decoded (every object in them of the
        allow-list, each checked), then checked as a whole (:mod:`.forecasts`), then its
        parameters compared with the readable ones."""
        if set(node) != {"class", "params", "state"}:
            raise InputError(f"damaged model file: not a Forecaster {_short(node)}")
        state = self.value(node["state"], depth + 1)
        try:
            obj = forecasts.build_forecaster(state, Writer(readable=True).value)
        except InputError:
            raise
        except (TypeError, ValueError, KeyError, IndexError, AttributeError) as exc:
            raise InputError(f"damaged model file: a Forecaster's attributes ({exc})") from None
        _same_params("Forecaster", Writer(readable=True).value(obj.get_params()), node["params"])
        return obj

    def learner(self, node, depth: int = 0):
        """The learner of a node: its class from the allow-list, built from its state
        (the path of unpickling, with the state's checks), then its parameters compared
        with the readable ones."""
        from .._wrapped import CoreWrapper, _load

        if not isinstance(node, dict) or set(node) != {"class", "params", "state"}:
            raise InputError(f"damaged model file: not a learner {_short(node)}")
        name = node["class"]
        classes = _classes()
        if not isinstance(name, str) or name not in classes:
            raise InputError(
                f"model file names the class {_short(name)}, which is not a kernelstream "
                f"learner (the learners: {', '.join(sorted(classes))})"
            )
        cls = classes[name]
        state = self.value(node["state"], depth + 1)
        if not isinstance(state, dict):
            raise InputError(f"damaged model file: the state of a {name} is not a dict")
        if issubclass(cls, CoreWrapper):
            obj = _load(cls, state)
        elif name in objects.adapter_classes():
            obj = objects.build_adapter(cls, state)
        else:
            obj = cls.__new__(cls)
            obj.__setstate__(state)
        _same_params(name, Writer(readable=True).value(_params(obj)), node["params"])
        return obj


def _label_array(dtype: str, shape: list, values: list) -> np.ndarray:
    """The array of :meth:`Writer.labels`."""
    allowed = (str,) if dtype == "str" else (str, int, float, bool)
    if not all(type(x) in allowed for x in values):
        raise InputError(f"damaged model file: an array of {dtype} holds other values")
    if dtype == "str":
        return np.array(values, dtype=str).reshape(shape)
    out = np.empty(len(values), dtype=object)
    out[:] = values
    return out.reshape(shape)


def _same_params(name: str, built: dict, stored) -> None:
    """The readable parameters equal those of the learner built from the state, but for
    parameters the file lacks (added after it was written: they took their defaults),
    of the learner and of the learners it holds (a Conformal's AutoKernel)."""
    if not _covers_params(built, stored):
        raise InputError(f"damaged model file: the parameters of the {name} differ from its state")


def _covers_params(built, stored) -> bool:
    """``built`` (a readable ``$dict`` of parameters) has every parameter of ``stored``,
    each with the same value (:func:`_same_value`)."""
    got = built.get("$dict") if isinstance(built, dict) else None
    want = stored.get("$dict") if isinstance(stored, dict) else None
    if not isinstance(got, dict) or not isinstance(want, dict):
        return False
    return all(k in got and _same_value(got[k], v) for k, v in want.items())


def _same_value(got, want) -> bool:
    """Equal readable values, but for a learner held as a parameter (``$learner``, also
    inside a tuple or list), whose parameters follow :func:`_covers_params`."""
    if isinstance(got, dict) and isinstance(want, dict) and set(got) == set(want) == {"$learner"}:
        g, w = got["$learner"], want["$learner"]
        if not isinstance(g, dict) or not isinstance(w, dict) or set(g) != set(w):
            return False
        rest = all(g[k] == w[k] for k in g if k != "params")
        return rest and _covers_params(g.get("params"), w.get("params"))
    for tag in ("$tuple", "$list"):
        if isinstance(got, dict) and isinstance(want, dict) and set(got) == set(want) == {tag}:
            g, w = got[tag], want[tag]
            if isinstance(g, list) and isinstance(w, list) and len(g) == len(w):
                return all(_same_value(a, b) for a, b in zip(g, w))
    return bool(got == want)


_TAGS = (
    "$float",
    "$blob",
    "$tuple",
    "$dict",
    "$kernel",
    "$array",
    "$learner",
    "$object",
    "$wrapped",
    "$deque",
)


def _bad(v):
    raise InputError(f"damaged model file: unknown value {_short(v)}")


def _short(v) -> str:
    text = repr(v)
    return text if len(text) <= 80 else text[:77] + "..."
