"""PROS-N-KONS, CON-KONS and B-KONS.

Calandriello, Lazaric, Valko (2017), *Efficient Second-Order Online Kernel Learning
with Adaptive Embedding*, NeurIPS; sec. 3 (Figure 1) and sec. 5. The round follows
Figure 1 with the repairs listed in ``docs/choices.md`` (PROS-N-KONS).
"""

from __future__ import annotations

import numpy as np

from .. import _core
from .._validation import as_matrix, as_row, real
from ..samplers import Dictionary
from ._declared import core_attr
from ._losses import ByLoss
from .base import Learner


class ProsNKons(ByLoss, Learner):  # type: ignore[override]  # task: by the loss
    """Kernel online Newton step in a Nystrom embedding grown by KORS (PROS-N-KONS and variants).

    Each round KORS (ridge ``gamma``, accuracy ``eps``, oversampling ``beta``, weights
    ``1/sqrt(p)``) decides from ``x_t`` alone whether the point joins the dictionary. The
    embedding is ``phi(x) = L^{-1} k_P(x)`` with nested Cholesky coordinates over the
    dictionary points that add a direction (pivots with ``c^2 <= 1e-10 k(x, x)`` are
    skipped, so duplicates never make the system singular): ``dim`` is its rank,
    ``dictionary_size`` the number of KORS points. Between growths the learner runs the
    online Newton step ``v = w - eta A^{-1} g_{t-1}``, the ``A``-norm projection that clips the
    prediction to ``[-C, C]``, and ``A <- A + (curvature/2) g g^T`` (Sherman-Morrison).

    Scale: predictions are clipped to ``[-C, C]`` (``C = 1``), so the defaults assume
    targets in ``[-1, 1]`` (labels +-1 for classification; otherwise scale ``y`` or raise
    ``C``), and inputs at distances of order the kernel's ``sigma`` (the adapters'
    ``scale=True``, ``docs/adapters.md``).

    Parameters
    ----------
    kernel : kernelstream.kernels.Kernel
    alpha : float, default 1.0
        Initial regulariser ``A = alpha I`` of every epoch.
    gamma, eps, beta : float, default 1.0, 0.5, 1.0
        KORS parameters (the paper's experiments use ``eps = 0.5, beta = 1``).
    C : float, default 1.0
        Bound on the predictions (the feasible set ``|phi^T w| <= C``).
    curvature : float or None, default None
        ``sigma`` in ``A <- A + (sigma/2) g g^T``. ``None`` takes the loss's default
        (Asm. 2, Thm. 2): squared ``1/(8 C^2)`` (the paper's Thm 2); hinge ``1/(8 C^2)``
        (hinge has no valid curvature, Asm. 2 fails: a tuning constant);
        squared_hinge ``1/(2 (1 + C)^2)``; logistic ``min(1/(8 C), e^{-C})/2``.
        The paper states no value (Sec. 5; ``docs/choices.md``): pass it explicitly in experiments.
    eta : float, default 1.0
        Newton step multiplier, ``v = w - eta A^{-1} g`` (``1`` is the paper's step; the
        box of Figure 1 lists an ``eta_t`` it never uses; ``docs/choices.md``).
    loss : {"squared", "hinge", "squared_hinge", "logistic"}, default "squared"
        Classification losses require labels ``-1`` or ``+1``.
    on_growth : {"restart", "continue"}, default "restart"
        ``"restart"`` is PROS-N-KONS (``w = 0``, ``A = alpha I``, prediction 0 at every
        growth); ``"continue"`` is CON-KONS (``w`` and ``A`` carried to the new embedding:
        ``w <- [w; 0]``, ``A <- blockdiag(A, alpha)`` in Cholesky coordinates).
    budget : int or None, default None
        An integer makes B-KONS: KORS is no longer called once the dictionary holds
        ``budget`` points. Without it the dictionary (and the O(m^2) cost of a round)
        grows with the effective dimension of the data seen so far: it levels off on a
        stationary stream, keeps growing on a drifting one.
    reset_timing : {"same_round", "next_round"}, default "same_round"
        ``"same_round"`` resets in the round whose point KORS accepts (the paper's text
        and proofs); ``"next_round"`` reproduces Figure 1 literally (reset one round later).
    transport : {"literal", "step"}, default "literal"
        CON-KONS only. ``"literal"``: at a growth ``w_t`` is the mapped ``w_{t-1}`` and the
        prediction is ``clip(phi^T w, -C, C)`` (no Newton step, no projection);
        ``"step"``: the last gradient is mapped too and the normal step is taken.
    kors_weights : {"sqrt", "inverse"}, default "sqrt"
        KORS dictionary weights: ``1/sqrt(p)`` (``S = diag(1/sqrt(p))``, KORS as defined) or
        ``1/p`` (the paper's text "adds (t, 1/p)" read literally; smaller dictionaries).
    seed : int, default 0
        Seed of KORS's generator (one uniform draw per KORS call).

    Notes
    -----
    ``predict_one(x)`` is the prediction the next round would make: it plays KORS's draw
    on a copy, so it is 0 when KORS would accept ``x`` under ``"restart"``.

    Examples
    --------
    >>> import numpy as np
    >>> from kernelstream import ProsNKons
    >>> from kernelstream.kernels import Gaussian
    >>> rng = np.random.default_rng(0)
    >>> X = rng.uniform(0, 1, size=(2000, 2)); y = 0.5 + 0.4 * np.sin(4 * X[:, 0])
    >>> model = ProsNKons(Gaussian(0.5), alpha=1.0, gamma=1.0, seed=3)
    >>> p = model.progressive_predict(X, y)
    >>> model.dim <= model.dictionary_size == model.n_resets
    True
    >>> bool(np.mean((p[1000:] - y[1000:]) ** 2) < np.mean((y[1000:] - y.mean()) ** 2))
    True
    >>> con = ProsNKons(Gaussian(0.5), gamma=1.0, on_growth="continue", seed=3)  # CON-KONS
    >>> bool(np.mean((con.progressive_predict(X, y)[1000:] - y[1000:]) ** 2) < 1e-3)
    True
    """

    _core_class = _core.ProsNKons
    _doc_extras = ("batch_comparator",)

    @classmethod
    def _example(cls) -> dict:
        from ..kernels import Gaussian

        return dict(kernel=Gaussian(0.7), gamma=0.05, seed=4)

    dictionary_size = core_attr(
        int,
        "Number of KORS dictionary points ``j`` (``dim`` is the embedding rank ``r <= j``).",
    )

    kors_calls = core_attr(
        int,
        "Number of KORS calls so far (B-KONS stops calling KORS once its budget is reached).",
    )

    n_resets = core_attr(
        int,
        "Number of dictionary growths the learner has processed (restarts or transports).",
    )

    curvature_value = core_attr(
        float,
        "The curvature ``sigma`` in use (the loss default when ``curvature=None``).",
        core="curvature",
    )

    @property
    def dictionary(self) -> Dictionary:
        """The KORS dictionary: points, 0-based round indices, probabilities and weights."""
        pts, idx, p, w = self._core.dictionary()
        return Dictionary(
            np.asarray(pts),
            np.asarray(idx, dtype=np.int64),
            np.asarray(p, dtype=float),
            np.asarray(w, dtype=float),
        )

    def embed(self, x) -> np.ndarray:
        """``phi(x)`` in the current embedding (length ``dim``)."""
        return self._core.embed(as_row(x))

    def embed_many(self, X) -> np.ndarray:
        """``phi(x)`` for every row of ``X``, shape ``(n, dim)``."""
        return self._core.embed_many(as_matrix(X))

    weights = core_attr(np.ndarray, "``w_t`` (after the projection of the last round).")

    newton_point = core_attr(
        np.ndarray,
        "``v = w_t - eta A_t^{-1} g_t``: the point the next round projects.",
    )

    ainv = core_attr(np.ndarray, "``A_t^{-1}`` (``dim x dim``).")


def batch_comparator(learner: ProsNKons, X, y, alpha=None, task: str = "regression") -> float:
    """BATCH of the PROS-N-KONS paper: the best batch solution in the final KORS space ``H_J``.

    Spec sec. 2.9 (recommendation): ridge regression on ``phi_J(x_t)`` over all points,
    ``w = (Phi^T Phi + alpha I)^{-1} Phi^T y``, scored in-sample without the regulariser:
    the average squared loss (``task="regression"``) or the error rate in % with
    ``sign(0) = +1`` (``task="classification"``, a ridge classifier on the +-1 labels).
    ``alpha`` defaults to the learner's ``alpha``.
    """
    X = as_matrix(X)
    y = np.asarray(y, dtype=float)
    a = learner.get_params()["alpha"] if alpha is None else real("alpha", alpha)
    Phi = learner.embed_many(X)
    r = Phi.shape[1]
    if r == 0:
        pred = np.zeros(len(y))
    else:
        w = np.linalg.solve(Phi.T @ Phi + a * np.eye(r), Phi.T @ y)
        pred = Phi @ w
    if task == "regression":
        return float(np.mean((pred - y) ** 2))
    return float(100.0 * np.mean(np.where(pred >= 0, 1.0, -1.0) != y))


__all__ = ["ProsNKons", "batch_comparator"]
