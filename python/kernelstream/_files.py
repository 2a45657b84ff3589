"""Files the library writes: every one goes through :func:`atomic_write`.

A file is written to a temporary file in its own directory, flushed to disk
(``fsync``), renamed over the destination (``os.replace``, atomic on POSIX and
Windows) and the directory entry flushed too. A reader, or a process killed at any
moment (``kill -9``, a full disk, Ctrl-C), therefore sees either the old file whole
or the new file whole, never a truncated one. Temporary files are named
``.NAME.partXXXXXXXX`` and removed on any error.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path
from typing import IO, Any, Iterator

#: prefix/suffix of the temporary files (``.NAME.partXXXXXXXX`` beside ``NAME``)
PART_MARK = ".part"


@contextlib.contextmanager
def atomic_write(path, mode: str = "wb", **open_kwargs: Any) -> Iterator[IO]:
    """Open a temporary file beside ``path`` for writing; on a normal exit it replaces
    ``path`` (fsync, rename, fsync of the directory), on an exception it is removed and
    ``path`` is left as it was.

    ``mode`` is ``"wb"`` or ``"w"`` (text, UTF-8 unless ``encoding`` is given).
    """
    if mode not in ("wb", "w"):
        raise ValueError(f"atomic_write writes whole files ('w' or 'wb'), not {mode!r}")
    path = Path(path)
    directory = path.parent
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}{PART_MARK}", dir=directory)
    try:
        if mode == "w":
            open_kwargs.setdefault("encoding", "utf-8")
        with os.fdopen(fd, mode, **open_kwargs) as fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())
        _copy_mode(path, tmp)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    fsync_dir(directory)


def _copy_mode(path: Path, tmp: str) -> None:
    """The new file gets the old one's permissions, else the usual ``0o666 & ~umask``
    (``mkstemp`` creates it ``0o600``)."""
    try:
        mode = os.stat(path).st_mode & 0o7777
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        mode = 0o666 & ~umask
    with contextlib.suppress(OSError):
        os.chmod(tmp, mode)


def fsync_dir(directory) -> None:
    """Flushes a directory entry (a rename) to disk where the platform allows it."""
    if os.name != "posix":  # pragma: no cover - Windows cannot open a directory
        return
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:  # pragma: no cover
        return
    try:
        os.fsync(fd)
    except OSError:  # pragma: no cover - some file systems refuse it
        pass
    finally:
        os.close(fd)


def write_bytes(path, data: bytes) -> None:
    """``path.write_bytes(data)``, atomically."""
    with atomic_write(path, "wb") as fh:
        fh.write(data)


def write_text(path, text: str) -> None:
    """``path.write_text(text)`` (UTF-8), atomically."""
    with atomic_write(path, "w") as fh:
        fh.write(text)


def save_figure(fig, path, **kwargs: Any) -> None:
    """``fig.savefig(path, **kwargs)``, atomically; the format follows the suffix."""
    path = Path(path)
    kwargs.setdefault("format", path.suffix.lstrip(".").lower() or None)
    with atomic_write(path, "wb") as fh:
        fig.savefig(fh, **kwargs)


def check_writable(path, what: str) -> Path:
    """Checks, before a long computation, that ``path`` can be written as a file:
    its directory exists and is writable, and ``path`` is not a directory. Raises
    :class:`OSError` with a message naming ``what`` (e.g. ``"--save-model"``)."""
    path = Path(path)
    if path.is_dir():
        raise IsADirectoryError(f"{what} {path}: is a directory, not a file")
    directory = path.parent
    if not directory.is_dir():
        raise FileNotFoundError(f"{what} {path}: directory {str(directory)!r} does not exist")
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}{PART_MARK}", dir=directory)
    except OSError as exc:
        raise PermissionError(
            f"{what} {path}: cannot write in {str(directory)!r} ({exc.strerror or exc})"
        ) from None
    os.close(fd)
    os.unlink(tmp)
    if path.exists() and not os.access(path, os.W_OK):
        # os.replace would succeed (the directory is writable), but the user marked the
        # file read-only: respect it.
        raise PermissionError(f"{what} {path}: the file is read-only")
    return path
