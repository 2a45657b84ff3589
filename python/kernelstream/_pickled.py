"""The pickled envelope of an object around a Rust core (``_wrapped.CoreWrapper``).

Format 2 (written): ``{"format_version": 2, "kernelstream_version", "core": state
bytes, "params": ..., "extra": ...}`` where ``params`` holds only the constructor
parameters that the core state does not hold as they were given: each parameter is
stored once. The core reports the parameters its state holds (``_params_of_state``:
the learners' ``state_params!`` lists in the Rust core), in the core's forms;
:func:`python_forms` maps them back to the Python forms, in this one place, per
parameter kind of the core's table (``_core.registry()``). A parameter is left out
of ``params`` only if that mapping gives back the very value (:func:`same`: type and
value), so ``get_params()`` after a round trip is ``get_params()`` before.

Format 1 (read only): ``params`` held every parameter, the core state its own copy.
"""

from __future__ import annotations

import math
from functools import cache

#: Version of the envelope written; the Rust state carries its own.
PICKLE_FORMAT_VERSION = 2
#: Versions of the envelope read.
READABLE = (1, 2)


@cache
def _kinds(core_name: str) -> dict:
    """``{parameter: (kind, default)}`` of the registered learner with core class
    ``core_name`` (empty for another core object: an aggregator, a sampler)."""
    from ._core import registry

    for e in registry():
        if e["core_class"] == core_name:
            return {p["name"]: (p["kind"], p["default"]) for p in e["params"]}
    return {}


def python_forms(core_class, held: dict) -> dict:
    """The core's forms of ``held`` mapped to the Python forms: a sequence is a tuple
    where the parameter's default is one (``AutoKernel.widths``) and a list otherwise
    (``MultiKernelAWV.kernels``); names, numbers, flags and kernels are the same
    objects on both sides."""
    kinds = _kinds(core_class.__name__)
    out = {}
    for name, value in held.items():
        kind, default = kinds.get(name, (None, None))
        if (
            kind in ("seq", "kernels")
            and isinstance(value, tuple)
            and not isinstance(default, tuple)
        ):
            value = list(value)
        out[name] = value
    return out


def held_params(core_class, core) -> dict:
    """The parameters held by the state of the core object ``core``, in Python forms."""
    read = getattr(core, "_params", None)
    return python_forms(core_class, dict(read())) if read is not None else {}


def held_params_of_state(core_class, state: bytes) -> dict:
    """:func:`held_params` of a state given as bytes (an ``InputError`` if it does not
    decode: another format version, damaged bytes)."""
    read = getattr(core_class, "_params_of_state", None)
    return python_forms(core_class, dict(read(state))) if read is not None else {}


def same(a, b) -> bool:
    """``a`` and ``b`` are the same value of the same type (floats bit for bit,
    sequences item by item); values that cannot say (arrays) are not the same."""
    if type(a) is not type(b):
        return False
    if isinstance(a, float):
        return a == b and math.copysign(1.0, a) == math.copysign(1.0, b)
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(map(same, a, b))
    try:
        return bool(a == b)
    except (TypeError, ValueError):
        return False


def unheld(params: dict, held: dict) -> dict:
    """The parameters of ``params`` that ``held`` (the state's) does not give back."""
    return {k: v for k, v in params.items() if k not in held or not same(v, held[k])}
