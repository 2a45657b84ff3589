"""The learner faces' attributes read from the core (``core_attr`` in
``kernelstream.learners._declared``): each is the core's value, of its declared type,
and the API reference documents it with that type and doc (the griffe extension that
mkdocs.yml registers)."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from kernelstream.learners import _registry
from kernelstream.learners._declared import CoreAttr, core_attrs

ROOT = Path(__file__).resolve().parents[2]
NAMES = list(_registry.names())


def _fed(name: str):
    face = _registry.face(name)
    learner = face(**face._example())
    rng = np.random.default_rng(0)
    d = face._example_d
    X = rng.uniform(0.05, 0.95, size=(30, d))
    learner.learn_many(X, np.sin(3 * X[:, 0]))
    return learner


def _same(a, b) -> bool:
    if a is None or b is None:
        return a is b
    return bool(np.array_equal(np.asarray(a), np.asarray(b)))


@pytest.mark.parametrize("name", NAMES)
def test_core_attrs_are_the_cores_values(name):
    learner = _fed(name)
    attrs = core_attrs(type(learner))
    assert {"n_seen", "dim", "input_dim"} <= set(attrs)
    for attr_name, attr in attrs.items():
        value = getattr(learner, attr_name)
        assert _same(value, getattr(learner._core, attr.core)), attr_name
        assert (value is None and attr.optional) or isinstance(value, attr.kind), attr_name
        assert attr.__doc__ and type(learner).__dict__.get(attr_name, attr).__doc__ == attr.__doc__
    with pytest.raises(AttributeError):
        learner.n_seen = 3
    assert learner.n_seen == 30


def test_a_core_attr_with_another_core_name():
    from kernelstream import NOGD

    assert NOGD.learned_rank.core == "rank" and NOGD.learned_rank.name == "learned_rank"


def test_the_reference_documents_every_core_attr():
    griffe = pytest.importorskip("griffe")
    assert "tools/griffe_core_attrs.py:CoreAttrs" in (ROOT / "mkdocs.yml").read_text()
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        from griffe_core_attrs import CoreAttrs
    finally:
        sys.path.pop(0)
    package = griffe.load(
        "kernelstream",
        search_paths=[str(ROOT / "python")],
        extensions=griffe.load_extensions(CoreAttrs()),
        allow_inspection=False,
    )
    checked = 0
    for name in NAMES:
        face = _registry.face(name)
        doc = package[f"{face.__module__.removeprefix('kernelstream.')}.{face.__name__}"]
        for attr_name, attr in core_attrs(face).items():
            member = doc.all_members[attr_name]
            assert isinstance(attr, CoreAttr)
            assert member.docstring is not None and member.docstring.value == attr.__doc__
            kind = attr.kind.__name__ if attr.kind.__module__ == "builtins" else "np.ndarray"
            assert str(member.annotation) == kind + (" | None" if attr.optional else "")
            assert "property" in member.labels
            checked += 1
    assert checked >= 3 * len(NAMES)
