"""Checks of what some learners have beyond the protocol: predictive standard deviations
(docs/uncertainty.md) and several outputs (docs/choices.md, "Multi-output AWV"). Each
applies to a learner that has the feature (``needs_*``)."""

from __future__ import annotations

import pickle

import numpy as np

from ._refusals import _refused
from ._tools import (
    Stream,
    expect_close,
    expect_equal,
    expect_same_state,
    fingerprint,
    fresh,
    has,
    learn_one_by_one,
    predict_rows,
    run,
)


def needs_predictive_std(learner, s: Stream):
    return None if getattr(learner, "has_predictive_std", False) else "no predictive std"


def check_predictive_std(learner, s: Stream) -> None:
    """``progressive_predict_std`` is the loop ``predict_one(x, return_std=True)`` then
    ``learn_one``: means, stds and noise levels agree up to rounding, and the means are
    ``progressive_predict``'s; once the noise is estimated each std is finite and at
    least the noise level (``1 + phi^T A^-1 phi >= 1``); ``predict_std`` and
    ``predict_many_std`` change nothing and agree; a pickle keeps the noise level."""
    fast, slow = fresh(learner), fresh(learner)
    p_fast, s_fast, n_fast = fast.progressive_predict_std(s.X, s.y, return_noise=True)
    rounds = []
    for x, t in zip(s.X, s.y):
        rounds.append((*slow.predict_one(x, return_std=True), slow.noise_std))
        slow.learn_one(x, t)
    p_slow, s_slow, n_slow = np.array(rounds, dtype=float).T
    expect_close(p_fast, p_slow, s, "progressive_predict_std's means against the loop")
    expect_close(s_fast, s_slow, s, "its stds against the loop")
    expect_close(n_fast, n_slow, s, "its noise levels against the loop")
    expect_close(p_fast, run(fresh(learner), s.X, s.y), s, "its means against progressive_predict")
    late, noise = s_fast[s.split :], n_fast[s.split :]
    if not (np.isfinite(late).all() and (late > 0).all() and (late >= noise * (1 - 1e-12)).all()):
        raise AssertionError(f"a std after round {s.split} is not finite or below the noise level")
    before = fingerprint(slow)
    means, stds = slow.predict_many_std(s.X)
    expect_equal(slow.predict_std(s.X), stds, "predict_std against predict_many_std")
    expect_close(means, predict_rows(slow, s.X), s, "predict_many_std's means")
    expect_same_state(slow, before, "after predict_std and predict_many_std")
    again = pickle.loads(pickle.dumps(slow))
    expect_equal(again.predict_std(s.X), stds, "predict_std after a pickle")


def needs_std_refusal(learner, s: Stream):
    if has(learner, "predict_std") and not getattr(learner, "has_predictive_std", False):
        return None
    return "no predict_std to refuse" if not has(learner, "predict_std") else "it has a std"


def check_no_std_is_refused(learner, s: Stream) -> None:
    """A learner without a predictive std refuses ``predict_std`` and
    ``progressive_predict_std`` with ``ParameterError``, changing nothing."""
    from ..errors import ParameterError

    a = fresh(learner)
    before = fingerprint(a)
    for method, args in (("predict_std", (s.X,)), ("progressive_predict_std", (s.X, s.y))):
        try:
            getattr(a, method)(*args)
        except ParameterError:
            pass
        else:
            raise AssertionError(f"{method} without a predictive std: no ParameterError")
        expect_same_state(a, before, f"{method}, refused")
    if a.noise_std is not None:
        raise AssertionError(f"noise_std is {a.noise_std!r}, not None")


#: outputs of the multi-output checks
K = 3


def _targets(s: Stream) -> np.ndarray:
    """``K`` columns: the stream's labels, then ``cos(j x_0)``."""
    return np.column_stack([s.y] + [np.cos((j + 1) * s.X[:, 0]) for j in range(K - 1)])


def needs_outputs(learner, s: Stream):
    """Applies to a learner with ``n_outputs`` that learns ``K`` columns; one whose
    configuration takes one output says so (a Mixture with an expert outside the AWV
    family), and any other refusal fails the check."""
    if not hasattr(learner, "n_outputs"):
        return "one output (no n_outputs)"
    try:
        fresh(learner).learn_many(s.X[:2], _targets(s)[:2])
    except ValueError as exc:
        if "one output" in str(exc):
            return f"one output in this configuration ({exc})"
    return None


def check_multi_output(learner, s: Stream) -> None:
    """With ``K`` outputs: ``progressive_predict`` is the loop after the first round (the
    loop has no ``K`` before it), ``learn_many`` the loop of ``learn_one``, up to
    rounding; a pickle mid-stream goes on identically; targets of the wrong width or
    NaN are refused, changing nothing."""
    X, Y, k = s.X, _targets(s), s.split
    fast, slow = fresh(learner), fresh(learner)
    p_fast = np.asarray(fast.progressive_predict(X, Y), dtype=float)
    if p_fast.shape != Y.shape or fast.n_outputs != K:
        raise AssertionError(f"predictions {p_fast.shape} and n_outputs {fast.n_outputs}")
    slow.learn_one(X[0], Y[0])
    p_slow = []
    for x, t in zip(X[1:], Y[1:]):
        p_slow.append(slow.predict_one(x))
        slow.learn_one(x, t)
    expect_close(p_fast[1:], p_slow, s, "progressive_predict of K outputs against the loop")
    expect_close(fast.predict_many(X), slow.predict_many(X), s, "the predictions after")
    a, b = fresh(learner), fresh(learner)
    a.learn_many(X[:k], Y[:k])
    learn_one_by_one(b, X[:k], Y[:k])
    expect_close(a.predict_many(X), b.predict_many(X), s, "learn_many of K outputs")
    c = pickle.loads(pickle.dumps(a))
    expect_equal(c.progressive_predict(X[k:], Y[k:]), a.progressive_predict(X[k:], Y[k:]),
                 "K outputs across a pickle")  # fmt: skip
    before = fingerprint(b)
    for what, call in (
        ("a y of K - 1 values", lambda l: l.learn_one(X[k], Y[k, :-1])),
        ("one number for K outputs", lambda l: l.learn_one(X[k], 0.5)),
        ("K - 1 columns", lambda l: l.learn_many(X[k:], Y[k:, :-1])),
        ("NaN targets", lambda l: l.progressive_predict(X[k:], np.full(Y[k:].shape, np.nan))),
        ("one column for K outputs", lambda l: l.progressive_predict(X[k:], Y[k:, 0])),
    ):
        _refused(b, call, s, what, before)
