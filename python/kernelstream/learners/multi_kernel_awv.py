"""MultiKernelAWV (VAW2 and its relatives), and the OGD baselines Raker and OMKL-GF.

Rokhlin & Gurtovaya (2025), *Random feature-based double Vovk-Azoury-Warmuth algorithm
for online multi-kernel learning*, sec. 3 (Theorems 2-3) and sec. 4 (``docs/choices.md``, VAW2). One RFF-VAW expert per kernel (independent features), combined online.
"""

from __future__ import annotations

import numpy as np

from .. import _core
from .._validation import as_row, real, whole
from ..errors import ParameterError
from ._declared import core_attr
from .base import Learner

#: The meta rules by name, read from the core's one table (``_core.aggregation_rules()``).
AGGREGATORS = tuple(r["name"] for r in _core.aggregation_rules())


def _clip(clip):
    """``clip`` as None or a pair of floats (the core checks the values)."""
    if clip is None:
        return None
    try:
        lo, hi = clip
    except (TypeError, ValueError):
        raise ParameterError(f"clip must be None or a pair (lo, hi), got {clip!r}") from None
    return (real("clip", lo), real("clip", hi))


class MultiKernelAWV(Learner):
    """One VAW expert on random Fourier features per kernel, combined online (VAW2 and relatives).

    Scale: the predictions are linear in ``y`` but have no intercept and shrink to 0 away
    from the data, so the defaults assume centred targets of order one; the kernels'
    bandwidths must bracket the distances between inputs (the VAW2 grid, ``sigma^2`` from
    0.01 to 100, suits inputs in ``[0, 1]^d``). The adapters' ``scale=True`` does both
    online (``docs/adapters.md``). The convex rules' defaults (``eta = 0.5``) assume labels
    in ``[0, 1]``.

    Parameters
    ----------
    kernels : list of kernels
        The dictionary (the paper's: :func:`kernelstream.kernels.vaw2_grid`). Each kernel
        gets its own independent draw of frequencies.
    n_features : int, default 50
        Random frequencies per kernel (``m``).
    lam : float, default 1.0
        Ridge parameter of every VAW (experts, and the meta level for ``"vaw"``).
    aggregator : {"vaw", "ewa", "aa", "boa", "mlpoly", "mlprod"}, default "vaw"
        The meta rule: ``"vaw"`` is VAW2 (a second VAW on the expert predictions, weights
        may be negative); the others are the convex rules of :mod:`kernelstream.aggregation`.
    clip : (lo, hi) or None, default None
        Clip the expert predictions to ``[lo, hi]`` before the meta rule (the experts still
        learn the raw labels). VAW2 (trunc) is ``aggregator="vaw", clip=(0, 1)``. Required
        for ``"aa"`` (its mixability range).
    seed : int, default 0
        Seed of the learner's generator: the features of every kernel, drawn in order.
    eta : float, default 0.5
        Learning rate of ``"ewa"`` (``1/2`` suits labels in ``[0, 1]``; the paper does not give it).
    gradient : bool, default True
        Linearised losses for ``"boa"``, ``"mlpoly"``, ``"mlprod"`` (opera's ``loss.gradient``).
    features : {"cos", "cossin"}, default "cos"
        Random-feature map, as in :class:`kernelstream.RFFAWV`.
    ridge : bool, default False
        Online ridge instead of VAW for the experts (the current point left out of the
        matrix), as in :class:`kernelstream.RFFAWV`.
    meta_ridge : bool or None, default None
        Online ridge instead of VAW at the meta level (``aggregator="vaw"`` only):
        ``y_hat_t = sum_{s<t} y_s z_s^T (lam I + sum_{s<t} z_s z_s^T)^{-1} z_t``. ``None``
        follows ``ridge`` for ``"vaw"`` (and is ``False`` for the other rules). The second
        author's public code is ``features="cossin", ridge=True`` (both levels).
    block_size : int, optional
        Rounds per block of ``progressive_predict``, ``learn_many`` and
        ``progressive_experts``: each expert plays a block of ``B`` rounds as
        matrix-matrix products (Woodbury identity), then the meta rule plays the ``B``
        rows in order (``"vaw"``: as blocks of its own, from 160 kernels on), with the same
        predictions as ``B`` single rounds up to rounding; ``None`` chooses ``B`` from the
        feature count, ``1`` runs single rounds. A speed setting, not part of the state.
    threads : int, default 0
        Threads running the experts in the whole-stream calls (0: one per core, or
        ``RAYON_NUM_THREADS``; 1: the calling thread). The results do not depend on it.
    gamma : float, default 1.0
        Forgetting factor of every expert (discounted VAW, as in
        :class:`kernelstream.RFFAWV`); ``1`` is no discounting.
    share : float, default 0.0
        Fixed Share rate of the meta rule (``"ewa"``, ``"boa"``, ``"mlpoly"``,
        ``"mlprod"``; :mod:`kernelstream.aggregation`): lets the meta level switch to the
        kernel that is best now. ``0`` is the plain rule.

    Examples
    --------
    >>> import numpy as np
    >>> from kernelstream import MultiKernelAWV
    >>> from kernelstream.kernels import Gaussian, Laplacian
    >>> rng = np.random.default_rng(0)
    >>> X = rng.uniform(-1, 1, size=(300, 2)); y = 0.5 + 0.4 * np.sin(3 * X[:, 0])
    >>> model = MultiKernelAWV([Gaussian(0.3), Gaussian(1.0), Laplacian(1.0)], n_features=30)
    >>> preds = model.progressive_predict(X, y)
    >>> model.weights.shape, model.dim
    ((3,), 90)
    >>> ewa = MultiKernelAWV([Gaussian(0.3), Gaussian(1.0)], aggregator="ewa", clip=(0, 1))
    >>> _ = ewa.progressive_predict(X, y); round(float(ewa.weights.sum()), 12)
    1.0
    """

    _core_class = _core.MultiKernelAWV
    has_predictive_std = True
    _converters = {"clip": _clip}

    @classmethod
    def _example(cls) -> dict:
        from ..kernels import Gaussian, Laplacian

        return dict(kernels=[Gaussian(0.3), Gaussian(1.0), Laplacian(1.0)], n_features=10, seed=1)

    _absent_params = {"gamma": 1.0, "share": 0.0}

    weights = core_attr(
        np.ndarray,
        "The current meta weights over the kernels.\n\n"
        'Convex rules: the probability vector the next round uses. ``"vaw"``: the ridge solution ``(lam I + sum z z^T)^{-1} sum y z`` of the meta VAW after the last round (signed, need not sum to 1).',
    )

    def expert_predictions(self, x) -> np.ndarray:
        """The raw (unclipped) expert predictions ``z_j(x)`` for ``x`` as the next round."""
        return self._core.expert_predictions(as_row(x))

    def progressive_experts(self, X, y) -> np.ndarray:
        """Like :meth:`progressive_predict`, but returns the raw expert predictions ``(n, N)``.

        Row t holds ``z_t``, the experts' predictions made before ``y[t]``. Any rule of
        :mod:`kernelstream.aggregation` run on ``Z`` (clipped as ``clip`` says) gives the
        predictions of the MultiKernelAWV with that aggregator and the same seed.
        """
        from .._validation import as_matrix, as_targets

        X = as_matrix(X)
        return self._core.progressive_experts(X, as_targets(y, X.shape[0]))

    def frequencies(self, j: int):
        """Frequencies ``(m, d)`` drawn for kernel ``j`` (``None`` before the first round)."""
        return self._core.frequencies(whole("j", j))

    def offsets(self, j: int):
        """Phases drawn for kernel ``j`` (``None`` before the first round)."""
        return self._core.offsets(whole("j", j))


class Raker(Learner):
    """Raker (Shen, Chen, Giannakis 2019): OGD experts on random features, exponential weights.

    The form run by the VAW2 paper's baselines (the OMKL-GF authors' code, as the VAW2 paper
    describes it in sec. 4): features ``[cos(Wx), sin(Wx)] / sqrt(m)`` per kernel, step
    ``eta_t = lr / sqrt(t)``, ridge ``reg``; the kernel weights decay with
    ``exp(-eta_t ((f_j - y)^2 + reg ||theta_j||^2))``.

    Scale: the step ``lr`` and the exponential weights are in units of the target: the
    defaults assume centred targets of order one, and kernel bandwidths of the order of the
    distances between inputs (``docs/adapters.md``; the adapters' ``scale=True``).

    Parameters
    ----------
    kernels : list of kernels
    n_features : int, default 50
    lr : float, default 0.1
    reg : float, default 1e-3
    seed : int, default 0

    Examples
    --------
    >>> from kernelstream import Raker, kernels
    >>> from kernelstream.datasets.synthetic import friedman_stream
    >>> r = Raker([kernels.Gaussian(0.5), kernels.Laplacian(2.0)], n_features=20, seed=1)
    >>> r.learn_many(*friedman_stream(300, d=5, seed=7))
    >>> r.n_seen, round(float(r.weights.sum()), 12), r.weights.shape
    (300, 1.0, (2,))
    """

    _core_class = _core.Raker

    @classmethod
    def _example(cls) -> dict:
        from ..kernels import Gaussian, Laplacian

        return dict(kernels=[Gaussian(0.5), Gaussian(2.0), Laplacian(1.0)], n_features=10, seed=5)

    weights = core_attr(np.ndarray, "Kernel weights the next round uses.")

    def frequencies(self, j: int):
        return self._core.frequencies(whole("j", j))


class OMKLGF(Learner):
    """OMKL-GF (Ghari & Shen 2023): Raker's experts with a sampled feedback graph.

    Each round only the kernels of a sampled subset predict and learn (the VAW2 paper,
    sec. 4). Choices the sources leave open, stated: the subset is the distinct kernels
    among ``n_samples`` draws (with replacement) from ``(1 - explore) w + explore / N``;
    inclusion probabilities ``q_j = 1 - (1 - p_j)^M``; updates importance-weighted by
    ``1 / max(q_j, 0.05)``; the subset of round t+1 is drawn at the end of round t, and is
    frozen after ``graph_rounds`` rounds. See ``src/learners/omkl_gf.rs``.

    Scale: as :class:`Raker`, the defaults assume centred targets of order one and kernel
    bandwidths of the order of the distances between inputs.

    Parameters
    ----------
    kernels : list of kernels
    n_features, lr, reg, seed : int, float, float, int, default 50, 0.1, 1e-3, 0
        As :class:`Raker`'s.
    n_samples : int, default 10
        Draws per graph (``M``).
    explore : float, default 0.1
        Uniform exploration mixed into the sampling distribution.
    graph_rounds : int, default 500

    Examples
    --------
    With one kernel sampled a round, the graph is one kernel, chosen anew each round
    until ``graph_rounds``:

    >>> from kernelstream import OMKLGF
    >>> from kernelstream.kernels import Gaussian
    >>> from kernelstream.datasets.synthetic import friedman_stream
    >>> X, y = friedman_stream(100, d=5, seed=8)
    >>> m = OMKLGF([Gaussian(s) for s in (0.5, 1.0, 2.0)], n_samples=1, graph_rounds=50)
    >>> m.learn_many(X, y); len(m.chosen), m.n_seen
    (1, 100)
    """

    _core_class = _core.OMKLGF
    _cli_name = "omkl-gf"

    @classmethod
    def _example(cls) -> dict:
        from ..kernels import Gaussian, Laplacian

        return dict(
            kernels=[Gaussian(0.5), Gaussian(2.0), Laplacian(1.0)],
            n_features=10,
            n_samples=2,
            graph_rounds=50,
            seed=6,
        )

    weights = core_attr(np.ndarray, "Kernel weights ``softmax(logw)``.")

    chosen = core_attr(
        list,
        "Kernels of the graph the next round uses (``None`` before the first round).",
        optional=True,
    )


__all__ = ["MultiKernelAWV", "Raker", "OMKLGF", "AGGREGATORS"]
