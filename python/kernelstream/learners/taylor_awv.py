"""TaylorAWV: PKAWV on the degree-M Taylor basis of the Gaussian kernel.

Jezequel, Gaillard, Rudi (2019), *Efficient online learning with kernels for
adversarial large scale problems*, sec. 3.1, Algorithm 1 and Thm. 4 (the multi-index
basis, see ``docs/choices.md``). The Rust core computes the ``C(M + d, d)`` features by
the parent recursion and runs the linear AWV engine on them.
"""

from __future__ import annotations

import numpy as np

from .. import _core
from .._validation import as_row
from ._declared import core_attr
from ._multi import MultiOutput


class TaylorAWV(MultiOutput):
    """Vovk-Azoury-Warmuth forecaster projected on the Taylor basis of the Gaussian kernel.

    Scale: the predictions are linear in ``y`` but have no intercept and shrink to 0 away
    from the data, so the defaults assume centred targets of order one; ``sigma`` must match
    the distances between inputs (the default ``sigma = 1`` suits standardized rows divided
    by ``sqrt(d)``). The adapters do both online by default (``docs/adapters.md``); used
    directly on data far from that scale, the learner warns once (``ScaleWarning``).
    The Taylor basis is accurate for inputs of norm ``R`` only with ``degree`` of order
    ``R^2 / sigma^2`` (:meth:`theoretical_degree`).

    Parameters
    ----------
    sigma : float, default 1.0
        Bandwidth of ``k(x, x') = exp(-||x - x'||^2 / (2 sigma^2))``.
    degree : int, default 2
        Taylor degree ``M``: the features are all monomials of total degree ``<= M``,
        ``r = C(M + d, d)`` of them.
    lam : float, default 1.0
        Ridge parameter ``lambda`` of the forecaster.
    ridge : bool, default False
        ``True`` predicts with ``A_{t-1}`` (online ridge regression, "Projected-KRR");
        ``False`` is AWV, with the current point in the covariance.
    block_size : int, optional
        Rounds per block of ``progressive_predict`` and ``learn_many``: a block of ``B``
        rounds runs as matrix-matrix products (Woodbury identity) with the same
        predictions as ``B`` single rounds up to rounding; ``None`` chooses ``B`` from the
        feature count, ``1`` runs single rounds. A speed setting, not part of the state.
    gamma : float, default 1.0
        Forgetting factor in ``(0, 1]``: round ``s`` weighs ``gamma^(t-s)`` in the covariance
        and the target vector at round ``t`` (discounted VAW, Jacobsen and Cutkosky 2024),
        so the learner tracks a drifting target over about ``1 / (1 - gamma)`` rounds.
        The regulariser is refilled one coordinate per round so that ``A_t >= lam
        gamma^(r-1) I`` (no wind-up; ``docs/choices.md``, "Discounted AWV"). ``1`` is the
        undiscounted learner, bit for bit.

    Examples
    --------
    >>> from kernelstream import TaylorAWV
    >>> from kernelstream.datasets.synthetic import friedman_stream
    >>> X, y = friedman_stream(400, d=5, seed=1)
    >>> model = TaylorAWV(sigma=2.0, degree=2)
    >>> preds = model.progressive_predict(X, y)
    >>> model.dim, float(preds[0]), round(model.regret_term, 2)  # dim = C(2 + 5, 5)
    (21, 0.0, 1.73)
    >>> round(float(((preds[200:] - y[200:]) ** 2).mean() / y[200:].var()), 2)
    0.33
    """

    _core_class = _core.TaylorAWV
    has_predictive_std = True

    @classmethod
    def _example(cls) -> dict:
        return dict(degree=3, lam=0.5)

    _absent_params = {"gamma": 1.0}
    _taylor_basis = True

    def features(self, x) -> np.ndarray:
        """The Taylor features ``phi(x) = (g_k(x))_{|k| <= M}`` of one input."""
        return self._core.features(as_row(x))

    last_leverage = core_attr(float, "``v_t^T A_t^{-1} v_t`` of the last learned round.")

    regret_term = core_attr(
        float,
        "``sum_t y_t^2 v_t^T A_t^{-1} v_t``: bounds the estimation part of the regret.",
    )

    @classmethod
    def theoretical_degree(cls, n: int, radius: float, sigma=None, lam=None) -> int:
        """The degree of the PKAWV paper's Theorem 4, ``ceil(8 R^2/sigma^2 v 2 log(n/(lam ^ 1)))``
        (``sigma``, ``lam``: None is the learner's default)."""
        import inspect
        import math

        declared = inspect.signature(cls).parameters
        sigma = declared["sigma"].default if sigma is None else sigma
        lam = declared["lam"].default if lam is None else lam
        return int(math.ceil(max(8 * radius**2 / sigma**2, 2 * math.log(n / min(lam, 1.0)))))


__all__ = ["TaylorAWV"]
