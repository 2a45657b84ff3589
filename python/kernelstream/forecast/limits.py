"""The largest value a Forecaster takes (its learners' limit, halved)."""

from __future__ import annotations

from .._core import Y_MAX
from ..errors import InputError

#: the largest ``|y|`` taken: the learners refuse targets past ``Y_MAX`` (1e150, whose
#: squares summed stay finite), and the differenced experts' targets, ``y[t] - y[t - u]``,
#: are within ``2 Y_LIMIT``
Y_LIMIT = Y_MAX / 2


def too_large(where: str, v: float) -> InputError:
    """The error of a value ``v`` (named ``where``) past :data:`Y_LIMIT`."""
    return InputError(
        f"{where} = {v:.6e} is too large: |y| <= {Y_LIMIT:g} (the learners' targets, the "
        f"differences of two values, stay within {Y_MAX:g})"
    )
