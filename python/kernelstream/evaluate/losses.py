"""Per-round losses of the online protocol."""

from __future__ import annotations

import numpy as np


def squared_loss(pred, y) -> np.ndarray:
    """``(y_t - yhat_t)^2`` per round."""
    return (np.asarray(y, dtype=float) - np.asarray(pred, dtype=float)) ** 2


def error_rate(pred, y) -> np.ndarray:
    """``1{sign(yhat_t) != y_t}`` per round, with ``sign(0) = +1`` (none of the papers says; docs/choices.md)."""
    pred = np.asarray(pred, dtype=float)
    sign = np.where(pred >= 0.0, 1.0, -1.0)
    return (sign != np.asarray(y, dtype=float)).astype(float)


def running_average(losses) -> np.ndarray:
    """``(1/t) sum_{s<=t} loss_s`` for every t."""
    losses = np.asarray(losses, dtype=float)
    return np.cumsum(losses) / np.arange(1, losses.size + 1)


LOSSES = {"regression": squared_loss, "classification": error_rate}
