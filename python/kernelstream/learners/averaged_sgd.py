"""AveragedKernelSGD: averaged functional stochastic gradient descent.

The competitor of Zhang and Simon's experiments (Appendix E.1, eqs. (87)-(88), after
Dieuleveut and Bach 2016).
"""

from __future__ import annotations

import numpy as np

from .. import _core
from .._validation import as_row
from ._declared import core_attr
from .base import Learner


class AveragedKernelSGD(Learner):
    """Averaged functional SGD: ``f~_n = f~_{n-1} + gamma_n (Y_n - f~_{n-1}(X_n)) K(X_n, .)``.

    The prediction is the Polyak-Ruppert average ``f^_n = (1/(n+1)) sum_{k=0}^n f~_k``
    (``f~_0 = 0`` included), with ``gamma_n = gamma0 n^(-zeta)``, ``n`` the iteration index.
    O(n) kernel evaluations per round.

    Scale: the iterates are linear in ``y`` (any target scale); inputs must lie in the
    kernel's domain (``[0, 1]^d`` for ``Min`` and ``BernoulliPeriodic``), and ``gamma0``
    must suit the kernel's magnitude (the paper's examples: ``gamma0 = 5`` for ``Min``,
    ``128`` for ``BernoulliPeriodic``).

    Parameters
    ----------
    kernel : kernelstream.kernels.Kernel
        E.g. ``BernoulliPeriodic()`` (Example 1, ``gamma0=128``) or ``Min()`` (Example 2, ``gamma0=5``).
    gamma0 : float, default 1.0
        Step constant.
    zeta : float, default 0.5
        Step exponent.

    Examples
    --------
    Example 2 of Zhang and Simon (the ``Min`` kernel, ``gamma0 = 5``):

    >>> from kernelstream import AveragedKernelSGD
    >>> from kernelstream.kernels import Min
    >>> from kernelstream.datasets.synthetic import example2
    >>> X, y = example2(500, seed=0)
    >>> model = AveragedKernelSGD(Min(), gamma0=5.0)
    >>> model.learn_many(X, y)
    >>> model.dim, model.coefficients.shape, round(model.predict_one([0.5]), 2)
    (500, (500,), 0.44)
    """

    _core_class = _core.AveragedKernelSGD
    _cli_name = "averaged-sgd"
    _example_d = 2

    @classmethod
    def _example(cls) -> dict:
        from ..kernels import Min

        return dict(kernel=Min(), gamma0=2.0)

    coefficients = core_attr(
        np.ndarray,
        "``a_i`` of the un-averaged iterate ``f~_n = sum_i a_i K(X_i, .)``.",
    )

    def predict_last(self, x) -> float:
        """The un-averaged iterate ``f~_n(x)``."""
        return float(self._core.predict_last(as_row(x)))


__all__ = ["AveragedKernelSGD"]
