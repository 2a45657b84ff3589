"""What a column is, decided on the first batch (before any row is encoded): dates
become calendar features, identifiers are left out, each with a note.

- **Dates**: a text column (or a pandas/Dask ``datetime64`` column, which arrives as
  text) whose present values in the first batch all read ``YYYY-MM-DD`` (optionally with
  a time, ``T`` or space separated) becomes three numeric features, computed from the
  row alone (so online by construction): ``name[days]`` (days since 1970-01-01, the
  trend), ``name[month]`` (1-12) and ``name[weekday]`` (0 = Monday). One-hot encoding
  a date gives one column per day and lumps every later day into the last one.
- **Identifiers**: a column named ``id``, ``index``, ``uuid``, ``key`` or ending in
  ``_id``/``-id``/`` id`` whose first-batch values are all distinct, or a text column
  with at least ``ID_MIN_ROWS`` present values in the first batch, all distinct: as a
  feature it is noise (or a row counter), so it is left out.

``notes`` (on :class:`kernelstream.datasets.stream.ChunkStream` and printed by the
command line) say what was decided; ``drop=`` the column to leave it out yourself.
"""

from __future__ import annotations

import re

import numpy as np

from ...errors import InputError

_DATE = re.compile(r"^(\d{4})-(\d{2})-(\d{2})(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)?$")
_ID_NAMES = {"id", "index", "uuid", "key"}
ID_MIN_ROWS = 20
CALENDAR = ("days", "month", "weekday")


def _present(col: np.ndarray) -> list:
    if col.dtype == object:
        return [v for v in col if v is not None]
    return [v for v in col if not np.isnan(v)]


def is_date_column(col: np.ndarray) -> bool:
    values = _present(col) if col.dtype == object else []
    return bool(values) and all(isinstance(v, str) and _DATE.match(v) for v in values)


def _id_name(name: str) -> bool:
    low = name.strip().lower()
    return low in _ID_NAMES or low.endswith(("_id", "-id", " id"))


def is_id_column(name: str, col: np.ndarray, is_text: bool) -> bool:
    values = _present(col)
    distinct = len(set(values)) == len(values) and len(values) >= 2
    if _id_name(name):
        return distinct
    return is_text and distinct and len(values) >= ID_MIN_ROWS


def calendar(name: str, col: np.ndarray, source: str, row0: int) -> np.ndarray:
    """The ``(n, 3)`` calendar features of the date texts ``col`` (NaN where missing)."""
    out = np.full((col.size, 3), np.nan)
    for i, v in enumerate(col):
        if v is None:
            continue
        m = _DATE.match(v) if isinstance(v, str) else None
        try:
            day = np.datetime64(f"{m.group(1)}-{m.group(2)}-{m.group(3)}", "D") if m else None
        except ValueError:
            day = None
        if day is None or m is None:
            raise InputError(
                f"{source}: column {name!r}, row {row0 + i}: {v!r} is not a date YYYY-MM-DD "
                "(the column held dates in the first rows; drop it or fix the value)"
            )
        days = int(day.astype(np.int64))
        out[i] = (days, int(m.group(2)), (days + 3) % 7)  # 1970-01-01 was a Thursday
    return out
