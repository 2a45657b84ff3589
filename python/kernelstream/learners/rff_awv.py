"""RFFAWV: the Vovk-Azoury-Warmuth forecaster on random Fourier features of one kernel.

Rokhlin & Gurtovaya (2025), *Random feature-based double Vovk-Azoury-Warmuth algorithm
for online multi-kernel learning*, sec. 2 (eqs. 3-5, 8-12).
The features are drawn once, from ``seed``, when the input dimension becomes known.
"""

from __future__ import annotations

import numpy as np

from .. import _core
from .._validation import as_row
from .._wrapped import _RenamedAttribute
from ._declared import core_attr
from ._multi import MultiOutput


class RFFAWV(MultiOutput):
    """VAW (AWV) forecaster on ``m`` random Fourier features of a Gaussian or Laplacian kernel.

    Scale: as :class:`kernelstream.TaylorAWV`'s (``docs/adapters.md``, "Scale"): centred
    targets of order one, a kernel width of the order of the distances between inputs.

    Parameters
    ----------
    kernel : kernelstream.kernels.Gaussian or Laplacian
        Gaussian frequencies are normal with standard deviation ``1/sigma``; Laplacian
        frequencies are Cauchy with scale ``1/sigma`` (VAW2 paper, eqs. 3-4).
    n_features : int, default 50
        Number ``m`` of random frequencies.
    lam : float, default 1.0
        Ridge parameter of the forecaster.
    features : {"cos", "cossin"}, default "cos"
        ``"cos"``: ``sqrt(2) cos(w.x + b)``, ``m`` features, unnormalised (the paper's
        analysis); ``"cossin"``: ``[cos(w.x), sin(w.x)] / sqrt(m)``, ``2m`` features.
    seed : int, default 0
        Seed of the learner's random generator (the frequencies).
    ridge : bool, default False
        ``False``: VAW, ``w_t = (lam I + sum_{s<=t} phi_s phi_s^T)^{-1} sum_{s<t} y_s phi_s``
        (the current point in the matrix; the paper's forecaster). ``True``: online ridge,
        ``y_hat_t = sum_{s<t} y_s phi_s^T (lam I + sum_{s<t} phi_s phi_s^T)^{-1} phi_t``
        (the forecaster of the second author's public code), as in
        :class:`kernelstream.TaylorAWV`.
    block_size : int, optional
        Rounds per block of the whole-stream calls, as :class:`kernelstream.TaylorAWV`'s
        (``None``: chosen from the feature count; a speed setting, not part of the state).
    gamma : float, default 1.0
        Forgetting factor in ``(0, 1]`` (discounted VAW), as :class:`kernelstream.TaylorAWV`'s.

    Examples
    --------
    >>> from kernelstream import RFFAWV
    >>> from kernelstream.kernels import Laplacian
    >>> from kernelstream.datasets.synthetic import friedman_stream
    >>> model = RFFAWV(Laplacian(3.0), n_features=40, features="cossin", seed=1)
    >>> model.learn_many(*friedman_stream(300, d=5, seed=5))
    >>> model.dim, model.frequencies.shape, model.weights.shape
    (80, (40, 5), (80,))
    """

    _core_class = _core.RFFAWV
    has_predictive_std = True
    _cli_name = "rff-awv"

    @classmethod
    def _example(cls) -> dict:
        from ..kernels import Gaussian

        return dict(kernel=Gaussian(0.7), n_features=20, seed=3)

    _absent_params = {"gamma": 1.0}

    frequencies = core_attr(
        np.ndarray,
        "The drawn frequencies, an ``(m, d)`` array (``None`` before the first round).",
        optional=True,
    )

    offsets = core_attr(
        np.ndarray,
        'The drawn phases ``b`` (``"cos"`` features; empty for ``"cossin"``; ``None`` before the first round).',
        optional=True,
    )

    weights = core_attr(
        np.ndarray,
        "The ridge weights ``A_t^{-1} b_t`` after the last round (``None`` before the first).",
        optional=True,
    )

    #: Deprecated name of :meth:`random_features` (``features`` is a parameter).
    features = _RenamedAttribute("random_features", removed_in="0.2.0")

    def random_features(self, x) -> np.ndarray:
        """The random features ``Phi(x)`` (``None`` before the first round)."""
        return self._core.features(as_row(x))


__all__ = ["RFFAWV"]
