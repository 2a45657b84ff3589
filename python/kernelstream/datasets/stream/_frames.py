"""pandas and Dask DataFrames as batches of columns (a Dask DataFrame one partition at a
time, in order: only one partition is in memory)."""

from __future__ import annotations

import numpy as np


def is_dask(obj) -> bool:
    mod = type(obj).__module__ or ""
    return mod.startswith("dask") and hasattr(obj, "npartitions") and hasattr(obj, "columns")


def is_pandas(obj) -> bool:
    mod = type(obj).__module__ or ""
    return mod.startswith("pandas") and hasattr(obj, "columns") and hasattr(obj, "iloc")


def _text(frame, names) -> set:
    import pandas as pd

    return {
        c
        for c in names
        if not (pd.api.types.is_numeric_dtype(frame[c].dtype) or frame[c].dtype == bool)
    }


def _batch(frame, names, text):
    import pandas as pd

    batch = {}
    for c in names:
        if c in text:
            col = frame[c]
            miss = col.isna().to_numpy()
            batch[c] = np.array(
                [None if m else str(v) for v, m in zip(col.to_numpy(), miss)], dtype=object
            )
        else:
            col = pd.to_numeric(frame[c]).astype("float64")  # pandas NA -> NaN
            batch[c] = col.to_numpy(dtype=np.float64, na_value=np.nan)
    return batch


def batches(frame, chunk_rows: int, usecols: list):
    """``(text_columns, iterator of batches)``; column kinds from the dtypes (a Dask
    DataFrame's are known without computing it)."""
    text = _text(frame._meta if is_dask(frame) else frame, usecols)

    def parts():
        if is_dask(frame):
            for i in range(frame.npartitions):
                yield frame.get_partition(i)[usecols].compute()
        else:
            yield frame[usecols]

    def gen():
        for part in parts():
            for start in range(0, len(part), chunk_rows):
                yield _batch(part.iloc[start : start + chunk_rows], usecols, text)

    return text, gen()
