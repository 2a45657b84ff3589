"""Conversion of upstream files (LIBSVM text, CSV) into the ``NAME.csv.gz`` format.

The format (``docs/data.md``): gzip with mtime 0 and no stored file name, header
``x0,...,x{d-1},y``, the target last, rows in the source's order, each number as the
shortest text that parses back to the same double (whole numbers without a decimal
point), an empty field for a missing value.
"""

from __future__ import annotations

import csv
import gzip
import io
import math
import zipfile
from pathlib import Path

from .._files import atomic_write
from ..errors import InputError
from .loaders import iter_libsvm


def format_number(v: float) -> str:
    """The shortest decimal text that parses back to ``v``; '' for NaN (a missing value)."""
    if math.isnan(v):
        return ""
    if v.is_integer() and abs(v) < 2**53:
        return "-0" if v == 0 and math.copysign(1.0, v) < 0 else str(int(v))
    return repr(v)


def libsvm_rows(path, n_features: int):
    """``(x_0, ..., x_{d-1}, y)`` rows of a LIBSVM file, dense (absent index -> 0)."""
    for label, entries in iter_libsvm(path):
        row = [0.0] * (n_features + 1)
        for i, v in entries.items():
            if i >= n_features:
                raise InputError(f"{path}: feature index {i + 1} > {n_features}")
            row[i] = v
        row[n_features] = label
        yield row


def csv_rows(path, header: bool, target: int, member: str | None = None):
    """Rows of a comma-separated file (plain, ``.gz`` or inside a zip), target moved last.

    Every field must parse as a float ('' and 'NaN' are missing values); all rows must
    have the first row's width.
    """
    path = Path(path)
    if member is not None:
        with zipfile.ZipFile(path) as zf, zf.open(member) as raw:
            yield from _csv_stream(io.TextIOWrapper(raw, "ascii", newline=""), path, header, target)
        return
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="ascii", newline="") as fh:
        yield from _csv_stream(fh, path, header, target)


def _csv_stream(fh, path, header, target):
    reader = csv.reader(fh)
    width = None
    for lineno, fields in enumerate(reader, 1):
        if header and lineno == 1:
            continue
        if not fields:
            continue
        if width is None:
            width = len(fields)
        if len(fields) != width:
            raise InputError(f"{path}:{lineno}: {len(fields)} fields, expected {width}")
        try:
            row = [float(f) if f.strip() else math.nan for f in fields]
        except ValueError as exc:
            raise InputError(f"{path}:{lineno}: not a number ({exc})") from None
        y = row.pop(target)
        row.append(y)
        yield row


def write_csv_gz(rows, path, n_features: int) -> int:
    """Writes ``rows`` to ``path`` in the ``NAME.csv.gz`` format; returns the row count.

    Written atomically (:func:`kernelstream._files.atomic_write`), so an error, Ctrl-C or
    a kill leaves no partial file at ``path``.
    """
    path = Path(path)
    n = 0
    with atomic_write(path, "wb") as raw:
        # level 9, no flushes: the same deflate stream as the release files
        with gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0, compresslevel=9) as gz:
            lines = [",".join([f"x{i}" for i in range(n_features)] + ["y"])]
            for row in rows:
                if len(row) != n_features + 1:
                    raise InputError(f"row {n} has {len(row) - 1} features, expected {n_features}")
                lines.append(",".join(map(format_number, row)))
                n += 1
                if len(lines) >= 4096:
                    gz.write(("\n".join(lines) + "\n").encode("ascii"))
                    lines = []
            if lines:
                gz.write(("\n".join(lines) + "\n").encode("ascii"))
    return n
