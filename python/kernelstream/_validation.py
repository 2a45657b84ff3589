"""Input conversion shared by every learner: everything becomes a C-contiguous
float64 array of the right rank, or an :class:`InputError` that says what is wrong.
Finiteness, the input dimension and learner-specific checks are done by the Rust
core before any state changes."""

from __future__ import annotations

import numbers
from collections.abc import Mapping

import numpy as np

from ._core import SCALE_MAX, SCALE_MIN
from .errors import InputError, ParameterError

_DICT_HINT = (
    "a core learner takes numeric arrays; for dicts of feature name -> value (river's "
    "format) wrap it in kernelstream.adapters.RiverRegressor or RiverClassifier"
)


_FLOAT64 = np.dtype(np.float64)


def _to_float_array(value, what: str) -> np.ndarray:
    if isinstance(value, Mapping):
        raise InputError(f"{what} is a {type(value).__name__}: {_DICT_HINT}")
    if isinstance(value, (list, tuple)) and value and isinstance(value[0], Mapping):
        raise InputError(f"{what} is a {type(value).__name__} of dicts: {_DICT_HINT}")
    if isinstance(value, (str, bytes)):
        raise InputError(f"{what} must be numeric, got a {type(value).__name__}")
    try:
        arr = np.asarray(value)
    except Exception as exc:  # ragged lists and the like
        raise InputError(f"{what} could not be read as a numeric array: {exc}") from None
    if arr.dtype == object or arr.dtype.kind in "USVmM":
        raise InputError(f"{what} must be numeric, got an array of dtype {arr.dtype}")
    if arr.dtype.kind == "c":
        raise InputError(f"{what} must be real, got complex values")
    out = np.asarray(arr, dtype=np.float64)
    # (np.ascontiguousarray would turn a 0-d array into a 1-d one: keep the rank.)
    return out if out.flags.c_contiguous else np.ascontiguousarray(out)


def as_row(x) -> np.ndarray:
    """One input ``x`` as a 1-D float64 array of length >= 1."""
    # The serving path's common case, a float64 row: the core reads it as it is (a
    # strided row is copied there), no conversion here.
    if type(x) is np.ndarray and x.dtype is _FLOAT64 and x.ndim == 1 and x.size:
        return x
    arr = _to_float_array(x, "x")
    if arr.ndim != 1:
        raise InputError(f"x must be a 1-D array (one input), got an array of shape {arr.shape}")
    if arr.size == 0:
        raise InputError("x is empty: an input needs at least one feature")
    return arr


def as_matrix(X, name: str = "X") -> np.ndarray:
    """A batch ``X`` as a 2-D float64 array ``(n, d)`` with ``n, d >= 1``."""
    arr = _to_float_array(X, name)
    if arr.ndim != 2:
        raise InputError(f"{name} must be a 2-D array (n, d), got an array of shape {arr.shape}")
    if arr.shape[0] == 0 or arr.shape[1] == 0:
        raise InputError(f"{name} is empty (shape {arr.shape})")
    return arr


def as_targets(y, n: int) -> np.ndarray:
    """Targets ``y`` as a 1-D float64 array of length ``n``."""
    arr = _to_float_array(y, "y")
    if arr.ndim != 1:
        raise InputError(f"y must be a 1-D array, got an array of shape {arr.shape}")
    if arr.shape[0] != n:
        raise InputError(f"X has {n} rows but y has {arr.shape[0]} values")
    return arr


def as_label(y) -> float:
    """One target ``y`` as a float."""
    if type(y) is float or type(y) is np.float64:
        return float(y)
    if isinstance(y, (bool, np.bool_)) or isinstance(y, (str, bytes)):
        raise InputError(f"y must be a real number, got {y!r}")
    if isinstance(y, np.ndarray):
        if y.size != 1:
            raise InputError(f"y must be a single number, got an array of shape {y.shape}")
        y = y.reshape(()).item()
    if not isinstance(y, numbers.Real):
        raise InputError(f"y must be a real number, got a {type(y).__name__}")
    return float(y)


def as_weight(w) -> float:
    """One sample weight ``w``: a finite real number ``>= 0`` (docs/choices.md,
    "Sample weights"), else an :class:`InputError`."""
    if type(w) is not float:
        if isinstance(w, (bool, np.bool_, str, bytes)):
            raise InputError(f"the sample weight w must be a real number, got {w!r}")
        if isinstance(w, np.ndarray):
            if w.size != 1:
                raise InputError(f"w must be a single number, got an array of shape {w.shape}")
            w = w.reshape(()).item()
        if not isinstance(w, numbers.Real):
            raise InputError(f"the sample weight w must be a real number, got a {type(w).__name__}")
        w = float(w)
    if not (np.isfinite(w) and w >= 0.0):
        raise InputError(f"the sample weight must be a finite number >= 0, got {w}")
    return w


def as_weights(sample_weight, n: int):
    """``sample_weight`` as a 1-D float64 array of ``n`` finite weights ``>= 0``, or
    ``None`` (no weights: every row counts once)."""
    if sample_weight is None:
        return None
    arr = _to_float_array(sample_weight, "sample_weight")
    if arr.ndim == 0:
        arr = np.full(n, float(arr))
    if arr.ndim != 1:
        raise InputError(f"sample_weight must be a 1-D array, got an array of shape {arr.shape}")
    if arr.shape[0] != n:
        raise InputError(f"X has {n} rows but sample_weight has {arr.shape[0]} values")
    bad = ~(np.isfinite(arr) & (arr >= 0.0))
    if bad.any():
        i = int(np.argmax(bad))
        raise InputError(f"sample_weight[{i}] = {arr[i]} is not a finite number >= 0")
    return arr


# --- parameter types (constructor arguments of the Rust-backed classes) --------
# Python converts each argument to the type the Rust constructor takes and refuses any
# other type; the value itself (ranges, names, combinations, memory) is checked once, by
# the Rust constructor, which raises ParameterError. Defaults live in the Python
# signatures only.


def real(name: str, value) -> float:
    """A real number (``int`` or ``float``, not ``bool``) as a float."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise ParameterError(f"{name} must be a number, got {value!r}")
    return float(value)


def whole(name: str, value) -> int:
    """A whole number in ``[0, 2^64)`` (the range of the core's unsigned integers)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        raise ParameterError(f"{name} must be a whole number, got {value!r}")
    if not 0 <= int(value) < 2**64:
        raise ParameterError(f"{name} must be a whole number in [0, 2^64), got {int(value)}")
    return int(value)


def flag(name: str, value) -> bool:
    """``True`` or ``False`` (NumPy booleans too); nothing else is taken for a truth value."""
    if not isinstance(value, (bool, np.bool_)):
        raise ParameterError(f"{name} must be True or False, got {value!r}")
    return bool(value)


def text(name: str, value) -> str:
    """A string (the core checks that it names one of its options)."""
    if not isinstance(value, str):
        raise ParameterError(f"{name} must be a string, got {value!r}")
    return value


# --- value checks of Python-only functions (dataset generators, ...) -----------


# Scale parameters (widths, regularisations, step sizes) live in [SCALE_MIN, SCALE_MAX]:
# outside, their squares or inverse squares under- or overflow (the range is the Rust
# core's, ``kernelstream._core.SCALE_MIN`` / ``SCALE_MAX``).


def positive(name: str, value) -> float:
    value = real(name, value)
    if not (np.isfinite(value) and SCALE_MIN <= value <= SCALE_MAX):
        raise ParameterError(
            f"{name} must be a finite number in [{SCALE_MIN:g}, {SCALE_MAX:g}], got {value!r}"
        )
    return value


def non_negative(name: str, value) -> float:
    value = real(name, value)
    if not (np.isfinite(value) and 0 <= value <= SCALE_MAX):
        raise ParameterError(f"{name} must be a finite number in [0, {SCALE_MAX:g}], got {value!r}")
    return value


def integer(name: str, value, minimum: int = 0) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or int(value) < minimum:
        raise ParameterError(f"{name} must be an integer >= {minimum}, got {value!r}")
    return int(value)


def choice(name: str, value, options) -> str:
    if value not in options:
        raise ParameterError(f"{name} must be one of {sorted(options)!r}, got {value!r}")
    return value


def seed(value) -> int:
    if (
        isinstance(value, bool)
        or not isinstance(value, numbers.Integral)
        or int(value) < 0
        or int(value) >= 2**64
    ):
        raise ParameterError(f"seed must be an integer in [0, 2^64), got {value!r}")
    return int(value)


def as_output_row(y) -> np.ndarray:
    """The ``K`` targets of one round (multi-output) as a 1-D float64 array, ``K >= 1``."""
    arr = _to_float_array(y, "y")
    if arr.ndim != 1 or arr.shape[0] == 0:
        raise InputError(
            f"y must be a number or a 1-D array of K >= 1 targets, got shape {arr.shape}"
        )
    return arr


def as_output_matrix(Y, n: int) -> np.ndarray:
    """Multi-output targets ``Y`` as a 2-D float64 array ``(n, K)``, ``K >= 1``."""
    arr = _to_float_array(Y, "Y")
    if arr.ndim != 2 or arr.shape[1] == 0:
        raise InputError(f"Y must be a 2-D array (n, K) with K >= 1, got shape {arr.shape}")
    if arr.shape[0] != n:
        raise InputError(f"X has {n} rows but Y has {arr.shape[0]}")
    return arr
