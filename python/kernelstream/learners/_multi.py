"""Multi-output learning for the AWV family (``docs/choices.md``, "Multi-output AWV").

Targets with ``K`` columns share the learner's one matrix, so ``K`` outputs cost one
mat-vec plus ``K`` dot products per round. ``K`` is fixed by the first round that
learns (the length of its ``y``) and grows only through :meth:`add_outputs`. A
single number ``y`` is the one-output protocol of :class:`Learner`, unchanged.
Before the first round ``K`` is unknown (``n_outputs`` is ``None``) and a
prediction is one number, as for one output.
"""

from __future__ import annotations

import numpy as np

from .._validation import (
    as_label,
    as_matrix,
    as_output_matrix,
    as_output_row,
    as_row,
    as_targets,
    as_weight,
    as_weights,
    whole,
)
from .base import _CHECKED, Learner, _learned


def _largest(Y: np.ndarray) -> np.ndarray:
    """The target of largest magnitude of each row (what the scale check looks at)."""
    return Y[np.arange(Y.shape[0]), np.abs(Y).argmax(axis=1)]


class MultiOutput(Learner):
    """A :class:`Learner` that also learns ``K`` outputs at once.

    ``learn_one(x, y)`` with ``y`` a sequence of ``K`` numbers, ``progressive_predict``
    and ``learn_many`` with ``Y`` of shape ``(n, K)``; ``predict_one`` then returns
    ``K`` values (an array; a float when ``K = 1``), ``predict_many`` and
    ``progressive_predict`` an ``(n, K)`` array. A ``y`` of another length than ``K``
    raises :class:`kernelstream.InputError` and leaves the learner unchanged.
    """

    @property
    def n_outputs(self):
        """The number of outputs ``K`` (``None`` until the first round fixes it)."""
        return self._core.n_outputs

    def add_outputs(self, k: int = 1) -> None:
        """Append ``k`` outputs whose past targets were all 0.

        The learner is then exactly what it would be had those columns been learned,
        with target 0, from the first round (a class first seen now, with one-hot
        targets). An :class:`kernelstream.InputError` before the first round.
        """
        self._core.add_outputs(whole("k", k))

    def _no_multi_std(self, k) -> None:
        """The predictive std is one output's: refused for ``k > 1`` outputs, saying why."""
        from ..errors import ParameterError

        raise ParameterError(
            f"the predictive standard deviation is computed for one output, and this "
            f"{type(self).__name__} has {k} outputs: they share the leverage "
            "phi^T A^-1 phi but each has its own noise level, which the core does not "
            "track (docs/uncertainty.md); learn each output with its own learner for a "
            "std, or wrap the learner in kernelstream.Conformal for intervals"
        )

    def predict_std(self, X) -> np.ndarray:
        if self._multi():
            self._no_multi_std(self._core.n_outputs)
        return super().predict_std(X)

    def predict_many_std(self, X) -> tuple:
        if self._multi():
            self._no_multi_std(self._core.n_outputs)
        return super().predict_many_std(X)

    def progressive_predict_std(self, X, y, return_noise: bool = False) -> tuple:
        if self._multi() or (np.ndim(y) == 2 and np.shape(y)[1] > 1):
            self._no_multi_std(self._core.n_outputs or np.shape(y)[1])
        return super().progressive_predict_std(X, y, return_noise)

    def _multi(self) -> bool:
        k = self._core.n_outputs
        return k is not None and k > 1

    def predict_one(self, x, return_std: bool = False):
        """Prediction for ``x`` as the next round: a float, or ``K`` values when ``K > 1``
        (``return_std``: with its predictive standard deviation, one output only)."""
        if return_std:
            if self._multi():
                self._no_multi_std(self._core.n_outputs)
            return super().predict_one(x, return_std=True)
        # The serving loop's case (a float64 row) in one call, a float or K values.
        p = self._core._serve_predict(x)
        if p is not None:
            return p
        if not self._multi():
            return self._core.predict_one(as_row(x))  # (Learner's, without a second call)
        return self._core._predict_one_multi(as_row(x))

    def learn_one(self, x, y, w: float = 1.0) -> None:
        """Reveal the target ``y`` of ``x`` (a number, or ``K`` numbers) and update
        (``w``: the sample weight, docs/choices.md, "Sample weights")."""
        if type(w) is not float:
            w = as_weight(w)
        # The serving loop's case (a float64 row, a float) in one call, once the scale
        # check is done; False: nothing done.
        if self._scale_rows is _CHECKED and self._core._serve_learn(x, y, w):
            return
        # Both paths call the scale check from here: its warning points at the caller.
        # (A Python number is told apart without np.ndim.)
        if isinstance(y, (float, int)) or np.ndim(y) == 0 or isinstance(y, (str, bytes, dict)):
            x, y = as_row(x), as_label(y)
            self._core.learn_one(x, y, w)
            if self._scale_rows is not _CHECKED and w > 0.0:
                self._watch_scale(x[None, :], np.array([y]))
        else:
            x, Y = as_row(x), as_output_row(y)
            self._core._learn_one_multi(x, Y, w)
            if self._scale_rows is not _CHECKED and w > 0.0:
                self._watch_scale(x[None, :], _largest(Y[None, :]))

    def progressive_predict(self, X, y, sample_weight=None) -> np.ndarray:
        """The online protocol over the rows of ``X``: ``y`` of shape ``(n,)`` gives
        ``(n,)`` predictions, ``Y`` of shape ``(n, K)`` gives ``(n, K)``
        (``sample_weight``: one weight a row)."""
        X = as_matrix(X)
        sw = as_weights(sample_weight, X.shape[0])
        if np.ndim(y) != 2:
            y = as_targets(y, X.shape[0])
            out = self._core.progressive_predict(X, y, sw)
            X, seen = _learned(X, y, sw)
        else:
            Y = as_output_matrix(y, X.shape[0])
            out = self._core._progressive_predict_multi(X, Y, sw)
            X, seen = _learned(X, _largest(Y), sw)
        if self._scale_rows is not _CHECKED:
            self._watch_scale(X, seen)
        return out

    def predict_many(self, X) -> np.ndarray:
        """``predict_one`` for each row: ``(n,)``, or ``(n, K)`` when ``K > 1``."""
        if not self._multi():
            return super().predict_many(X)
        return self._core._predict_many_multi(as_matrix(X))

    def learn_many(self, X, y, sample_weight=None) -> None:
        """Learn the rows of ``X`` in order (``y`` of shape ``(n,)`` or ``(n, K)``;
        ``sample_weight``: one weight a row)."""
        X = as_matrix(X)
        sw = as_weights(sample_weight, X.shape[0])
        if np.ndim(y) != 2:
            y = as_targets(y, X.shape[0])
            self._core.learn_many(X, y, sw)
            X, seen = _learned(X, y, sw)
        else:
            Y = as_output_matrix(y, X.shape[0])
            self._core._learn_many_multi(X, Y, sw)
            X, seen = _learned(X, _largest(Y), sw)
        if self._scale_rows is not _CHECKED:
            self._watch_scale(X, seen)


__all__ = ["MultiOutput"]
