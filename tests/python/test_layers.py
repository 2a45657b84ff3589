"""The package's layers: the library (the learners and everything they are built from) never
imports the layers above it, the experiments (``kernelstream reproduce``), the benchmarks
(``kernelstream bench``) and the command line; those may import the library."""

from __future__ import annotations

import ast
from pathlib import Path

import kernelstream

PACKAGE = Path(kernelstream.__file__).resolve().parent

#: The layers above the library, by the package (or module) that is each one's home.
#: Every other module of ``kernelstream`` is the library.
UPPER = {
    "kernelstream.experiments": "experiments",
    "kernelstream.bench": "benchmarks",
    "kernelstream.cli": "command line",
    "kernelstream.__main__": "command line",
}


def _module(path: Path) -> str:
    parts = ["kernelstream", *path.relative_to(PACKAGE).with_suffix("").parts]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def layer(module: str) -> str:
    """The layer of a module of the package: the ``UPPER`` home it lies in, else library."""
    for home, name in UPPER.items():
        if module == home or module.startswith(home + "."):
            return name
    return "library"


def imports(source: str, module: str, is_package: bool) -> set[str]:
    """The ``kernelstream`` modules ``source`` imports, at the top or inside functions
    (relative imports resolved from ``module``), each import and each imported name."""
    here = module.split(".") if is_package else module.split(".")[:-1]
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = here[: len(here) - node.level + 1]
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            found.add(mod)
            found.update(f"{mod}.{a.name}" for a in node.names)
    return {m for m in found if m == "kernelstream" or m.startswith("kernelstream.")}


def upward_imports() -> list[str]:
    """``"importer -> imported (layer)"`` for every import from the library up."""
    bad = []
    for path in sorted(PACKAGE.rglob("*.py")):
        module = _module(path)
        if layer(module) != "library":
            continue
        for target in sorted(imports(path.read_text(), module, path.name == "__init__.py")):
            if layer(target) != "library":
                bad.append(f"{module} -> {target} ({layer(target)})")
    return bad


def test_the_library_never_imports_the_layers_above_it():
    library = [p for p in PACKAGE.rglob("*.py") if layer(_module(p)) == "library"]
    assert len(library) > 60  # the walk found the library: learners, adapters, datasets...
    assert {"kernelstream.learners.base", "kernelstream.adapters.river"} <= {
        _module(p) for p in library
    }
    assert upward_imports() == []


def test_each_upper_layer_has_its_home():
    for home in UPPER:
        path = PACKAGE.joinpath(*home.split(".")[1:])
        assert path.with_suffix(".py").is_file() or (path / "__init__.py").is_file(), home
    # the benchmarks live in one home: no bench module outside it (but the command's)
    stray = [
        _module(p)
        for p in PACKAGE.rglob("*bench*.py")
        if layer(_module(p)) not in ("benchmarks", "command line")
    ]
    assert stray == []


def test_layer_and_imports_catch_an_upward_import():
    """The checks find each form of an import from the library up (absolute, relative,
    inside a function, a submodule named in ``from ... import``)."""
    assert layer("kernelstream.bench.runner") == "benchmarks"
    assert layer("kernelstream.benchmarks_like") == "library"  # a prefix is not a home
    assert layer("kernelstream.learners.taylor_awv") == "library"
    cases = {
        "import kernelstream.bench": "kernelstream.bench",
        "from ..experiments.executors import run_tasks": "kernelstream.experiments.executors",
        "def f():\n    from .. import cli": "kernelstream.cli",
        "from kernelstream import bench": "kernelstream.bench",
    }
    for source, target in cases.items():
        found = imports(source, "kernelstream.forecast.panel", is_package=False)
        assert target in found and layer(target) != "library", source
    found = imports("from . import base", "kernelstream.learners", is_package=True)
    assert "kernelstream.learners.base" in found
    assert all(layer(m) == "library" for m in found)
