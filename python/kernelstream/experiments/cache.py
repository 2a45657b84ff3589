"""Result cache of ``kernelstream reproduce``: an entry is not recomputed when its
inputs have not changed (entry name and options, the code it runs: the library except the
other entries' modules, the data files' checksums, the library version), unless ``--force``."""

from __future__ import annotations

import hashlib
import json
import os
import stat
from pathlib import Path

from .._files import write_text

#: largest record, and largest output file, the cache reads (outputs are tables, JSON
#: and figures; anything larger is a miss, recomputed)
MAX_RECORD_BYTES = 64 << 20
MAX_OUTPUT_BYTES = 1 << 30


def _open_regular(path, limit: int | None):
    """``(file, size)`` of ``path`` if it is a regular file of at most ``limit`` bytes,
    else ``None``. Opened without blocking and checked on the open descriptor, so that a
    FIFO, a device (``/dev/zero``) or a file swapped in meanwhile is never read."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0))
    except (OSError, ValueError):
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or (limit is not None and st.st_size > limit):
            os.close(fd)
            return None
        return os.fdopen(fd, "rb"), st.st_size
    except OSError:
        os.close(fd)
        return None


def _read_regular(path, limit: int) -> bytes | None:
    """The bytes of a regular file of at most ``limit`` bytes (:func:`_open_regular`)."""
    opened = _open_regular(path, limit)
    if opened is None:
        return None
    fh, size = opened
    with fh:
        try:
            data = fh.read(size + 1)
        except OSError:
            return None
    return data if len(data) == size else None  # it grew or shrank while read: a miss


def _sha256_regular(path, limit: int | None) -> str | None:
    """sha256 of a regular file's bytes, read in blocks; None if it is not one."""
    opened = _open_regular(path, limit)
    if opened is None:
        return None
    fh, size = opened
    h, seen = hashlib.sha256(), 0
    with fh:
        try:
            while block := fh.read(1 << 20):
                seen += len(block)
                if seen > size:
                    return None
                h.update(block)
        except OSError:
            return None
    return h.hexdigest() if seen == size else None


def _inside(path, root) -> bool:
    """Whether ``path`` (symbolic links followed) lies inside the directory ``root``."""
    try:
        real, top = Path(os.path.realpath(path)), Path(os.path.realpath(root))
    except (OSError, ValueError):
        return False
    return real != top and top in real.parents


_DATA_SUMS: dict = {}


def _data_checksums(data_home) -> dict:
    from ..datasets import data_home as resolve

    home = resolve(data_home)
    key = str(home)
    if key not in _DATA_SUMS:
        sums = {}
        if home.is_dir():
            for f in sorted(home.glob("*.csv*")):
                digest = _sha256_regular(f, None)  # a FIFO or device is not a data file
                if digest is not None:
                    sums[f.name] = digest
        _DATA_SUMS[key] = sums
    return _DATA_SUMS[key]


_CODE_SUM: dict = {}


def _code_checksum(module: str) -> str:
    """sha256 over the code an entry's results depend on: every Python source of the package
    except the other entries' modules and the report writer, and the compiled core.

    Any change to a shared helper, a learner or the Rust core invalidates every cached
    result (the version number alone would not see changes between releases); a change to
    one entry's module recomputes that entry only, and a change to the report only rewrites
    the report.
    """
    if module not in _CODE_SUM:
        from .. import _core

        root = Path(__file__).resolve().parents[1]
        here = Path(__file__).resolve().parent
        own = here / f"{module.rsplit('.', 1)[-1]}.py"
        # entry modules are those that register an entry (a top-level ``@register(``); read
        # from the sources, as the catalog imports the registry, which imports this module
        skip = {f for f in here.glob("*.py") if f != own and _registers(f)} | {here / "report.py"}
        h = hashlib.sha256()
        for f in sorted(root.rglob("*.py")):
            if f.resolve() in skip:
                continue
            h.update(str(f.relative_to(root)).encode())
            h.update(f.read_bytes())
        h.update(Path(_core.__file__).read_bytes())
        _CODE_SUM[module] = h.hexdigest()
    return _CODE_SUM[module]


def _registers(path: Path) -> bool:
    return any(line.startswith("@register(") for line in path.read_text().splitlines())


def cache_key(entry, ctx) -> str:
    from .. import __version__

    parts = {
        "entry": entry.name,
        "quick": ctx.quick,
        "seeds": ctx.seeds,
        "time_budget": ctx.time_budget,
        "version": __version__,
        "code": _code_checksum(entry.func.__module__),
        "data": _data_checksums(ctx.data_home),
    }
    return hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()


def _path(out: Path, name: str) -> Path:
    return Path(out) / ".cache" / f"{name}.json"


def _file_sum(path) -> str | None:
    """sha256 of an output's bytes, or None if it is not a regular file of at most
    ``MAX_OUTPUT_BYTES`` (or cannot be read)."""
    return _sha256_regular(path, MAX_OUTPUT_BYTES)


def _value_sum(value) -> str:
    return hashlib.sha256(json.dumps(value, sort_keys=True, default=str).encode()).hexdigest()


#: fields of a cached row and the types each may hold (None: missing or JSON null)
_ROW_FIELDS = {
    "dataset": (str,),
    "learner": (str,),
    "metric": (str,),
    "ours": (int, float, type(None)),
    "ours_std": (int, float, type(None)),
    "paper": (int, float, type(None)),
    "dim": (int, type(None)),
    "seconds": (int, float, type(None)),
    "extra": (dict, type(None)),
    "variant": (str, type(None)),
}


def _valid_payload(payload) -> bool:
    """The shape :func:`.registry.run` serves a cached payload in: rows a list of row
    dicts with the fields of :class:`.registry.Row` (right types), figures and notes
    lists, seconds a number."""
    if not isinstance(payload, dict):
        return False
    rows, figures, notes = payload.get("rows"), payload.get("figures"), payload.get("notes")
    if not (isinstance(rows, list) and isinstance(figures, list) and isinstance(notes, list)):
        return False
    if not isinstance(payload.get("seconds"), (int, float)) or isinstance(payload["seconds"], bool):
        return False
    if not all(isinstance(f, str) for f in figures):
        return False
    for row in rows:
        if not isinstance(row, dict):
            return False
        for field, types in _ROW_FIELDS.items():
            value = row.get(field)
            if isinstance(value, bool) or not isinstance(value, types):
                return False
    return True


def load_cached(out: Path, name: str, key: str):
    """The cached payload of entry ``name`` if its record matches ``key``, has the shape
    a payload must have, and every output it lists (JSON, table, figures) is a regular
    file inside ``out`` that still has the checksum recorded when it was written; else
    None (the entry is recomputed, which rewrites damaged outputs). The record and the
    outputs are read only if they are regular files of bounded size: a FIFO, a device or
    a path outside ``out`` in a record is a miss, never read."""
    path = _path(out, name)
    raw = _read_regular(path, MAX_RECORD_BYTES)
    if raw is None:
        return None
    try:
        stored = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError):
        return None
    if not isinstance(stored, dict) or stored.get("key") != key:
        return None
    payload, files = stored.get("payload"), stored.get("files")
    if not isinstance(payload, dict) or not _valid_payload(payload) or not isinstance(files, dict):
        return None
    if stored.get("payload_sha256") != _value_sum(payload):
        return None
    expected = {str(Path(out) / f"{name}.json"), *payload["figures"]}
    if not expected <= set(files):
        return None
    for f, digest in files.items():
        if not isinstance(digest, str) or not _inside(f, out) or _file_sum(f) != digest:
            return None
    return payload


def store_cached(out: Path, name: str, key: str, payload: dict, outputs: list) -> None:
    """Records ``payload`` for ``key`` with the sha256 of each file of ``outputs``
    (written before, atomically): the record is written last, atomically, so it
    never vouches for a file that is not complete."""
    path = _path(out, name)
    path.parent.mkdir(parents=True, exist_ok=True)
    clean = json.loads(
        json.dumps({k: v for k, v in payload.items() if not k.startswith("_")}, default=str)
    )
    files = {str(f): _file_sum(f) for f in outputs}
    record = {"key": key, "payload": clean, "payload_sha256": _value_sum(clean), "files": files}
    write_text(path, json.dumps(record))


def value_path(out: Path, name: str, parts: dict, code: str, data_home) -> Path:
    """Where the value cache keeps a JSON value computed once for its inputs.

    For a per-dataset quantity that runs or entries share (e.g. the exact online ridge
    leverage score sums): the key is ``parts`` (the parameters), ``code`` (the source of the
    functions that compute it) and the data files' checksums, not the whole library, so edits
    elsewhere do not recompute it. Read with :func:`load_value`, write with :func:`store_value`.
    """
    key = hashlib.sha256(
        json.dumps(
            {"parts": parts, "code": code, "data": _data_checksums(data_home)},
            sort_keys=True,
            default=str,
        ).encode()
    ).hexdigest()
    return Path(out) / ".cache" / "values" / f"{name}-{key[:24]}.json"


def load_value(path: Path):
    """``(True, value)`` if ``path`` holds a stored value whose checksum matches, else
    ``(False, None)`` (a damaged record is a miss: the value is computed again)."""
    raw = _read_regular(path, MAX_RECORD_BYTES)
    if raw is None:
        return False, None
    try:
        stored = json.loads(raw.decode("utf-8"))
        value = stored["value"]
        if stored["sha256"] != _value_sum(value):
            return False, None
    except (UnicodeDecodeError, json.JSONDecodeError, KeyError, TypeError, RecursionError):
        return False, None
    return True, value


def store_value(path: Path, value, parts: dict | None = None) -> None:
    """Writes ``value`` (JSON) with its checksum to ``path``, atomically."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    value = json.loads(json.dumps(value, default=str))
    record = {"parts": parts, "value": value, "sha256": _value_sum(value)}
    write_text(path, json.dumps(record, default=str))
