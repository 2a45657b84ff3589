"""Names and checks of the losses shared by PROS-N-KONS, FOGD and NOGD (Rust: ``src/learners/losses.rs``)."""

from __future__ import annotations

from .._validation import choice

LOSSES = ("squared", "hinge", "squared_hinge", "logistic")


def loss_name(value) -> str:
    """Validates a loss name (``ParameterError`` otherwise)."""
    return choice("loss", value, LOSSES)


def task_of(loss: str) -> str:
    """``"regression"`` for the squared loss, ``"classification"`` (labels -1/+1) otherwise."""
    return "regression" if loss == "squared" else "classification"
