"""The bench cases read the learner table: the case ``registry`` times every learner of
``_core.registry()`` (in its order), each built as the test zoo builds it; the cases
are built here, not timed."""

from __future__ import annotations

import numpy as np
from kernelstream.bench import CASES, learners_timed
from kernelstream.learners import _registry


def test_the_registry_case_times_every_registered_learner():
    assert learners_timed(["registry"])["registry"] == _registry.names()
    # every registered learner is timed by some case (Raker and OMKLGF included)
    timed = {n for names in learners_timed().values() for n in names}
    assert timed == set(_registry.names())


def test_the_registry_case_feeds_each_learner_its_inputs():
    for name, case in zip(_registry.names(), CASES["registry"](True)):
        lo, hi = _registry.input_box(name)
        assert case.label == f"{name} example" and case.reference_rounds == case.X.shape[0]
        assert case.X.shape[1] == _registry.face(name)._example_d
        assert lo <= case.X.min() and case.X.max() <= hi
        if _registry.entry(name)["task"] == "classification":
            assert set(np.unique(case.y)) <= {-1.0, 1.0}
