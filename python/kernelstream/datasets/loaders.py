"""Readers for the data directory's CSV files and for LIBSVM text files."""

from __future__ import annotations

import gzip
import os
from pathlib import Path

import numpy as np

from ..errors import InputError


def _data_home(data_home=None) -> Path:
    """The data directory: ``data_home``, else ``$KERNELSTREAM_DATA``, else ``~/.kernelstream/data``."""
    if data_home is not None:
        return Path(data_home).expanduser()
    env = os.environ.get("KERNELSTREAM_DATA")
    if env:
        return Path(env).expanduser()
    return Path.home() / ".kernelstream" / "data"


def _open_text(path: Path):
    if path.suffix == ".gz":
        return gzip.open(path, "rt", encoding="ascii", newline="")
    return open(path, encoding="ascii", newline="")


def load_csv(path, target: str | int | None = None):
    """Reads a CSV file with a header (gzip if it ends in ``.gz``) into ``(X, y)``.

    ``target`` names the target column (default: the last one). Empty fields become NaN.
    """
    import pandas as pd

    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"no such file: {path}")
    frame = pd.read_csv(path)
    if frame.shape[1] < 2:
        raise InputError(f"{path} needs at least one feature column and a target column")
    if target is None:
        target = frame.columns[-1]
    elif isinstance(target, int):
        target = frame.columns[target]
    if target not in frame.columns:
        raise InputError(f"{path} has no column {target!r}; columns are {list(frame.columns)}")
    y = frame[target].to_numpy(dtype=np.float64)
    X = frame.drop(columns=[target]).to_numpy(dtype=np.float64)
    return np.ascontiguousarray(X), np.ascontiguousarray(y)


def load(name: str, data_home=None):
    """Loads the dataset ``name`` (a file stem of the data directory) as ``(X, y)``.

    Values are returned raw (no scaling, no shuffling, missing values as NaN);
    preprocessing is explicit, with :func:`kernelstream.datasets.scale`.

    Raises
    ------
    FileNotFoundError
        naming the path that was looked for, when the file is missing.

    Examples
    --------
    >>> from kernelstream import datasets
    >>> X, y = datasets.load("airfoil")   # doctest: +SKIP
    >>> X.shape                           # doctest: +SKIP
    (1503, 5)
    """
    home = _resolve_home(data_home)
    for candidate in (home / f"{name}.csv.gz", home / f"{name}.csv"):
        if candidate.exists():
            return load_csv(candidate)
    raise FileNotFoundError(
        f"dataset {name!r} not found: looked for {home / (name + '.csv.gz')} "
        f"(and {home / (name + '.csv')}); set KERNELSTREAM_DATA or pass data_home"
    )


def _resolve_home(value) -> Path:
    return _data_home(value)


def load_libsvm(path, n_features: int | None = None):
    """Reads a LIBSVM/SVMlight text file (``label idx:value ...``, 1-based indices) densely.

    Absent indices are 0. ``n_features`` fixes the width (default: the largest index seen).
    Comment text after ``#`` is ignored.
    """
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"no such file: {path}")
    labels, rows, width, width_line = [], [], 0, 0
    with _open_text(path) as fh:
        for lineno, line in enumerate(fh, 1):
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            parts = line.split()
            try:
                labels.append(float(parts[0]))
                entries = {}
                for item in parts[1:]:
                    idx, val = item.split(":", 1)
                    i = int(idx)
                    if i < 1:
                        raise ValueError(f"index {i} < 1")
                    entries[i - 1] = float(val)
            except ValueError as exc:
                raise InputError(f"{path}:{lineno}: not a LIBSVM line ({exc})") from None
            if entries and max(entries) + 1 > width:
                width, width_line = max(entries) + 1, lineno
            rows.append(entries)
    if n_features is not None:
        if n_features < width:
            raise InputError(f"{path} has feature index {width} > n_features={n_features}")
        width = n_features
    # The array is dense: refuse absurd indices before allocating (one memory ceiling).
    from .. import _core

    need, limit = 8 * len(rows) * width, int(_core.get_memory_limit())
    if need > limit:
        raise InputError(
            f"{path}: feature index {width} (line {width_line}) would make a dense "
            f"{len(rows)} x {width} array of {need / 2**30:.3g} GiB, above the memory limit of "
            f"{limit / 2**30:.3g} GiB (kernelstream.set_memory_limit); is the index right?"
        )
    X = np.zeros((len(rows), width))
    for r, entries in enumerate(rows):
        for i, v in entries.items():
            X[r, i] = v
    return X, np.asarray(labels, dtype=np.float64)


#: Public name of the data-directory resolver.
data_home = _data_home
