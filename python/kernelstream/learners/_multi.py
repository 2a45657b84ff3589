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
    as_weights,
    whole,
)
from ._declared import core_attr
from .base import _CHECKED, Learner, _learned


def as_target(y) -> tuple:
    """``(multi, y)``: one target as a float (the one-output protocol), or ``K`` targets
    as a 1-D array (``multi``). A Python number is told apart without ``np.ndim``."""
    if isinstance(y, (float, int)) or np.ndim(y) == 0 or isinstance(y, (str, bytes, dict)):
        return False, as_label(y)
    return True, as_output_row(y)


def as_target_rows(y, n: int) -> tuple:
    """``(multi, y)``: the targets of ``n`` rows, ``(n,)``, or ``(n, K)`` (``multi``)."""
    if np.ndim(y) == 2:
        return True, as_output_matrix(y, n)
    return False, as_targets(y, n)


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

    n_outputs = core_attr(
        int,
        "The number of outputs ``K`` (``None`` until the first round fixes it).",
        optional=True,
    )

    def add_outputs(self, k: int = 1) -> None:
        """Append ``k`` outputs whose past targets were all 0.

        The learner is then exactly what it would be had those columns been learned,
        with target 0, from the first round (a class first seen now, with one-hot
        targets). An :class:`kernelstream.InputError` before the first round.
        """
        self._core.add_outputs(whole("k", k))

    def _multi_y(self, y) -> bool:
        """Whether ``y`` is the multi-output form (2-D) or the learner has ``K > 1``."""
        return self._multi() or np.ndim(y) == 2

    def predict_std(self, X) -> np.ndarray:
        """The predictive standard deviation of each row as the next round: ``(n,)``, or
        ``(n, K)`` when ``K > 1`` (one leverage ``phi^T A^-1 phi``, a noise level per
        output: docs/uncertainty.md, "Several outputs")."""
        if self._multi():
            X = as_matrix(X)
            return self._pure(X.shape[1], "_predict_std_many_multi", X)[1]
        return super().predict_std(X)

    def predict_many_std(self, X) -> tuple:
        """``(predictions, stds)`` as the next round: ``(n,)`` each, or ``(n, K)``."""
        if self._multi():
            X = as_matrix(X)
            return self._pure(X.shape[1], "_predict_std_many_multi", X)
        return super().predict_many_std(X)

    def progressive_predict_std(self, X, y, return_noise: bool = False) -> tuple:
        """:meth:`progressive_predict` with the predictive standard deviation of each
        round (and, with ``return_noise``, the noise level): ``Y`` of shape ``(n, K)``
        gives ``(n, K)`` arrays, a noise level per output."""
        if not self._multi_y(y):
            return super().progressive_predict_std(X, y, return_noise)
        X = as_matrix(X)
        Y = as_output_matrix(y, X.shape[0])
        preds, stds, noise = self._run(X.shape[1], "_progressive_predict_std_multi", X, Y)
        if self._scale_rows is not _CHECKED:
            self._watch_scale(X, _largest(Y))
        return (preds, stds, noise) if return_noise else (preds, stds)

    @property
    def noise_std(self):
        """The noise level ``sigma_hat`` behind :meth:`predict_std`: a float, or ``K``
        values (one per output) when ``K > 1`` (NaN before an estimate exists; ``None``
        for a learner without one)."""
        if self._multi():
            levels = self._core._noise_stds_multi
            return None if levels is None else np.asarray(levels)
        return self._core.noise_std

    def _multi(self) -> bool:
        k = self._core.n_outputs
        return k is not None and k > 1

    def predict_one(self, x, return_std: bool = False):
        """Prediction for ``x`` as the next round: a float, or ``K`` values when ``K > 1``
        (``return_std``: with its predictive standard deviation, ``K`` of them)."""
        if return_std:
            if self._multi():
                x = as_row(x)
                mean, std = self._pure(x.shape[0], "_predict_std_many_multi", x[None, :])
                return mean[0], std[0]
            return super().predict_one(x, return_std=True)
        # The serving loop's case (a float64 row) in one call, a float or K values.
        p = self._serve_predict(x)
        if p is not None:
            return p
        x = as_row(x)
        if not self._multi():
            return self._pure(x.shape[0], "predict_one", x)  # (Learner's, without a second call)
        return self._pure(x.shape[0], "_predict_one_multi", x)

    def learn_one(self, x, y, w: float = 1.0) -> None:
        """Reveal the target ``y`` of ``x`` (a number, or ``K`` numbers) and update
        (``w``: the sample weight, docs/choices.md, "Sample weights")."""
        w = self._weight(w)
        if self._serve_learn(x, y, w):
            return
        # Both paths call the scale check from here: its warning points at the caller.
        x = as_row(x)
        multi, Y = as_target(y)
        if not multi:
            self._run(x.shape[0], "learn_one", x, Y, w)
            if self._scale_rows is not _CHECKED and w > 0.0:
                self._watch_scale(x[None, :], np.array([Y]))
        else:
            self._run(x.shape[0], "_learn_one_multi", x, Y, w)
            if self._scale_rows is not _CHECKED and w > 0.0:
                self._watch_scale(x[None, :], _largest(Y[None, :]))

    def progressive_predict(self, X, y, sample_weight=None) -> np.ndarray:
        """The online protocol over the rows of ``X``: ``y`` of shape ``(n,)`` gives
        ``(n,)`` predictions, ``Y`` of shape ``(n, K)`` gives ``(n, K)``
        (``sample_weight``: one weight a row)."""
        X = as_matrix(X)
        multi, Y = as_target_rows(y, X.shape[0])
        sw = as_weights(sample_weight, X.shape[0])
        if not multi:
            out = self._run(X.shape[1], "progressive_predict", X, Y, sw)
            X, seen = _learned(X, Y, sw)
        else:
            out = self._run(X.shape[1], "_progressive_predict_multi", X, Y, sw)
            X, seen = _learned(X, _largest(Y), sw)
        if self._scale_rows is not _CHECKED:
            self._watch_scale(X, seen)
        return out

    def predict_many(self, X) -> np.ndarray:
        """``predict_one`` for each row: ``(n,)``, or ``(n, K)`` when ``K > 1``."""
        if not self._multi():
            return super().predict_many(X)
        X = as_matrix(X)
        return self._pure(X.shape[1], "_predict_many_multi", X)

    def learn_many(self, X, y, sample_weight=None) -> None:
        """Learn the rows of ``X`` in order (``y`` of shape ``(n,)`` or ``(n, K)``;
        ``sample_weight``: one weight a row)."""
        X = as_matrix(X)
        multi, Y = as_target_rows(y, X.shape[0])
        sw = as_weights(sample_weight, X.shape[0])
        if not multi:
            self._run(X.shape[1], "learn_many", X, Y, sw)
            X, seen = _learned(X, Y, sw)
        else:
            self._run(X.shape[1], "_learn_many_multi", X, Y, sw)
            X, seen = _learned(X, _largest(Y), sw)
        if self._scale_rows is not _CHECKED:
            self._watch_scale(X, seen)


__all__ = ["MultiOutput"]
