"""The learner protocol of the API contract, shared by every learner.

A learner is a thin Python object around a Rust core object (``self._core``):
this class converts inputs (:mod:`kernelstream._validation`), delegates the work,
and implements ``get_params`` and pickling once for everybody. Subclasses set
``_core_class``; a subclass that writes no ``__init__`` takes the parameters the core
declares for it (:mod:`kernelstream.learners._declared`), and ``_core_kwargs(params)``
converts them by their declared kinds unless the subclass writes its own; see
:class:`kernelstream.AutoKernel` for a face that holds only its docstring and logic.
"""

from __future__ import annotations

import copy
import warnings
from typing import TYPE_CHECKING, Any

import numpy as np

from .._validation import as_label, as_matrix, as_row, as_targets, as_weight, as_weights
from .._wrapped import PICKLE_FORMAT_VERSION, CoreWrapper
from ..errors import InputError, ScaleWarning
from . import _declared, _scale_check
from ._declared import core_attr

_CHECKED = ()  # `_scale_rows` once the scale check is done (or not wanted)


def _learned(X: np.ndarray, y: np.ndarray, sw) -> tuple:
    """The rows of ``(X, y)`` a weighted call learned (weight > 0; all without weights)."""
    if sw is None:
        return X, y
    keep = sw > 0.0
    return X[keep], y[keep]


class Learner(CoreWrapper):
    """Base class of all online learners (regression on ``y``, or ``-1/+1`` labels)."""

    _core_class: Any = None
    #: ``"regression"`` or ``"classification"`` (for losses that need +-1 labels).
    task = "regression"
    #: the first rows and targets learned, kept for the scale check until it is done
    #: (``None``: none yet; ``_CHECKED``: done). Replaced, never mutated, so copies share it.
    _scale_rows: Any = None
    #: the Taylor basis is centred at the origin: the scale check also looks at row norms
    _taylor_basis = False
    #: whether :meth:`predict_std` is available (the AWV-family regressors and their
    #: mixtures: ``docs/uncertainty.md``)
    has_predictive_std = False

    # -- what the readers of the core's learner table (``_core.registry()``: the command
    #    line, the test zoo, the fuzzers, the benchmarks) need beyond it ------------------
    #: the command line's ``--learner`` name (None: the class name in kebab case)
    _cli_name: Any = None
    #: the input width of the rows :meth:`_example` is run on
    _example_d = 3
    #: names of the learner's module documented beside it in the API reference
    _doc_extras: tuple = ()
    #: scales its data itself (the command line's ``--scale auto`` leaves it raw)
    _scales_itself = False

    # -- what a face adds to its declared parameters (``_declared``) --------------------
    #: ``{name: function}``: the core's form of a parameter whose kind says too little
    #: (a fixed dictionary, a prefix given by name)
    _converters: dict = {}
    #: ``{name: function}``: the form ``get_params`` keeps a parameter in, when not the
    #: value passed
    _keep: dict = {}
    #: the name of the constructor's ``**keywords`` beyond the declared parameters
    _more_params: Any = None

    if TYPE_CHECKING:  # the constructor a face derives from its declaration (at run time)

        def __init__(self, *args: Any, **kwargs: Any) -> None: ...

    def __init_subclass__(cls, **kwargs):
        # A face without an __init__ of its own: the one its core's declaration gives.
        own = cls.__dict__
        if "__init__" not in own and own.get("_core_class") is not None:
            if _declared.specs(cls._core_class.__name__):
                cls.__init__ = _declared.constructor(cls)
        super().__init_subclass__(**kwargs)

    def _core_kwargs(self, params: dict) -> dict:
        """The core's keyword arguments: each declared parameter converted by its kind
        (the core checks the values)."""
        return _declared.core_kwargs(self._core_class.__name__, params, self._converters)

    @classmethod
    def _example(cls) -> dict:
        """Keyword arguments of a small instance (its required parameters, small sizes),
        the one the test zoo, the fuzzers and the benchmarks build first; ``{}``: the
        defaults."""
        return {}

    # -- rows that grow (docs/streams.md, "Rows that grow") ----------------------
    def _wider(self, width: int) -> bool:
        d0 = self._core.input_dim
        return d0 is not None and width > d0

    def _run(self, width: int, name: str, *args):
        """``self._core.<name>(*args)`` on rows of ``width`` inputs: a learner fed fewer
        is first widened exactly (the learner fed every past row extended by zeros; an
        ``InputError`` where that is not exact), and put back if the call then fails
        before learning a row."""
        if not self._wider(width):
            return getattr(self._core, name)(*args)
        before = copy.copy(self._core)
        self._core._widen(int(width))
        try:
            return getattr(self._core, name)(*args)
        except BaseException:
            if self._core.n_seen == before.n_seen:
                self._core = before
            raise

    def _pure(self, width: int, name: str, *args):
        """``self._core.<name>(*args)`` (a prediction, state unchanged) on rows of
        ``width`` inputs: with more inputs than the learner was fed, the prediction of
        the learner widened exactly, computed on a copy."""
        core = self._core
        if self._wider(width):
            core = copy.copy(core)
            core._widen(int(width))
        return getattr(core, name)(*args)

    # -- the protocol -------------------------------------------------------
    def predict_one(self, x, return_std: bool = False):
        """Prediction for ``x`` as the next round (pure: the state does not change).

        With ``return_std=True``, ``(prediction, std)``: the predictive standard deviation
        too (learners with ``has_predictive_std``; NaN before any noise estimate).
        """
        if return_std:
            x = as_row(x)
            mean, std = self._pure(x.shape[0], "predict_std_many", x[None, :])
            return float(mean[0]), float(std[0])
        # The serving loop's case (a float64 row) in one call; None: convert here.
        p = self._serve_predict(x)
        if p is None:
            x = as_row(x)
            return self._pure(x.shape[0], "predict_one", x)
        return p

    def _serve_predict(self, x):
        """The serving loop's prediction of ``x`` (a float64 row of the learner's width) in
        one call; ``None``: not that case (convert here), or a wider row the learner can
        take (the widening path)."""
        try:
            return self._core._serve_predict(x)
        except InputError:
            if not self._wider(np.size(x)):
                raise
            return None

    @staticmethod
    def _weight(w) -> float:
        """The sample weight ``w`` as a float (a float passes as it is)."""
        return w if type(w) is float else as_weight(w)

    def _serve_learn(self, x, y, w: float) -> bool:
        """The serving loop's round (a float64 row of the learner's width, a float
        target) in one call, once the scale check is done; False: nothing done (convert
        in the caller; a wider row the learner can take: the widening path)."""
        try:
            return self._scale_rows is _CHECKED and self._core._serve_learn(x, y, w)
        except InputError:
            if not self._wider(np.size(x)):
                raise
            return False

    def predict_std(self, X) -> np.ndarray:
        """The predictive standard deviation of each row of ``X`` as the next round
        (state unchanged): ``sigma_hat sqrt(1 + phi(x)^T A^-1 phi(x))``, see
        ``docs/uncertainty.md``. A ``ParameterError`` for a learner without one."""
        X = as_matrix(X)
        return self._pure(X.shape[1], "predict_std_many", X)[1]

    def predict_many_std(self, X) -> tuple:
        """``(predictions, stds)`` of the rows of ``X`` as the next round (state unchanged)."""
        X = as_matrix(X)
        return self._pure(X.shape[1], "predict_std_many", X)

    def progressive_predict_std(self, X, y, return_noise: bool = False) -> tuple:
        """:meth:`progressive_predict` with the predictive standard deviation of each
        round, made (like the prediction) before its label: ``(predictions, stds)``;
        with ``return_noise``, the noise level of each round too (:attr:`noise_std`)."""
        X = as_matrix(X)
        y = as_targets(y, X.shape[0])
        preds, stds, noise = self._run(X.shape[1], "progressive_predict_std", X, y)
        if self._scale_rows is not _CHECKED:
            self._watch_scale(X, y)
        return (preds, stds, noise) if return_noise else (preds, stds)

    noise_std = core_attr(
        float,
        "The noise level ``sigma_hat`` behind :meth:`predict_std` (the same for every input; NaN before an estimate exists; ``None`` for a learner without one).",
        optional=True,
    )

    def learn_one(self, x, y, w: float = 1.0) -> None:
        """Reveal the label ``y`` of ``x`` and update.

        ``w`` is the sample weight, a finite number ``>= 0`` (docs/choices.md, "Sample
        weights"): the round's loss counts ``w`` times; ``w = 0`` learns nothing.
        """
        w = self._weight(w)
        if self._serve_learn(x, y, w):
            return
        x, y = as_row(x), as_label(y)
        self._run(x.shape[0], "learn_one", x, y, w)
        if self._scale_rows is not _CHECKED and w > 0.0:
            self._watch_scale(x[None, :], np.array([y]))

    def progressive_predict(self, X, y, sample_weight=None) -> np.ndarray:
        """Run the online protocol over the rows of ``X`` in order (in Rust, GIL released).

        The t-th output is the prediction made before ``y[t]`` was seen; the learner then
        learns ``(X[t], y[t])``, so the state moves on. ``sample_weight``: one finite
        weight ``>= 0`` a row (``None``: each row counts once; docs/choices.md, "Sample
        weights"); a row of weight 0 is predicted and not learned.
        """
        X = as_matrix(X)
        y = as_targets(y, X.shape[0])
        sw = as_weights(sample_weight, X.shape[0])
        out = self._run(X.shape[1], "progressive_predict", X, y, sw)
        if self._scale_rows is not _CHECKED:
            self._watch_scale(*_learned(X, y, sw))
        return out

    def predict_many(self, X) -> np.ndarray:
        """``predict_one`` for each row of ``X``; the state does not change."""
        X = as_matrix(X)
        return self._pure(X.shape[1], "predict_many", X)

    def learn_many(self, X, y, sample_weight=None) -> None:
        """Learn the rows of ``X`` in order (equals a loop of ``learn_one``; with
        ``sample_weight``, of ``learn_one(x, y, w)``).

        Examples
        --------
        For the AWV family an integer weight is the row learned that many times
        (docs/choices.md, "Sample weights"):

        >>> import numpy as np
        >>> from kernelstream import TaylorAWV
        >>> X = np.array([[0.1, 0.2], [0.5, -0.3], [-0.4, 0.8]])
        >>> y = np.array([0.3, -0.2, 0.5])
        >>> weighted, repeated = TaylorAWV(degree=2), TaylorAWV(degree=2)
        >>> weighted.learn_many(X, y, sample_weight=[2.0, 0.0, 1.0])
        >>> repeated.learn_many(X[[0, 0, 2]], y[[0, 0, 2]])
        >>> bool(np.allclose(weighted.predict_many(X), repeated.predict_many(X), atol=1e-12))
        True
        >>> weighted.n_seen  # rows learned (the zero-weight row is not)
        2
        """
        X = as_matrix(X)
        y = as_targets(y, X.shape[0])
        sw = as_weights(sample_weight, X.shape[0])
        self._run(X.shape[1], "learn_many", X, y, sw)
        if self._scale_rows is not _CHECKED:
            self._watch_scale(*_learned(X, y, sw))

    # -- the scale check (kernelstream.ScaleWarning, learners/_scale_check.py) -------
    def _kernel_widths(self) -> list:
        """The widths ``sigma`` of the learner's kernels (empty: nothing to check)."""
        p = self._params
        if "sigma" in p:
            return [float(p["sigma"])]
        from ..kernels import as_kernel

        kernels = [p["kernel"]] if "kernel" in p else list(p.get("kernels", ()))
        return [float(k.sigma) for k in map(as_kernel, kernels) if hasattr(k, "sigma")]

    def _watch_scale(self, X: np.ndarray, y: np.ndarray) -> None:
        """After learning the rows ``X``: check the first rows of the stream, warn once."""
        rows = self._scale_rows
        if rows is None and self.n_seen != X.shape[0]:
            self._scale_rows = _CHECKED  # restored mid-stream: its first rows are gone
            return
        need = _scale_check.N_ROWS - (0 if rows is None else rows[0].shape[0])
        if rows is None:
            rows = (X[:need].copy(), y[:need].copy())
        else:
            rows = (np.vstack([rows[0], X[:need]]), np.concatenate([rows[1], y[:need]]))
        widths = self._kernel_widths()
        problems = (
            _scale_check.scale_problems(
                rows[0], rows[1], widths, self._taylor_basis, self.task == "regression"
            )
            if widths
            else []
        )
        done = bool(problems) or not widths or rows[0].shape[0] >= _scale_check.N_ROWS
        self._scale_rows = _CHECKED if done else rows
        if problems:
            warnings.warn(
                _scale_check.advice(type(self).__name__, problems), ScaleWarning, stacklevel=3
            )

    n_seen = core_attr(int, "Rounds learned so far.")

    dim = core_attr(int, "Current dimension of the learner's representation.")

    input_dim = core_attr(
        int,
        "Input dimension ``d`` fixed by the first call (``None`` before).",
        optional=True,
    )


__all__ = ["Learner", "PICKLE_FORMAT_VERSION"]
