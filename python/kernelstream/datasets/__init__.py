"""Datasets: the real benchmarks of the papers (CSV files in a data directory),
a LIBSVM reader, the papers' preprocessing, and synthetic streams.

The data directory is ``data_home``, else ``$KERNELSTREAM_DATA``, else
``~/.kernelstream/data``. Files are ``NAME.csv.gz`` (or ``NAME.csv``) with a header
``x0,...,x{d-1},y``; the target is the last column; an empty field is a missing value.
"""

from . import synthetic
from .loaders import data_home, load, load_csv, load_libsvm
from .preprocessing import drop_missing, impute_mean, scale, shuffle

__all__ = [
    "data_home",
    "load",
    "load_csv",
    "load_libsvm",
    "scale",
    "shuffle",
    "drop_missing",
    "impute_mean",
    "synthetic",
]
