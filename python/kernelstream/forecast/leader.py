"""Which forecast is played: follow the leader, with a margin before the played expert
changes (``docs/forecasting.md``, "Which forecast is played").

Follow the leader (FTL) plays the expert with the smallest cumulative squared loss; when
two experts are nearly tied (the last value and a smoothed level on a random walk), it
flips between them and pays each flip. :class:`Leader` keeps an incumbent, first the
expert 0 (the last value), and passes to another expert only once that expert's
cumulative loss is below the incumbent's by more than ``margin``: each change is paid
for by a lead of at least ``margin`` already won (FTL with hysteresis), and a series on
which no expert gets ahead of the last value by that much is forecast by the last value
itself.
"""

from __future__ import annotations

import numpy as np

#: the lead, in squared units of the forecaster's scale (the warm-up's mean absolute
#: first difference: about the last value's loss of one round), that a challenger must
#: have over the incumbent before it is played
MARGIN = 1.0


class Leader:
    """Plays the incumbent expert's forecast, first the expert 0 (the last value).

    After each round, with incumbent ``i`` and cumulative squared losses ``L``: if some
    ``L_i - L_j > margin``, the incumbent becomes the ``j`` with the smallest ``L_j``.
    ``margin=0`` is follow the leader (ties keep the incumbent).
    """

    def __init__(self, n_experts: int, margin: float = MARGIN):
        self.margin = float(margin)
        self.loss = np.zeros(n_experts)
        self.best = 0

    def predict(self, z) -> float:
        return float(np.asarray(z)[self.best])

    def update(self, z, y) -> None:
        self.loss += (np.asarray(z, float) - y) ** 2
        j = int(np.argmin(self.loss))
        if self.loss[self.best] - self.loss[j] > self.margin:
            self.best = j


class Guarded:
    """After the warm-up: the leader of the simple experts (the last value first), or the
    rule's combination of every expert once its cumulative loss is below that leader's by
    the margin (both :class:`Leader`, the warm-up's replayed rounds included)."""

    def __init__(self, rule, n_learners: int, n_simple: int):
        self.rule, self.n_learners = rule, n_learners
        self.lead, self.pick = Leader(n_simple), Leader(2)

    def predict(self, z) -> tuple:
        """``(played, memo)``: the memo goes back to :meth:`update` with the label."""
        memo = (self.lead.predict(z[self.n_learners :]), self.rule.predict(z))
        return self.pick.predict(memo), memo

    def update(self, z, y, memo) -> None:
        self.pick.update(memo, y)
        self.lead.update(z[self.n_learners :], y)
        self.rule.update(z, y)
