"""Names and checks of the losses shared by PROS-N-KONS, FOGD and NOGD (Rust: ``src/learners/losses.rs``)."""

from __future__ import annotations


def task_of(loss: str) -> str:
    """``"regression"`` for the squared loss, ``"classification"`` (labels -1/+1) otherwise."""
    return "regression" if loss == "squared" else "classification"


class ByLoss:
    """A learner whose task follows its ``loss`` parameter (:func:`task_of`)."""

    _params: dict

    @property
    def task(self) -> str:
        """``"regression"`` for the squared loss, ``"classification"`` otherwise."""
        return task_of(self._params["loss"])
