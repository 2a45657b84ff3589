"""Parquet files as batches of columns, one row group (or ``chunk_rows`` rows) at a time."""

from __future__ import annotations

from pathlib import Path

from ...errors import InputError


def _pyarrow():
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        raise InputError(
            "reading Parquet needs pyarrow (pip install pyarrow, or 'kernelstream[stream]')"
        ) from None
    return pa, pq


def open_parquet(path: Path):
    """``(file, column names)``; an :class:`InputError` if it is not a Parquet file."""
    pa, pq = _pyarrow()
    try:
        # pre_buffer=False: with it, pyarrow keeps read-ahead buffers that grow with the file
        f = pq.ParquetFile(str(path), pre_buffer=False)
    except (pa.ArrowInvalid, OSError) as exc:
        raise InputError(f"{path} is not a readable Parquet file ({exc})") from None
    names = list(f.schema_arrow.names)
    seen: set = set()
    for name in names:
        if name in seen:
            raise InputError(f"{path}: two columns are named {name!r}; rename one")
        seen.add(name)
    return f, names


def batches(f, path: Path, chunk_rows: int, usecols: list):
    """``(text_columns, iterator of batches)``: numbers and booleans are numeric columns,
    everything else is text."""
    pa, _ = _pyarrow()
    schema = f.schema_arrow

    def numeric(t) -> bool:
        return (
            pa.types.is_integer(t)
            or pa.types.is_floating(t)
            or pa.types.is_boolean(t)
            or pa.types.is_null(t)
            or pa.types.is_decimal(t)
        )

    def nested(t) -> bool:
        return (
            pa.types.is_nested(t) or pa.types.is_dictionary(t) and pa.types.is_nested(t.value_type)
        )

    for n in usecols:
        t = schema.field(n).type
        if nested(t):
            raise InputError(
                f"{path}: column {n!r} holds {t} values; only numbers, booleans and text are "
                "read (drop it, or flatten it first)"
            )
    text = {n for n in usecols if not numeric(schema.field(n).type)}

    def gen():
        try:
            for rb in f.iter_batches(batch_size=chunk_rows, columns=usecols):
                batch = {}
                for i, name in enumerate(rb.schema.names):
                    col = rb.column(i)
                    if name in text:
                        batch[name] = col.cast(pa.string()).to_numpy(zero_copy_only=False)
                    else:
                        batch[name] = col.cast(pa.float64()).to_numpy(zero_copy_only=False)
                yield batch
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError, pa.ArrowKeyError, OSError) as exc:
            raise InputError(f"{path} is not a readable Parquet file ({exc})") from None

    return text, gen()
