"""pandas and Dask DataFrames as batches of columns (a Dask DataFrame one partition at a
time, in order: only one partition is in memory).

Columns are named by their labels as text (``0`` is ``"0"``); a label of a MultiIndex by
its levels joined with ``"_"`` (empty levels left out: ``("price", "")`` is ``"price"``),
as ``"_".join(col)`` flattens them in pandas. A partition of a Dask DataFrame that lacks a
column or holds text where the others hold numbers is an :class:`InputError` naming it.
"""

from __future__ import annotations

import numpy as np

from ...errors import InputError


def column_names(frame, source: str = "the DataFrame") -> dict:
    """``{name: label}`` of the frame's columns, in order (see the module docstring); an
    :class:`InputError` if two columns get one name."""
    names: dict = {}
    for label in frame.columns:
        if isinstance(label, tuple):
            name = "_".join(str(part) for part in label if str(part) != "")
        else:
            name = str(label)
        if name in names:
            raise InputError(f"{source} has two columns of the same name {name!r}")
        names[name] = label
    return names


def is_dask(obj) -> bool:
    mod = type(obj).__module__ or ""
    return mod.startswith("dask") and hasattr(obj, "npartitions") and hasattr(obj, "columns")


def is_pandas(obj) -> bool:
    mod = type(obj).__module__ or ""
    return mod.startswith("pandas") and hasattr(obj, "columns") and hasattr(obj, "iloc")


def _text(frame, labels) -> set:
    """The labels of the columns that are not numbers or booleans."""
    import pandas as pd

    out = set()
    for c in labels:
        dtype = frame[c].dtype
        if not (pd.api.types.is_numeric_dtype(dtype) or pd.api.types.is_bool_dtype(dtype)):
            out.add(c)
    return out


def _batch(frame, names, text, labels, where):
    import pandas as pd

    batch = {}
    for c in names:
        col = frame[labels[c]]
        if c not in text and not (
            pd.api.types.is_numeric_dtype(col.dtype) or col.dtype == bool or col.dtype == object
        ):
            raise InputError(
                f"{where}: column {c!r} holds {col.dtype}, but the frame's types make it numeric"
            )
        if c in text:
            miss = col.isna().to_numpy()
            batch[c] = np.array(
                [None if m else str(v) for v, m in zip(col.to_numpy(), miss)], dtype=object
            )
        else:
            try:
                col = pd.to_numeric(col).astype("float64")  # pandas NA -> NaN
            except (ValueError, TypeError) as exc:
                raise InputError(
                    f"{where}: column {c!r} is numeric in the frame's types but holds "
                    f"something else ({_one_line(exc)})"
                ) from None
            batch[c] = col.to_numpy(dtype=np.float64, na_value=np.nan)
    return batch


def batches(frame, chunk_rows: int, usecols: list, labels: dict | None = None):
    """``(text_columns, iterator of batches)``; column kinds from the dtypes (a Dask
    DataFrame's are known without computing it). ``labels``: ``{name: label}``
    (:func:`column_names`)."""
    labels = labels if labels is not None else column_names(frame)
    meta = frame._meta if is_dask(frame) else frame
    text = _text(meta, [labels[c] for c in usecols])
    text = {c for c in usecols if labels[c] in text}
    picked = [labels[c] for c in usecols]

    def parts():
        if is_dask(frame):
            for i in range(frame.npartitions):
                where = f"a dask DataFrame: partition {i} of {frame.npartitions}"
                try:
                    part = frame.get_partition(i).compute()
                except (KeyError, ValueError, TypeError) as exc:
                    raise InputError(
                        f"{where} cannot be computed ({type(exc).__name__}: {_one_line(exc)})"
                    ) from None
                missing = [c for c, lab in zip(usecols, picked) if lab not in part.columns]
                if missing:
                    raise InputError(f"{where} has no column {missing[0]!r}")
                yield where, part[picked]
        else:
            yield "a pandas DataFrame", frame[picked]

    def gen():
        for where, part in parts():
            for start in range(0, len(part), chunk_rows):
                yield _batch(part.iloc[start : start + chunk_rows], usecols, text, labels, where)

    return text, gen()


def _one_line(exc) -> str:
    text = " ".join(str(exc).split())
    return text if len(text) <= 300 else text[:300] + "..."
