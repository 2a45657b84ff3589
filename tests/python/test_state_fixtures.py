"""Learners pickled by earlier releases (``tests/fixtures/states/<version>/``, written by
``tools/make_state_fixtures.py``): each loads and gives the predictions recorded when it
was made, or is refused with an ``InputError`` that names its state format version.
From 0.1.0 on the fixtures are model files (``kernelstream.save``), whose entries list
each component's state format version. States of the positional (bincode) format, that
of the development snapshots before 0.1.0 (pickles; entries without ``"encoding":
"tagged"``), are refused with a message saying so.

The tolerance of each entry is recorded with it: the spread of its predictions between
the instruction-set paths (which round differently), times 1000, at least 1e-12
relative (see the generator's docstring)."""

from __future__ import annotations

import json
import pickle
import re
import warnings
from pathlib import Path

import kernelstream as ks
import numpy as np
import pytest
from kernelstream.errors import InputError
from kernelstream.learners import conformal
from kernelstream.modelfile.statebytes import seal, version_of
from zoo import ZOO

STATES = Path(__file__).resolve().parents[1] / "fixtures" / "states"
RELEASES = sorted(p for p in STATES.iterdir() if (p / "manifest.json").exists())
CASES = [
    pytest.param(rel, name, entry, id=f"{rel.name}-{name}")
    for rel in RELEASES
    for name, entry in json.loads((rel / "manifest.json").read_text())["entries"].items()
]


def _load(path: Path):
    if path.suffix == ".ksm":  # a model file (0.1.0 on)
        return ks.load(path)
    with warnings.catch_warnings():
        # Unpickling what another version saved warns (and is what this test does).
        warnings.filterwarnings("ignore", message="unpickling a .* saved by kernelstream")
        return pickle.loads(path.read_bytes())


POSITIONAL = (
    r"positional format \(format version \d+\) of kernelstream's development snapshots "
    r"before 0.1.0, which this release does not read"
)


def test_there_are_fixtures():
    assert RELEASES, f"no state fixtures under {STATES}"


def test_every_zoo_entry_has_a_fixture():
    """A learner added to the zoo gets its fixture (``make_state_fixtures.py --missing``)."""
    have = {name for _, name, _ in (c.values for c in CASES)}
    assert sorted(set(ZOO) - have) == []


@pytest.mark.parametrize("release, name, entry", CASES)
def test_fixture_loads_and_predicts_or_is_refused(release, name, entry):
    path = release / entry["file"]
    if entry.get("encoding") != "tagged":
        with pytest.raises(InputError, match=POSITIONAL):
            _load(path)
        return
    if "components" in entry:  # a model file: the version of each component state
        ours = {e["core_class"]: e["state_version"] for e in ks._core.registry()}
        ours["Conformal"] = conformal._STATE_VERSION
        old = {k: v for k, v in entry["components"].items() if ours.get(k) != v}
        if old:
            with pytest.raises(InputError, match=r"state of format version \d+; kernelstream"):
                _load(path)
            return
    elif entry["state_format_version"] != getattr(ks, entry["class"])._core_class._state_version():
        # Refused by a version: its own, or (a container of an older format holding
        # pickled experts) that of an expert, whichever the loader meets first.
        with pytest.raises(InputError, match=r"format version (\d+), this build reads") as info:
            _load(path)
        old, new = re.search(
            r"format version (\d+), this build reads version (\d+)", str(info.value)
        ).groups()
        assert old != new
        return
    learner = _load(path)
    assert type(learner).__name__ == entry["class"]
    assert learner.n_seen == entry["n_seen"]
    X, y = np.array(entry["X"]), np.array(entry["y"])
    atol = entry["atol"]
    np.testing.assert_allclose(learner.predict_many(X), entry["predict_many"], rtol=0, atol=atol)
    np.testing.assert_allclose(
        learner.progressive_predict(X, y), entry["progressive_predict"], rtol=0, atol=atol
    )
    assert learner.n_seen == entry["n_seen"] + len(y)


@pytest.mark.parametrize("body", ["same", "other"])
@pytest.mark.parametrize("name", ["TaylorAWV", "Mixture", "AutoKernel"])
def test_a_state_of_another_format_version_is_refused_by_name(name, body):
    """The core state's header holds its format version (``statebytes``): a pickle
    whose state says another version (with a valid checksum) is refused with a message
    that names it, whatever its fields are (the same, or another layout: here cut
    short), and the object it was to be loaded into is left as it was."""
    entry = ZOO[name]
    blob = entry.factory()
    rng = np.random.default_rng(0)
    X = rng.uniform(*entry.domain, size=(40, entry.d))
    blob.learn_many(X, np.sign(X[:, 0]) if entry.task == "classification" else np.sin(X[:, 0]))
    state = blob.__getstate__()
    current = version_of(state["core"])
    assert current == type(blob)._core_class._state_version()
    future = current + 1
    core = state["core"] if body == "same" else state["core"][:20]
    state["core"] = seal(core, version=future)
    target = type(blob)(**blob.get_params())
    with pytest.raises(InputError, match=f"format version {future}"):
        target.__setstate__(state)
    assert target.n_seen == 0
