"""The Python side shared by every object that wraps a Rust core object
(learners and aggregators): construction from keyword parameters,
``get_params``/``set_params`` and read-only hyperparameter attributes, copying,
and pickling as "core state bytes + the parameters the state does not hold + a
format version" (``_pickled``; the state is restored into a fresh core)."""

from __future__ import annotations

import copy
import inspect
import warnings
from typing import Any

from . import _pickled
from ._pickled import PICKLE_FORMAT_VERSION
from .errors import InputError, KernelstreamError, ParameterError


def _load(cls, state):
    """Unpickles an object of envelope format 2 (its parameters come from the state)."""
    params = _envelope_params(cls, state)
    obj = _construct(cls, params)
    obj._adopt_state(params, state)
    return obj


def _restore(cls, params, state):
    """Unpickles an object of envelope format 1 (which names this function with the
    parameters it held)."""
    obj = _construct(cls, params)
    obj.__setstate__(state)
    return obj


def _construct(cls, params):
    if not isinstance(params, dict):
        raise InputError(f"corrupt pickled {cls.__name__}: parameters are not a dict")
    _check_param_names(cls, params)
    try:
        return cls(**params)
    except KernelstreamError as exc:
        raise InputError(f"corrupt pickled {cls.__name__} parameters: {exc}") from None
    except TypeError as exc:
        raise InputError(f"corrupt pickled {cls.__name__} parameters: {exc}") from None


def _envelope_params(cls, state) -> dict:
    """The constructor parameters of a pickled envelope (format 1: as stored; format 2:
    those the core state holds, with the stored ones over them), in the signature's
    order; an ``InputError`` for another format or a damaged envelope."""
    from ._core import __version__

    found = state.get("format_version") if isinstance(state, dict) else type(state).__name__
    if found not in _pickled.READABLE:
        raise InputError(
            f"unsupported pickled {cls.__name__} format {found!r}; this kernelstream "
            f"reads formats {', '.join(map(str, _pickled.READABLE))}"
        )
    if state.get("kernelstream_version") != __version__:
        warnings.warn(
            f"unpickling a {cls.__name__} saved by kernelstream {state.get('kernelstream_version')} "
            f"with kernelstream {__version__}",
            stacklevel=3,
        )
    params, core = state.get("params"), state.get("core")
    if not isinstance(params, dict) or not isinstance(core, (bytes, bytearray)):
        raise InputError(f"corrupt pickled {cls.__name__}: no params dict or core bytes")
    if found == 2:
        held = _pickled.held_params_of_state(cls._core_class, bytes(core))
        params = {**held, **params}
    # Parameters added after a state was saved take the value that state was made with,
    # else their declared default (an option added with a neutral default).
    params = {**_init_defaults(cls), **cls._absent_params, **params}
    order = _init_param_names(cls)
    return {
        **{k: params[k] for k in order if k in params},
        **{k: v for k, v in params.items() if k not in order},
    }


def _check_param_names(cls, params: dict) -> None:
    """A pickled parameter set names exactly parameters of ``cls`` (an unknown name would
    be ignored by the core, and the object would pickle to a blob that does not load)."""
    names = _init_param_names(cls)
    takes_any = any(
        p.kind == p.VAR_KEYWORD for p in inspect.signature(cls.__init__).parameters.values()
    )
    bad = [k for k in params if not isinstance(k, str)]
    unknown = (
        [] if takes_any else sorted(k for k in params if isinstance(k, str) and k not in names)
    )
    if bad or unknown:
        raise InputError(
            f"corrupt pickled {cls.__name__}: unknown parameter {(bad or unknown)[0]!r}; "
            f"its parameters are {names}"
        )


def constructor_of(cls, sig: inspect.Signature, prepare=None):
    """``cls.__init__`` with the signature ``sig`` (``self`` first): the arguments bound as
    a written signature would bind them (positionally or by name, defaults filled in),
    then handed, every one named (through ``prepare(params)`` when given), to the next
    ``__init__`` of the class's bases. The learners' and the rules' faces derive their
    constructors from the core's declarations with it."""

    def __init__(self, *args, **kwargs):
        try:
            bound = sig.bind(self, *args, **kwargs)
        except TypeError as exc:
            raise TypeError(f"{type(self).__name__}() {exc}") from None
        bound.apply_defaults()
        params = dict(bound.arguments)
        del params["self"]
        super(cls, self).__init__(**(prepare(params) if prepare else params))

    __init__.__signature__ = sig  # type: ignore[attr-defined]
    __init__.__qualname__ = f"{cls.__qualname__}.__init__"
    __init__.__module__ = cls.__module__
    return __init__


class _Hyperparameter:
    """Read-only attribute view of one constructor parameter: ``TaylorAWV(degree=3).degree == 3``."""

    def __init__(self, name: str):
        self.name = name

    def __get__(self, obj, owner=None):
        if obj is None:
            return self
        return obj._params[self.name]

    def __set__(self, obj, value):
        raise AttributeError(
            f"{self.name} is a read-only hyperparameter of {type(obj).__name__}: "
            f"use set_params({self.name}=...) before it has seen data, or build a new object"
        )


class _RenamedAttribute:
    """An attribute that moved to ``new`` because its name is a constructor parameter's:
    reading it warns (``DeprecationWarning``) and returns ``new``; from release
    ``removed_in`` on, the name is the read-only parameter like every other."""

    def __init__(self, new: str, removed_in: str):
        self.new, self.removed_in = new, removed_in

    def __set_name__(self, owner, name):
        self.name = name

    def __get__(self, obj, owner=None):
        if obj is None:
            return self
        warnings.warn(
            f"{type(obj).__name__}.{self.name} is deprecated and will be the constructor "
            f"parameter {self.name!r} from kernelstream {self.removed_in} on: "
            f"use {type(obj).__name__}.{self.new}",
            DeprecationWarning,
            stacklevel=2,
        )
        return getattr(obj, self.new)


def _init_param_names(cls) -> list:
    sig = inspect.signature(cls.__init__)
    return [
        p.name
        for p in list(sig.parameters.values())[1:]
        if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)
    ]


def _init_defaults(cls) -> dict:
    """The constructor's parameters that have a default, with it."""
    sig = inspect.signature(cls.__init__)
    return {
        p.name: p.default
        for p in list(sig.parameters.values())[1:]
        if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY) and p.default is not p.empty
    }


class CoreWrapper:
    """Base of the Python classes around a Rust core object ``self._core``.

    Subclasses set ``_core_class`` and implement ``_core_kwargs(params)``, which validates
    the constructor parameters and returns the core's keyword arguments. Every named
    constructor parameter becomes a read-only attribute. Learned state never takes a
    parameter's name (``NystromAWV.learned_dictionary``, ``NOGD.learned_rank``); the
    old names that did are :class:`_RenamedAttribute` until their removal release.
    """

    _core_class: Any = None

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        for name in _init_param_names(cls):
            if not hasattr(cls, name):
                setattr(cls, name, _Hyperparameter(name))

    def __init__(self, **params):
        self._params, self._core = self._build(params)

    def __sizeof__(self) -> int:
        """The object and the state its Rust core holds: ``sys.getsizeof(learner)``, and so
        river's memory figures (``show_memory``, ``_memory_usage``), count the learned
        matrices and dictionaries. The core's state is measured as its serialized size
        (bincode: the float64 arrays at 8 bytes a number plus small headers), which is
        what it holds up to allocator slack."""
        return object.__sizeof__(self) + len(self._core._state_bytes())

    def _build(self, params: dict):
        """``(params, core)`` for ``params``, or an exception; changes nothing on ``self``.

        The one place where a core object is made from parameters: the constructor,
        ``__setstate__`` (and ``set_params``) assign both only once this succeeded, so
        a failed call leaves the object as it was.
        """
        params = dict(params)
        return params, self._core_class(**self._core_kwargs(params))

    def _core_kwargs(self, params: dict) -> dict:  # pragma: no cover - overridden
        return dict(params)

    def get_params(self, deep: bool = True) -> dict:
        """The constructor arguments, exactly as passed: ``type(o)(**o.get_params())`` is a
        fresh, identical object (scikit-learn's ``clone`` relies on it).

        (``deep`` is accepted for scikit-learn and ignored: parameters are not estimators.)
        """
        return dict(self._params)

    def set_params(self, **params):
        """Change constructor parameters, scikit-learn style; returns ``self``.

        Allowed only before the object has seen data (``n_seen == 0``): a new
        configuration cannot be grafted onto a state learned under another one, so on a
        trained object this raises :class:`ParameterError` (use
        ``type(o)(**{**o.get_params(), ...})`` for a fresh one). Atomic: the new
        parameters are validated by building a fresh object; on any error the object is
        left exactly as it was.
        """
        if not params:
            return self
        unknown = sorted(set(params) - set(self._params))
        if unknown:
            raise ParameterError(
                f"{type(self).__name__} has no parameter {unknown[0]!r}; "
                f"its parameters are {sorted(self._params)}"
            )
        n_seen = int(getattr(self._core, "n_seen", 0))
        if n_seen:
            raise ParameterError(
                f"set_params on a {type(self).__name__} that has seen {n_seen} rounds: "
                "parameters can only change before learning (build a new object instead)"
            )
        fresh = type(self)(**{**self._params, **params})
        # The core object stays the same; its state is swapped under its borrow, after a
        # last n_seen check there: a concurrent learning call either ran before (this
        # raises, nothing changed) or runs after, on the new configuration. A concurrent
        # call that holds the core raises "Already borrowed", like any other method.
        self._core._adopt(fresh._core)
        self.__dict__.update({k: v for k, v in fresh.__dict__.items() if k != "_core"})
        return self

    def clone(self):
        """A fresh object with the same parameters (no data seen)."""
        return type(self)(**self.get_params())

    # -- copying -------------------------------------------------------------
    def __copy__(self):
        new = type(self).__new__(type(self))
        new.__dict__.update(self.__dict__)
        new._params = dict(self._params)
        new._core = copy.copy(self._core)
        return new

    def __deepcopy__(self, memo):
        return self.__copy__()

    def copy(self):
        """An independent copy with the same state (used by the adversary and by grids)."""
        return self.__copy__()

    # -- pickling ------------------------------------------------------------
    def __getstate__(self):
        from ._core import __version__

        core = bytes(self._core._state_bytes())
        held = _pickled.held_params(self._core_class, self._core)
        return {
            "format_version": PICKLE_FORMAT_VERSION,
            "kernelstream_version": __version__,
            "params": _pickled.unheld(self.get_params(), held),
            "core": core,
            "extra": self._extra_state(),
        }

    def __setstate__(self, state):
        self._adopt_state(_envelope_params(type(self), state), state)

    def _adopt_state(self, params: dict, state: dict) -> None:
        """Takes ``params`` (of the envelope ``state``) and the state; on any error the
        object is left as it was."""
        _check_param_names(type(self), params)
        # Build and fill a new core first: on any error self is untouched.
        try:
            params, core = self._build(params)
        except (KernelstreamError, TypeError, ValueError, KeyError) as exc:
            raise InputError(f"corrupt pickled {type(self).__name__} parameters: {exc}") from None
        core._set_state_bytes(bytes(state["core"]))
        self._check_extra_state(state.get("extra"))
        self._params, self._core = params, core
        self._set_extra_state(state.get("extra"))

    #: Parameters added in a later version, with the value that reproduces a state
    #: saved before they existed (filled in when such a state is unpickled).
    _absent_params: dict = {}

    def __reduce__(self):
        return (_load, (type(self), self.__getstate__()))

    def _extra_state(self):
        """Python-side state beyond the core (none by default)."""
        return None

    def _check_extra_state(self, extra) -> None:
        """Raises if ``extra`` cannot be restored (called before anything changes)."""

    def _set_extra_state(self, extra) -> None:
        pass

    def __repr__(self):
        args = ", ".join(f"{k}={v!r}" for k, v in self._params.items())
        return f"{type(self).__name__}({args})"
