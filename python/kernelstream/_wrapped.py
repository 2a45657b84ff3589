"""The Python side shared by every object that wraps a Rust core object
(learners and aggregators): construction from keyword parameters,
``get_params``/``set_params`` and read-only hyperparameter attributes, copying,
and pickling as "constructor parameters + core state bytes + a format version"
(the state is restored into a fresh core)."""

from __future__ import annotations

import copy
import inspect
import warnings
from typing import Any

from .errors import InputError, KernelstreamError, ParameterError

#: Version of the pickled Python-side envelope; the Rust state carries its own.
PICKLE_FORMAT_VERSION = 1


def _restore(cls, params, state):
    obj = cls(**params)
    obj.__setstate__(state)
    return obj


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


def _init_param_names(cls) -> list:
    sig = inspect.signature(cls.__init__)
    return [
        p.name
        for p in list(sig.parameters.values())[1:]
        if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)
    ]


class CoreWrapper:
    """Base of the Python classes around a Rust core object ``self._core``.

    Subclasses set ``_core_class`` and implement ``_core_kwargs(params)``, which validates
    the constructor parameters and returns the core's keyword arguments. Every named
    constructor parameter becomes a read-only attribute (unless the class already has
    an attribute of that name, e.g. ``NystromAWV.dictionary`` is the learned dictionary:
    ``get_params()`` is then the way to read the parameter).
    """

    _core_class: Any = None

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        for name in _init_param_names(cls):
            if not hasattr(cls, name):
                setattr(cls, name, _Hyperparameter(name))

    def __init__(self, **params):
        self._params, self._core = self._build(params)

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
        self.__dict__.clear()
        self.__dict__.update(fresh.__dict__)
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

        return {
            "format_version": PICKLE_FORMAT_VERSION,
            "kernelstream_version": __version__,
            "params": self.get_params(),
            "core": bytes(self._core._state_bytes()),
            "extra": self._extra_state(),
        }

    def __setstate__(self, state):
        from ._core import __version__

        if not isinstance(state, dict) or state.get("format_version") != PICKLE_FORMAT_VERSION:
            found = state.get("format_version") if isinstance(state, dict) else type(state).__name__
            raise InputError(
                f"unsupported pickled {type(self).__name__} format {found!r}; "
                f"this kernelstream reads format {PICKLE_FORMAT_VERSION}"
            )
        if state.get("kernelstream_version") != __version__:
            warnings.warn(
                f"unpickling a {type(self).__name__} saved by kernelstream {state.get('kernelstream_version')} "
                f"with kernelstream {__version__}",
                stacklevel=2,
            )
        params = state.get("params")
        if not isinstance(params, dict) or not isinstance(state.get("core"), (bytes, bytearray)):
            raise InputError(f"corrupt pickled {type(self).__name__}: no params dict or core bytes")
        # Parameters added after a state was saved take the value that state was made with.
        params = {**self._absent_params, **params}
        # Build and fill a new core first: on any error self is untouched.
        try:
            params, core = self._build(params)
        except KernelstreamError:
            raise
        except (TypeError, ValueError, KeyError) as exc:
            raise InputError(f"corrupt pickled {type(self).__name__} parameters: {exc}") from None
        core._set_state_bytes(bytes(state["core"]))
        self._check_extra_state(state.get("extra"))
        self._params, self._core = params, core
        self._set_extra_state(state.get("extra"))

    #: Parameters added in a later version, with the value that reproduces a state
    #: saved before they existed (filled in when such a state is unpickled).
    _absent_params: dict = {}

    def __reduce__(self):
        return (_restore, (type(self), self.get_params(), self.__getstate__()))

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
