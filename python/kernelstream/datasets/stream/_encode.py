"""Columns of a table -> ``(X, y)`` chunks, online: each row is encoded with what the
rows before it (and itself) showed, never with later rows.

A batch is a dict ``name -> 1-d array``: float64 (NaN: missing) for numeric columns, an
object array of ``str`` (``None``: missing) for text columns. Whether a column is numeric
or text is fixed by the first batch.

- **Text columns** are one-hot encoded online with a fixed budget of ``max_categories``
  columns: the first ``max_categories - 1`` distinct values, in order of first appearance,
  get a column each; every later value shares the last one. The width is fixed before the
  first row, so that a value first seen late changes no earlier row. A missing value is a
  row of zeros.
- **Dates and identifiers** (decided on the first batch, ``_kinds``): a ``YYYY-MM-DD``
  column becomes calendar features, an id-like column is left out; ``notes`` says so.
- **Missing numbers** drop their row (``missing="drop"``) or take the mean of the values
  the column had in the rows before (``missing="impute"``; 0 before any value). A row
  whose target is missing is always dropped.
"""

from __future__ import annotations

import numpy as np

from ..._limits import check_doubles
from ...errors import InputError
from . import _kinds

MISSING_CHOICES = ("drop", "impute")


class TableEncoder:
    """Encodes batches of one table in order (see the module docstring)."""

    def __init__(
        self,
        source: str,
        columns: list,
        text_columns: set,
        target: str,
        drop=(),
        missing: str = "drop",
        max_categories: int = 8,
        positive=None,
    ):
        if missing not in MISSING_CHOICES:
            raise InputError(f"missing must be 'drop' or 'impute', got {missing!r}")
        if not (isinstance(max_categories, int) and max_categories >= 1):
            raise InputError(f"max_categories must be a whole number >= 1, got {max_categories!r}")
        unknown = [c for c in drop if c not in columns]
        if unknown:
            raise InputError(
                f"{source} has no column {unknown[0]!r} to drop; columns are {columns}"
            )
        if target in drop:
            raise InputError(f"the target {target!r} cannot be dropped")
        self.source = source
        self.target = target
        self.missing = missing
        self.max_categories = max_categories
        self.positive = positive
        if target in text_columns and positive is None:
            raise InputError(
                f"{source}: the target column {target!r} is text; a regression target must be "
                "numeric (for two classes, name the positive label: positive=... / --positive)"
            )
        self.features = [c for c in columns if c != target and c not in drop]
        if not self.features:
            raise InputError(f"{source}: no feature column left (the target is {target!r})")
        self.text = [c for c in self.features if c in text_columns]
        self.categories: dict = {c: {} for c in self.text}
        self.others: dict = {c: 0 for c in self.text}
        self._sum = {c: 0.0 for c in self.features if c not in text_columns}
        self._count = {c: 0 for c in self._sum}
        self._exp = {c: 0 for c in self._sum}  # the sums are _sum * 2^_exp
        self.rows_read = 0
        self.rows_dropped = 0
        self.values_imputed = 0
        self._decided = False
        self.dates: list = []  # date columns (calendar features), fixed by the first batch
        self.notes: list = []  # what the first batch decided (dates, identifiers)
        #: per text column, the distinct values that shared the last column (up to 1000)
        self.lumped: dict = {c: {} for c in self.text}

    @property
    def width(self) -> int:
        """Columns of ``X``: one per numeric feature, ``max_categories`` per text feature,
        three per date."""
        return (
            len(self.features)
            + (self.max_categories - 1) * len(self.text)
            + (len(_kinds.CALENDAR) - 1) * len(self.dates)
        )

    def _decide_kinds(self, batch: dict) -> None:
        """Dates and identifiers, from the first batch (module ``_kinds``)."""
        for name in list(self.features):
            col = np.asarray(batch[name])
            is_text = name in self.categories
            if is_text and _kinds.is_date_column(col):
                self.text.remove(name)
                del self.categories[name], self.others[name], self.lumped[name]
                self.dates.append(name)
                self.notes.append(
                    f"date column {name!r} encoded as calendar features "
                    f"({', '.join(f'{name}[{c}]' for c in _kinds.CALENDAR)})"
                )
            elif _kinds.is_id_column(name, col, is_text):
                self.features.remove(name)
                if is_text:
                    self.text.remove(name)
                    del self.categories[name], self.others[name], self.lumped[name]
                else:
                    del self._sum[name], self._count[name]
                self.notes.append(
                    f"column {name!r} looks like an identifier (all its first values "
                    "differ): left out"
                )
        if not self.features:
            raise InputError(
                f"{self.source}: no feature column left (the target is {self.target!r}; "
                f"{'; '.join(self.notes)})"
            )

    @property
    def feature_names(self) -> list:
        names = []
        for c in self.features:
            if c in self.dates:
                names += [f"{c}[{k}]" for k in _kinds.CALENDAR]
            elif c in self.categories:
                names += [f"{c}[{k}]" for k in range(self.max_categories)]
            else:
                names.append(c)
        return names

    def _numeric(self, name: str, col: np.ndarray, row0: int) -> np.ndarray:
        if col.dtype != object:
            out = np.asarray(col, dtype=np.float64)
        else:  # a numeric column read as text in a later batch: every entry must parse
            out = np.empty(col.size)
            for i, v in enumerate(col):
                try:
                    out[i] = np.nan if v is None or v == "" else float(v)
                except (TypeError, ValueError):
                    raise InputError(
                        f"{self.source}: column {name!r}, row {row0 + i}: {_short(v)} is not a "
                        "number (the column was numeric in the first rows; drop it or encode it)"
                    ) from None
        bad = np.isinf(out)
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise InputError(
                f"{self.source}: column {name!r}, row {row0 + i}: {_short(col[i])} "
                "is not a finite double"
            )
        return out

    def _exponent(self, name: str, obs: np.ndarray, added: int) -> int:
        """The exponent ``e`` of column ``name``'s scaled sum after ``obs``: the least
        (and at least the last one) for which ``count * max|x| * 2^-e`` stays below 2^1023,
        so that no prefix sum overflows; the stored sum is rescaled to it (exactly: a
        power of two)."""
        top = float(np.max(np.abs(obs))) if obs.size else 0.0
        bits = int(np.frexp(top)[1]) + (self._count[name] + added).bit_length()
        e = max(self._exp[name], bits - 1023, 0)
        if e != self._exp[name]:
            self._sum[name] = float(np.ldexp(self._sum[name], self._exp[name] - e))
            self._exp[name] = e
        return e

    def _target(self, col: np.ndarray, row0: int) -> np.ndarray:
        if self.positive is None:
            return self._numeric(self.target, col, row0)
        if col.dtype == object:
            miss = np.array([v is None for v in col])
            pos = np.array([str(v) == str(self.positive) for v in col])
        else:
            miss = np.isnan(col)
            try:
                pos = col == float(self.positive)
            except (TypeError, ValueError):
                raise InputError(
                    f"{self.source}: the target {self.target!r} is numeric, and the positive "
                    f"label {self.positive!r} is not a number"
                ) from None
        return np.where(miss, np.nan, np.where(pos, 1.0, -1.0))

    def _one_hot(self, name: str, col: np.ndarray) -> np.ndarray:
        cats, K = self.categories[name], self.max_categories
        out = np.zeros((col.size, K))
        present = np.flatnonzero(np.array([v is not None for v in col], dtype=bool))
        if present.size == 0:
            return out
        values, first, inverse = np.unique(
            col[present].astype(str), return_index=True, return_inverse=True
        )
        column = np.empty(values.size, dtype=np.int64)
        for j in np.argsort(first, kind="stable"):  # new values in order of appearance
            v = str(values[j])
            k = cats.get(v)
            if k is None and len(cats) < K - 1:
                k = cats[v] = len(cats)
            column[j] = K - 1 if k is None else k
        late = column[inverse] == K - 1
        self.others[name] += int(late.sum())
        lumped = self.lumped[name]
        for j in np.flatnonzero(column == K - 1):
            if len(lumped) < 1000:
                v = str(values[j])
                lumped[v] = lumped.get(v, 0) + int((inverse == j).sum())
        out[present, column[inverse]] = 1.0
        return out

    def encode(self, batch: dict):
        """``(X, y)`` of the complete (or imputed) rows of ``batch``, in order."""
        n = len(batch[self.target])
        if self.text:
            # the one-hot columns, their stack and the kept rows' copy: three n x width
            # arrays, counted before the first is allocated
            check_doubles(
                f"{self.source}: a chunk of {n} rows x {self.width} columns ({len(self.text)} "
                f"text column(s) one-hot encoded in max_categories={self.max_categories} "
                "columns each)",
                3 * n * self.width,
                "; lower max_categories (--max-categories) or chunk_rows (--chunk-rows)",
            )
        row0 = self.rows_read
        if not self._decided and n:
            self._decide_kinds(batch)
            self._decided = True
        self.rows_read += n
        y = self._target(np.asarray(batch[self.target]), row0)
        keep = ~np.isnan(y)
        cols = {}
        for name in self.features:
            col = np.asarray(batch[name])
            if name in self.dates:
                col = _kinds.calendar(name, col, self.source, row0)
                if self.missing == "drop":
                    keep &= ~np.isnan(col).any(axis=1)
            elif name in self.categories:
                if col.dtype != object:  # numbers in a text column: their text is the category
                    col = np.array([None if np.isnan(v) else _num_text(v) for v in col], object)
                if self.missing == "drop":
                    keep &= np.array([v is not None for v in col], dtype=bool)
            else:
                col = self._numeric(name, col, row0)
                if self.missing == "drop":
                    keep &= ~np.isnan(col)
            cols[name] = col
        parts = []
        for name in self.features:
            col = cols[name]
            if name in self.dates:  # (a missing date is 0 under missing="impute")
                parts.append(np.nan_to_num(col, nan=0.0))
                continue
            if name in self.categories:
                # a dropped row registers no category
                masked = col.copy()
                masked[~keep] = None
                parts.append(self._one_hot(name, masked))
                continue
            miss = np.isnan(col)
            if self.missing == "impute":
                valid = ~miss & keep
                obs = np.where(valid, col, 0.0)
                # the sums are kept as sum * 2^-e: a column of values near 1e308 has a
                # finite mean though its sum overflows (e = 0 unless it would)
                e = self._exponent(name, obs, int(valid.sum()))
                obs = np.ldexp(obs, -e)
                if miss.any():
                    # the mean of the values of the kept rows before (0 before any)
                    csum = self._sum[name] + np.cumsum(obs) - obs
                    ccnt = self._count[name] + np.cumsum(valid) - valid
                    fill = np.ldexp(np.divide(csum, ccnt, out=np.zeros(n), where=ccnt > 0), e)
                    self.values_imputed += int((miss & keep).sum())
                    col = np.where(miss, fill, col)
                self._sum[name] += float(obs[valid].sum())
                self._count[name] += int(valid.sum())
            parts.append(col)
        X = np.column_stack(parts)
        self.rows_dropped += int(n - keep.sum())
        return np.ascontiguousarray(X[keep]), np.ascontiguousarray(y[keep])


def _num_text(v: float) -> str:
    return str(int(v)) if float(v).is_integer() and abs(v) < 2**53 else repr(float(v))


def _short(value) -> str:
    text = repr(value) if isinstance(value, str) else str(value)
    return text if len(text) <= 40 else f"{text[:20]}...({len(text)} characters)"
