"""Names and checks of the losses shared by PROS-N-KONS, FOGD and NOGD (Rust: ``src/learners/losses.rs``)."""

from __future__ import annotations

from .._validation import text


def loss_name(value) -> str:
    """A loss name as a string (the Rust core checks it: squared, hinge, squared_hinge or logistic)."""
    return text("loss", value)


def task_of(loss: str) -> str:
    """``"regression"`` for the squared loss, ``"classification"`` (labels -1/+1) otherwise."""
    return "regression" if loss == "squared" else "classification"
