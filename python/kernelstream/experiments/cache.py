"""Result cache of ``kernelstream reproduce``: an entry is not recomputed when its
inputs have not changed (entry name and options, the code it runs: the library except the
other entries' modules, the data files' checksums, the library version), unless ``--force``."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

_DATA_SUMS: dict = {}


def _data_checksums(data_home) -> dict:
    from ..datasets import data_home as resolve

    home = resolve(data_home)
    key = str(home)
    if key not in _DATA_SUMS:
        sums = {}
        if home.is_dir():
            for f in sorted(home.glob("*.csv*")):
                sums[f.name] = hashlib.sha256(f.read_bytes()).hexdigest()
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


def load_cached(out: Path, name: str, key: str):
    path = _path(out, name)
    if not path.exists():
        return None
    try:
        stored = json.loads(path.read_text())
    except (OSError, json.JSONDecodeError):
        return None
    payload = stored.get("payload")
    if stored.get("key") != key or payload is None:
        return None
    if not (Path(out) / f"{name}.json").exists() or not all(
        Path(f).exists() for f in payload.get("figures", [])
    ):
        return None
    return payload


def store_cached(out: Path, name: str, key: str, payload: dict) -> None:
    path = _path(out, name)
    path.parent.mkdir(parents=True, exist_ok=True)
    clean = {k: v for k, v in payload.items() if not k.startswith("_")}
    path.write_text(json.dumps({"key": key, "payload": clean}, default=str))


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
    """``(True, value)`` if ``path`` holds a stored value, else ``(False, None)``."""
    try:
        return True, json.loads(Path(path).read_text())["value"]
    except (OSError, json.JSONDecodeError, KeyError, TypeError):
        return False, None


def store_value(path: Path, value, parts: dict | None = None) -> None:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"parts": parts, "value": value}, default=str))
