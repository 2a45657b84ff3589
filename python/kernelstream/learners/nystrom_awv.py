"""NystromAWV: PKAWV on a Nystrom dictionary grown by KORS leverage-score sampling.

Jezequel, Gaillard, Rudi (2019), sec. 3.2, Theorem 6, App. H Algorithm 2 (as
corrected in ``docs/choices.md``, PKAWV); KORS from Calandriello, Lazaric,
Valko (2017), App. A. The Rust core keeps a Cholesky factor of
``A = K_{t,m}^T K_{t,m} + lam K_{m,m}`` (a rank-one update per round, a bordering
when a point joins) and ``q = K_{t,m}^T Y`` incrementally: a round without insertion
costs O(m^2 + m d), independent of t. When a point joins, the whole past is
re-projected on the enlarged dictionary (no restart), which costs O(t (m + d)).

Growth: the dictionary size m follows the effective dimension of the data seen so
far (about ``d_eff(mu) log t`` points under KORS): on a stationary stream it levels
off, on a drifting stream it keeps growing and so does the time per round.
``max_dictionary`` caps it: once m reaches the cap, KORS still computes each
inclusion probability and consumes its coin flip, but adds nothing (the fixed stop of
B-KONS), so the time per round stays O(m^2 + m d). The cache used for insertions
and repairs keeps O(t (m + d)) numbers until then; at the cap (``gamma=1``) it is
dropped for a checkpoint of the factor and at most ``max(m, 64)`` kernel rows (what a
repair needs), so memory stays O(m^2 + m d) however long the stream.
"""

from __future__ import annotations

import numpy as np

from .. import _core
from .._wrapped import _RenamedAttribute
from ..errors import ParameterError
from ..samplers import Dictionary
from ._multi import MultiOutput


def _as_dictionary(dictionary):
    """A fixed dictionary as a C-contiguous float64 ``(m, d)`` array (the core checks that
    it is non-empty and finite)."""
    if dictionary is None:
        return None
    try:
        arr = np.asarray(dictionary, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ParameterError(f"dictionary must be a numeric (m, d) array: {exc}") from None
    if arr.ndim != 2:
        raise ParameterError(f"dictionary must be a non-empty (m, d) array, got shape {arr.shape}")
    return np.ascontiguousarray(arr)


class NystromAWV(MultiOutput):
    """PKAWV with Nystrom projections on a dictionary grown by KORS.

    Scale: the AWV learners' (``docs/adapters.md``, "Scale"): no intercept, so centred
    targets of order one; ``sigma`` of the order of the distances between inputs.

    Parameters
    ----------
    kernel : kernelstream.kernels.Kernel
    lam : float, default 1.0
        Ridge parameter ``lambda`` of the forecaster.
    mu, eps, beta : float, default 1.0, 0.5, 1.0
        KORS regularisation, accuracy and oversampling (the paper's experiments).
    kors_weights : {"sqrt", "inverse"}, default "sqrt"
        ``"sqrt"``: KORS as defined (weights ``1/sqrt(p)``); ``"inverse"``: the 2019
        paper's code (``1/p``), which grows a smaller dictionary.
    seed : int, default 0
        Seed of KORS's coin flips.
    ridge : bool, default False
        ``True``: "Projected-KRR" (no ``f(x_t)^2`` term).
    dictionary : array (m, d), optional
        A fixed dictionary (the "features known beforehand" variant, Cor. 8):
        no sampling; AWV on ``K_mm^{-1/2} k_m(x)``.
    max_dictionary : int, optional
        Largest KORS dictionary (None: unbounded, m grows with the effective
        dimension). At the cap no point is added any more (see the module notes).
    block_size : int, optional
        Rounds per block of ``progressive_predict`` and ``learn_many``: the rounds
        between two dictionary insertions run in blocks of up to ``B`` rows as
        matrix-matrix products (one pass over the Cholesky factor per block) with the
        same predictions and state as ``B`` single rounds up to rounding; ``None``
        chooses ``B`` from the dictionary size, ``1`` runs single rounds. A speed
        setting, not part of the state.
    gamma : float, default 1.0
        Forgetting factor in ``(0, 1]`` (discounted AWV, Jacobsen and Cutkosky 2024):
        round ``s`` weighs ``gamma^(t-s)``, with the regulariser refilled as in
        ``docs/choices.md`` ("Discounted AWV"); 1: none. With KORS, a point joining
        the dictionary gets a fresh regulariser and the discounted past
        (``O(t (d + m))`` as any insertion); between insertions a discounted round
        costs ``O(m^2 + m d)`` (``predict_one`` too), and runs of at least 8 rounds
        run in blocks (two rows of the block per round; ``block_size=None`` halves
        the undiscounted choice).

    Examples
    --------
    >>> from kernelstream import NystromAWV
    >>> from kernelstream.kernels import Gaussian
    >>> from kernelstream.datasets.synthetic import friedman_stream
    >>> X, y = friedman_stream(500, d=5, seed=6)
    >>> model = NystromAWV(Gaussian(2.0), lam=1.0, max_dictionary=30)
    >>> model.learn_many(X, y)
    >>> model.dim, model.learned_dictionary.points.shape, model.stats["refactorizations"]
    (30, (30, 5), 0)
    """

    _core_class = _core.NystromAWV
    has_predictive_std = True
    _converters = {"dictionary": _as_dictionary}
    _absent_params = {"gamma": 1.0}

    @classmethod
    def _example(cls) -> dict:
        from ..kernels import Gaussian

        return dict(kernel=Gaussian(0.8), lam=0.5, seed=3)

    #: Deprecated name of :attr:`learned_dictionary` (``dictionary`` is a parameter).
    dictionary = _RenamedAttribute("learned_dictionary", removed_in="0.2.0")

    @property
    def learned_dictionary(self) -> Dictionary:
        """The forecaster's dictionary: points, round indices, KORS probabilities and weights."""
        probs, weights = self._core.dictionary_probabilities_weights
        return Dictionary(
            np.asarray(self._core.dictionary_points),
            np.asarray(self._core.dictionary_indices, dtype=np.int64),
            np.asarray(probs, dtype=float),
            np.asarray(weights, dtype=float),
        )

    @property
    def stats(self) -> dict:
        """Counts of insertions and numerical repairs (refused insertions, refactorisations, jitters)."""
        return dict(self._core.stats)

    def alpha(self) -> np.ndarray:
        """``alpha = A_t^{-1} q_t`` after the last round (coefficients on the dictionary)."""
        return np.asarray(self._core.alpha())


__all__ = ["NystromAWV", "Dictionary"]
