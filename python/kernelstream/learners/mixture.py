"""Mixture: any kernelstream learners combined online by an aggregation rule.

The "experts + aggregation" scheme of the VAW2 paper (Rokhlin & Gurtovaya 2025,
sec. 3-4), as in R's ``opera::mixture``, with learners as the experts. The experts
and the rule run in Rust (``src/mixture/``), behind one enum over every learner.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .. import _core
from .. import aggregation as _aggregation
from .._validation import as_matrix, as_row, as_targets, choice, whole
from ..errors import ParameterError
from ._declared import core_attr
from ._multi import MultiOutput
from .base import Learner

#: The rules by name, read from the core's one table (``_core.aggregation_rules()``);
#: their parameters are the keyword arguments of each class.
RULES = {r["name"]: getattr(_aggregation, r["class"]) for r in _core.aggregation_rules()}


class Experts(tuple):
    """The experts parameter of a mixture: a tuple of learners that compares equal to
    another when the learners have the same classes and parameters (learners compare by
    identity, so that a rebuilt or unpickled mixture still has equal ``get_params()``)."""

    __hash__ = None  # type: ignore[assignment]  # equal by value, so not hashable

    def __eq__(self, other):
        if not isinstance(other, (tuple, list)) or len(other) != len(self):
            return NotImplemented
        return all(
            type(a) is type(b) and (a is b or a.get_params() == b.get_params())
            for a, b in zip(self, other)
        )

    def __ne__(self, other):
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else not eq


@dataclass
class MixtureTrace:
    """What a traced run saw: per round, the prediction, every expert's prediction
    ``(n, N)`` and the rule's weights at prediction time ``(n, N)``."""

    predictions: np.ndarray
    expert_predictions: np.ndarray
    weights: np.ndarray
    labels: list

    def plot(self, ax=None, title=None):
        """The weights over time as stacked areas (opera's ``plot(mixture)``); returns the figure."""
        from ..evaluate.weights import plot_weights

        return plot_weights(self.weights, labels=self.labels, ax=ax, title=title)


class Mixture(MultiOutput):
    """Experts of any learner classes, combined online by an aggregation rule.

    Round t: every expert predicts ``z_{t,j}`` for ``x_t``; the rule predicts from
    ``z_t`` with weights built from rounds ``< t``; then ``y_t`` updates every expert
    and the rule. ``progressive_predict`` runs the whole stream in Rust with the GIL
    released; with ``threads > 1`` each block of rows is run by the experts on
    several threads (identical results, the experts are independent of the rule).

    Parameters
    ----------
    experts : list of Learner
        At least one kernelstream learner (any classes, mixed). They are copied with
        their current state; the objects passed in are not changed.
    rule : str, default "boa"
        ``"boa"``, ``"mlpoly"``, ``"mlprod"``, ``"ewa"``, ``"aa"`` or ``"vaw"``
        (:mod:`kernelstream.aggregation`).
    threads : int, default 0
        Threads running the experts in the whole-stream calls (0: one per core).
        The results do not depend on it.
    **rule_params : float, bool or str
        Parameters of the rule (``gradient`` for BOA/ML-Poly/ML-Prod, ``eta`` for EWA,
        ``lo``/``hi`` for AA, ``lam`` for VAW; ``share``, the Fixed Share rate, for EWA,
        BOA, ML-Poly and ML-Prod).

    Examples
    --------
    >>> import numpy as np
    >>> import kernelstream as ks
    >>> rng = np.random.default_rng(0)
    >>> X = rng.uniform(-1, 1, size=(300, 2)); y = np.sin(3 * X[:, 0])
    >>> mix = ks.Mixture([ks.TaylorAWV(sigma=s, degree=4) for s in (0.3, 1.0, 3.0)])
    >>> preds = mix.progressive_predict(X, y)
    >>> mix.weights.shape, round(float(mix.weights.sum()), 12)
    ((3,), 1.0)
    >>> mix.expert_predictions(X[0]).shape
    (3,)
    """

    _core_class = _core.Mixture
    _doc_extras = ("MixtureTrace",)
    _more_params = "rule_params"  # the rule's parameters (its class's keywords)
    _keep = {
        "experts": lambda e: (
            e if isinstance(e, Experts) or not isinstance(e, (list, tuple)) else Experts(e)
        )
    }

    @classmethod
    def _example(cls) -> dict:
        from ..kernels import Gaussian
        from .fogd import FOGD
        from .rff_awv import RFFAWV
        from .taylor_awv import TaylorAWV

        return dict(
            experts=[
                TaylorAWV(sigma=1.0, degree=3),
                RFFAWV(Gaussian(0.7), n_features=10, seed=3),
                FOGD(Gaussian(0.8), n_features=10, lr=0.3, seed=2),
            ]
        )

    def _kernel_widths(self) -> list:
        # the scale check (ScaleWarning): the experts' widths together
        return [w for e in self._params["experts"] for w in e._kernel_widths()]

    @property
    def has_predictive_std(self) -> bool:  # type: ignore[override]
        """Whether every expert has a predictive standard deviation."""
        return all(e.has_predictive_std for e in self._params["experts"])

    def _core_kwargs(self, p):
        p = dict(p)
        experts, rule, threads = p.pop("experts"), p.pop("rule"), p.pop("threads")
        if not isinstance(experts, (list, tuple)) or len(experts) == 0:
            raise ParameterError(
                f"experts must be a non-empty list of kernelstream learners, got {experts!r}"
            )
        for j, e in enumerate(experts):
            if not isinstance(e, Learner):
                raise ParameterError(
                    f"experts[{j}] must be a kernelstream learner, got {type(e).__name__}"
                )
        choice("rule", rule, RULES)
        try:
            agg = RULES[rule](n_experts=len(experts), **p)
        except TypeError as err:
            raise ParameterError(f"rule {rule!r} does not take these parameters: {err}") from None
        return dict(
            experts=[e._core for e in experts],
            rule=agg._core,
            threads=whole("threads", threads),
        )

    @property
    def n_experts(self) -> int:
        return int(self._core.n_experts)

    weights = core_attr(
        np.ndarray,
        'The rule\'s weights for the next round (for ``"vaw"``: its ridge solution).',
    )

    def expert_predictions(self, x) -> np.ndarray:
        """Every expert's prediction for ``x`` as the next round (state unchanged)."""
        return self._core.expert_predictions(as_row(x))

    def expert_labels(self) -> list:
        return [repr(e) for e in self._params["experts"]]

    def progressive_trace(self, X, y) -> MixtureTrace:
        """``progressive_predict`` that also returns every round's expert predictions
        and weights (for :meth:`MixtureTrace.plot`)."""
        return traced_run(self, X, y)


def traced_run(learner, X, y) -> MixtureTrace:
    """``learner._core.progressive_trace`` as a :class:`MixtureTrace`. Ctrl-C stops it at a
    round boundary with a ``KeyboardInterrupt`` whose ``rounds_completed`` rounds are in
    the state, and whose ``predictions`` and ``trace`` (a :class:`MixtureTrace`) are theirs."""
    X = as_matrix(X)
    try:
        p, Z, W = learner._core.progressive_trace(X, as_targets(y, X.shape[0]))
    except KeyboardInterrupt as exc:
        raw = getattr(exc, "trace", None)
        if isinstance(raw, tuple):
            p, Z, W = raw
            exc.trace = MixtureTrace(p, Z, W, learner.expert_labels())  # type: ignore[attr-defined]
        raise
    return MixtureTrace(p, Z, W, learner.expert_labels())


__all__ = ["Mixture", "MixtureTrace", "Experts", "RULES"]
