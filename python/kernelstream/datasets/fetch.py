"""Downloading the datasets of :mod:`.registry` into the data directory.

Release files are fetched from ``base_url`` (argument), else ``$KERNELSTREAM_DATA_URL``,
else :data:`.registry.DEFAULT_BASE_URL`, and checked against their sha256. Upstream sets
come from their public archive and are converted by :mod:`.convert`. Either way the file
appears in the data directory only when it is complete and checked.

Every download has a whole deadline and a minimum rate (:class:`Limits`): a server that
stalls or trickles cannot keep a fetch alive. Partial files live in a per-process working
directory ``.fetch-HOST-PID-XXXX`` of the data directory, removed when the fetch ends and,
if the process was killed, by the next fetch.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import shutil
import socket
import sys
import tempfile
import threading
import time
from collections import deque
from dataclasses import dataclass
from pathlib import Path

from .._files import fsync_dir
from ..errors import KernelstreamError, ParameterError
from . import registry
from .loaders import data_home as resolve_home

#: seconds without any data before a download gives up (per read)
TIMEOUT = 60
#: default whole-download deadline in seconds ($KERNELSTREAM_FETCH_DEADLINE)
DEADLINE = 3600.0
#: default minimum rate in bytes/s ($KERNELSTREAM_FETCH_MIN_RATE), averaged over RATE_WINDOW
MIN_RATE = 1024.0
#: seconds over which the rate is averaged (a download slower than MIN_RATE over any
#: window of this length, once the first has passed, is abandoned)
RATE_WINDOW = 60.0
#: how often the deadline and the rate are checked, in seconds
_TICK = 0.05
#: bytes asked per read (a read returns whatever has arrived, at most this)
_CHUNK = 1 << 16
#: per-download working directories in the data directory: ``.fetch-HOST-PID-XXXX``
_WORK_PREFIX = ".fetch-"


class FetchError(KernelstreamError, OSError):
    """A download failed, was incomplete, too slow, or did not match its checksum or shape."""


@dataclass(frozen=True)
class Limits:
    """How long a download may take: ``deadline`` seconds in all (connection included),
    and at least ``min_rate`` bytes/s over every :data:`RATE_WINDOW`."""

    deadline: float
    min_rate: float

    @classmethod
    def resolve(cls, deadline=None, min_rate=None) -> Limits:
        """The arguments, else ``$KERNELSTREAM_FETCH_DEADLINE`` / ``$KERNELSTREAM_FETCH_MIN_RATE``,
        else :data:`DEADLINE` / :data:`MIN_RATE`; a deadline must be > 0, a rate >= 0."""
        return cls(
            _limit("deadline", deadline, "KERNELSTREAM_FETCH_DEADLINE", DEADLINE, positive=True),
            _limit("min_rate", min_rate, "KERNELSTREAM_FETCH_MIN_RATE", MIN_RATE, positive=False),
        )


def _limit(name, value, env, default, positive: bool) -> float:
    source = name
    if value is None and os.environ.get(env, "").strip():
        value, source = os.environ[env].strip(), f"${env}"
    if value is None:
        return default
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise ParameterError(f"{source} must be a number, got {value!r}") from None
    if not (v == v and v < float("inf") and (v > 0 if positive else v >= 0)):
        bound = "> 0" if positive else ">= 0"
        raise ParameterError(f"{source} must be a finite number {bound}, got {value!r}")
    return v


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
        import tqdm  # noqa: F401
    except ImportError:
        return False
    return True


# -- working directories ----------------------------------------------------------
def _host() -> str:
    return re.sub(r"[^A-Za-z0-9]", "_", socket.gethostname())[:40] or "host"


@contextlib.contextmanager
def _workdir(home: Path):
    """A fresh directory ``.fetch-HOST-PID-XXXX`` in ``home`` for partial files, removed
    on exit; directories left by a killed fetch of this host are removed first."""
    home.mkdir(parents=True, exist_ok=True)
    clean_leftovers(home)
    work = Path(tempfile.mkdtemp(prefix=f"{_WORK_PREFIX}{_host()}-{os.getpid()}-", dir=home))
    try:
        yield work
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # e.g. PermissionError: it exists, under another user
        return True
    return True


#: temporary files of the pooch downloader used by earlier versions (``tmpXXXXXXXX``)
_OLD_TMP = re.compile(r"tmp[a-z0-9_]{8}")


def clean_leftovers(home) -> list:
    """Removes what killed downloads left in ``home``: the working directories of this
    host's fetch processes that no longer run, and temporary files of earlier versions
    more than a day old. Returns the removed paths. (A partial file is never mistaken for
    data: only complete, checked files get a dataset's name.)"""
    home = Path(home)
    removed: list = []
    prefix = f"{_WORK_PREFIX}{_host()}-"
    try:
        entries = list(home.iterdir())
    except OSError:
        return removed
    for p in entries:
        name = p.name
        if name.startswith(prefix) and p.is_dir():
            pid = name[len(prefix) :].split("-", 1)[0]
            if pid.isdigit() and not _alive(int(pid)):
                shutil.rmtree(p, ignore_errors=True)
                removed.append(p)
        elif _OLD_TMP.fullmatch(name) and p.is_file():
            with contextlib.suppress(OSError):
                if time.time() - p.stat().st_mtime > 86400:
                    p.unlink()
                    removed.append(p)
    return removed


# -- one download -------------------------------------------------------------------
class _Transfer:
    """State shared by the thread that reads the response and the one that watches it."""

    def __init__(self):
        self.got = 0
        self.total = 0
        self.sock = None
        self.abort = threading.Event()
        self.error: BaseException | None = None
        self.digest = ""


def _read(url: str, tmp: Path, tr: _Transfer, limits: Limits, bar) -> None:
    """The reading thread: streams ``url`` into ``tmp`` (fsync'ed), hashing as it goes."""
    from .._optional import require

    requests = require("requests", "downloading a dataset")

    try:
        # past the deadline, so that the watching thread, not the socket, ends a silent
        # transfer (and names the deadline)
        wait = min(TIMEOUT, limits.deadline + 1.0)
        with requests.get(url, stream=True, timeout=(wait, wait)) as r:
            r.raise_for_status()
            conn = getattr(r.raw, "connection", None)
            tr.sock = getattr(conn, "sock", None)
            tr.total = int(r.headers.get("Content-Length") or 0)
            read = getattr(r.raw, "read1", None) or r.raw.read
            h = hashlib.sha256()
            with open(tmp, "wb") as fh:
                if bar is not None:
                    bar.reset(total=tr.total or None)
                while not tr.abort.is_set():
                    chunk = read(_CHUNK, decode_content=True)
                    if not chunk:
                        break
                    fh.write(chunk)
                    h.update(chunk)
                    tr.got += len(chunk)
                    if bar is not None:
                        bar.update(len(chunk))
                fh.flush()
                os.fsync(fh.fileno())
            if tr.total and tr.got < tr.total and not tr.abort.is_set():
                raise FetchError(f"connection closed after {tr.got} of {tr.total} bytes")
            tr.digest = h.hexdigest()
    except BaseException as exc:  # noqa: BLE001 - handed to the watching thread
        tr.error = exc


def _timed_out(exc: BaseException | None) -> bool:
    """A socket timeout, as the standard library or requests raises it."""
    return isinstance(exc, TimeoutError) or type(exc).__name__.endswith("Timeout")


def _watch(url: str, tr: _Transfer, reader: threading.Thread, limits: Limits) -> None:
    """Waits for the reading thread; stops the transfer (closing its socket) when the
    deadline passes or the rate over the last :data:`RATE_WINDOW` s is below the minimum."""
    start = time.monotonic()
    samples: deque = deque([(start, 0)])
    reason = None
    try:
        while reader.is_alive():
            reader.join(_TICK)
            now = time.monotonic()
            samples.append((now, tr.got))
            while len(samples) > 1 and samples[1][0] <= now - RATE_WINDOW:
                samples.popleft()
            if now - start > limits.deadline:
                reason = f"not finished within the deadline of {limits.deadline:g} s"
            elif now - start >= RATE_WINDOW and samples[0][0] <= now - RATE_WINDOW:
                rate = (tr.got - samples[0][1]) / (now - samples[0][0])
                if rate < limits.min_rate:
                    reason = (
                        f"slower than the minimum rate ({rate:.3g} B/s over {RATE_WINDOW:g} s, "
                        f"minimum {limits.min_rate:g} B/s)"
                    )
            if reason:
                break
        if reason is None and _timed_out(tr.error) and time.monotonic() - start >= limits.deadline:
            # the socket's own timeout (set to the deadline) fired before this thread looked
            reason = f"not finished within the deadline of {limits.deadline:g} s"
    finally:
        if reader.is_alive():  # deadline, rate, or Ctrl-C: stop the reader
            tr.abort.set()
            if tr.sock is not None:
                with contextlib.suppress(OSError):
                    tr.sock.shutdown(socket.SHUT_RDWR)
    if reason:
        raise FetchError(
            f"download of {url} {reason} (set $KERNELSTREAM_FETCH_DEADLINE / "
            "$KERNELSTREAM_FETCH_MIN_RATE or --deadline / --min-rate to change it)"
        )


def _download(
    url: str, known_hash: str | None, dest: Path, work: Path, progress, limits: Limits, hint=""
) -> Path:
    """``url`` -> ``dest``: streamed to a file in the working directory ``work`` (same
    file system), hash-checked, then renamed; on any failure ``dest`` is not touched.
    A file already at ``dest`` whose sha256 is ``known_hash`` is kept without a request."""
    if known_hash and dest.exists() and _sha256(dest) == known_hash:
        return dest  # (no download, so no need of requests)
    from .._optional import require

    requests = require("requests", "downloading a dataset")
    tmp = work / dest.name
    tr = _Transfer()
    bar = None
    if _want_bar(progress):
        from tqdm.auto import tqdm

        bar = tqdm(total=None, unit="B", unit_scale=True, file=sys.stderr, desc=dest.name)
    reader = threading.Thread(target=_read, args=(url, tmp, tr, limits, bar), daemon=True)
    try:
        reader.start()
        _watch(url, tr, reader, limits)
    finally:
        if bar is not None:
            bar.close()
    import urllib3

    failures = (requests.exceptions.RequestException, urllib3.exceptions.HTTPError, OSError)
    if isinstance(tr.error, failures):  # FetchError is an OSError
        raise FetchError(f"download of {url} failed: {tr.error}; nothing was saved{hint}")
    if tr.error is not None:
        raise tr.error
    if known_hash and tr.digest != known_hash:
        raise FetchError(
            f"{url}: checksum mismatch, the file was refused and nothing was saved "
            f"(sha256 {tr.digest}, expected {known_hash})"
        )
    os.replace(tmp, dest)
    fsync_dir(dest.parent)
    return dest


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def fetch(
    name: str,
    data_home=None,
    base_url: str | None = None,
    *,
    force: bool = False,
    progress: bool | None = None,
    deadline: float | None = None,
    min_rate: float | None = None,
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
    deadline : float, optional
        seconds each download may take in all, connection included; default
        ``$KERNELSTREAM_FETCH_DEADLINE``, else 3600.
    min_rate : float, optional
        bytes/s a download must reach over every 60 s window; default
        ``$KERNELSTREAM_FETCH_MIN_RATE``, else 1024 (0: no minimum).

    Returns
    -------
    pathlib.Path
        the path of ``NAME.csv.gz``.

    Raises
    ------
    FetchError
        the download failed, was cut short, missed its deadline or minimum rate, or the
        file's sha256 (release files) or shape (upstream sets) is not the registry's;
        nothing is left in the data directory (partial files live in a working directory
        ``.fetch-HOST-PID-XXXX`` that is removed, or, after a kill, removed by the next fetch).
    kernelstream.InputError
        ``name`` is not in the registry.

    Examples
    --------
    >>> from kernelstream import datasets
    >>> path = datasets.fetch("concrete")        # doctest: +SKIP
    >>> X, y = datasets.load("concrete")         # doctest: +SKIP
    """
    ds = registry.get(name)
    limits = Limits.resolve(deadline, min_rate)
    home = resolve_home(data_home)
    dest = home / ds.filename
    if force and dest.exists():
        dest.unlink()
    if ds.sha256 is None and dest.exists():
        return dest
    with _workdir(home) as work:
        if ds.sha256 is not None:
            hint = (
                f" (point $KERNELSTREAM_DATA_URL or --base-url at a copy of the project's "
                f"converted files, or put {ds.filename} in {str(home)!r})"
            )
            url = _url(base_url, ds)
            return _download(url, ds.sha256, dest, work, progress, limits, hint)
        return _fetch_upstream(ds, dest, work, progress, limits)


def _url(value, ds) -> str:
    return base_url(value) + ds.filename


def _fetch_upstream(ds: registry.Dataset, dest: Path, work: Path, progress, limits) -> Path:
    """Downloads each upstream source into the working directory, converts their rows
    into ``dest`` (atomically) and checks the shape."""
    from itertools import chain

    from . import convert

    sources = []
    try:
        for i, src in enumerate(ds.upstream):
            raw = work / f"{ds.name}.{i}.{src.url.rsplit('/', 1)[-1]}"
            sources.append(_download(src.url, None, raw, work, progress, limits))
        rows = chain.from_iterable(
            _rows(src, path, ds.features) for src, path in zip(ds.upstream, sources)
        )
        convert.write_csv_gz(_check_count(rows, ds), dest, ds.features)
    except KernelstreamError as exc:
        if isinstance(exc, FetchError):
            raise
        raise FetchError(f"{ds.name}: conversion failed: {exc}; nothing was saved") from None
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
