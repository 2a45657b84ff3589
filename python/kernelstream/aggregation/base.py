"""Shared Python face of the aggregation rules: input conversion, ``get_params``,
copying and pickling. The rules themselves run in Rust (``src/aggregation/``)."""

from __future__ import annotations

import numpy as np

from .._validation import _to_float_array, as_label, as_matrix, as_targets
from .._wrapped import PICKLE_FORMAT_VERSION, CoreWrapper  # noqa: F401  (re-exported)
from ..errors import InputError


def _as_z(z) -> np.ndarray:
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
    """

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
