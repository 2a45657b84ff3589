"""A learner face's constructor and core keywords, derived from the core's declaration.

The core declares each learner's parameters once (``crate::params!``: name, default,
kind, domain), and ``_core.registry()`` reports them. A face that writes no
``__init__`` of its own gets one with that signature (:func:`constructor`), and its
``_core_kwargs`` converts each value by its kind (:func:`core_kwargs`) for the core,
which checks the domains. A face then holds only what is its own: the docstring, and
the properties and methods with real logic (river's ``_get_params`` habit); a value
that needs a conversion of its own (a fixed dictionary, a prefix name) names its
converter in the face's ``_converters``.
"""

from __future__ import annotations

import inspect
import math
from functools import cache
from typing import TYPE_CHECKING, Any, Literal, TypeVar, overload

from .. import _core
from .._validation import flag, real, text, whole
from .._wrapped import constructor_of
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


def kernels(name: str, values) -> list:
    """A sequence of kernels as a list (the core checks that there is at least one)."""
    from ..kernels import as_kernel

    if isinstance(values, (str, bytes)) or not hasattr(values, "__iter__"):
        raise ParameterError(f"{name} must be a list of kernels, got {values!r}")
    return [as_kernel(k) for k in values]


def kept(spec: dict, value):
    """``value`` as ``get_params`` returns it: the very object passed (scikit-learn's
    ``clone`` checks identity), but a sequence parameter's one-pass iterable (a
    generator) is read once into a list."""
    if spec["kind"] in ("seq", "kernels") and not isinstance(
        value, (list, tuple, str, bytes, type(None))
    ):
        return list(value) if hasattr(value, "__iter__") else value
    return value


def _kernel(name: str, value):
    from ..kernels import as_kernel

    return as_kernel(value)


# The core's form of a value, by the parameter's declared kind.
_BY_KIND = {
    "float": real,
    "int": whole,
    "bool": flag,
    "str": text,
    "kernel": _kernel,
    "kernels": kernels,
}


def _convert(spec: dict, value, converters: dict):
    """``value`` in the core's form: by the face's converter for the parameter, else by
    its kind; None stays None where the declared default is None (the core resolves
    it)."""
    name, kind, default = spec["name"], spec["kind"], spec["default"]
    if name in converters:
        return converters[name](value)
    if value is None and default is None and not spec["required"]:
        return None
    if kind == "seq" and isinstance(default, tuple):  # a sequence of numbers
        return numbers(name, value)
    convert = _BY_KIND.get(kind)
    return value if convert is None else convert(name, value)


def core_kwargs(core_name: str, params: dict, converters: dict | None = None) -> dict:
    """The core's keyword arguments for the declared parameters ``params``."""
    conv = converters or {}
    return {s["name"]: _convert(s, params[s["name"]], conv) for s in specs(core_name)}


def signature(core_name: str, var_keyword: str | None = None) -> inspect.Signature:
    """The constructor's signature: ``self``, then each declared parameter with its
    declared default (a required one has none), then ``**var_keyword`` if named."""
    kind = inspect.Parameter.POSITIONAL_OR_KEYWORD
    params = [inspect.Parameter("self", kind)]
    for s in specs(core_name):
        default = inspect.Parameter.empty if s["required"] else s["default"]
        params.append(inspect.Parameter(s["name"], kind, default=default))
    if var_keyword:
        params.append(inspect.Parameter(var_keyword, inspect.Parameter.VAR_KEYWORD))
    return inspect.Signature(params)


def constructor(cls):
    """``cls.__init__`` taking the declared parameters of ``cls._core_class``
    (positionally or by name, as a written signature would; and the keywords of
    ``cls._more_params`` when the face names one) and handing them, every one named and
    kept as passed (:func:`kept`, or the face's ``_keep[name]``), to the next
    ``__init__`` of the class's bases."""
    core_name = cls._core_class.__name__
    more = getattr(cls, "_more_params", None)
    keep = getattr(cls, "_keep", {})
    by_name = {s["name"]: s for s in specs(core_name)}

    def prepare(params: dict) -> dict:
        extra = params.pop(more, {}) if more else {}
        params = {k: keep[k](v) if k in keep else kept(by_name[k], v) for k, v in params.items()}
        return {**params, **extra}

    return constructor_of(cls, signature(core_name, more), prepare)


def samples(spec: dict) -> tuple:
    """``(valid, invalid)``: values of the parameter ``spec`` drawn from its declared
    constraint (``spec["constraint"]``), the ones the fuzzers and the tests use. Valid:
    the bounds (or the nearest numbers inside an open one), the options, None where
    accepted. Invalid: the numbers just outside each bound, NaN and infinities, a name
    that is not an option, None where it is not accepted, a value of the wrong type.
    An object's constraint (a kernel, an array) gives none."""
    c, kind = spec["constraint"], spec["kind"]
    valid: list = []
    invalid: list = []
    if c["type"] == "interval":
        lo, hi = c["lo"], c["hi"]
        if kind == "int":
            lo_in = int(math.floor(lo)) + 1 if c["lo_open"] else int(math.ceil(lo))
            valid.append(lo_in)
            invalid.append(lo_in - 1)
            if math.isfinite(hi):
                hi_in = int(math.ceil(hi)) - 1 if c["hi_open"] else int(math.floor(hi))
                valid.append(hi_in)
                invalid.append(hi_in + 1)
            invalid += [2**64, 1.5, "1"]
        else:
            if math.isfinite(lo):
                valid.append(math.nextafter(lo, math.inf) if c["lo_open"] else lo)
                invalid.append(lo if c["lo_open"] else math.nextafter(lo, -math.inf))
            if math.isfinite(hi):
                valid.append(math.nextafter(hi, -math.inf) if c["hi_open"] else hi)
                invalid.append(hi if c["hi_open"] else math.nextafter(hi, math.inf))
            invalid += [math.nan, math.inf, -math.inf, "1.0"]
    elif c["type"] == "options":
        valid += list(c["options"])
        invalid += ["no-such-option", 3]
    elif c["type"] == "flag":
        valid += [True, False]
        invalid += ["yes", 1]
    elif kind == "kernel":
        invalid += ["gaussian"]
    if c["each"] and c["type"] != "object":
        valid = [[v] for v in valid]
        invalid = [[v] for v in invalid if not isinstance(v, str)] + ["1.0"]
        if c["non_empty"]:
            invalid.append([])
        else:
            valid.append([])
    (valid if c["or_none"] else invalid).append(None)
    return valid, invalid


class CoreAttr(property):
    """A face's read-only attribute that is its core's attribute of the same name (or
    ``core``), declared once with its type and doc: ``n_support = core_attr(int,
    "Number of stored support points.")``. It is a ``property`` (``help()``, IDEs and the
    API reference show it as one, with its doc; ``tools/griffe_core_attrs.py`` gives the
    reference its type), and mypy reads its type from ``kind``."""

    def __init__(self, kind: Any, doc: str, core: str | None = None, optional: bool = False):
        self.kind, self.core, self.optional = kind, core, optional
        super().__init__(self._read, None, None, doc)
        self.__doc__ = doc  # the instance's, not the class's docstring

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name
        if self.core is None:
            self.core = name

    def _read(self, face: Any) -> Any:
        return getattr(face._core, self.core)  # type: ignore[arg-type]

    if TYPE_CHECKING:

        @overload
        def __get__(self, obj: None, owner: type | None = None) -> CoreAttr: ...
        @overload
        def __get__(self, obj: object, owner: type | None = None) -> Any: ...
        def __get__(self, obj: object, owner: type | None = None) -> Any: ...


_T = TypeVar("_T")


@overload
def core_attr(
    kind: type[_T], doc: str, *, core: str | None = None, optional: Literal[False] = False
) -> _T: ...
@overload
def core_attr(
    kind: type[_T], doc: str, *, core: str | None = None, optional: Literal[True]
) -> _T | None: ...
def core_attr(kind: Any, doc: str, *, core: str | None = None, optional: bool = False) -> Any:
    """The face's attribute ``name`` read from its core (:class:`CoreAttr`): of type
    ``kind`` (``None`` too where ``optional``), documented by ``doc``; ``core`` names the
    core's attribute where it is not the face's name. Typed for mypy as the value it
    reads (``int``, or ``int | None``)."""
    return CoreAttr(kind, doc, core, optional)


def core_attrs(cls: type) -> dict:
    """``{name: CoreAttr}``: the core attributes ``cls`` declares or inherits (and does
    not override with an attribute of its own)."""
    names = {k for base in cls.__mro__ for k in vars(base)}
    found = {k: inspect.getattr_static(cls, k) for k in sorted(names)}
    return {k: v for k, v in found.items() if isinstance(v, CoreAttr)}
