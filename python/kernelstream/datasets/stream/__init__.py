"""Streams of ``(X, y)`` chunks read from files or DataFrames in constant memory.

>>> import numpy as np, tempfile, os
>>> from kernelstream.datasets import stream
>>> path = os.path.join(tempfile.mkdtemp(), "t.csv")
>>> with open(path, "w") as fh:
...     _ = fh.write("size,town,price\\n50,a,100\\n70,b,\\n60,a,130\\n")
>>> s = stream(path, target="price", chunk_rows=2)
>>> [(X.shape, y.tolist()) for X, y in s]
[((2, 9), [100.0, 130.0])]
>>> s.rows_read, s.rows_dropped, s.categories
(3, 1, {'town': ['a']})

See ``docs/streams.md``.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ...errors import InputError
from . import _csv, _frames, _libsvm, _parquet
from ._encode import MISSING_CHOICES, TableEncoder

__all__ = ["ChunkStream", "stream", "MISSING_CHOICES"]

_PARQUET = {".parquet", ".pq"}
_LIBSVM = {".svm", ".libsvm", ".svmlight"}


def _format(path: Path) -> str:
    suffixes = [s.lower() for s in path.suffixes]
    if suffixes and suffixes[-1] in (".gz", ".bz2", ".xz"):
        suffixes = suffixes[:-1]
    last = suffixes[-1] if suffixes else ""
    if last in _PARQUET:
        return "parquet"
    if last in _LIBSVM:
        return "libsvm"
    return "csv"


class ChunkStream:
    """An iterable of ``(X, y)`` chunks (float64, C order, at most ``chunk_rows`` rows;
    every chunk but the last has exactly ``chunk_rows``), built by :func:`stream`.

    Iterating again reads the source again from its start. After (or during) a pass:
    ``rows_read`` (data rows read), ``rows_dropped`` (rows with a missing value, or a
    missing target), ``values_imputed``, ``categories`` (the values of each text column
    that have a column of their own, in order of first appearance), ``width`` and
    ``feature_names``.
    """

    def __init__(
        self,
        source,
        target=None,
        chunk_rows: int = 65536,
        drop=(),
        missing: str = "drop",
        max_categories: int = 8,
        positive=None,
        n_features: int | None = None,
        format: str | None = None,
        reader: str | None = None,
        max_columns: int = _csv.MAX_COLUMNS,
    ):
        if isinstance(chunk_rows, bool) or not isinstance(chunk_rows, (int, np.integer)):
            raise InputError(f"chunk_rows must be a whole number >= 1, got {chunk_rows!r}")
        if chunk_rows < 1:
            raise InputError(f"chunk_rows must be a whole number >= 1, got {chunk_rows}")
        if format not in (None, "csv", "parquet", "libsvm"):
            raise InputError(f"format must be 'csv', 'parquet' or 'libsvm', got {format!r}")
        if reader not in (None, "pyarrow", "pandas", "csv"):
            raise InputError(f"reader must be 'pyarrow', 'pandas' or 'csv', got {reader!r}")
        self.chunk_rows = int(chunk_rows)
        self._opts = dict(
            drop=tuple(drop or ()),
            missing=missing,
            max_categories=max_categories,
            positive=positive,
        )
        self._n_features = n_features
        self._reader = reader
        self._max_columns = max_columns
        self._frame = None
        if _frames.is_dask(source) or _frames.is_pandas(source):
            self._frame = source
            self.kind = "dask" if _frames.is_dask(source) else "pandas"
            self.source = f"a {self.kind} DataFrame"
            self._labels = _frames.column_names(source, self.source)
            self.columns = list(self._labels)
        else:
            path = Path(source)
            if not path.exists():
                raise FileNotFoundError(f"no such file: {path}")
            if path.is_dir():
                raise InputError(f"{path} is a directory, not a data file")
            self.path = path
            self.source = str(path)
            self.kind = format or _format(path)
            if self.kind == "csv":
                self.columns = _csv.read_header(path, max_columns)
            elif self.kind == "parquet":
                self._pq, self.columns = _parquet.open_parquet(path)
            else:
                self.columns = []
        if self.kind == "libsvm":
            if target is not None:
                raise InputError("a LIBSVM file's target is its label: give no target")
            self.target = "label"
        else:
            self.target = self._resolve_target(target)
        self._encoder = None
        self._pending = None
        self.width = None
        self.rows_read = 0
        self._start()

    def _resolve_target(self, target):
        cols = self.columns
        labels = getattr(self, "_labels", None)
        if labels is not None and not isinstance(target, (str, type(None), bool)):
            # a DataFrame's own label (an integer label, a MultiIndex tuple) names its column
            named = [name for name, label in labels.items() if _same(label, target)]
            if named:
                return named[0]
        if isinstance(target, (int, np.integer)) and not isinstance(target, bool):
            if not -len(cols) <= target < len(cols):
                raise InputError(
                    f"{self.source} has {len(cols)} columns; target index {target} is out of range"
                )
            return cols[target]
        if target is None:
            return cols[-1]
        if target not in cols:
            raise InputError(f"{self.source} has no column {target!r}; columns are {cols}")
        return target

    # -- one pass -------------------------------------------------------------------------
    def _start(self):
        """Opens the source (what can be checked is checked here, before any row)."""
        self.rows_read = 0
        if self.kind == "libsvm":
            self._pending = _libsvm.chunks(self.path, self.chunk_rows, self._n_features, self)
            self.width = self._n_features
            return
        drop = set(self._opts["drop"])
        for c in drop:
            if c not in self.columns:
                raise InputError(
                    f"{self.source} has no column {c!r} to drop; columns are {self.columns}"
                )
        if self.target in drop:
            raise InputError(f"the target {self.target!r} cannot be dropped")
        usecols = [c for c in self.columns if c not in drop]
        if self.kind == "csv":
            text, gen = _csv.batches(
                self.path, self.columns, self.chunk_rows, usecols, self._reader
            )
        elif self.kind == "parquet":
            text, gen = _parquet.batches(self._pq, self.path, self.chunk_rows, usecols)
        else:
            text, gen = _frames.batches(self._frame, self.chunk_rows, usecols, self._labels)
        opts = {**self._opts, "drop": ()}  # left out by the reader already
        self._encoder = TableEncoder(self.source, usecols, text, self.target, **opts)
        self.width = self._encoder.width
        self._pending = self._encoded(gen)

    def _encoded(self, gen):
        for batch in gen:
            X, y = self._encoder.encode(batch)
            self.rows_read = self._encoder.rows_read
            self.width = self._encoder.width  # (dates and identifiers: the first batch)
            if y.size:
                yield X, y

    def __iter__(self):
        if self._pending is None:
            self._start()
        gen, self._pending = self._pending, None
        buf, have = [], 0
        for X, y in gen:
            buf.append((X, y))
            have += y.size
            while have >= self.chunk_rows:
                Xs = np.concatenate([b[0] for b in buf]) if len(buf) > 1 else buf[0][0]
                ys = np.concatenate([b[1] for b in buf]) if len(buf) > 1 else buf[0][1]
                k = self.chunk_rows
                yield np.ascontiguousarray(Xs[:k]), np.ascontiguousarray(ys[:k])
                buf = [(Xs[k:], ys[k:])] if ys.size > k else []
                have = ys.size - k
        if have:
            yield (np.ascontiguousarray(np.concatenate([b[0] for b in buf])),
                   np.ascontiguousarray(np.concatenate([b[1] for b in buf])))  # fmt: skip
        if self.rows_read == 0:
            raise InputError(f"{self.source} has a header but no rows")

    # -- what the pass found --------------------------------------------------------------
    @property
    def rows_dropped(self) -> int:
        return self._encoder.rows_dropped if self._encoder else 0

    @property
    def values_imputed(self) -> int:
        return self._encoder.values_imputed if self._encoder else 0

    @property
    def categories(self) -> dict:
        if self._encoder is None:
            return {}
        return {c: list(v) for c, v in self._encoder.categories.items()}

    @property
    def notes(self) -> list:
        """What the first batch decided: date columns encoded as calendar features,
        identifier-like columns left out (``datasets/stream/_kinds.py``)."""
        return list(self._encoder.notes) if self._encoder else []

    @property
    def lumped(self) -> dict:
        """Per text column, ``{value: rows}`` of the values that shared the last column."""
        return {c: dict(v) for c, v in self._encoder.lumped.items() if v} if self._encoder else {}

    @property
    def values_in_last_category(self) -> dict:
        """Per text column, how many values shared the last column (the budget was full)."""
        return dict(self._encoder.others) if self._encoder else {}

    @property
    def feature_names(self) -> list:
        if self._encoder is not None:
            return self._encoder.feature_names
        return [f"x{i}" for i in range(self.width or 0)]


def _same(label, target) -> bool:
    try:
        return bool(label == target) and type(label) is not bool
    except (TypeError, ValueError):
        return False


def stream(source, target=None, chunk_rows: int = 65536, **options) -> ChunkStream:
    """``(X, y)`` chunks of a CSV, Parquet or LIBSVM file, or of a pandas or Dask
    DataFrame, read in order in memory independent of the source's length.

    Parameters
    ----------
    source : path or DataFrame
        A file: ``.parquet``/``.pq`` is Parquet (one row group at a time; needs pyarrow),
        ``.svm``/``.libsvm``/``.svmlight`` is LIBSVM, anything else CSV with a header
        (compressed if it ends in ``.gz``, ``.bz2`` or ``.xz``; read by pyarrow's streaming
        reader if installed, else pandas' chunked reader, else the ``csv`` module). A Dask
        DataFrame is read one partition at a time, in order.
    target : column name or index (default: the last column; LIBSVM: the label)
    chunk_rows : int
        Rows per chunk.
    **options
        The keywords below.

    Other Parameters
    ----------------
    drop : columns to leave out.
    missing : {"drop", "impute"}, default "drop"
        A row with a missing number is dropped, or the number is replaced by the mean of
        the column over the rows before it. A missing target always drops its row.
    max_categories : int, default 8
        Columns of the online one-hot encoding of each text column.
    positive : label, optional
        Classification: the target is +1 where it equals ``positive``, else -1 (a text
        target needs it).
    n_features : int, optional
        LIBSVM: the width (default: the largest index of the first chunk).
    format : {"csv", "parquet", "libsvm"}, optional
        Overrides the suffix.
    reader : {"pyarrow", "pandas", "csv"}, optional
        The CSV reader (default: the first installed).
    max_columns : int, default 100000
        Wider headers are refused before they are parsed.

    Notes
    -----
    Nothing is read from a row's future: each row is encoded with the rows up to it, so
    changing a row changes no chunk before it.
    """
    return ChunkStream(source, target=target, chunk_rows=chunk_rows, **options)
