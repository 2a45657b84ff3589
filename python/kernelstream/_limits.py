"""The memory ceiling on the Python side: arrays whose size the input decides (a dense
chunk of a LIBSVM file, the one-hot columns of a table, a classifier's class columns) are
counted against :func:`kernelstream.get_memory_limit` before they are allocated, as the
core counts what a learner will hold (``src/limits.rs``)."""

from __future__ import annotations

from .errors import InputError


def human(nbytes: float) -> str:
    """A size in B/KiB/MiB/GiB/TiB/PiB, one decimal (as ``src/limits.rs``'s ``human``)."""
    units = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"]
    v, u = float(nbytes), 0
    while v >= 1024.0 and u + 1 < len(units):
        v /= 1024.0
        u += 1
    return f"{v:.1f} {units[u]}"


def check_doubles(what: str, doubles: int, hint: str = "") -> None:
    """Refuses ``what`` with an :class:`InputError` naming its size and the ceiling when
    ``doubles`` float64 values need more than the memory ceiling."""
    from . import _core

    need, limit = 8 * int(doubles), int(_core.get_memory_limit())
    if need > limit:
        raise InputError(
            f"{what} needs {human(need)}, above the memory ceiling of {human(limit)} "
            f"(kernelstream.set_memory_limit / KERNELSTREAM_MEMORY_LIMIT){hint}"
        )
