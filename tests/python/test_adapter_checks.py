"""The peers' own conformance suites on every adapter x representative learner.

scikit-learn's ``check_estimator`` checks and river's ``check_estimator`` checks, one
test per check (ids read ``adapter-learner-check``), as river's ``test_estimators.py``
crosses its estimators with ``river.checks``. The learner sets live in ``zoo.py``.
"""

from __future__ import annotations

import warnings

import pytest
from zoo import ADAPTER_CLASSIFICATION, ADAPTER_REGRESSION

sklearn_checks = pytest.importorskip("sklearn.utils.estimator_checks")
river_checks = pytest.importorskip("river.checks")

from kernelstream.adapters import (  # noqa: E402
    RiverClassifier,
    RiverRegressor,
    SklearnClassifier,
    SklearnRegressor,
)

# river's adapters get inputs reserved for features first seen after the first row, so
# that check_emerging_features runs (without them it is skipped: the documented error)
# (the classifiers' multiclass stream, ImageSegments, has 18 features)
RIVER_MAX_FEATURES = {"regressor": 12, "classifier": 24}


def _kwargs(scale, river=None):
    kw = {} if scale is None else {"scale": scale}
    return {**kw, "max_features": RIVER_MAX_FEATURES[river]} if river else kw


PAIRS = [("regressor", name, *entry) for name, entry in ADAPTER_REGRESSION.items()] + [
    ("classifier", name, *entry) for name, entry in ADAPTER_CLASSIFICATION.items()
]


# Learners that appear twice: by default each learner runs every check once (its
# "-defaults" entry); the second configuration's checks run under -m slow.
SECOND_CONFIGS = {"TaylorAWV"}


# scikit-learn's own convention for online estimators (its SGD estimators list the same
# check as an expected failure): the check fits a shuffled weighted stream and a sorted
# repeated one, and an online learner (and the adapters' online scaling) depends on the
# order of the rows. Weight equivalence is tested in the order it holds in:
# tests/python/test_sample_weights.py.
ORDER_DEPENDENT_CHECKS = {
    "check_sample_weight_equivalence_on_dense_data",
    "check_sample_weight_equivalence_on_sparse_data",
}


# scikit-learn's training checks fit a classifier on three streams of 150-600 rows:
# about 3 s each for AutoKernel's 25 experts, so by default they run on the other
# learners only (all of them under -m slow)
SLOW_SKLEARN_CHECKS = {"check_classifiers_train": ("AutoKernel-defaults",)}


def _sklearn_cases():
    for kind, name, make, scale in PAIRS:
        adapter = SklearnRegressor if kind == "regressor" else SklearnClassifier
        est = adapter(make(), **_kwargs(scale))
        marks0 = (pytest.mark.slow,) if name in SECOND_CONFIGS else ()
        for _est, check in sklearn_checks.estimator_checks_generator(est, legacy=True):
            check_name = getattr(check, "func", check).__name__
            marks = marks0
            if name in SLOW_SKLEARN_CHECKS.get(check_name, ()) and kind == "classifier":
                marks = (*marks0, pytest.mark.slow)
            if check_name in ORDER_DEPENDENT_CHECKS:
                reason = "online: the fit depends on the order of the rows"
                marks = (*marks0, pytest.mark.xfail(reason=reason, strict=False))
            yield pytest.param(
                est, check, id=f"{adapter.__name__}-{name}-{check_name}", marks=marks
            )


# river's memory-growth check learns thousands of rows: by default it runs on one
# learner per adapter (its defaults), on every learner under -m slow
FAST_MEMORY_CHECK = "TaylorAWV-defaults"
# river runs each dataset check on a binary stream (twice) and, for a multiclass
# classifier, on ImageSegments (7 classes, the third run): one column per class, so the
# learners that are not multi-output cost 8 learners there (7 columns and the spare).
# AutoKernel is multi-output: its 50 river checks (memory aside) take about 3 s in all,
# so by default only its multiclass run (the K-output path), all three under -m slow.
_SLOW_RIVER_CLASSIFIERS: set[str] = set()
_BINARY_RUNS_SLOW = {"AutoKernel-defaults"}
_MULTICLASS_RUN = 2


def _river_marks(kind, name, check_name, run):
    if name in SECOND_CONFIGS:
        return (pytest.mark.slow,)
    memory = check_name.startswith("check_bounded_memory")
    if kind == "classifier" and name == "CON-KONS-logistic" and run == _MULTICLASS_RUN:
        if memory:  # 10 minutes: 23,100 rows x 8 learners
            return (
                pytest.mark.skip(reason="ten minutes; the same check runs on the binary streams"),
            )
        return (pytest.mark.slow,)
    if kind == "classifier" and name in _SLOW_RIVER_CLASSIFIERS:
        return (pytest.mark.slow,)
    if kind == "classifier" and name in _BINARY_RUNS_SLOW and run != _MULTICLASS_RUN:
        return (pytest.mark.slow,)
    if memory and kind == "classifier" and run != _MULTICLASS_RUN:
        return (pytest.mark.slow,)  # by default the multiclass stream (one column per class)
    return (pytest.mark.slow,) if memory and name != FAST_MEMORY_CHECK else ()


def _river_cases():
    for kind, name, make, scale in PAIRS:
        adapter = RiverRegressor if kind == "regressor" else RiverClassifier
        model = adapter(make(), **_kwargs(scale, river=kind))
        runs: dict = {}
        for check in river_checks.yield_checks(model):
            if check.__name__ not in model._unit_test_skips():
                run = runs[check.__name__] = runs.get(check.__name__, -1) + 1
                yield pytest.param(
                    model,
                    check,
                    id=f"{adapter.__name__}-{name}-{check.__name__}",
                    marks=_river_marks(kind, name, check.__name__, run),
                )


@pytest.mark.filterwarnings("ignore")
@pytest.mark.parametrize(("estimator", "check"), list(_sklearn_cases()))
def test_sklearn_check(estimator, check):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check(estimator)


@pytest.mark.filterwarnings("ignore")
@pytest.mark.parametrize(("model", "check"), list(_river_cases()))
def test_river_check(model, check):
    check(model.clone())


@pytest.mark.parametrize(
    "adapter", [RiverRegressor, pytest.param(RiverClassifier, marks=pytest.mark.slow)]
)
def test_river_check_estimator_on_unit_test_params(adapter):
    """river's own entry point, on the adapters' ``_unit_test_params``."""
    for params in adapter._unit_test_params():
        river_checks.check_estimator(adapter(**params))
