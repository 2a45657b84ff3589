"""The core's learner table (``_core.registry()``) against everything that lists or
describes learners: each registered learner is in the test zoo, the fuzzers' catalog,
the command line and the API reference, its Python face declares the table's defaults
(and the stub agrees), its state version is the core's, and it works as a Mixture
expert exactly when the table says so. The table itself must hold every learner class
of the core."""

from __future__ import annotations

import inspect
import re
import sys
from pathlib import Path

import kernelstream as ks
import numpy as np
import pytest
from kernelstream import _core
from kernelstream.errors import ParameterError
from kernelstream.learners import _registry
from zoo import ZOO

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))

import fuzzlib  # noqa: E402
import gen_learner_docs  # noqa: E402

ENTRIES = _registry.entries()
NAMES = [e["name"] for e in ENTRIES]
TASKS = {"regression", "classification", "both"}


def _core_name(entry) -> str:
    return entry["core_class"].rsplit(".", 1)[-1]


def _rows(name, n=30, seed=0):
    e = _registry.entry(name)
    rng = np.random.default_rng(seed)
    X = rng.uniform(*_registry.input_box(name), size=(n, _registry.face(name)._example_d))
    y = np.sign(X[:, 0]) + (X[:, 0] == 0) if e["task"] == "classification" else np.sin(X[:, 0])
    return X, y


def test_the_table_holds_every_learner_class_of_the_core_once():
    # a core class with the learner protocol (it pickles and learns rows) is a learner
    protocol = ("learn_one", "progressive_predict", "_state_version")
    core = {
        n
        for n in dir(_core)
        if isinstance(getattr(_core, n), type)
        and all(hasattr(getattr(_core, n), m) for m in protocol)
    }
    registered = [_core_name(e) for e in ENTRIES]
    assert len(registered) == len(set(registered)) and len(NAMES) == len(set(NAMES))
    assert set(registered) == core, set(registered) ^ core


@pytest.mark.parametrize("entry", ENTRIES, ids=NAMES)
def test_the_entry_is_well_formed(entry):
    assert entry["task"] in TASKS
    assert entry["input_domain"] in ("unit_cube", "real")
    assert isinstance(entry["mixture_expert"], bool)
    face = _registry.face(entry["name"])
    assert face._core_class is getattr(_core, _core_name(entry))
    assert face._core_class._state_version() == entry["state_version"]
    names = [p["name"] for p in entry["params"]]
    assert len(names) == len(set(names)) and names
    for p in entry["params"]:
        assert {"name", "default", "kind", "domain"} <= set(p)


@pytest.mark.parametrize("name", NAMES)
def test_it_is_exported(name):
    # written out in both __init__s (type checkers and IDEs read the imports statically)
    assert name in ks.__all__ and name in ks.learners.__all__
    assert getattr(ks, name) is _registry.face(name)


@pytest.mark.parametrize("name", NAMES)
def test_it_is_in_the_zoo(name):
    entry = ZOO[name]
    learner = entry.factory()
    assert type(learner) is _registry.face(name)
    X, y = _rows(name)
    assert entry.d == X.shape[1] and entry.domain == _registry.input_box(name)
    assert np.isfinite(learner.progressive_predict(X, y)).all()


@pytest.mark.parametrize("name", NAMES)
def test_it_is_in_the_fuzz_catalog(name):
    factory, kind, d, domain, task = fuzzlib.catalog()[name]
    assert kind == "learner" and type(factory()) is _registry.face(name)
    assert (d, tuple(domain)) == (ZOO[name].d, ZOO[name].domain)
    assert task == ("c" if ZOO[name].task == "classification" else "r")


@pytest.mark.parametrize("name", NAMES)
def test_it_runs_from_the_command_line(name, capsys):
    from kernelstream.cli import LEARNERS, UNIT_CUBE_LEARNERS, main

    cli = _registry.cli_name(name)
    assert LEARNERS[cli] == name
    assert (cli in UNIT_CUBE_LEARNERS) == (_registry.entry(name)["input_domain"] == "unit_cube")
    extra = ["--param", "n_features=4"] if name in ("MultiKernelAWV", "Raker", "OMKLGF") else []
    task = ["--task", "classification"] if _registry.entry(name)["task"] == "classification" else []
    argv = ["run", "--n", "40", "--no-progress", "--learner", cli, *extra, *task]
    assert main(argv) == 0
    assert capsys.readouterr().out.startswith(f"{name}(")


def test_the_api_reference_is_generated_from_the_table():
    page = gen_learner_docs.PAGE.read_text()
    assert page == gen_learner_docs.render(), "run python tools/gen_learner_docs.py"


@pytest.mark.parametrize("name", NAMES)
def test_it_is_in_the_api_reference(name):
    face = _registry.face(name)
    page = gen_learner_docs.PAGE.read_text()
    assert f"\n::: {face.__module__}.{name}\n" in page


def _same(a, b) -> bool:
    """Defaults compare as values: a tuple default equals the list the table reports."""
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return type(a) is type(b) and a == b or (a is None and b is None)


@pytest.mark.parametrize("entry", ENTRIES, ids=NAMES)
def test_the_face_declares_the_table_defaults(entry):
    sig = inspect.signature(_registry.face(entry["name"]))
    declared = {k: p.default for k, p in sig.parameters.items() if p.kind != p.VAR_KEYWORD}
    table = {p["name"]: p for p in entry["params"]}
    assert set(declared) == set(table), set(declared) ^ set(table)
    for k, p in table.items():
        if p.get("required"):
            assert declared[k] is inspect.Parameter.empty, k
        else:
            assert _same(declared[k], p["default"]), (k, declared[k], p["default"])


def _stub_class(name: str) -> str:
    text = (ROOT / "python" / "kernelstream" / "_core.pyi").read_text()
    m = re.search(rf"^class {name}\b.*?(?=^\S)", text, re.S | re.M)
    assert m, f"class {name} missing from _core.pyi"
    return m.group(0)


@pytest.mark.parametrize("entry", ENTRIES, ids=NAMES)
def test_the_stub_agrees_with_the_table(entry):
    """The stub's constructor names the table's parameters in order: each one, or the
    leading ones and ``**kwargs`` for the rest (the bindings that fill the parameter
    struct from keywords); a default it shows is the table's."""
    block = _stub_class(_core_name(entry))
    new = re.search(r"def __new__\(cls, ?(.*?)\) ->", block, re.S)
    assert new, "no constructor in the stub"
    params = [s.strip() for s in new.group(1).split(",") if s.strip()]
    named = [s for s in params if not s.startswith("*")]
    names = [s.split(":")[0].split("=")[0].strip() for s in named]
    table = entry["params"]
    if any(s.startswith("**") for s in params):
        assert names == [p["name"] for p in table[: len(names)]]
    else:
        assert names == [p["name"] for p in table]
    for s, p in zip(named, table):
        if "=" in s:
            assert _same(eval(s.split("=", 1)[1].strip()), p["default"]), s


def test_the_stub_declares_the_tables():
    text = (ROOT / "python" / "kernelstream" / "_core.pyi").read_text()
    assert "\ndef registry() -> " in text and "\ndef aggregation_rules() -> " in text


@pytest.mark.parametrize("entry", ENTRIES, ids=NAMES)
def test_it_works_as_a_mixture_expert_exactly_when_the_table_says_so(entry):
    name = entry["name"]
    X, y = _rows(name, n=25)
    companion = ks.TaylorAWV(sigma=1.0, degree=2)
    if not entry["mixture_expert"]:
        with pytest.raises(ParameterError):
            ks.Mixture([_registry.example(name), companion])
        return
    mix = ks.Mixture([_registry.example(name), companion])
    p = mix.progressive_predict(X[:20], y[:20])
    for x, t in zip(X[20:], y[20:]):
        p = np.append(p, mix.predict_one(x))
        mix.learn_one(x, t)
    assert np.isfinite(p).all() and mix.n_seen == 25 and mix.weights.shape == (2,)
    assert np.isfinite(mix.expert_predictions(X[0])).all()
