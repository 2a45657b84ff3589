"""Datasets: the real benchmarks of the papers (CSV files in a data directory, which
:func:`fetch` downloads), a LIBSVM reader, the papers' preprocessing, and synthetic streams.

The data directory is ``data_home``, else ``$KERNELSTREAM_DATA``, else the platform cache
directory. Files are ``NAME.csv.gz`` (or ``NAME.csv``) with a header
``x0,...,x{d-1},y``; the target is the last column; an empty field is a missing value
(``docs/data.md``). :func:`stream` reads files and DataFrames larger than
memory in ``(X, y)`` chunks (``docs/streams.md``). :data:`DATASETS` lists every dataset the papers use.
"""

from . import synthetic
from .fetch import FetchError, fetch
from .loaders import data_home, load, load_csv, load_libsvm
from .pipeline import prepare, prepare_arrays
from .preprocessing import drop_missing, impute_mean, scale, shuffle
from .registry import DATASETS
from .stream import ChunkStream, stream

__all__ = [
    "ChunkStream",
    "DATASETS",
    "FetchError",
    "data_home",
    "fetch",
    "load",
    "load_csv",
    "load_libsvm",
    "prepare",
    "prepare_arrays",
    "scale",
    "shuffle",
    "stream",
    "drop_missing",
    "impute_mean",
    "synthetic",
]
