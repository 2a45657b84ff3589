"""The package's layers: the library (the learners and everything they are built from) never
imports the layers above it, the experiments (``kernelstream reproduce``), the benchmarks
(``kernelstream bench``) and the command line. The experiments and the benchmarks import the
library only (not each other), the command line any of them."""

from __future__ import annotations

import ast
from pathlib import Path

import kernelstream
import pytest

PACKAGE = Path(kernelstream.__file__).resolve().parent

#: The layers above the library, by the package (or module) that is each one's home.
#: Every other module of ``kernelstream`` is the library.
UPPER = {
    "kernelstream.experiments": "experiments",
    "kernelstream.bench": "benchmarks",
    "kernelstream.cli": "command line",
    "kernelstream.__main__": "command line",
}


#: Each layer's rank: a module imports its own layer's modules and those of lower ranks.
RANK = {"library": 0, "experiments": 1, "benchmarks": 1, "command line": 2}


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


def allowed(importer: str, imported: str) -> bool:
    """Whether a module of layer ``importer`` may import one of layer ``imported``."""
    return importer == imported or RANK[imported] < RANK[importer]


def forbidden_imports() -> list[str]:
    """``"importer (layer) -> imported (layer)"`` for every import the layers forbid."""
    bad = []
    for path in sorted(PACKAGE.rglob("*.py")):
        module = _module(path)
        for target in sorted(imports(path.read_text(), module, path.name == "__init__.py")):
            if not allowed(layer(module), layer(target)):
                bad.append(f"{module} ({layer(module)}) -> {target} ({layer(target)})")
    return bad


@pytest.mark.slow
def test_the_library_never_imports_the_layers_above_it():
    library = [p for p in PACKAGE.rglob("*.py") if layer(_module(p)) == "library"]
    assert len(library) > 60  # the walk found the library: learners, adapters, datasets...
    assert {"kernelstream.learners.base", "kernelstream.adapters.river"} <= {
        _module(p) for p in library
    }
    assert forbidden_imports() == []


def test_the_rule_between_layers():
    assert allowed("command line", "library") and allowed("command line", "benchmarks")
    assert allowed("experiments", "library") and allowed("benchmarks", "library")
    assert allowed("benchmarks", "benchmarks")
    for upper in ("experiments", "benchmarks", "command line"):
        assert not allowed("library", upper)
    assert not allowed("experiments", "benchmarks") and not allowed("benchmarks", "experiments")
    assert not allowed("benchmarks", "command line")


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
        assert target in found and not allowed("library", layer(target)), source
    found = imports("from . import base", "kernelstream.learners", is_package=True)
    assert "kernelstream.learners.base" in found
    assert all(layer(m) == "library" for m in found)
