"""The learner protocol of the API contract on the zoo's other configurations: the
public battery (``kernelstream.checks``: purity and the serving path, batch calls against
the round loop, copies, pickles and model files mid-stream, refusals, ``get_params``,
block sizes, seeds, predictive stds, several outputs; test ids read ``check[entry]``).
Each registered learner's example runs it through ``check_learner`` in
test_checks.py."""

from __future__ import annotations

import copy

import kernelstream as ks
import numpy as np
import pytest
from kernelstream.checks import CHECKS, yield_checks
from kernelstream.checks._tools import same_params
from zoo import VARIANTS, ZOO

NAMES = sorted(ZOO)


def assert_same_params(a: dict, b: dict) -> None:
    """Equal parameters (the battery's comparison: arrays element-wise, learners by
    class and parameters)."""
    same_params(a, b)


def stream(entry, n, seed=0):
    rng = np.random.default_rng(seed)
    lo, hi = entry.domain
    X = rng.uniform(lo, hi, size=(n, entry.d))
    if entry.task == "classification":
        y = np.where(np.sin(3 * X[:, 0]) + 0.3 * rng.standard_normal(n) >= 0, 1.0, -1.0)
    else:
        y = np.sin(3 * X[:, 0]) * np.cos(X[:, -1]) + 0.1 * rng.standard_normal(n)
    return X, y


def _checks(name):
    # 60 rows (past AutoKernel's and Conformal's warm-ups); batch calls within 1e-12 of
    # the round loop, tighter than the documented 1e-10 (no block runs at these sizes)
    return list(yield_checks(ZOO[name].factory(), *stream(ZOO[name], 60), rtol=1e-12))


BATTERY = [(name, check) for name in sorted(VARIANTS) for check in _checks(name)]


@pytest.mark.parametrize(
    "check", [c for _, c in BATTERY], ids=[f"{c.name}[{n}]" for n, c in BATTERY]
)
def test_protocol(check):
    check()


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_the_whole_battery_applies(name):
    # nothing is skipped but what cannot apply: the label check on regressors, the
    # block-size check on learners without block_size
    ran = {c.name for n, c in BATTERY if n == name}
    assert ran == applicable(ZOO[name].factory(), ZOO[name].task), set(CHECKS) - ran


def applicable(learner, task: str) -> set:
    """The checks a learner must run: all but the label check on regressors, the
    block-size check without ``block_size``, the std check without a predictive std
    (and the refused-std check with one), and the multi-output check on learners that
    are not multi-output or a configuration that takes one output."""
    out = set(CHECKS)
    if task != "classification":
        out.discard("check_classifier_refuses_other_labels")
    if "block_size" not in learner.get_params():
        out.discard("check_block_size_independence")
    std = getattr(learner, "has_predictive_std", False)
    if not std:
        out.discard("check_predictive_std")
    if std or not hasattr(learner, "predict_std"):
        out.discard("check_no_std_is_refused")
    if not _learns_outputs(copy.deepcopy(learner)):
        out.discard("check_multi_output")
    return out


def _learns_outputs(learner) -> bool:
    """A multi-output class whose configuration takes several outputs (a mixture
    with an expert outside the AWV family refuses them, saying so)."""
    if not isinstance(learner, ks.learners.MultiOutput):
        return False
    X = np.zeros((2, learner._example_d if learner.input_dim is None else learner.input_dim))
    try:
        learner.learn_many(X, np.ones((2, 3)))
    except ks.InputError as e:
        assert "one output" in str(e)
        return False
    return True


def test_the_awv_family_is_multi_output():
    multi = {n for n, c in BATTERY if c.name == "check_multi_output"}
    assert {"TaylorAWV-ridge", "RFFAWV-ridge", "NystromAWV-fixed", "KernelAWV-ridge",
            "Mixture-vaw-threads", "AutoKernel-mlprod-window"} <= multi  # fmt: skip
