"""The learner protocol of the API contract, shared by every learner.

A learner is a thin Python object around a Rust core object (``self._core``):
this class converts inputs (:mod:`kernelstream._validation`), delegates the work,
and implements ``get_params`` and pickling once for everybody. Subclasses set
``_core_class`` and implement ``_core_kwargs(params)``; see
:class:`kernelstream.TaylorAWV` for a complete example.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._validation import as_label, as_matrix, as_row, as_targets
from .._wrapped import PICKLE_FORMAT_VERSION, CoreWrapper


class Learner(CoreWrapper):
    """Base class of all online learners (regression on ``y``, or ``-1/+1`` labels)."""

    _core_class: Any = None
    #: ``"regression"`` or ``"classification"`` (for losses that need +-1 labels).
    task = "regression"

    # -- the protocol -------------------------------------------------------
    def predict_one(self, x) -> float:
        """Prediction for ``x`` as the next round (pure: the state does not change)."""
        return self._core.predict_one(as_row(x))

    def learn_one(self, x, y) -> None:
        """Reveal the label ``y`` of ``x`` and update."""
        self._core.learn_one(as_row(x), as_label(y))

    def progressive_predict(self, X, y) -> np.ndarray:
        """Run the online protocol over the rows of ``X`` in order (in Rust, GIL released).

        The t-th output is the prediction made before ``y[t]`` was seen; the learner then
        learns ``(X[t], y[t])``, so the state moves on.
        """
        X = as_matrix(X)
        return self._core.progressive_predict(X, as_targets(y, X.shape[0]))

    def predict_many(self, X) -> np.ndarray:
        """``predict_one`` for each row of ``X``; the state does not change."""
        return self._core.predict_many(as_matrix(X))

    def learn_many(self, X, y) -> None:
        """Learn the rows of ``X`` in order (equals a loop of ``learn_one``)."""
        X = as_matrix(X)
        self._core.learn_many(X, as_targets(y, X.shape[0]))

    @property
    def n_seen(self) -> int:
        """Rounds learned so far."""
        return int(self._core.n_seen)

    @property
    def dim(self) -> int:
        """Current dimension of the learner's representation."""
        return int(self._core.dim)

    @property
    def input_dim(self):
        """Input dimension ``d`` fixed by the first call (``None`` before)."""
        return self._core.input_dim


__all__ = ["Learner", "PICKLE_FORMAT_VERSION"]
