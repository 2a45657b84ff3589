"""OnlineProjection: the online projection (sieve) estimator of Zhang and Simon.

Zhang and Simon, *An Online Projection Estimator for Nonparametric Regression in
Reproducing Kernel Hilbert Spaces*: Algorithm 2 with the recursions of Appendix C
(eqs. (19)-(22), (74)), as corrected in ``docs/choices.md`` (Projection). Ordinary least
squares on the first ``N(n)`` kernel eigenfunctions, ``t_N = floor(c N^kappa)``; the Rust core
updates ``Phi = (Psi^T Psi)^{-1}`` by Sherman-Morrison per sample and by a Schur-complement
block update when the schedule switches columns on.
"""

from __future__ import annotations

import numbers

import numpy as np

from .. import _core
from .._validation import as_matrix, whole
from ..errors import ParameterError
from ._declared import core_attr
from .base import Learner

_PREFIX = {None: None, "none": None, "constant": 0, "linear": 1, "quadratic": 2}


def _prefix_degree(prefix):
    if isinstance(prefix, bool):
        raise ParameterError(
            f"prefix must be None, 'constant', 'linear', 'quadratic' or an int 0..10, got {prefix!r}"
        )
    if isinstance(prefix, numbers.Integral):
        return whole("prefix", prefix)  # the core checks the degree
    if isinstance(prefix, str) or prefix is None:
        if prefix not in _PREFIX:
            raise ParameterError(
                f"prefix must be None, 'constant', 'linear', 'quadratic' or an int, got {prefix!r}"
            )
        return _PREFIX[prefix]
    raise ParameterError(
        f"prefix must be None, 'constant', 'linear', 'quadratic' or an int, got {prefix!r}"
    )


class OnlineProjection(Learner):
    """Online projection estimator: least squares on a growing set of kernel eigenfunctions.

    Scale: least squares is equivariant in ``y`` (any target scale); inputs must lie in the
    basis domain (``[0, 1]^d`` for ``"sine"`` and ``"trig"``: rescale them, e.g. with a
    min-max scaler; of order ``1/a`` for ``"gaussian"``).

    Parameters
    ----------
    basis : {"trig", "sine", "gaussian"}, default "trig"
        ``"sine"``: ``sqrt(2) sin((2j-1) pi x / 2)``, eigenbasis of ``min(s, t)`` on [0, 1]
        (Examples 2, A.1); ``"trig"``: ``sqrt(2) sin(2 pi k x), sqrt(2) cos(2 pi k x)``, eigenbasis
        of ``-B4({s-t})/24`` on [0, 1] (Examples 1, A.2, additive); ``"gaussian"``: Hermite
        functions, eigenbasis of ``exp(-eps^2 (x-z)^2)`` under the measure ``exp(-a^2 x^2)``.
        For ``d > 1`` (not additive) the basis is the tensor product, ordered by decreasing
        product eigenvalue (ties: lexicographic multi-index).
    alpha : float, default 2.0
        Smoothness index (eigenvalues ``~ j^(-2 alpha / d)``); the schedule exponent is
        ``kappa = (2 alpha + d) / d`` (``2 alpha + 1`` for the additive model).
    c : float, default 1.0
        Schedule constant: the N-th unit is switched on at ``n = floor(c N^kappa)``.
    prefix : None, "constant", "linear", "quadratic" or int, default None
        Always-on polynomial columns (not counted in ``N``): a global intercept, plus shifted
        Legendre polynomials of degree ``1..m`` of every coordinate (``"quadratic"`` spans
        ``1, x, x^2``: Example A.2).
    additive : bool, default False
        Additive model (sec. 5, Appendix D): each unit adds the next function of every coordinate.
    count : {"function", "pair"}, default "function"
        What ``N`` counts for the trig basis: single functions (sin, then cos, of each
        frequency) or sin/cos pairs.
    cos_first : bool, default False
        Trig basis: cosine before sine within a frequency.
    a, eps : float, default 1.0
        Gaussian basis: measure scale and kernel shape.
    refresh : bool, default True
        Recompute ``Phi`` from the stored Gram matrix at every addition step (drift guard).
    tol : float, default 1e-6
        Relative pivot tolerance of the warm-up and Schur-complement guards: ``Phi`` is formed
        only when every Cholesky pivot of the Gram matrix (or of the Schur complement) is at
        least ``tol`` times its diagonal entry; otherwise the learner stays in (or returns to)
        the exact warm-up, which solves the least-squares problem by an eigen-decomposition
        (minimum-norm solution) each round.

    Notes
    -----
    ``dim`` is the number of active columns ``p`` (prefix included). Inputs must lie in the
    basis domain ([0, 1] for sine and trig); other inputs raise ``InputError``. All past
    inputs are stored (column additions need them): memory is O(n d + p^2).

    Examples
    --------
    >>> import numpy as np
    >>> from kernelstream import OnlineProjection
    >>> rng = np.random.default_rng(0)
    >>> X = rng.uniform(0, 1, size=(2000, 1))
    >>> y = np.cos(2 * np.pi * X[:, 0]) + 0.1 * rng.standard_normal(2000)
    >>> model = OnlineProjection(basis="trig", alpha=2.0, c=0.2)
    >>> preds = model.progressive_predict(X, y)
    >>> model.dim, model.active_basis[:3]
    (6, ['trig[1]', 'trig[2]', 'trig[3]'])
    >>> bool(abs(model.predict_one([0.0]) - 1.0) < 0.05)
    True
    """

    _core_class = _core.OnlineProjection
    _converters = {"prefix": _prefix_degree}
    _example_d = 1

    @classmethod
    def _example(cls) -> dict:
        return dict(basis="sine", alpha=1.0, c=0.5)

    coefficients = core_attr(
        np.ndarray,
        "Least-squares coefficients ``theta`` of the active columns.",
    )

    @property
    def active_basis(self) -> list:
        """Descriptions of the active columns, in order (e.g. ``'1'``, ``'P1(x0)'``, ``'trig[3]'``)."""
        return list(self._core.active_basis)

    n_units = core_attr(
        int,
        "Scheduled units switched on (the paper's ``N``; prefix columns excluded).",
    )

    is_ready = core_attr(
        bool,
        "False during the exact warm-up (Gram matrix singular), True once ``Phi`` exists.",
    )

    @property
    def counters(self) -> dict:
        """Diagnostics: warm-up initialisations, drift refreshes, Schur-guard fallbacks."""
        i, r, g = self._core.counters
        return {"inits": i, "refreshes": r, "guard_fallbacks": g}

    phi = core_attr(np.ndarray, "``Phi = (Psi^T Psi)^{-1}`` (empty during the warm-up).")

    gram = core_attr(np.ndarray, "The stored Gram matrix ``Psi^T Psi`` of the active columns.")

    def basis_matrix(self, X) -> np.ndarray:
        """Design matrix ``Psi[i, j] = psi_j(X[i])`` of the active columns."""
        return self._core.basis_matrix(as_matrix(X))

    @staticmethod
    def switch_on_index(c: float, kappa: float, N: int) -> int:
        """``t_N = floor(c N^kappa)`` (with the same rounding guard as the core)."""
        return int(np.floor(c * float(N) ** kappa * (1 + 1e-12)))


__all__ = ["OnlineProjection"]
