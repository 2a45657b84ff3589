"""Shared Python face of the aggregation rules: input conversion, the constructor and
the core's keywords (derived from the core's table of rules), ``get_params``, copying
and pickling. The rules themselves run in Rust (``src/aggregation/``)."""

from __future__ import annotations

import inspect
from functools import cache
from typing import TYPE_CHECKING, Any

import numpy as np

from .. import _core
from .._validation import _to_float_array, as_label, as_matrix, as_targets, flag, real, whole
from .._wrapped import (  # noqa: F401  (PICKLE_FORMAT_VERSION: re-exported)
    PICKLE_FORMAT_VERSION,
    CoreWrapper,
    constructor_of,
)
from ..errors import InputError


@cache
def rule_params(class_name: str) -> dict:
    """``{name: default}`` of the rule whose core class is ``class_name``, in the order
    of the core's table (``_core.aggregation_rules()``); empty for another class."""
    for r in _core.aggregation_rules():
        if r["class"] == class_name:
            return dict(r["params"])
    return {}


def _kind(default) -> tuple:
    """``(annotation, converter)`` of a rule parameter, by its default's type."""
    return ("bool", flag) if isinstance(default, bool) else ("float", real)


def _signature(class_name: str) -> inspect.Signature:
    """``(self, n_experts: int, <the rule's parameters with their defaults>)``."""
    kind = inspect.Parameter.POSITIONAL_OR_KEYWORD
    params = [
        inspect.Parameter("self", kind),
        inspect.Parameter("n_experts", kind, annotation="int"),
    ]
    for name, default in rule_params(class_name).items():
        params.append(inspect.Parameter(name, kind, default=default, annotation=_kind(default)[0]))
    return inspect.Signature(params)


_FLOAT64 = np.dtype(np.float64)


def _as_z(z) -> np.ndarray:
    # The common case, a contiguous float64 vector (the forecaster's every round): as it is.
    if type(z) is np.ndarray and z.dtype is _FLOAT64 and z.ndim == 1 and z.size:
        if z.flags.c_contiguous:
            return z
    arr = _to_float_array(z, "z")
    if arr.ndim != 1:
        raise InputError(
            f"z must be a 1-D array of expert predictions, got an array of shape {arr.shape}"
        )
    if arr.size == 0:
        raise InputError("z is empty: it needs one prediction per expert")
    return arr


class Aggregator(CoreWrapper):
    """Base class: combine the predictions ``z_t`` of ``n_experts`` forecasters online.

    ``predict(z)`` is pure; ``update(z, y)`` plays the round (the rule's prediction for
    ``z``, then the update with the label ``y``); ``progressive_predict(Z, y)`` runs the
    whole stream in Rust with the GIL released; ``weights`` is the current combination.

    A rule's class writes no constructor: it takes ``n_experts`` and the parameters the
    core's table lists for its core class, with the table's defaults.
    """

    if TYPE_CHECKING:  # the constructor a rule derives from the core's table (at run time)

        def __init__(self, *args: Any, **kwargs: Any) -> None: ...

    def __init_subclass__(cls, **kwargs):
        # A rule without an __init__ of its own: the one the core's table gives.
        own = cls.__dict__
        if "__init__" not in own and own.get("_core_class") is not None:
            if rule_params(cls._core_class.__name__):
                cls.__init__ = constructor_of(cls, _signature(cls._core_class.__name__))
        super().__init_subclass__(**kwargs)

    def _core_kwargs(self, params: dict) -> dict:
        """The core's keyword arguments: ``n_experts`` a whole number, each parameter by
        its default's type (the core checks the values)."""
        table = rule_params(self._core_class.__name__)
        kwargs = {"n_experts": whole("n_experts", params["n_experts"])}
        for name, default in table.items():
            kwargs[name] = _kind(default)[1](name, params[name])
        return kwargs

    def predict(self, z) -> float:
        """The combined prediction for the expert predictions ``z`` (state unchanged)."""
        return float(self._core.predict(_as_z(z)))

    def update(self, z, y) -> None:
        """Play the round with expert predictions ``z`` and reveal the label ``y``."""
        self._core.update(_as_z(z), as_label(y))

    def progressive_predict(self, Z, y) -> np.ndarray:
        """Predictions for every row of ``Z`` (``(T, n_experts)``), each made before its label."""
        Z = as_matrix(Z, "Z")
        return self._core.progressive_predict(Z, as_targets(y, Z.shape[0]))

    @property
    def weights(self) -> np.ndarray:
        """The weights the next prediction uses."""
        return self._core.weights

    @property
    def n_seen(self) -> int:
        return int(self._core.n_seen)

    @property
    def n_experts(self) -> int:
        return int(self._core.n_experts)


__all__ = ["Aggregator"]
