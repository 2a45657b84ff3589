"""FOGD: Fourier Online Gradient Descent.

Lu, Hoi, Wang, Zhao, Liu (2016), *Large Scale Online Kernel Learning*, JMLR 17,
Algorithm 1; the first-order baseline of the PROS-N-KONS paper (sec. 5) and of the
PKAWV paper (sec. 4).
"""

from __future__ import annotations

import numpy as np

from .. import _core
from .._validation import as_row
from ..errors import InputError
from ._declared import core_attr
from ._losses import ByLoss
from .base import Learner


class FOGD(ByLoss, Learner):  # type: ignore[override]  # task: by the loss
    """Online gradient descent on random Fourier features.

    ``D = n_features`` frequencies ``u_i`` are drawn from the kernel's spectral density
    (``N(0, I/sigma^2)`` for the Gaussian kernel, Cauchy of scale ``1/sigma`` per
    coordinate for the Laplacian kernel), the features are
    ``z(x) = D^{-1/2} [cos(u_i.x)]_i ++ [sin(u_i.x)]_i`` (so ``z(x).z(x') ~ k(x, x')``),
    the prediction is ``f(x) = w.z(x)`` and the update ``w <- w - lr l'(f(x_t), y_t) z(x_t)``.

    Scale: the step ``lr`` is in units of the target: the defaults assume targets of order
    one (labels +-1 for classification) and inputs at distances of order ``sigma``
    (standardized rows divided by ``sqrt(d)`` for ``sigma = 1``; the adapters'
    ``scale=True``, ``docs/adapters.md``).

    With the squared loss, ``predict_std`` is a plug-in predictive standard deviation:
    ``sigma_hat``, the discounted root mean square of the past residuals (memory about
    200 rounds), the same for every input (a first-order learner has no posterior
    covariance; ``docs/choices.md``, "Predictive variance"). A classification loss has
    none.

    Parameters
    ----------
    kernel : kernelstream.kernels.Gaussian or Laplacian
    n_features : int, default 100
        Number of frequencies ``D``; the representation has ``dim = 2 D`` coordinates.
    lr : float, default 0.1
        Constant step size. Lu et al.'s code uses unnormalised features with step
        ``eta``: that is ``lr = eta * D`` here (``eta * D / 2`` for the squared loss,
        since ``l'(f) = 2 (f - y)``).
    loss : {"squared", "hinge", "squared_hinge", "logistic"}, default "squared"
        Classification losses require labels ``-1`` or ``+1``.
    epsilon : float, default 0.0
        Squared loss only: no update when ``|f - y| <= epsilon`` (Lu et al.'s code uses 0.1).
    seed : int, default 0

    Examples
    --------
    >>> from kernelstream import FOGD
    >>> from kernelstream.kernels import Gaussian
    >>> from kernelstream.datasets.synthetic import friedman_stream
    >>> model = FOGD(Gaussian(2.0), n_features=50, lr=0.2, seed=1)
    >>> p = model.progressive_predict(*friedman_stream(500, d=6, seed=3))
    >>> model.dim, model.frequencies.shape, float(p[0])
    (100, (50, 6), 0.0)
    """

    _core_class = _core.FOGD

    @property
    def has_predictive_std(self) -> bool:  # type: ignore[override]
        """The squared loss has one (``sigma_hat``); the classification losses none."""
        return self._params["loss"] == "squared"

    @classmethod
    def _example(cls) -> dict:
        from ..kernels import Gaussian

        return dict(kernel=Gaussian(0.8), n_features=20, lr=0.3, seed=2)

    def features(self, x):
        """``z(x)`` (``None`` before the first call fixes the input dimension)."""
        x = as_row(x)
        if self.input_dim is not None and x.shape[0] != self.input_dim:
            raise InputError(
                f"x has {x.shape[0]} features, the learner was fed {self.input_dim}-dimensional inputs"
            )
        return self._core.features(x)

    weights = core_attr(
        np.ndarray,
        "The weight vector ``w`` on ``z(x)`` (``None`` before the first call).",
        optional=True,
    )

    @property
    def frequencies(self):
        """The frequencies ``u_i`` as a ``(D, d)`` array (``None`` before the first call)."""
        f = self._core.frequencies
        return None if f is None else np.asarray(f).reshape(self._params["n_features"], -1)


__all__ = ["FOGD"]
