"""CSV files as batches of columns, in constant memory.

Three readers, the first installed one is used: pyarrow's streaming reader, pandas'
chunked reader, the standard ``csv`` module (pandas alone reads a line with fewer fields
than the header as one whose last fields are empty). All read the header first, within a bound on
its length and width (:func:`read_header`), so that a line of millions of fields is refused
before it is parsed, and every reader bounds every data line the same way (pyarrow by its
block, the others by :class:`BoundedLines` before the line reaches the parser). The column
names are the header's as :func:`read_header` reads them (a UTF-8 byte-order mark and spaces
around the names removed): each reader is given them and skips the file's first line.
Compressed files are decompressed by Python's ``gzip``/``bz2``/``lzma`` (pyarrow: by its own
codecs for ``.gz``/``.bz2``; it has none for ``.xz``); a damaged or truncated stream is an
:class:`InputError` naming the file.
Each reader decides from the first ``chunk_rows`` rows whether a column is numeric or text.
"""

from __future__ import annotations

import contextlib
import csv
import io
import lzma
import zlib
from pathlib import Path
from typing import Any

import numpy as np

from ...errors import InputError

#: Field texts that mean "missing" (as pyarrow's and pandas' defaults).
NA_TOKENS = ["", "NA", "N/A", "n/a", "NaN", "nan", "-NaN", "-nan", "NULL", "null", "None", "#N/A"]

#: Widest header accepted (fields), and longest line (bytes) per header field.
MAX_COLUMNS = 100_000
BYTES_PER_FIELD = 1024
MIN_LINE_BYTES = 1 << 20
#: pyarrow's block: this many bytes per header field (at least 64 KiB).
BLOCK_BYTES_PER_FIELD = 64


#: what Python's decompressors raise on a damaged, truncated or mis-named stream
DECODE_ERRORS = (OSError, EOFError, lzma.LZMAError, zlib.error)


def _open_binary(path: Path):
    import bz2
    import gzip

    opener: Any = {".gz": gzip.open, ".bz2": bz2.open, ".xz": lzma.open}.get(path.suffix, open)
    return opener(path, "rb")


def _unreadable(path, exc) -> InputError:
    """The error for a file that cannot be read or decompressed."""
    what = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
    if isinstance(exc, (EOFError, lzma.LZMAError, zlib.error)) or path.suffix in (
        ".gz",
        ".bz2",
        ".xz",
    ):
        return InputError(f"{path} is not a readable {path.suffix} file: damaged, truncated or "
                          f"not {path.suffix}-compressed ({what})")  # fmt: skip
    return InputError(f"{path} is not a readable CSV file ({what})")


class BoundedLines(io.RawIOBase):
    """The bytes of ``raw`` (a binary file), refused with an :class:`InputError` naming
    the line as soon as a line is longer than ``limit`` bytes: a reader parsing through it
    (pandas) never holds a longer line. Decompression errors become :class:`InputError`."""

    def __init__(self, raw, path: Path, limit: int):
        self._raw, self._path, self._limit = raw, path, limit
        self._run = 0  # bytes of the current line so far
        self._line = 1

    def readable(self) -> bool:
        return True

    def readinto(self, b) -> int:
        try:
            data = self._raw.read(min(len(b), 1 << 16))
        except DECODE_ERRORS as exc:
            raise _unreadable(self._path, exc) from None
        lines = data.split(b"\n")
        head = self._run + len(lines[0])  # the line continued from the last read
        if head > self._limit or max(map(len, lines)) > self._limit:
            k = next(
                k for k, part in enumerate(lines) if len(part) + (k == 0) * self._run > self._limit
            )
            raise InputError(
                f"{self._path}:{self._line + k}: a line longer than {self._limit} bytes"
            )
        self._line += len(lines) - 1
        self._run = head if len(lines) == 1 else len(lines[-1])
        n = len(data)
        b[:n] = data
        return n

    def close(self) -> None:
        try:
            self._raw.close()
        finally:
            super().close()


def max_line_bytes(width: int) -> int:
    return max(MIN_LINE_BYTES, BYTES_PER_FIELD * width)


def read_header(path: Path, max_columns: int = MAX_COLUMNS) -> list:
    """The column names of ``path``'s first line; an :class:`InputError` if the file is
    empty, the line is longer than ``BYTES_PER_FIELD * max_columns`` bytes or has more than
    ``max_columns`` fields (counted before the line is parsed), or names a column twice."""
    limit = max_line_bytes(max_columns)
    try:
        with _open_binary(path) as fh:
            line = fh.readline(limit + 1)
    except DECODE_ERRORS as exc:
        raise _unreadable(path, exc) from None
    if line.startswith(b"\xef\xbb\xbf"):  # a UTF-8 byte-order mark is not part of the name
        line = line[3:]
    if not line.strip():
        raise InputError(f"{path} is empty")
    if len(line) > limit:
        raise InputError(
            f"{path}: the header line is longer than {limit} bytes (more than "
            f"{max_columns} columns?)"
        )
    if line.count(b",") + 1 > max_columns:
        raise InputError(
            f"{path}: the header has {line.count(b',') + 1} fields; at most {max_columns} "
            "columns are read"
        )
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError:
        raise InputError(f"{path} is not a readable CSV file (not UTF-8 text)") from None
    if "\x00" in text:  # Python < 3.11's csv module raises on NUL; no CSV has one
        raise InputError(f"{path} is not a readable CSV file (a NUL byte in the header)")
    try:
        names = next(csv.reader([text]), [])
    except csv.Error as exc:
        raise InputError(f"{path} is not a readable CSV file ({exc})") from None
    names = [n.strip() for n in names]
    if len(names) < 2:
        raise InputError(f"{path} needs at least one feature column and a target column")
    seen = set()
    for n in names:
        if n in seen:
            raise InputError(f"{path}: the header names column {n!r} twice")
        seen.add(n)
    return names


def reader_name() -> str:
    """Which CSV reader :func:`batches` uses: ``"pyarrow"``, ``"pandas"`` or ``"csv"``."""
    for name in ("pyarrow", "pandas"):
        try:
            __import__(name)
            return name
        except ImportError:
            continue
    return "csv"


def batches(path: Path, columns: list, chunk_rows: int, usecols: list, reader: str | None = None):
    """``(text_columns, iterator of batches)`` for the columns ``usecols`` of ``path``,
    whose header :func:`read_header` read as ``columns`` (checked again here: a file
    replaced since is refused rather than read with the old names)."""
    try:
        now = read_header(path, len(columns))
    except InputError:
        now = None
    if now != columns:
        raise InputError(f"{path} changed since its header was read: read it again")
    reader = reader or reader_name()
    return {"pyarrow": _pyarrow, "pandas": _pandas, "csv": _csvmodule}[reader](
        path, columns, chunk_rows, usecols
    )


# -- pyarrow -------------------------------------------------------------------------------


def _pyarrow(path, columns, chunk_rows, usecols):
    import pyarrow as pa
    import pyarrow.csv as pacsv

    # Small blocks: pyarrow's peak memory grows with the file's length when its blocks are
    # large (measured: flat with 64 KiB blocks, +100 MB over 3M rows with 4 MiB blocks).
    # A line longer than a block is refused.
    block = max(1 << 16, min(BLOCK_BYTES_PER_FIELD * len(columns), 1 << 24))
    errors = (pa.ArrowInvalid, pa.ArrowKeyError, *DECODE_ERRORS)

    @contextlib.contextmanager
    def open_(types=None):
        # pyarrow has no .xz codec: Python's lzma decompresses it. The header's names are
        # given (the first line skipped), so that every reader names the columns alike.
        raw = _open_binary(path) if path.suffix == ".xz" else None
        src = raw if raw is not None else pa.input_stream(str(path), compression="detect")
        try:
            with pacsv.open_csv(
                src,
                read_options=pacsv.ReadOptions(
                    block_size=block, use_threads=False, column_names=columns, skip_rows=1
                ),
                convert_options=pacsv.ConvertOptions(
                    column_types=types, include_columns=usecols, strings_can_be_null=True
                ),
            ) as r:
                yield r
        finally:
            if raw is not None:
                raw.close()

    def numeric(t) -> bool:
        return pa.types.is_integer(t) or pa.types.is_floating(t) or pa.types.is_null(t)

    try:  # first block: which columns are numbers (then every block is read with those types)
        with open_() as r:
            schema = r.schema
    except errors as exc:
        raise _arrow_error(path, exc) from None
    text = {f.name for f in schema if not numeric(f.type)}
    types = {f.name: (pa.string() if f.name in text else pa.float64()) for f in schema}

    def gen():
        try:
            with open_(types) as r:
                for rb in r:
                    for start in range(0, rb.num_rows, chunk_rows):
                        part = rb.slice(start, chunk_rows)
                        yield {
                            name: part.column(i).to_numpy(zero_copy_only=False)
                            for i, name in enumerate(part.schema.names)
                        }
        except errors as exc:
            raise _arrow_error(path, exc) from None

    return text, gen()


def _arrow_error(path, exc) -> InputError:
    import re

    if isinstance(exc, (EOFError, lzma.LZMAError, zlib.error)):
        return _unreadable(path, exc)
    msg = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    m = re.search(r"Expected (\d+) columns, got (\d+)", msg)
    if m:
        msg = f"a line has {m.group(2)} fields, but the header has {m.group(1)}"
    if "straddling" in msg or "straddles" in msg:
        msg = (
            "a line is longer than the reader's block: far more fields than the header, or "
            "very long texts (reader='csv' or 'pandas' reads such lines)"
        )
    return InputError(f"{path} is not a readable CSV table ({msg})")


# -- pandas --------------------------------------------------------------------------------


def _pandas(path, columns, chunk_rows, usecols):
    import pandas as pd

    # No usecols: with it, pandas would ignore the extra fields of a too long line. pandas
    # reads a line with fewer fields than the header as if its last fields were empty.
    # It reads through BoundedLines (every line bounded before it is parsed, Python's
    # decompressors), with the header's names given and the file's first line skipped.
    limit = max_line_bytes(len(columns))

    def read(**kw):
        return pd.read_csv(
            BoundedLines(_open_binary(path), path, limit),
            encoding="utf-8",
            keep_default_na=False,
            na_values=NA_TOKENS,
            header=0,
            names=columns,
            **kw,
        )

    errors = (pd.errors.ParserError, UnicodeDecodeError, ValueError, *DECODE_ERRORS)
    try:  # the first rows tell which columns are numbers; then every chunk is read typed
        head = read(nrows=chunk_rows, dtype=str)
    except InputError:
        raise
    except errors as exc:
        raise InputError(f"{path} is not a readable CSV table ({_first_line(exc)})") from None
    text = {c for c in usecols if not all(_is_number(v) for v in head[c].dropna().to_numpy())}
    dtypes = {c: (np.float64 if c in usecols and c not in text else str) for c in columns}

    def gen():
        row0 = 0
        try:
            for frame in read(chunksize=chunk_rows, dtype=dtypes):
                batch = {}
                for c in usecols:
                    if c in text:
                        vals = frame[c].to_numpy(dtype=object)
                        vals[frame[c].isna().to_numpy()] = None
                    else:
                        vals = frame[c].to_numpy(dtype=np.float64)
                    batch[c] = vals
                row0 += len(frame)
                yield batch
        except InputError:
            raise
        except errors as exc:
            where = f"after data row {row0}: " if row0 else ""
            # (pandas < 3 refuses a number beyond the doubles here; pandas 3 reads it as inf)
            raise InputError(
                f"{path} is not a readable CSV table ({where}{_first_line(exc)}): a value of "
                "a column the first rows made numeric is text or not a finite double"
            ) from None

    return text, gen()


def _first_line(exc) -> str:
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__


# -- the csv module ------------------------------------------------------------------------


def _bounded_lines(fh, path, width):
    """The text lines of ``fh``, each refused before parsing if it is too long or, when it
    has no quote, has more separators than the header."""
    limit = max_line_bytes(width)
    lineno = 0
    while True:
        line = fh.readline(limit + 1)
        if not line:
            return
        lineno += 1
        if len(line) > limit:
            raise InputError(f"{path}:{lineno}: a line longer than {limit} bytes")
        if '"' not in line and line.count(",") >= width:
            raise InputError(
                f"{path}:{lineno}: {line.count(',') + 1} fields, but the header has {width}"
            )
        yield line


def _csvmodule(path, columns, chunk_rows, usecols):
    width = len(columns)
    keep = [columns.index(c) for c in usecols]

    def rows():
        with _open_binary(path) as raw:
            fh = io.TextIOWrapper(raw, encoding="utf-8", newline="")
            try:
                reader = csv.reader(_bounded_lines(fh, path, width))
                next(reader, None)  # the header
                for fields in reader:
                    if not fields:
                        continue
                    if len(fields) != width:
                        raise InputError(
                            f"{path}:{reader.line_num}: {len(fields)} fields, "
                            f"but the header has {width}"
                        )
                    yield [fields[i] for i in keep]
            except UnicodeDecodeError:
                raise InputError(f"{path} is not a readable CSV file (not UTF-8 text)") from None
            except DECODE_ERRORS as exc:
                raise _unreadable(path, exc) from None
            except csv.Error as exc:
                raise InputError(f"{path} is not a readable CSV file ({exc})") from None

    it = rows()
    first = _take(it, chunk_rows)
    text = {usecols[j] for j in range(len(usecols)) if not all(_is_number(r[j]) for r in first)}

    def convert(block):
        batch = {}
        for j, name in enumerate(usecols):
            vals = np.array([r[j].strip() for r in block], dtype=object)
            miss = np.isin(vals, NA_TOKENS)
            vals[miss] = None
            batch[name] = vals if name in text else _floats(vals, miss)
        return batch

    def gen():
        block = first
        while block:
            yield convert(block)
            block = _take(it, chunk_rows)

    return text, gen()


def _floats(vals: np.ndarray, miss: np.ndarray) -> np.ndarray:
    out = np.full(vals.size, np.nan)
    try:
        out[~miss] = [float(v) for v in vals[~miss]]
    except ValueError:
        return vals  # the encoder names the entry that is not a number
    return out


def _take(it, n):
    out = []
    for row in it:
        out.append(row)
        if len(out) == n:
            break
    return out


def _is_number(v: str) -> bool:
    v = v.strip()
    if v in NA_TOKENS:
        return True
    try:
        float(v)
        return True
    except ValueError:
        return False
