"""NOGD: Nystrom Online Gradient Descent.

Lu, Hoi, Wang, Zhao, Liu (2016), *Large Scale Online Kernel Learning*, JMLR 17,
Algorithm 2; the first-order baseline of the PROS-N-KONS paper (sec. 5).
"""

from __future__ import annotations

from .. import _core
from .._wrapped import _RenamedAttribute
from ._declared import core_attr
from ._losses import ByLoss
from .base import Learner


class NOGD(ByLoss, Learner):  # type: ignore[override]  # task: by the loss
    """Kernel gradient descent on the first ``budget`` support points, then gradient descent in their Nystrom embedding.

    Stage 1: ``f(x) = sum_i alpha_i k(s_i, x)``; a round with a nonzero loss gradient
    stores ``x_t`` with ``alpha = -lr l'(f(x_t), y_t)`` until ``budget`` points are stored.
    At the next active round the support kernel matrix is eigendecomposed, the top
    ``rank`` eigenpairs give ``phi(x) = Lambda^{-1/2} V^T k_B(x)``, the expansion is carried
    over as ``w = Lambda^{1/2} V^T alpha`` (Lu et al.'s ``w = alpha pinv(M)``), and gradient
    descent continues on ``phi``: ``w <- w - lr l'(f(x_t), y_t) phi(x_t)``.

    Scale: the step ``lr`` is in units of the target: the defaults assume targets of order
    one (labels +-1 for classification) and inputs at distances of order the kernel's
    ``sigma`` (the adapters' ``scale=True``, ``docs/adapters.md``).

    Parameters
    ----------
    kernel : kernelstream.kernels.Kernel
    budget : int, default 100
        Number of support points ``B``.
    rank : int or None, default None
        Number of eigenpairs ``k``; ``None`` is Lu et al.'s ``round(0.2 B)``.
    lr : float, default 0.2
        Constant step size.
    loss : {"squared", "hinge", "squared_hinge", "logistic"}, default "squared"
    epsilon : float, default 0.0
        Squared loss only: no update when ``|f - y| <= epsilon`` (Lu et al.'s code uses 0.1).

    Examples
    --------
    >>> from kernelstream import NOGD, kernels
    >>> from kernelstream.datasets.synthetic import friedman_stream
    >>> X, y = friedman_stream(400, d=5, seed=2)
    >>> labels = (y > 0) * 2.0 - 1.0
    >>> model = NOGD(kernels.Gaussian(1.0), budget=20, loss="hinge")
    >>> errors = (model.progressive_predict(X, labels) * labels <= 0).mean()
    >>> model.n_support, model.embedded, model.learned_rank, round(float(errors), 2)
    (20, True, 4, 0.23)
    """

    _core_class = _core.NOGD

    @classmethod
    def _example(cls) -> dict:
        from ..kernels import Gaussian

        return dict(kernel=Gaussian(0.8), budget=10, rank=4, lr=0.3, epsilon=0.05)

    n_support = core_attr(int, "Number of stored support points.")

    embedded = core_attr(bool, "``True`` once the Nystrom embedding is built (stage 2).")

    #: Deprecated name of :attr:`learned_rank` (``rank`` is a parameter).
    rank = _RenamedAttribute("learned_rank", removed_in="0.2.0")

    learned_rank = core_attr(int, "Number of eigenpairs ``k`` kept at the transition.", core="rank")


__all__ = ["NOGD"]
