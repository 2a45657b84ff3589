"""Readers for the data directory's CSV files and for LIBSVM text files."""

from __future__ import annotations

import contextlib
import contextvars
import gzip
import os
from pathlib import Path
from typing import Any, Callable, Optional

import numpy as np

from ..errors import InputError


def data_home(data_home=None) -> Path:
    """The data directory: ``data_home``, else ``$KERNELSTREAM_DATA``, else the platform's
    cache directory for kernelstream (the directory ``pooch.os_cache("kernelstream")``
    names, found without pooch: ``~/.cache/kernelstream`` on Linux), where
    :func:`kernelstream.datasets.fetch` stores files."""
    if data_home is not None:
        return Path(data_home).expanduser()
    env = os.environ.get("KERNELSTREAM_DATA")
    if env:
        return Path(env).expanduser()
    return user_cache_dir("kernelstream")


def user_cache_dir(app: str) -> Path:
    """``platformdirs.user_cache_dir(app)`` (what pooch's ``os_cache`` returns), with the
    standard library: ``$XDG_CACHE_HOME/app`` or ``~/.cache/app`` (Linux, the BSDs),
    ``~/Library/Caches/app`` (macOS), ``%LOCALAPPDATA%\\app\\app\\Cache`` (Windows)."""
    import sys

    if sys.platform == "darwin":
        return Path(os.path.expanduser("~/Library/Caches")) / app
    if sys.platform == "win32":
        base = os.environ.get("LOCALAPPDATA") or os.path.expanduser("~\\AppData\\Local")
        return Path(base) / app / app / "Cache"
    xdg = os.environ.get("XDG_CACHE_HOME", "")
    return Path(xdg if xdg.strip() else os.path.expanduser("~/.cache")) / app


def _open_binary(path: Path):
    """Opens a file for reading bytes, decompressing by suffix (``.gz``, ``.bz2``, ``.xz``)."""
    import bz2
    import lzma

    opener: Any = {".gz": gzip.open, ".bz2": bz2.open, ".xz": lzma.open}.get(path.suffix, open)
    return opener(path, "rb")


def load_csv(path, target: str | int | None = None):
    """Reads a CSV file with a header (gzip if it ends in ``.gz``) into ``(X, y)``.

    ``target`` names the target column, or gives its index (default: the last one).
    Empty fields become NaN.

    Raises
    ------
    FileNotFoundError
        no such file.
    kernelstream.InputError
        the file is not a readable, rectangular, numeric CSV table with a header and at
        least one row (a directory, binary data, ragged rows, text in a column, a number
        too large for a double), or ``target`` is not one of its columns.
    """
    from .._optional import require

    pd = require("pandas")
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"no such file: {path}")
    if path.is_dir():
        raise InputError(f"{path} is a directory, not a CSV file")
    from .stream._csv import read_header

    read_header(path)  # the header's width is bounded before anything parses it
    try:
        frame = pd.read_csv(path, encoding="utf-8")
    except pd.errors.EmptyDataError:
        raise InputError(f"{path} is empty") from None
    except (pd.errors.ParserError, UnicodeDecodeError, EOFError, OSError) as exc:
        raise InputError(f"{path} is not a readable CSV file ({_first_line(exc)})") from None
    if frame.shape[1] < 2:
        raise InputError(f"{path} needs at least one feature column and a target column")
    _check_rectangular(path, frame.shape[1])
    if frame.shape[0] == 0:
        raise InputError(f"{path} has a header but no rows")
    columns = list(frame.columns)
    if isinstance(target, int) and not isinstance(target, bool):
        if not -len(columns) <= target < len(columns):
            raise InputError(
                f"{path} has {len(columns)} columns; target index {target} is out of range"
            )
        target = columns[target]
    elif target is None:
        target = columns[-1]
    if target not in frame.columns:
        raise InputError(f"{path} has no column {target!r}; columns are {columns}")
    values = {}
    for name in columns:
        col = frame[name]
        try:
            values[name] = col.to_numpy(dtype=np.float64)
        except (ValueError, TypeError, OverflowError):
            row, value, why = _first_non_number(col)
            raise InputError(f"{path}: column {name!r}, row {row}: {_short(value)} {why}") from None
        if np.isinf(values[name]).any():
            row = int(np.flatnonzero(np.isinf(values[name]))[0])
            raise InputError(
                f"{path}: column {name!r}, row {row}: {_short(frame[name].iloc[row])} "
                "is not a finite double"
            )
    y = values[target]
    X = np.column_stack([values[c] for c in columns if c != target])
    return np.ascontiguousarray(X), np.ascontiguousarray(y)


def _check_rectangular(path: Path, width: int) -> None:
    """Every line has ``width`` fields (pandas pads short rows with NaN silently)."""
    import csv

    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8", newline="") as fh:
        rows = csv.reader(fh)
        lineno = 0
        while True:
            try:
                fields = next(rows)
            except StopIteration:
                break
            except csv.Error as exc:  # e.g. a NUL byte (Python < 3.11)
                raise InputError(f"{path}:{rows.line_num}: not readable CSV ({exc})") from None
            lineno += 1
            if fields and len(fields) != width:
                raise InputError(
                    f"{path}:{lineno}: {len(fields)} fields, but the header has {width}"
                )


def _first_line(exc) -> str:
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__


def _first_non_number(col):
    """``(row, value, why)`` of the first entry of a column that is not a finite double."""
    for i, v in enumerate(col):
        try:
            if not np.isfinite(float(v)):
                return i, v, "is not a finite double"
        except OverflowError:
            return i, v, "is not a finite double (too large)"
        except (ValueError, TypeError):
            return i, v, "is not a number (the column is not numeric)"
    return -1, None, "is not a number"


def _short(value) -> str:
    text = repr(value) if isinstance(value, str) else str(value)
    return text if len(text) <= 40 else f"{text[:20]}...({len(text)} characters)"


def load(name: str, data_home=None):
    """Loads the dataset ``name`` (a file stem of the data directory) as ``(X, y)``.

    Values are returned raw (no scaling, no shuffling, missing values as NaN);
    preprocessing is explicit, with :func:`kernelstream.datasets.scale`.

    Raises
    ------
    FileNotFoundError
        when the file is missing: names the path that was looked for and the command
        that downloads it (``kernelstream data fetch NAME``).

    Examples
    --------
    >>> from kernelstream import datasets
    >>> X, y = datasets.load("airfoil")   # doctest: +SKIP
    >>> X.shape                           # doctest: +SKIP
    (1503, 5)
    """
    return load_csv(dataset_path(name, data_home))


def dataset_path(name: str, data_home=None) -> Path:
    """The file of the dataset ``name``: the checked copy of the current data source (a
    task on a Dask worker, :func:`use_source`) if one is set, else the data directory's
    ``NAME.csv.gz`` or ``NAME.csv``; a ``FileNotFoundError`` that says how to get it if
    there is none."""
    source = _SOURCE.get()
    if source is not None:
        return source(name)
    home = _resolve_home(data_home)
    for candidate in (home / f"{name}.csv.gz", home / f"{name}.csv"):
        if candidate.exists():
            return candidate
    from .registry import DATASETS

    how = (
        f"download it with `kernelstream data fetch {name}` (or kernelstream.datasets.fetch)"
        if name in DATASETS
        else f"known datasets: {', '.join(sorted(DATASETS))}"
    )
    raise FileNotFoundError(
        f"dataset {name!r} not found: looked for {home / (name + '.csv.gz')} "
        f"(and {home / (name + '.csv')}); {how}, or set KERNELSTREAM_DATA"
    )


#: Where :func:`load` finds files instead of the data directory, when set (a task on a Dask
#: worker: :mod:`kernelstream.executors.worker`): ``name -> path of the checked file``.
_SOURCE: contextvars.ContextVar[Optional[Callable[[str], Path]]] = contextvars.ContextVar(
    "kernelstream_data_source", default=None
)


@contextlib.contextmanager
def use_source(source: Callable[[str], Path]):
    """Within the block, :func:`load` reads ``source(name)`` and ignores ``data_home`` (a
    path of another machine)."""
    token = _SOURCE.set(source)
    try:
        yield
    finally:
        _SOURCE.reset(token)


def _resolve_home(value) -> Path:
    return data_home(value)


def load_libsvm(path, n_features: int | None = None):
    """Reads a LIBSVM/SVMlight text file (``label idx:value ...``, 1-based indices) densely.

    Absent indices are 0. ``n_features`` fixes the width (default: the largest index seen).
    Comment text after ``#`` is ignored.
    """
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"no such file: {path}")
    labels, rows, width, width_row = [], [], 0, 0
    for row_no, (label, entries) in enumerate(iter_libsvm(path), 1):
        labels.append(label)
        if entries and max(entries) + 1 > width:
            width, width_row = max(entries) + 1, row_no
        rows.append(entries)
    if n_features is not None:
        if n_features < width:
            raise InputError(f"{path} has feature index {width} > n_features={n_features}")
        width = n_features
    # The array is dense: refuse absurd indices before allocating (one memory ceiling).
    from .._limits import check_doubles

    check_doubles(
        f"{path}: feature index {width} (data row {width_row}) would make a dense "
        f"{len(rows)} x {width} array that",
        len(rows) * width,
        "; is the index right?",
    )
    X = np.zeros((len(rows), width))
    for r, entries in enumerate(rows):
        for i, v in entries.items():
            X[r, i] = v
    return X, np.asarray(labels, dtype=np.float64)


def iter_libsvm(path):
    """Yields ``(label, {column: value})`` for each LIBSVM line of ``path`` (0-based columns).

    The one LIBSVM parser: :func:`load_libsvm` and the converters of
    :func:`kernelstream.datasets.fetch` both read through it. Compressed files (``.gz``,
    ``.bz2``, ``.xz``) are read as they are; text after ``#`` is a comment.
    """
    path = Path(path)
    import lzma
    import zlib

    lineno = 0
    try:
        with _open_binary(path) as fh:  # decoded line by line: an error names its line
            for lineno, raw in enumerate(fh, 1):
                try:
                    line = raw.decode("ascii")
                except UnicodeDecodeError as exc:
                    raise InputError(
                        f"{path}:{lineno}: not a LIBSVM line (byte {raw[exc.start]:#04x} at "
                        f"column {exc.start + 1} is not ASCII)"
                    ) from None
                line = line.split("#", 1)[0].strip()
                if not line:
                    continue
                parts = line.split()
                try:
                    label = float(parts[0])
                    entries = {}
                    for item in parts[1:]:
                        idx, val = item.split(":", 1)
                        i = int(idx)
                        if i < 1:
                            raise ValueError(f"index {i} < 1")
                        entries[i - 1] = float(val)
                except ValueError as exc:
                    raise InputError(f"{path}:{lineno}: not a LIBSVM line ({exc})") from None
                yield label, entries
    except (EOFError, lzma.LZMAError, zlib.error, OSError) as exc:
        raise InputError(
            f"{path}: not a readable file after line {lineno}: damaged, truncated or not "
            f"compressed as its suffix says ({type(exc).__name__}: {exc})"
        ) from None
