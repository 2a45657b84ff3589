"""The checks of refused input (docs/api.md, "Input is validated before any state
changes"): a bad row, label or state raises the learner's refusal (``InputError`` for
kernelstream's objects, ``ValueError`` for others) with a message, and leaves the object
as it was: the same pickled state, and learning goes on exactly as in an untouched copy."""

from __future__ import annotations

import numpy as np

from ._tools import Stream, expect_equal, expect_same_state, fingerprint, fresh, has, learn, run


def bad_calls(s: Stream) -> list:
    """``(label, method, call)`` of each bad input; labels starting "wrong width" are
    wrong only once the first call fixed the width."""
    good = s.X[0].astype(float)
    d = good.size
    nan_x, inf_x = good.copy(), good.copy()
    nan_x[0], inf_x[-1] = np.nan, np.inf
    pair = np.vstack([good, good])
    calls = [
        ("NaN in x", "learn_one", lambda l: l.learn_one(nan_x, 1.0)),
        ("inf in x", "learn_one", lambda l: l.learn_one(inf_x, 1.0)),
        ("NaN y", "learn_one", lambda l: l.learn_one(good, float("nan"))),
        ("inf y", "learn_one", lambda l: l.learn_one(good, float("inf"))),
        ("string y", "learn_one", lambda l: l.learn_one(good, "1.0")),
        ("string x", "learn_one", lambda l: l.learn_one("abc", 1.0)),
        ("0-d x", "learn_one", lambda l: l.learn_one(np.float64(0.3), 1.0)),
        ("2-d x", "learn_one", lambda l: l.learn_one(good[None, :], 1.0)),
        ("empty x", "predict_one", lambda l: l.predict_one(np.zeros(0))),
        ("NaN in x predicted", "predict_one", lambda l: l.predict_one(nan_x)),
        ("3-d X", "learn_many", lambda l: l.learn_many(np.zeros((2, 2, d)), np.ones(2))),
        ("1-d X", "learn_many", lambda l: l.learn_many(good, np.ones(d))),
        ("empty X", "learn_many", lambda l: l.learn_many(np.zeros((0, d)), np.zeros(0))),
        ("string entries", "learn_many", lambda l: l.learn_many([["a"] * d], [1.0])),
        ("y length", "learn_many", lambda l: l.learn_many(np.tile(good, (3, 1)), np.ones(2))),
        ("NaN in X", "learn_many", lambda l: l.learn_many(np.vstack([good, nan_x]), np.ones(2))),
        (
            "NaN in X progressive",
            "progressive_predict",
            lambda l: l.progressive_predict(np.vstack([good, nan_x]), np.ones(2)),
        ),
        (
            "NaN in y progressive",
            "progressive_predict",
            lambda l: l.progressive_predict(pair, np.array([1.0, np.nan])),
        ),
    ]
    if d > 1:
        # Narrower rows only: a wider row is an exact zero-extension that some learners
        # take (docs/streams.md, "Rows that grow").
        calls += [
            ("wrong width x", "learn_one", lambda l: l.learn_one(good[:-1], 1.0)),
            ("wrong width x predicted", "predict_one", lambda l: l.predict_one(good[:-1])),
            (
                "wrong width X",
                "learn_many",
                lambda l: l.learn_many(np.zeros((2, d - 1)), np.ones(2)),
            ),
        ]
    return calls


def _refused(learner, call, s: Stream, what: str, before: tuple) -> None:
    """``call(learner)`` raises ``s.refusal`` with a message and leaves the state
    ``before`` (a :func:`fingerprint`)."""
    try:
        call(learner)
    except s.refusal as exc:
        if not str(exc):
            raise AssertionError(f"{what}: {type(exc).__name__} without a message") from None
    except Exception as exc:
        raise AssertionError(
            f"{what}: raised {type(exc).__name__} ({exc}), not {s.refusal.__name__}"
        ) from exc
    else:
        raise AssertionError(f"{what}: accepted (no {s.refusal.__name__})")
    expect_same_state(learner, before, f"{what}, refused")


def _goes_on_untouched(learner, untouched, s: Stream, what: str) -> None:
    rest = s.X[s.split :], s.y[s.split :]
    expect_equal(run(learner, *rest), run(untouched, *rest), f"the rounds after {what}")


def check_refusals_leave_learner_unchanged(learner, s: Stream) -> None:
    """Each bad input of :func:`bad_calls` (NaN and inf in rows and labels, a string, a
    narrower row or one of the wrong shape, an empty or ragged batch), on a fresh learner and
    on one two thirds into the stream, raises the refusal with a message and leaves the
    state as it was; the learner then goes on exactly as an untouched copy."""
    calls = [c for c in bad_calls(s) if has(learner, c[1])]
    a = fresh(learner)
    before = fingerprint(a)
    for label, _, call in calls:
        if not label.startswith("wrong width"):
            _refused(a, call, s, f"{label} on a fresh learner", before)
    learned = fresh(learner)
    learn(learned, s.X[: s.split], s.y[: s.split])
    untouched, before = fresh(learned), fingerprint(learned)
    for label, _, call in calls:
        _refused(learned, call, s, f"{label} after {s.split} rounds", before)
    _goes_on_untouched(learned, untouched, s, "the refusals")


def _learns(x, label):
    return lambda l: l.learn_one(x, label)


def needs_classifier(learner, s: Stream):
    return None if s.task == "classification" else "a regressor (labels are any number)"


def check_classifier_refuses_other_labels(learner, s: Stream) -> None:
    """A classifier refuses every label but -1 and +1 (0, 2, 0.5), changing nothing."""
    learned = fresh(learner)
    learn(learned, s.X[: s.split], s.y[: s.split])
    untouched, before = fresh(learned), fingerprint(learned)
    for bad in (0.0, 2.0, 0.5, -3.0):
        _refused(learned, _learns(s.X[0], bad), s, f"the label {bad}", before)
    _goes_on_untouched(learned, untouched, s, "the refused labels")


def needs_versioned_state(learner, s: Stream):
    state = learner.__getstate__() if has(learner, "__getstate__") else None
    if isinstance(state, dict) and "format_version" in state:
        return None
    return "its pickled state carries no format_version"


def check_pickle_refuses_unknown_format(learner, s: Stream) -> None:
    """A pickled state of a format this release does not read (``format_version`` 999)
    is refused by ``__setstate__``, which leaves the object as it was."""
    a = fresh(learner)
    learn(a, s.X[: s.split], s.y[: s.split])
    state = a.__getstate__()
    if not (isinstance(state["format_version"], int) and state["format_version"] >= 1):
        raise AssertionError(f"format_version {state['format_version']!r} is not a version")
    b = fresh(learner)
    untouched = fresh(learner)
    bad = dict(state, format_version=999)
    _refused(b, lambda l: l.__setstate__(bad), s, "a state of format 999", fingerprint(b))
    _goes_on_untouched(b, untouched, s, "the refused state")
