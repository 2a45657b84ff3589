"""AutoKernel: a learner that needs no kernel width and no regularisation.

A :class:`~kernelstream.Mixture` of kernel experts (PKAWV's Taylor features,
Jezequel et al. 2019 sec. 3.1, for low dimension; random Fourier features, VAW2
paper eq. (8), otherwise; PKAWV on the Nystrom dictionary of the warm-up rows,
sec. 3.2) whose widths and ridge parameters are multiples of the
stream's own scale, estimated on a short warm-up that is itself part of the stream.
The method and its cost are described in ``docs/autokernel.md``; the defaults were
chosen as that page says.
"""

from __future__ import annotations

import numpy as np

from .. import _core
from .._validation import as_row
from ._declared import core_attr
from ._multi import MultiOutput
from .mixture import MixtureTrace, traced_run


class AutoKernel(MultiOutput):
    """Online kernel regression with widths and regularisations chosen from the data.

    Warm-up (``warmup`` rounds, predicting with kernel ridge regression on the
    standardised rows seen so far): then the per-feature mean and spread, the
    target's, and ``rho``, the median distance between standardised warm-up points,
    are fixed; one VAW expert per pair ``(c, lam)`` in ``widths x lams`` uses the
    Gaussian kernel of width ``c * rho``; one PKAWV expert per pair in
    ``nystrom_widths x nystrom_lams`` uses the Nystrom dictionary of the
    standardised warm-up rows (kernels centred on past points: local structure);
    the warm-up rows are replayed through the experts and the rule; the rest of the
    stream runs through the mixture.
    Predictions are in the original units. Multiplying the inputs or the targets by
    a constant changes nothing but rounding.

    Targets of ``K`` columns (``y`` of ``K`` values, ``Y`` of shape ``(n, K)``) share
    the scale of the inputs and the experts; each column has its own target scale and
    weight vector, so output ``j`` is a single-output AutoKernel on column ``j`` until a
    restart (shared by the outputs) is triggered (docs/choices.md, "Multi-output AWV").

    Cost per round after the warm-up: ``O(N (D^2 + D d) + N' (m^2 + m d))`` with
    ``N = len(widths) * len(lams)`` experts of ``D`` features (``D = C(M + d, d)``
    Taylor features of the largest degree ``M`` with ``D <= max_taylor_features`` if
    ``M >= 3``, else ``D = 2 n_features`` random Fourier features) and ``N' =
    len(nystrom_widths) * len(nystrom_lams)`` Nystrom experts on ``m = warmup``
    points, plus ``O(N_g D^2 + N_l d^2)`` for the ``N_g = len(discounts) *
    len(discount_widths) * len(discount_lams)`` discounted feature experts and the
    ``N_l = 1 + len(discounts)`` linear ones, plus ``O(N + N' + N_g + N_l)`` for the
    rule; memory ``O((N + N_g) D^2 + N' m^2 + N_l d^2)``, independent of the number of
    rounds.

    Parameters
    ----------
    warmup : int, default 200
        Also the size of the Nystrom experts' dictionary.
    widths : sequence of float, default (0.5, 1.0, 2.0, 4.0)
        Kernel widths as multiples of ``rho``.
    lams : sequence of float, default (0.01, 0.1, 1.0)
        Ridge parameters (the targets are standardised, so these are scale-free).
    nystrom_widths : sequence of float, default (0.5, 1.0)
        Widths of the Nystrom experts (multiples of ``rho``; empty: none).
    nystrom_lams : sequence of float, default (0.01, 0.1)
        Ridge parameters of the Nystrom experts (empty: none).
    features : {"auto", "taylor", "rff"}, default "auto"
    n_features : int, default 50
        Random Fourier frequencies per expert (cos-sin pairs).
    max_taylor_features : int, default 200
    rule : str, default "boa"
        ``"boa"``, ``"mlpoly"``, ``"mlprod"``, ``"vaw"`` or ``"ewa"``.
    seed : int, default 0
    threads : int, default 0
        Threads running the experts in whole-stream calls (0: one per core; the
        results do not depend on it).
    discounts : sequence of float, default (0.999, 0.99)
        Forgetting factors in ``(0, 1)`` of the discounted experts (discounted VAW,
        Jacobsen and Cutkosky 2024): one per ``discounts x discount_widths x
        discount_lams``, so that some experts follow a stream that changes; empty:
        none.
    discount_widths : sequence of float, default (1.0, 2.0)
    discount_lams : sequence of float, default (0.1,)
    linear : bool, default True
        Linear experts: online ridge on ``(1, x)`` (standardised), one undiscounted and
        one per discount, so that trends extrapolate.
    share : float or None, default None
        Fixed Share rate of the rule (Herbster and Warmuth 1998): the mixture can
        switch to the expert that is best now. None: ``1e-4``, or 0 for ``rule="vaw"``
        (not an exponential-weights rule).
    loss_window : int or None, default None
        The rule sees each round's regrets divided by the discounted mean of the
        mixture's own squared errors over about ``loss_window`` rounds, so that its
        learning rates follow losses that shrink or jump (``docs/choices.md``,
        "Relative regrets"); 0: the plain rule. None: 2000, or 0 for ``rule="vaw"``.
    restarts : bool, default True
        Restarts after a change: when a CUSUM on the relative squared error declares a
        rise of the error level, a fresh AutoKernel of the same parameters (its own
        warm-up and scale) starts as a successor; the two predict as a pair weighted by
        their discounted least-squares (stacking) weight, and the successor replaces
        the learner once it is significantly better and the learner's weight is below
        0.1, or is dropped if it is not better after 5,000 rounds
        (``docs/autokernel.md``, step 7). Costs at most twice one AutoKernel, only
        while a successor lives.

    fogd_widths : sequence of float, default (2.0,)
        Constant-step experts: FOGD (Lu et al. 2016, step 0.1, 100 random Fourier
        frequencies) with the Gaussian kernel of width ``c * rho`` for each ``c``. Their
        fixed step follows a stream whose inputs keep leaving the region seen so far
        (rows sorted by location, say); empty: none.

    laplace_widths : sequence of float, default (1.0, 2.0)
        Laplacian dictionary experts: PKAWV on the warm-up rows with the Laplacian
        kernel ``exp(-||x - x'||_1 / (c * rho_1))`` for each ``c`` (``rho_1``: the median
        L1 distance between the standardised warm-up rows). A rougher kernel than the
        Gaussian: targets with kinks or jumps, and inputs that act one at a time
        (``docs/autokernel.md``, step 4); empty: none.
    laplace_lams : sequence of float, default (0.1,)
        Ridge parameters of the Laplacian dictionary experts.
    warm_neighbour : bool, default True
        During the warm-up (one target column), predict with AdaHedge's mix of the
        kernel ridge prediction and the target of the nearest row so far (on the rows
        standardised by their own mean and spread): the nearest row follows a level
        that moved, where kernel ridge regression falls back to the rows' mean
        (``docs/autokernel.md``, step 1). Changes the warm-up rows only (and a
        successor's); False with ``warm_widths=()``: the AutoKernel before both, bit for bit.
    warm_neighbour_outputs : bool, default False
        With ``K > 1`` target columns (and ``warm_neighbour``), the same mix column by
        column, one AdaHedge per column: ``K`` outputs then equal ``K`` single-output
        AutoKernels with ``warm_neighbour`` (and one warm-up width: ``warm_widths``
        chooses one for the ``K`` columns together). Off: the ``K`` columns warm up with kernel
        ridge regression alone. Off by default because classification's warm-up is worse
        with it on two of the three small sets of ``docs/classification.md`` ("The
        warm-up of K classes"): wine and iris, whose whole stream is the warm-up.
    warm_widths : sequence of float, default (0.7071067811865476, 1.4142135623730951, 2.8284271247461903)
        Widths of the warm-up's kernel ridge predictors, as multiples of ``rho_t`` (the
        median distance between the rows so far, standardised by their own mean and
        spread), one predictor each, with the ridge at the centre of ``lams``: the
        centre of ``widths`` and a factor 2 on either side. AdaHedge mixes them with the
        nearest row's target (``warm_neighbour``) on their squared errors, so the data
        choose the width round by round (``docs/autokernel.md``, step 1). With ``K > 1``
        target columns they are used with ``warm_neighbour_outputs``. Empty: one
        predictor at the centres of ``widths`` and ``lams``, the AutoKernel before this
        option bit for bit (and what a state saved before it loads with). Changes the
        warm-up rows only (and a successor's); costs one factorisation per width and
        warm-up round.

        ``discounts=(), linear=False, share=0, loss_window=0, restarts=False,
        fogd_widths=(), laplace_widths=(), warm_neighbour=False, warm_widths=()`` is the AutoKernel of the stationary
        benchmark before these defaults, bit for bit, ``laplace_widths=(), warm_neighbour=False, warm_widths=()`` that of the
        previous defaults and ``fogd_widths=(), laplace_widths=(), warm_neighbour=False, warm_widths=()`` that of the drift
        defaults before the constant-step expert.

    Examples
    --------
    >>> import numpy as np
    >>> import kernelstream as ks
    >>> rng = np.random.default_rng(0)
    >>> X = 1e3 * rng.uniform(-1, 1, size=(400, 2)); y = 5e-3 * np.sin(3e-3 * X[:, 0])
    >>> model = ks.AutoKernel()
    >>> preds = model.progressive_predict(X, y)
    >>> bool(np.mean((preds[200:] - y[200:]) ** 2) < 0.05 * np.var(y))
    True
    """

    _core_class = _core.AutoKernel
    has_predictive_std = True
    _scales_itself = True

    @classmethod
    def _example(cls) -> dict:
        return dict(warmup=20, lams=(0.1, 1.0), max_taylor_features=35)

    _absent_params = {
        "discounts": (),
        "discount_widths": (),
        "discount_lams": (),
        "linear": False,
        "share": 0.0,
        "loss_window": 0,
        "restarts": False,
        "fogd_widths": (),
        "laplace_widths": (),
        "laplace_lams": (0.1,),
        "warm_neighbour": False,
        "warm_widths": (),
    }

    @property
    def restart_events(self):
        """``dict(changes, promotions, successor)``: changes declared so far, successors
        that replaced the learner, and whether one is running now (None without
        ``restarts``)."""
        ev = self._core.restart_events
        if ev is None:
            return None
        return dict(changes=int(ev[0]), promotions=int(ev[1]), successor=bool(ev[2]))

    @property
    def fitted(self) -> bool:
        """Whether the warm-up is over (the experts exist)."""
        return self._core.experts is not None

    weights = core_attr(
        np.ndarray,
        "The rule's weights for the next round (None during the warm-up).",
        optional=True,
    )

    @property
    def experts(self):
        """One dict per expert: ``features`` ("taylor-M", "rff-m", "nystrom-m",
        "linear-(d+1)", "fogd-m" or "nystrom-laplace-m"), ``sigma`` (0 for linear
        experts; an L1 width for the Laplacian ones), ``lam`` (in standardised units; a
        constant-step expert's step size) and ``gamma`` (the forgetting factor, 1:
        none); None during the warm-up."""
        specs = self._core.experts
        if specs is None:
            return None

        def kind(deg, m, k, linear, first_order, laplacian):
            if linear:
                return f"linear-{m}"
            if first_order:
                return f"fogd-{m}"
            if laplacian:
                return f"nystrom-laplace-{k}"
            if deg is not None:
                return f"taylor-{deg}"
            return f"nystrom-{k}" if k else f"rff-{m}"

        return [
            dict(
                features=kind(deg, m, k, linear, first_order, laplacian),
                sigma=float(s),
                lam=float(lam),
                gamma=float(gamma),
            )
            for deg, m, k, s, lam, gamma, linear, first_order, laplacian in specs
        ]

    @property
    def scale(self):
        """``dict(x_loc, x_scale, y_loc, y_scale, rho)`` fixed by the warm-up (None before)."""
        s = self._core.scale
        if s is None:
            return None
        xl, xs, yl, ys, rho = s
        return dict(x_loc=np.array(xl), x_scale=np.array(xs), y_loc=yl, y_scale=ys, rho=rho)

    warmup_expert_predictions = core_attr(
        np.ndarray,
        "The experts' predictions on the replayed warm-up rows, ``(warmup, N)``.",
        optional=True,
    )

    def expert_predictions(self, x):
        """Every expert's prediction for ``x`` (original units; None during the warm-up)."""
        return self._core.expert_predictions(as_row(x))

    def expert_labels(self) -> list:
        specs = self.experts
        if specs is None:
            n = int(self._core.n_experts)
            return [f"expert {j}" for j in range(n)]
        return [f"{e['features']} sigma={e['sigma']:.3g} lam={e['lam']:g}" for e in specs]

    def progressive_trace(self, X, y) -> MixtureTrace:
        """``progressive_predict`` that also returns the expert predictions and weights of
        every round after the warm-up (NaN rows during it)."""
        return traced_run(self, X, y)


__all__ = ["AutoKernel"]
