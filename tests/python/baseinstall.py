"""Running code as on the base install (``pip install kernelstream``) without building a
virtualenv: a subprocess whose imports of every module that only the extras install fail
with ``ModuleNotFoundError``, as they would there.

The blocked modules are computed from the installed metadata: the distributions that the
extras of ``pyproject.toml`` pull in (transitively) and the base requirements (plus the
extras asked for) do not, mapped to the top-level modules they provide.
"""

from __future__ import annotations

import functools
import os
import re
import subprocess
import sys
from importlib import metadata
from pathlib import Path

_BLOCKER = '''\
import sys

_BLOCKED = frozenset({names!r})


class _BaseInstall:
    """Refuses the modules that only kernelstream's extras install."""

    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] in _BLOCKED:
            raise ModuleNotFoundError(f"No module named {{name!r}} (base install)", name=name)
        return None


sys.meta_path.insert(0, _BaseInstall())
'''


def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _requirements(dist: str, extra: str | None):
    """Names of the distributions ``dist`` requires (with ``extra``, only those the extra adds)."""
    from packaging.requirements import Requirement

    try:
        reqs = metadata.requires(dist) or []
    except metadata.PackageNotFoundError:
        return []
    out = []
    for text in reqs:
        req = Requirement(text)
        if req.marker is None:
            if extra is None:
                out.append((req.name, req.extras))
            continue
        if extra is None:
            if req.marker.evaluate({"extra": ""}):
                out.append((req.name, req.extras))
        elif req.marker.evaluate({"extra": extra}) and not req.marker.evaluate({"extra": ""}):
            out.append((req.name, req.extras))
    return out


def _closure(roots) -> set:
    seen: set = set()
    todo = list(roots)
    while todo:
        name, extras = todo.pop()
        key = _norm(name)
        if (key, tuple(sorted(extras))) in seen:
            continue
        seen.add((key, tuple(sorted(extras))))
        todo += _requirements(name, None)
        for extra in extras:
            todo += _requirements(name, extra)
    return {k for k, _ in seen}


@functools.cache
def blocked_modules(extras: tuple = ()) -> tuple:
    """Top-level modules that the other extras install and the base install with
    ``extras`` does not."""
    if not hasattr(metadata, "packages_distributions"):  # Python 3.9
        import pytest

        pytest.skip("needs importlib.metadata.packages_distributions (Python 3.10 or newer)")
    every = metadata.metadata("kernelstream").get_all("Provides-Extra") or []
    kept = _requirements("kernelstream", None) + [
        r for e in extras for r in _requirements("kernelstream", e)
    ]
    base = _closure(kept) | {"kernelstream"}
    extra = _closure([r for e in every for r in _requirements("kernelstream", e)])
    only_extra = extra - base
    modules = set()
    for module, dists in metadata.packages_distributions().items():
        if module.startswith("_") or not module.isidentifier():
            continue
        keys = {_norm(d) for d in dists}
        if keys & only_extra and not keys & base:
            modules.add(module)
    return tuple(sorted(modules))


def base_env(tmp_path: Path, extras: tuple = ()) -> dict:
    """An environment whose Python runs as on the base install plus ``extras`` (writes the
    blocker into ``tmp_path/base-install``)."""
    site = tmp_path / "base-install"
    site.mkdir(exist_ok=True)
    (site / "sitecustomize.py").write_text(_BLOCKER.format(names=blocked_modules(tuple(extras))))
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(site)] + [p for p in [env.get("PYTHONPATH")] if p])
    env["MPLBACKEND"] = "Agg"
    return env


def run_base(args, tmp_path: Path, timeout: float = 600, extras: tuple = (), **kw):
    """``python args...`` in a subprocess as on the base install plus ``extras``."""
    return subprocess.run(
        [sys.executable, *args],
        env=base_env(tmp_path, extras),
        cwd=kw.pop("cwd", tmp_path),
        capture_output=True,
        text=True,
        timeout=timeout,
        **kw,
    )
