"""The score columns of the classifier adapters: one column per class.

Column ``k`` is a learner trained on the targets ``on`` where the label is class ``k``
and ``off`` elsewhere: ``(1, 0)`` (one-hot targets: least-squares classification) for
regressors, ``(+1, -1)`` for learners with a classification loss (they refuse other
labels). The predicted class is the column with the highest score.

A multi-output learner (:class:`kernelstream.learners._multi.MultiOutput`: the AWV
family) holds the K columns itself, sharing its one matrix (``native``): K columns
cost about one. Any other learner gets one copy per column (K columns cost K
learners). The ``spare`` column of the copies, when kept, has learned ``off`` at
every round: it is by definition the column of a class never seen, so a class first
seen mid-stream takes a copy of it and has exactly the column it would have had if it
had been known from round 1 (a multi-output learner derives that column itself:
``add_outputs``).
"""

from __future__ import annotations

import copy

import numpy as np


def fresh(learner):
    """An untrained learner with ``learner``'s parameters."""
    return type(learner)(**learner.get_params())


def is_native(learner) -> bool:
    """Whether ``learner`` learns all the class columns at once (a multi-output learner)."""
    from ..learners._multi import MultiOutput

    return isinstance(learner, MultiOutput)


def target_values(learner) -> tuple[float, float]:
    """``(on, off)``: the target of a column on its class's rows and on the others'."""
    return (1.0, -1.0) if getattr(learner, "task", "regression") == "classification" else (1.0, 0.0)


class Columns:
    """``n`` class columns (and optionally the spare) over copies of ``prototype``."""

    def __init__(self, prototype, n: int, spare: bool, signed: bool = False):
        # signed: targets +1/-1 whatever the learner (one column for two classes)
        self.on, self.off = (1.0, -1.0) if signed else target_values(prototype)
        self.n = n
        # native: one multi-output learner holds every column
        self.native = n > 1 and not signed and is_native(prototype)
        self.learners = [fresh(prototype) for _ in range(1 if self.native else n)]
        self.spare = fresh(prototype) if spare and not self.native else None

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

    def progressive(self, X: np.ndarray, codes: np.ndarray, sample_weight=None) -> np.ndarray:
        """The ``(n, K)`` scores of the rows, each made before its label; then learned
        (with ``sample_weight``, each row's weight; one output a learner)."""
        if self.native:
            T = np.column_stack([self.targets(codes, k) for k in range(self.n)])
            return self.learners[0].progressive_predict(X, T, sample_weight=sample_weight)
        out = np.empty((X.shape[0], len(self.learners)))
        for k, lr in enumerate(self.learners):
            out[:, k] = lr.progressive_predict(
                X, self.targets(codes, k), sample_weight=sample_weight
            )
        if self.spare is not None:
            self.spare.learn_many(X, np.full(X.shape[0], self.off), sample_weight=sample_weight)
        return out

    def predict(self, X: np.ndarray) -> np.ndarray:
        """``(n, K)`` scores as the next round (state unchanged)."""
        if self.native:
            return self.learners[0].predict_many(X).reshape(X.shape[0], self.n)
        return np.column_stack([lr.predict_many(X) for lr in self.learners])
