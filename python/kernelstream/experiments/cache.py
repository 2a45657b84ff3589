"""Result cache of ``kernelstream reproduce``: an entry is not recomputed when its
inputs have not changed (entry name and options, the entry's source code, the data
files' checksums, the library version), unless ``--force``."""
from __future__ import annotations

import hashlib
import inspect
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


def cache_key(entry, ctx) -> str:
    from .. import __version__

    try:
        source = inspect.getsource(inspect.getmodule(entry.func))
    except (OSError, TypeError):  # pragma: no cover
        source = entry.name
    parts = {
        "entry": entry.name,
        "quick": ctx.quick,
        "seeds": ctx.seeds,
        "time_budget": ctx.time_budget,
        "version": __version__,
        "source": hashlib.sha256(source.encode()).hexdigest(),
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
    if not (Path(out) / f"{name}.json").exists() or not all(Path(f).exists() for f in payload.get("figures", [])):
        return None
    return payload


def store_cached(out: Path, name: str, key: str, payload: dict) -> None:
    path = _path(out, name)
    path.parent.mkdir(parents=True, exist_ok=True)
    clean = {k: v for k, v in payload.items() if not k.startswith("_")}
    path.write_text(json.dumps({"key": key, "payload": clean}, default=str))
