"""Shared Python face of the aggregation rules: input conversion, ``get_params``,
copying and pickling. The rules themselves run in Rust (``src/aggregation/``)."""
from __future__ import annotations

import copy
import warnings

import numpy as np

from .._validation import _to_float_array, as_label, as_matrix, as_targets
from ..errors import InputError

#: Version of the pickled Python-side envelope; the Rust state carries its own.
PICKLE_FORMAT_VERSION = 1


def _as_z(z) -> np.ndarray:
    arr = _to_float_array(z, "z")
    if arr.ndim != 1:
        raise InputError(f"z must be a 1-D array of expert predictions, got an array of shape {arr.shape}")
    if arr.size == 0:
        raise InputError("z is empty: it needs one prediction per expert")
    return arr


def _restore(cls, params, state):
    obj = cls(**params)
    obj.__setstate__(state)
    return obj


class Aggregator:
    """Base class: combine the predictions ``z_t`` of ``n_experts`` forecasters online.

    ``predict(z)`` is pure; ``update(z, y)`` plays the round (the rule's prediction for
    ``z``, then the update with the label ``y``); ``progressive_predict(Z, y)`` runs the
    whole stream in Rust with the GIL released; ``weights`` is the current combination.
    """

    _core_class = None

    def __init__(self, **params):
        self._params = dict(params)
        self._core = self._core_class(**self._core_kwargs(self._params))

    def _core_kwargs(self, params: dict) -> dict:  # pragma: no cover - overridden
        return dict(params)

    def get_params(self) -> dict:
        return dict(self._params)

    def clone(self):
        return type(self)(**self.get_params())

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

    def __copy__(self):
        new = type(self).__new__(type(self))
        new.__dict__.update(self.__dict__)
        new._params = dict(self._params)
        new._core = copy.copy(self._core)
        return new

    def __deepcopy__(self, memo):
        return self.__copy__()

    def copy(self):
        return self.__copy__()

    def __getstate__(self):
        from .. import __version__

        return {
            "format_version": PICKLE_FORMAT_VERSION,
            "kernelstream_version": __version__,
            "params": self.get_params(),
            "core": bytes(self._core._state_bytes()),
        }

    def __setstate__(self, state):
        from .. import __version__

        if not isinstance(state, dict) or state.get("format_version") != PICKLE_FORMAT_VERSION:
            raise InputError(f"unsupported pickled aggregator format; this kernelstream reads format {PICKLE_FORMAT_VERSION}")
        if state.get("kernelstream_version") != __version__:
            warnings.warn(
                f"unpickling an aggregator saved by kernelstream {state.get('kernelstream_version')} "
                f"with kernelstream {__version__}",
                stacklevel=2,
            )
        self._params = dict(state["params"])
        self._core = self._core_class(**self._core_kwargs(self._params))
        self._core._set_state_bytes(state["core"])

    def __reduce__(self):
        return (_restore, (type(self), self.get_params(), self.__getstate__()))

    def __repr__(self):
        args = ", ".join(f"{k}={v!r}" for k, v in self._params.items())
        return f"{type(self).__name__}({args})"


__all__ = ["Aggregator"]
