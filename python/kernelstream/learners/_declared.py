"""A learner face's constructor and core keywords, derived from the core's declaration.

The core declares each learner's parameters once (``crate::params!``: name, default,
kind, domain), and ``_core.registry()`` reports them. A face that writes no
``__init__`` of its own gets one with that signature (:func:`constructor`), and its
``_core_kwargs`` converts each value by its kind (:func:`core_kwargs`) for the core,
which checks the domains. A face then holds only what is its own: the docstring, and
the properties and methods with real logic (river's ``_get_params`` habit).
"""

from __future__ import annotations

import inspect
from functools import cache

from .. import _core
from .._validation import flag, real, text, whole
from ..errors import ParameterError


@cache
def specs(core_name: str) -> tuple:
    """The declared parameters (``name``, ``default``, ``kind``, ``domain``,
    ``required``) of the registered learner whose core class is ``core_name``, in
    declaration order; empty for a class the core does not register."""
    for e in _core.registry():
        if e["core_class"] == core_name:
            return tuple(e["params"])
    return ()


def numbers(name: str, values) -> list:
    """A sequence of numbers as a list of floats (the core checks their values)."""
    if isinstance(values, (str, bytes)) or not hasattr(values, "__iter__"):
        raise ParameterError(f"{name} must be a sequence of numbers, got {values!r}")
    return [real(f"every entry of {name}", v) for v in values]


def _convert(spec: dict, value):
    """``value`` in the core's form by the parameter's kind; None stays None where the
    declared default is None (the core resolves it)."""
    name, kind, default = spec["name"], spec["kind"], spec["default"]
    if value is None and default is None:
        return None
    if kind == "float":
        return real(name, value)
    if kind == "int":
        return whole(name, value)
    if kind == "bool":
        return flag(name, value)
    if kind == "str":
        return text(name, value)
    if kind == "seq" and isinstance(default, tuple):  # a sequence of numbers
        return numbers(name, value)
    return value


def core_kwargs(core_name: str, params: dict) -> dict:
    """The core's keyword arguments for the declared parameters ``params``."""
    return {s["name"]: _convert(s, params[s["name"]]) for s in specs(core_name)}


def signature(core_name: str) -> inspect.Signature:
    """The constructor's signature: ``self``, then each declared parameter with its
    declared default (a required one has none)."""
    kind = inspect.Parameter.POSITIONAL_OR_KEYWORD
    params = [inspect.Parameter("self", kind)]
    for s in specs(core_name):
        default = inspect.Parameter.empty if s["required"] else s["default"]
        params.append(inspect.Parameter(s["name"], kind, default=default))
    return inspect.Signature(params)


def constructor(cls):
    """``cls.__init__`` taking the declared parameters of ``cls._core_class``
    (positionally or by name, as a written signature would) and handing them, every one
    named, to the next ``__init__`` of the class's bases."""
    sig = signature(cls._core_class.__name__)

    def __init__(self, *args, **kwargs):
        try:
            bound = sig.bind(self, *args, **kwargs)
        except TypeError as exc:
            raise TypeError(f"{type(self).__name__}() {exc}") from None
        bound.apply_defaults()
        params = dict(bound.arguments)
        del params["self"]
        super(cls, self).__init__(**params)

    __init__.__signature__ = sig
    __init__.__qualname__ = f"{cls.__qualname__}.__init__"
    __init__.__module__ = cls.__module__
    return __init__
