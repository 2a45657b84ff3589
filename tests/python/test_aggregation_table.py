"""The one table of aggregation rules (``src/aggregation/rule.rs``, read through
``_core.aggregation_rules()``): every face that takes a rule by name reads its names
from it, and each rule's Python class declares the table's defaults."""

from __future__ import annotations

import inspect

import kernelstream as ks
import numpy as np
import pytest
from kernelstream import _core, aggregation
from kernelstream.errors import ParameterError
from kernelstream.learners.mixture import RULES
from kernelstream.learners.multi_kernel_awv import AGGREGATORS

TABLE = _core.aggregation_rules()
NAMES = [r["name"] for r in TABLE]


def test_the_table_holds_the_six_rules_once():
    assert sorted(NAMES) == ["aa", "boa", "ewa", "mlpoly", "mlprod", "vaw"]
    assert len({r["class"] for r in TABLE}) == len(TABLE)


def test_the_faces_read_their_names_from_the_table():
    assert list(RULES) == NAMES
    assert list(AGGREGATORS) == NAMES


@pytest.mark.parametrize("rule", TABLE, ids=NAMES)
def test_each_rule_class_declares_the_table_defaults(rule):
    cls = getattr(aggregation, rule["class"])
    assert RULES[rule["name"]] is cls
    sig = inspect.signature(cls)
    declared = {k: p.default for k, p in sig.parameters.items() if k != "n_experts"}
    assert declared == rule["params"]
    for k, v in rule["params"].items():
        assert type(declared[k]) is type(v), k


@pytest.mark.parametrize("name", NAMES)
def test_each_rule_runs_in_a_mixture_by_name(name):
    rng = np.random.default_rng(0)
    X = rng.uniform(-1, 1, size=(30, 2))
    y = 0.5 + 0.4 * np.sin(2 * X[:, 0])  # inside AA's default range [0, 1]
    mix = ks.Mixture([ks.TaylorAWV(sigma=s, degree=3) for s in (0.5, 2.0)], rule=name)
    p = mix.progressive_predict(X, y)
    assert np.isfinite(p).all() and mix.n_seen == 30
    assert mix.weights.shape == (2,)


def test_an_unknown_name_is_refused_with_the_table_names():
    with pytest.raises(ParameterError, match="mlprod"):
        ks.MultiKernelAWV([ks.kernels.Gaussian(1.0)], n_features=4, aggregator="opera")
    with pytest.raises(ParameterError, match="mlprod"):
        ks.AutoKernel(rule="opera")
    with pytest.raises(ParameterError):
        ks.Mixture([ks.TaylorAWV()], rule="opera")


def test_autokernel_refuses_the_rule_that_needs_a_label_range():
    with pytest.raises(ParameterError, match="aa"):
        ks.AutoKernel(rule="aa")


@pytest.mark.parametrize("name", ["vaw", "aa"])
def test_share_is_refused_on_the_rules_without_fixed_share(name):
    kw = {"clip": (0.0, 1.0)} if name == "aa" else {}
    with pytest.raises(ParameterError, match="Fixed Share"):
        ks.MultiKernelAWV(
            [ks.kernels.Gaussian(1.0)], n_features=4, aggregator=name, share=0.1, **kw
        )


def test_the_learners_rule_parameters_name_the_table_and_default_to_one_of_its_rules():
    """A learner's rule parameter (``rule``, ``aggregator``) takes the options of the
    table (its constraint's options are the table's names, in its order: read from it,
    not copied), and its default is a rule of the table."""
    seen = 0
    for entry in _core.registry():
        for p in entry["params"]:
            if p["name"] in ("rule", "aggregator"):
                seen += 1
                c = p["constraint"]
                assert c["type"] == "options", (entry["name"], c)
                assert list(c["options"]) == list(NAMES), (entry["name"], c["options"])
                assert p["default"] in NAMES, (entry["name"], p["default"])
    assert seen == 3  # Mixture, MultiKernelAWV, AutoKernel
