"""Inputs that grow without a reservation: the river adapters' new keys mid-stream.

A kernel learner's input width is fixed by its first round. When a key first seen at
round ``t`` finds no free input (no ``max_features`` reservation, or one used up), the
adapter widens exactly: it keeps the rows as the learner saw them (``History``), builds
a fresh learner with twice the inputs (or as many as needed) and replays them, each row
extended by zeros, then continues. The result is, by construction, the learner fed the
zero-padded rows from round 1, which is what the adapters' feature policy says a key
missing from a row means (``0.0``). Doubling keeps the replays to ``log2`` of the final
width, so the total cost is at most ``log2(d)`` passes over the stream.

The rows cost ``8 d`` bytes each (reported in the adapters' memory usage); past
``MAX_BYTES`` the adapter stops keeping them and a later new key is the documented
``InputError`` (pass ``max_features`` then: a reservation keeps no rows and is faster).
"""

from __future__ import annotations

import warnings

import numpy as np

#: the rows kept for a replay, at most (then the adapter stops keeping them)
MAX_BYTES = 512 * 2**20


class History:
    """The rows ``(n, width)`` a learner learned and one target row each, in order."""

    def __init__(self, width: int, target_width: int):
        self.n = 0
        self.rows = np.zeros((16, width))
        self.targets = np.zeros((16, target_width))

    @property
    def nbytes(self) -> int:
        return int(self.rows.nbytes + self.targets.nbytes)

    def append(self, v: np.ndarray, target) -> bool:
        """Keep a row; ``False`` (and nothing kept) once the rows would pass ``MAX_BYTES``."""
        if self.n == self.rows.shape[0]:
            if 2 * self.nbytes > MAX_BYTES:
                return False
            self.rows = np.concatenate([self.rows, np.zeros_like(self.rows)])
            self.targets = np.concatenate([self.targets, np.zeros_like(self.targets)])
        n = self.n
        if v.shape[0] == self.rows.shape[1]:
            self.rows[n] = v
        else:
            self.rows[n, : v.shape[0]] = v
        if type(target) is float or type(target) is int:  # (one target: no broadcast)
            self.targets[n, 0] = target
        else:
            self.targets[n] = target
        self.n = n + 1
        return True

    def widened(self, width: int) -> np.ndarray:
        """The rows kept so far, extended by zeros to ``width`` inputs."""
        out = np.zeros((self.n, width))
        out[:, : self.rows.shape[1]] = self.rows[: self.n]
        return out

    def widen(self, width: int) -> None:
        rows = np.zeros((self.rows.shape[0], width))
        rows[:, : self.rows.shape[1]] = self.rows
        self.rows = rows


def fresh(learner):
    """An untrained learner with ``learner``'s parameters."""
    return type(learner)(**learner.get_params())


def replayed(learner, X: np.ndarray, Y: np.ndarray):
    """A fresh copy of ``learner`` that learned the rows of ``X`` with the targets ``Y``
    (``(n,)`` or ``(n, K)``), in order. Its scale warning, if any, was given the first
    time round, so it is not repeated."""
    new = fresh(learner)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for x, y in zip(X, Y):  # learn_one, as the adapter did: the same arithmetic
            new.learn_one(x, y)
    return new


def grown_width(size: int, needed: int) -> int:
    """The width after a widening: twice the old one, or what is needed."""
    return max(2 * size, needed)
