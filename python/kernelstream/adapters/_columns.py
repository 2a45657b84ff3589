"""The score columns of the classifier adapters: one column per class.

Column ``k`` is a learner trained on the targets ``on`` where the label is class ``k``
and ``off`` elsewhere: ``(1, 0)`` (one-hot targets: least-squares classification) for
regressors, ``(+1, -1)`` for learners with a classification loss (they refuse other
labels). The predicted class is the column with the highest score.

Each column is a copy of the prototype learner (the K columns cost K learners). The
``spare`` column, when kept, has learned ``off`` at every round: it is by definition
the column of a class never seen, so a class first seen mid-stream takes a copy of it
and has exactly the column it would have had if it had been known from round 1.
"""

from __future__ import annotations

import copy

import numpy as np


def fresh(learner):
    """An untrained learner with ``learner``'s parameters."""
    return type(learner)(**learner.get_params())


def target_values(learner) -> tuple[float, float]:
    """``(on, off)``: the target of a column on its class's rows and on the others'."""
    return (1.0, -1.0) if getattr(learner, "task", "regression") == "classification" else (1.0, 0.0)


class Columns:
    """``n`` class columns (and optionally the spare) over copies of ``prototype``."""

    def __init__(self, prototype, n: int, spare: bool, signed: bool = False):
        # signed: targets +1/-1 whatever the learner (one column for two classes)
        self.on, self.off = (1.0, -1.0) if signed else target_values(prototype)
        self.learners = [fresh(prototype) for _ in range(n)]
        self.spare = fresh(prototype) if spare else None

    def copy(self) -> Columns:
        new = copy.copy(self)
        new.learners = [copy.copy(lr) for lr in self.learners]
        new.spare = None if self.spare is None else copy.copy(self.spare)
        return new

    @property
    def n_seen(self) -> int:
        """Rounds learned."""
        head = self.spare if self.spare is not None else self.learners[0]
        return head.n_seen

    @property
    def input_dim(self):
        head = self.spare if self.spare is not None else self.learners[0]
        return head.input_dim

    def targets(self, codes: np.ndarray, k: int) -> np.ndarray:
        """Column ``k``'s targets for the class indices ``codes``."""
        return np.where(codes == k, self.on, self.off)

    def progressive(self, X: np.ndarray, codes: np.ndarray) -> np.ndarray:
        """The ``(n, K)`` scores of the rows, each made before its label; then learned."""
        out = np.empty((X.shape[0], len(self.learners)))
        for k, lr in enumerate(self.learners):
            out[:, k] = lr.progressive_predict(X, self.targets(codes, k))
        if self.spare is not None:
            self.spare.learn_many(X, np.full(X.shape[0], self.off))
        return out

    def predict(self, X: np.ndarray) -> np.ndarray:
        """``(n, K)`` scores as the next round (state unchanged)."""
        return np.column_stack([lr.predict_many(X) for lr in self.learners])

    def add_column(self) -> None:
        """A column for a class first seen now: the spare's copy (see the module)."""
        assert self.spare is not None
        self.learners.append(copy.copy(self.spare))
