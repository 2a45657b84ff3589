"""Follow the leader: the warm-up's combination of the simple experts."""

from __future__ import annotations

import numpy as np


class Leader:
    """Predicts the forecast of the expert with the smallest sum of squared errors so far
    (the first, the last value, on ties): with few rounds and few experts it settles on
    the best simple forecast faster than an exponential-weights rule."""

    def __init__(self, n_experts: int):
        self.loss = np.zeros(n_experts)

    def predict(self, z) -> float:
        return float(np.asarray(z)[int(np.argmin(self.loss))])

    def update(self, z, y) -> None:
        self.loss += (np.asarray(z, float) - y) ** 2


class Guarded:
    """After the warm-up: the rule's combination of every expert, or the leader of the
    simple experts, whichever has the smaller sum of squared errors so far (the warm-up's
    replayed rounds included), so that a short series on which the learners have not
    yet earned their weight is forecast as the best simple forecast."""

    def __init__(self, rule, n_learners: int, n_simple: int):
        self.rule, self.n_learners = rule, n_learners
        self.lead, self.pick = Leader(n_simple), Leader(2)

    def predict(self, z) -> tuple:
        """``(combined, memo)``: the memo goes back to :meth:`update` with the label."""
        memo = (self.rule.predict(z), self.lead.predict(z[self.n_learners :]))
        return self.pick.predict(memo), memo

    def update(self, z, y, memo) -> None:
        self.pick.update(memo, y)
        self.rule.update(z, y)
        self.lead.update(z[self.n_learners :], y)
