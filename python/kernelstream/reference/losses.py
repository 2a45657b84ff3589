"""Losses and derivatives in the prediction ``z`` (PROS-N-KONS paper, Asm. 1-2), written from their definitions."""

from __future__ import annotations

import math


def loss_value(loss: str, z: float, y: float) -> float:
    if loss == "squared":
        return (z - y) ** 2
    if loss == "hinge":
        return max(0.0, 1.0 - y * z)
    if loss == "squared_hinge":
        return max(0.0, 1.0 - y * z) ** 2
    if loss == "logistic":
        return math.log1p(math.exp(-y * z)) if -y * z < 30 else -y * z
    raise ValueError(loss)


def loss_deriv(loss: str, z: float, y: float) -> float:
    """``d l(z, y) / dz`` (hinge: the subgradient 0 at the kink)."""
    if loss == "squared":
        return 2.0 * (z - y)
    if loss == "hinge":
        return -y if y * z < 1.0 else 0.0
    if loss == "squared_hinge":
        return -2.0 * y * max(0.0, 1.0 - y * z)
    if loss == "logistic":
        return -y / (1.0 + math.exp(y * z)) if y * z < 700 else 0.0
    raise ValueError(loss)


def default_curvature(loss: str, C: float) -> float:
    """The default curvature sigma (docs/choices.md, PROS-N-KONS)."""
    if loss in ("squared", "hinge"):
        return 1.0 / (8.0 * C * C)
    if loss == "squared_hinge":
        return 1.0 / (2.0 * (1.0 + C) ** 2)
    if loss == "logistic":
        return 0.5 * min(1.0 / (8.0 * C), math.exp(-C))
    raise ValueError(loss)
