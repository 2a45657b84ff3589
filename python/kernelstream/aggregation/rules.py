"""The aggregation rules of the VAW2 paper (Rokhlin & Gurtovaya 2025, sec. 3-4;
``docs/choices.md``, VAW2), one small class each; the work is in ``src/aggregation/``."""

from __future__ import annotations

import numbers

import numpy as np

from .. import _core
from ..errors import ParameterError
from .base import Aggregator


class VAWMeta(Aggregator):
    """VAW on the expert predictions (the meta level of VAW2, Theorem 2).

    ``alpha_t = (lam I + sum_{s<=t} z_s z_s^T)^{-1} sum_{s<t} y_s z_s`` and
    ``y_hat_t = <alpha_t, z_t>``; signed weights, no simplex. ``weights`` is the ridge
    solution after the last round. ``ridge=True`` is online ridge instead: the current
    ``z_t`` is left out of the matrix (the second author's public code).

    Examples
    --------
    >>> from kernelstream.aggregation import VAWMeta
    >>> agg = VAWMeta(1, lam=1.0)
    >>> agg.predict([1.0]); agg.update([1.0], 1.0); round(agg.predict([1.0]), 12)
    0.0
    0.333333333333
    """

    _core_class = _core.VAWMeta


class _FixedShare(Aggregator):
    """A rule with a Fixed Share rate ``share``, a parameter added after states were
    saved without it: those states restore with ``share=0`` (the plain rule)."""

    _absent_params = {"share": 0.0}


class EWA(_FixedShare):
    """Exponentially weighted average with fixed rate ``eta`` (VAW-EWA, Theorem 3).

    ``w_{t,j} prop exp(-eta sum_{s<t} (z_{s,j} - y_s)^2)``: weights use past losses only
    (the paper's eq. (29) indexes them with round t's own label, a typo). Log-domain.

    ``share`` (Fixed Share, Herbster and Warmuth 1998): after each round the next weights
    ``p`` become ``(1 - share) p + share / N`` (the state is set to play them), so the
    rule can switch to the expert that is best now; ``0`` (default) is the plain rule
    (``docs/choices.md``, "Fixed Share").

    Examples
    --------
    >>> from kernelstream.aggregation import EWA
    >>> agg = EWA(2, eta=0.5)
    >>> agg.predict([0.0, 1.0])
    0.5
    >>> agg.update([0.0, 1.0], 1.0); [round(float(w), 6) for w in agg.weights]
    [0.377541, 0.622459]
    """

    _core_class = _core.EWA


class AggregatingAlgorithm(Aggregator):
    """Vovk's Aggregating Algorithm for the square loss on ``[lo, hi]`` (VAW-Aggr).

    Mixability rate ``eta = 2 / (hi - lo)^2``; predictions are clipped to ``[lo, hi]``;
    the output is the substitution function of the generalised prediction (Vovk's aggregating algorithm).

    Examples
    --------
    >>> from kernelstream.aggregation import AggregatingAlgorithm
    >>> aa = AggregatingAlgorithm(3, lo=0.0, hi=1.0)
    >>> round(aa.predict([0.3, 0.3, 0.3]), 12)
    0.3
    """

    _core_class = _core.AggregatingAlgorithm

    def _core_kwargs(self, p):
        for k in ("lo", "hi"):
            v = p[k]
            if isinstance(v, bool) or not isinstance(v, numbers.Real) or not np.isfinite(v):
                raise ParameterError(f"{k} must be a finite number, got {v!r}")
        if not p["lo"] < p["hi"]:
            raise ParameterError(f"need lo < hi, got lo={p['lo']!r}, hi={p['hi']!r}")
        return super()._core_kwargs(p)


class BOA(_FixedShare):
    """Bernstein Online Aggregation (Wintenberger 2017), opera 1.2.0/1.2.1 semantics.

    ``gradient=True`` (opera's default) uses the linearised square loss,
    ``r_j = 2 (y_hat - y)(y_hat - z_j)``.

    ``share``: Fixed Share, as :class:`EWA`'s (``0``, the default: the plain rule).

    Examples
    --------
    >>> from kernelstream.aggregation import BOA
    >>> b = BOA(3)
    >>> b.update([0.2, 0.5, 0.9], 0.5); round(float(b.weights.sum()), 12)
    1.0
    """

    _core_class = _core.BOA


class MLPoly(_FixedShare):
    """ML-Poly (Gaillard, Stoltz, van Erven 2014), opera's ``MLpol``.

    ``share``: Fixed Share, as :class:`EWA`'s (``0``, the default: the plain rule).

    Examples
    --------
    >>> from kernelstream.aggregation import MLPoly
    >>> m = MLPoly(2)
    >>> m.update([0.0, 1.0], 1.0); [float(w) for w in m.weights]
    [0.0, 1.0]
    """

    _core_class = _core.MLPoly


class MLProd(_FixedShare):
    """ML-Prod (Gaillard, Stoltz, van Erven 2014), opera's ``MLprod``.

    ``share``: Fixed Share, as :class:`EWA`'s (``0``, the default: the plain rule).

    Examples
    --------
    >>> from kernelstream.aggregation import MLProd
    >>> m = MLProd(2)
    >>> m.predict([0.0, 1.0])
    0.5
    """

    _core_class = _core.MLProd


__all__ = ["VAWMeta", "EWA", "AggregatingAlgorithm", "BOA", "MLPoly", "MLProd"]
