"""The package's layout: no import cycles between its modules, and every exported
learner and aggregator is covered by the protocol battery."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

import kernelstream
import kernelstream.aggregation as aggregation

PACKAGE = Path(kernelstream.__file__).resolve().parent


def _module_name(path: Path) -> str:
    parts = ["kernelstream", *path.relative_to(PACKAGE).with_suffix("").parts]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _import_graph() -> dict[str, set[str]]:
    """Module -> the package modules it imports (at the top or inside functions)."""
    files = {_module_name(p): p for p in PACKAGE.rglob("*.py")}
    compiled = {_module_name(p) for p in PACKAGE.rglob("*.pyi")}  # kernelstream._core
    graph: dict[str, set[str]] = {}
    for name, path in files.items():
        is_pkg = path.name == "__init__.py"
        here = name.split(".") if is_pkg else name.split(".")[:-1]
        targets: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                targets.update(a.name for a in node.names if a.name.startswith("kernelstream"))
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = here[: len(here) - node.level + 1]
                    mod = ".".join(base + ([node.module] if node.module else []))
                else:
                    mod = node.module or ""
                if not mod.startswith("kernelstream"):
                    continue
                for alias in node.names:
                    sub = f"{mod}.{alias.name}"
                    targets.add(sub if sub in files or sub in compiled else mod)
        graph[name] = {t for t in targets if t in files and t != name}
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_no_module_imports_form_a_cycle():
    graph = _import_graph()
    assert len(graph) > 30  # the walk found the package
    assert _cycles(graph) == []


def test_cycle_finder_finds_a_cycle():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def _exported(module, base) -> set[str]:
    return {
        name
        for name in getattr(module, "__all__", dir(module))
        if inspect.isclass(getattr(module, name, None))
        and issubclass(getattr(module, name), base)
        and getattr(getattr(module, name), "_core_class", None) is not None  # not a base
    }


def test_every_exported_learner_and_aggregator_is_in_the_zoo():
    from kernelstream.learners.base import Learner
    from zoo import AGGREGATORS, ZOO

    learners = _exported(kernelstream, Learner)
    assert {"TaylorAWV", "ProsNKons", "MultiKernelAWV"} <= learners
    covered = {type(entry.factory()).__name__ for entry in ZOO.values()}
    assert learners <= covered, f"not in tests/python/zoo.py: {sorted(learners - covered)}"
    from kernelstream._wrapped import CoreWrapper

    rules = _exported(aggregation, CoreWrapper)
    assert {"BOA", "EWA"} <= rules
    covered = {type(make(3)).__name__ for make in AGGREGATORS.values()}
    assert rules <= covered, f"not in tests/python/zoo.py: {sorted(rules - covered)}"


def test_constructor_defaults_are_declared_once():
    """The Rust-backed classes take every argument explicitly: their defaults live in the
    Python signatures only (kernels, which have no Python wrapper, keep theirs in Rust)."""
    from kernelstream import _core
    from kernelstream.kernels import Kernel

    checked = 0
    for name in dir(_core):
        cls = getattr(_core, name)
        if not inspect.isclass(cls) or issubclass(cls, (BaseException, Kernel)):
            continue
        if not getattr(cls, "__text_signature__", None):
            continue
        params = inspect.signature(cls).parameters.values()
        assert all(p.default is p.empty for p in params), f"_core.{name} declares defaults"
        checked += 1
    assert checked >= 15
