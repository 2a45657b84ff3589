"""Downloading the datasets of :mod:`.registry` into the data directory, with pooch.

Release files are fetched from ``base_url`` (argument), else ``$KERNELSTREAM_DATA_URL``,
else :data:`.registry.DEFAULT_BASE_URL`, and checked against their sha256. Upstream sets
come from their public archive and are converted by :mod:`.convert`. Either way the file
appears in the data directory only when it is complete and checked.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from ..errors import KernelstreamError
from . import registry
from .loaders import data_home as resolve_home

#: seconds without any data before a download gives up
TIMEOUT = 60


class FetchError(KernelstreamError, OSError):
    """A download failed, was incomplete, or did not match its checksum or shape."""


def base_url(value: str | None = None) -> str:
    """Where release files are downloaded from: ``value``, else ``$KERNELSTREAM_DATA_URL``,
    else the project's data release."""
    url = value or os.environ.get("KERNELSTREAM_DATA_URL") or registry.DEFAULT_BASE_URL
    return url if url.endswith("/") else url + "/"


def _want_bar(progress) -> bool:
    if progress is None:
        progress = sys.stderr.isatty()
    if not progress:
        return False
    try:
        import tqdm  # noqa: F401  (pooch draws its bar with tqdm)
    except ImportError:
        return False
    return True


def _download(url: str, known_hash: str | None, dest: Path, progress, hint: str = "") -> Path:
    """``url`` -> ``dest`` through pooch: streamed to a temporary file in ``dest``'s
    directory, hash-checked, then renamed; on any failure nothing is left behind. pooch
    logs one line per download; its bar needs tqdm."""
    from .._optional import require

    pooch = require("pooch")  # brings requests
    import requests

    bar = _want_bar(progress)
    downloader = pooch.HTTPDownloader(progressbar=bar, timeout=TIMEOUT)
    dest.parent.mkdir(parents=True, exist_ok=True)
    try:
        path = pooch.retrieve(
            url,
            known_hash=known_hash,
            fname=dest.name,
            path=dest.parent,
            downloader=downloader,
        )
    except requests.exceptions.RequestException as exc:
        raise FetchError(f"download of {url} failed: {exc}; nothing was saved{hint}") from None
    except ValueError as exc:  # pooch: hash mismatch
        raise FetchError(
            f"{url}: checksum mismatch, the file was refused and nothing was saved ({exc})"
        ) from None
    return Path(path)


def fetch(
    name: str,
    data_home=None,
    base_url: str | None = None,
    *,
    force: bool = False,
    progress: bool | None = None,
) -> Path:
    """Downloads the dataset ``name`` into the data directory and returns its path.

    A file already there is kept (release files: if its sha256 matches the registry's).
    Afterwards :func:`kernelstream.datasets.load` reads it.

    Parameters
    ----------
    name : str
        a name of :data:`kernelstream.datasets.registry.DATASETS` (``kernelstream data list``).
    data_home : path, optional
        target directory; default ``$KERNELSTREAM_DATA``, else the platform cache directory.
    base_url : str, optional
        where release files are served (``NAME.csv.gz`` under it); default
        ``$KERNELSTREAM_DATA_URL``, else the project's data release.
    force : bool
        download (and convert) again even if the file exists.
    progress : bool, optional
        progress bar (needs tqdm); default: when stderr is a terminal.

    Returns
    -------
    pathlib.Path
        the path of ``NAME.csv.gz``.

    Raises
    ------
    FetchError
        the download failed or was cut short, or the file's sha256 (release files) or
        shape (upstream sets) is not the registry's; nothing is left in the data directory.
    kernelstream.InputError
        ``name`` is not in the registry.

    Examples
    --------
    >>> from kernelstream import datasets
    >>> path = datasets.fetch("concrete")        # doctest: +SKIP
    >>> X, y = datasets.load("concrete")         # doctest: +SKIP
    """
    ds = registry.get(name)
    home = resolve_home(data_home)
    dest = home / ds.filename
    if force and dest.exists():
        dest.unlink()
    if ds.sha256 is not None:
        hint = (
            f" (point $KERNELSTREAM_DATA_URL or --base-url at a copy of the project's "
            f"converted files, or put {ds.filename} in {str(home)!r})"
        )
        return _download(_url(base_url, ds), "sha256:" + ds.sha256, dest, progress, hint)
    if dest.exists():
        return dest
    return _fetch_upstream(ds, dest, progress)


def _url(value, ds) -> str:
    return base_url(value) + ds.filename


def _fetch_upstream(ds: registry.Dataset, dest: Path, progress) -> Path:
    """Downloads each upstream source into ``dest``'s directory, converts their rows into
    ``dest`` and checks the shape; the downloads are removed afterwards."""
    from itertools import chain

    from . import convert

    sources = []
    try:
        for i, src in enumerate(ds.upstream):
            raw = dest.parent / f".{ds.name}.{i}.{src.url.rsplit('/', 1)[-1]}"
            sources.append(_download(src.url, None, raw, progress))
        rows = chain.from_iterable(
            _rows(src, path, ds.features) for src, path in zip(ds.upstream, sources)
        )
        convert.write_csv_gz(_check_count(rows, ds), dest, ds.features)
    except KernelstreamError as exc:
        if isinstance(exc, FetchError):
            raise
        raise FetchError(f"{ds.name}: conversion failed: {exc}; nothing was saved") from None
    finally:
        for path in sources:
            if path.exists():
                path.unlink()
    return dest


def _rows(src: registry.Upstream, path: Path, n_features: int):
    from . import convert

    if src.kind == "libsvm":
        return convert.libsvm_rows(path, src.n_features or n_features)
    if src.kind == "csv":
        return convert.csv_rows(path, src.header, src.target, src.member)
    raise ValueError(f"unknown upstream kind {src.kind!r}")  # a registry bug, not user input


def _check_count(rows, ds):
    """Passes ``rows`` through, failing as soon as there are more than the registry's count
    or, at the end, fewer."""
    n = 0
    for row in rows:
        n += 1
        if n > ds.rows:
            raise FetchError(f"{ds.name}: more than {ds.rows} rows upstream; nothing was saved")
        if len(row) != ds.features + 1:
            raise FetchError(
                f"{ds.name}: row {n - 1} has {len(row) - 1} features upstream, expected "
                f"{ds.features}; nothing was saved"
            )
        yield row
    if n != ds.rows:
        raise FetchError(f"{ds.name}: {n} rows upstream, expected {ds.rows}; nothing was saved")
