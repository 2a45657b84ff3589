"""KernelAWV: the exact kernel Vovk-Azoury-Warmuth forecaster.

Jezequel, Gaillard, Rudi (2019), *Efficient online learning with kernels for
adversarial large scale problems*, eq. (3) and Prop. 1.
With ``ridge=True`` it is online kernel ridge regression, the exact baseline of the
paper's real-data experiments. The Rust core keeps the Cholesky factor of
``K_t + lam I`` (bordered by one row per round, O(t^2)); its memory grows as
``4 t^2`` bytes, so it refuses streams longer than ``max_size``.
"""

from __future__ import annotations

from .. import _core
from ._declared import core_attr
from ._multi import MultiOutput


class KernelAWV(MultiOutput):
    """Exact Kernel-AWV (or online kernel ridge regression), O(t^2) per round.

    Scale: centred targets of order one and a kernel width of the order of the distances
    between inputs, as for every AWV learner (``docs/adapters.md``, "Scale").

    Parameters
    ----------
    kernel : kernelstream.kernels.Kernel
        The kernel, e.g. ``Gaussian(sigma=1.0)``.
    lam : float, default 1.0
        Ridge parameter ``lambda``.
    ridge : bool, default False
        ``True``: online kernel ridge regression ``k^T (K_{t-1} + lam I)^{-1} Y_{t-1}``;
        ``False``: AWV, which adds ``f(x_t)^2`` to the objective, i.e. the ridge
        prediction times ``lam / (lam + k(x_t, x_t) - k^T (K_{t-1} + lam I)^{-1} k)``.
    max_size : int, default 20000
        Largest number of rounds; memory is about ``4 max_size^2`` bytes. A stream
        that would go beyond raises :class:`kernelstream.InputError` before any change.

    Examples
    --------
    >>> from kernelstream import KernelAWV, kernels
    >>> from kernelstream.datasets.synthetic import friedman_stream
    >>> X, y = friedman_stream(300, d=5, noise=0.0, seed=4)
    >>> ridge = KernelAWV(kernels.Gaussian(1.0), lam=0.1, ridge=True)
    >>> ridge.learn_many(X[:299], y[:299])
    >>> ridge.dim, round(ridge.predict_one(X[299]), 3), round(float(y[299]), 3)
    (299, 0.194, 0.18)
    """

    _core_class = _core.KernelAWV
    has_predictive_std = True
    regret_term = core_attr(
        float,
        "``sum_t y_t^2 <A_t^{-1} phi(x_t), phi(x_t)>``: bounds the regret minus ``lam ||f||^2``.",
    )

    @classmethod
    def _example(cls) -> dict:
        from ..kernels import Gaussian

        # a small cap: the fuzzers run in a bounded address space
        return dict(kernel=Gaussian(1.0), lam=0.5, max_size=200)


__all__ = ["KernelAWV"]
