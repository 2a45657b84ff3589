"""The learners as the core registers them: ``_core.registry()``, one entry per learner
(``name``, the Python class; ``core_class``; ``module``, that of its Python face;
``task``: regression, classification or both; ``input_domain``; ``state_version``;
``mixture_expert``: whether a Mixture takes it as an expert; ``params``: each
parameter's ``name``, ``default``, ``kind`` and ``domain``).

Everything in the package that lists learners reads this table: the command line's
``--learner`` names, the bench's account of which learners its cases time and which none
does (``kernelstream bench --list``, :func:`kernelstream.bench.learners_timed`), the test
zoo, the fuzzers' catalog and the API reference (``tools/gen_learner_docs.py``). What one of them needs beyond the table is
data on the learner's Python face: ``_cli_name`` (a command-line name that is not the
class name in kebab case), ``_example()`` (a small instance's parameters) and
``_example_d`` (its rows' width)."""

from __future__ import annotations

import importlib
import re
from functools import cache
from typing import cast

from .. import _core
from .base import Learner


@cache
def entries() -> tuple:
    """The core's table, in its order (read once)."""
    return tuple(_core.registry())


def names() -> list:
    """The registered learners' class names."""
    return [e["name"] for e in entries()]


def entry(name: str) -> dict:
    for e in entries():
        if e["name"] == name:
            return e
    raise KeyError(f"{name!r} is not a registered learner; the learners are {names()}")


def face(name: str) -> type[Learner]:
    """The learner's Python class, from its module (the table's ``module``)."""
    module = importlib.import_module(entry(name)["module"])
    return cast("type[Learner]", getattr(module, name))


def lazy_exports(namespace: dict, module: str, public: list) -> tuple:
    """``(__getattr__, __dir__)`` of a package that exports the learners (PEP 562):
    a learner's face is imported when first asked for and kept in ``namespace``."""

    def getattr_(name: str) -> type[Learner]:
        if name in names():
            namespace[name] = face(name)
            return namespace[name]
        raise AttributeError(f"module {module!r} has no attribute {name!r}")

    def dir_() -> list:
        return sorted(set(namespace) | set(public))

    return getattr_, dir_


def kebab(name: str) -> str:
    """``TaylorAWV`` -> ``taylor-awv``, ``ProsNKons`` -> ``pros-n-kons``."""
    return re.sub(r"(?<=[a-z])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", "-", name).lower()


def cli_name(name: str) -> str:
    """The command line's ``--learner`` name of the learner."""
    return face(name)._cli_name or kebab(name)


def input_box(name: str) -> tuple:
    """The box the learner's inputs are scaled to: ``[0, 1]`` for a learner whose basis
    lives on the unit cube, ``[-1, 1]`` otherwise."""
    return (0.0, 1.0) if entry(name)["input_domain"] == "unit_cube" else (-1.0, 1.0)


def example(name: str):
    """A small instance of the learner (its face's ``_example()`` parameters)."""
    cls = face(name)
    return cls(**cls._example())
