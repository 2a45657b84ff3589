"""Online calibration of classifier scores into probabilities.

:class:`SoftmaxCalibrator` is a multinomial logistic layer on the ``K`` scores of a
classifier, ``P(k | s) = softmax_k(a s)`` (one positive slope ``a``, so that the most
probable class is the highest score's; for two classes this is Platt scaling of the
score difference), fitted online by the
Online Newton Step (Hazan, Agarwal and Kale 2007): each row's probabilities are made
before its label is used. It runs in Rust (``src/calibration/softmax.rs``); the
classifier adapters (:mod:`kernelstream.adapters`) use it for ``predict_proba`` and
``predict_proba_one``. The model, the step and the measured calibration are in
``docs/classification.md``. With ``binning=True`` (the default) a second stage refines
the top-label confidence: a Bayesian average of histogram binnings, each bin's frequency
shrunk toward the first stage's probability (``src/calibration/binning.rs``).
"""

from __future__ import annotations

import numpy as np

from . import _core
from ._validation import _to_float_array, real
from ._wrapped import CoreWrapper
from .errors import InputError, ParameterError


def _scores(S) -> np.ndarray:
    arr = _to_float_array(S, "S")
    if arr.ndim == 1:
        arr = arr[None, :]
    if arr.ndim != 2 or arr.shape[1] == 0:
        raise InputError(f"S must be an (n, K) array of scores, got shape {arr.shape}")
    return arr


def _labels(y, n: int) -> np.ndarray:
    arr = np.asarray(y)
    if arr.ndim == 0:
        arr = arr[None]
    if arr.ndim != 1 or arr.shape[0] != n:
        raise InputError(f"y must hold one class index per row of S ({n}), got shape {arr.shape}")
    if arr.size and not np.issubdtype(arr.dtype, np.integer):
        as_int = arr.astype(np.int64) if np.issubdtype(arr.dtype, np.floating) else None
        if as_int is None or not np.array_equal(as_int, arr):
            raise InputError("y must hold class indices 0, 1, ..., K - 1 (integers)")
        arr = as_int
    return np.ascontiguousarray(arr, dtype=np.int64)


class SoftmaxCalibrator(CoreWrapper):
    """Online multinomial logistic calibration of ``K`` classifier scores.

    Round ``t``: ``p_t = softmax(a s_t)`` is predicted; once the class ``y_t`` is known,
    the gradient ``g_t = sum_k p_k s_k - s_{t, y_t}`` of ``-log p_{t, y_t}`` in ``a``
    gives the Online Newton Step ``A_t = A_{t-1} + gamma g_t^2`` (``A_0 = lam``),
    ``a <- max(a - g_t / A_t, 0.001)``. The number of classes is fixed by the first
    call and grows by :meth:`add_class`.

    The second stage (``binning``) takes ``p`` and its top class ``j``: with ``eps =
    1 / (2 (n + 1))`` it floors ``p~ = (1 - eps) p + eps / K``, takes ``c = p~_j`` and the
    log-odds ``v = ln(c (K - 1) / (1 - c))``, and averages six models of the event
    "label = j": the first stage (``c``) and five histograms of ``v`` (bin widths 2, 1,
    0.5, 0.25 and 0.125 up to 12, the last bin open), whose bin of ``n_b`` rounds, ``k_b``
    of them with label ``j``, predicts ``(k_b + 2 c) / (n_b + 2)`` (Zadrozny and Elkan's
    m-estimate, here toward the first stage); the models are weighted by the product of
    their past predictive probabilities (an online Bayesian average over binnings, as in
    Naeini, Cooper and Hauskrecht's BBQ). The top class gets the average ``q``, the others
    share ``1 - q`` in proportion to ``p~``. No probability is 0 or 1.

    Parameters
    ----------
    lam : float, default 0.1
        Prior curvature (a larger value moves the slope more slowly at first).
    gamma : float, default 0.3
        The ONS parameter: the step is ``1 / gamma`` in the metric ``A_t``.
        The defaults were chosen as ``docs/classification.md`` says.
    binning : bool, default True
        Add the second stage (no parameter of its own).

    Examples
    --------
    >>> import numpy as np
    >>> from kernelstream.calibration import SoftmaxCalibrator
    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(0, 3, 2000)
    >>> S = np.eye(3)[y] + 0.5 * rng.normal(size=(2000, 3))  # noisy one-hot scores
    >>> cal = SoftmaxCalibrator()
    >>> P = cal.progressive_proba(S, y)  # row t made before y[t] is used
    >>> bool(np.allclose(P.sum(axis=1), 1.0)), cal.n_classes
    (True, 3)
    >>> bool(cal.slope > 1.0)  # the learned slope sharpens the scores
    True
    """

    _core_class = _core.SoftmaxCalibrator

    def __init__(self, lam=0.1, gamma=0.3, binning=True):
        super().__init__(lam=lam, gamma=gamma, binning=binning)

    def _core_kwargs(self, params: dict) -> dict:
        binning = params.get("binning", True)
        if not isinstance(binning, (bool, np.bool_)):
            raise ParameterError(f"binning must be True or False, got {binning!r}")
        return {
            "lam": real("lam", params["lam"]),
            "gamma": real("gamma", params["gamma"]),
            "binning": bool(binning),
        }

    def predict_proba(self, S) -> np.ndarray:
        """Probabilities for each row of scores ``S`` (``(n, K)``); state unchanged."""
        return self._core.predict(_scores(S))

    def progressive_proba(self, S, y) -> np.ndarray:
        """Each row's probabilities before its class ``y[t]`` (an index) is used; then the
        update. All rows are checked before the first update."""
        S = _scores(S)
        return self._core.progressive(S, _labels(y, S.shape[0]))

    def learn(self, S, y) -> None:
        """The updates of :meth:`progressive_proba` (their probabilities dropped)."""
        self.progressive_proba(S, y)

    def add_class(self) -> None:
        """One more class (its scores come last from now on)."""
        self._core.add_class()

    @property
    def n_classes(self) -> int:
        """``K`` (0 before the first call)."""
        return int(self._core.n_classes)

    @property
    def n_seen(self) -> int:
        return int(self._core.n_seen)

    @property
    def slope(self) -> float:
        """The slope ``a``."""
        return float(self._core.slope)

    @property
    def model_weights(self):
        """The second stage's normalised model weights (the first stage, then the bin
        widths 2, 1, 0.5, 0.25, 0.125), or ``None`` without it."""
        w = self._core.model_weights
        return None if w is None else np.asarray(w)


__all__ = ["SoftmaxCalibrator"]
