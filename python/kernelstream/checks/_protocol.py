"""The checks of the learner protocol (docs/api.md): what ``predict_*`` may not change,
what the batch calls must equal, what copies, pickles and model files must carry, and
what the parameters must rebuild. Each check takes the template learner (never touched:
it works on copies) and the :class:`~._tools.Stream`; ``needs_*`` say when one applies
(``None``) or why not."""

from __future__ import annotations

import copy
import pickle

import numpy as np

from ._tools import (
    Stream,
    expect_close,
    expect_equal,
    expect_same_sizes,
    expect_same_state,
    fingerprint,
    fresh,
    has,
    learn,
    learn_one_by_one,
    loop,
    predict_rows,
    rebuilt,
    run,
    same_params,
)


def _needs(*methods: str):
    def applies(learner, s: Stream):
        missing = [m for m in methods if not has(learner, m)]
        return f"no {', '.join(missing)}" if missing else None

    return applies


def check_predict_is_pure(learner, s: Stream) -> None:
    """``predict_one`` and ``predict_many`` change nothing: after them the state (its
    pickled bytes, ``n_seen``) is as before; ``predict_one`` gives ``predict_many``'s
    values (up to rounding: a learner may predict several rows as one product,
    docs/api.md); and rounds of ``predict_one(x)`` then ``learn_one(x, y)`` (the serving
    path) end, bit for bit, in the state of ``learn_one`` alone in a copy never asked."""
    a = fresh(learner)
    learn(a, s.X[: s.split], s.y[: s.split])
    untouched, before = copy.deepcopy(a), fingerprint(a)
    want = predict_rows(a, s.X)
    for x in s.X:
        a.predict_one(x)
    predict_rows(a, s.X)
    expect_same_state(a, before, "after predict_one and predict_many on every row")
    expect_close([a.predict_one(x) for x in s.X], want, s, "predict_one against predict_many")
    rest = s.X[s.split :], s.y[s.split :]
    loop(a, *rest)
    learn_one_by_one(untouched, *rest)
    expect_same_state(a, fingerprint(untouched), "predict-then-learn rounds against learn_one")
    expect_equal(predict_rows(a, s.X), predict_rows(untouched, s.X), "their predictions")


def check_learn_many_equals_learn_one(learner, s: Stream) -> None:
    """``learn_many(X, y)`` is a loop of ``learn_one``: the next predictions agree up to
    rounding (blocks of rounds reorder sums); ``n_seen`` and ``dim`` are the same."""
    a, b = fresh(learner), fresh(learner)
    a.learn_many(s.X, s.y)
    learn_one_by_one(b, s.X, s.y)
    expect_close(predict_rows(a, s.X), predict_rows(b, s.X), s, "predictions after learn_many")
    expect_same_sizes(a, b, "after learn_many against the loop")


def check_progressive_predict_equals_loop(learner, s: Stream) -> None:
    """``progressive_predict(X, y)`` is the loop predict-then-learn: the same predictions
    and the same state after (next predictions, ``n_seen``, ``dim``), up to rounding."""
    a, b = fresh(learner), fresh(learner)
    expect_close(a.progressive_predict(s.X, s.y), loop(b, s.X, s.y), s, "progressive_predict")
    expect_close(predict_rows(a, s.X), predict_rows(b, s.X), s, "the predictions after")
    expect_same_sizes(a, b, "after progressive_predict against the loop")
    if getattr(a, "n_seen", len(s.X)) != len(s.X):
        raise AssertionError(f"n_seen is {a.n_seen} after {len(s.X)} rounds")


def _round_trip_mid_stream(learner, s: Stream, save, what: str) -> None:
    """Stopping two thirds in, going through ``save`` and going on gives, bit for bit,
    the predictions of never stopping, and the same parameters."""
    whole = fresh(learner)
    p_whole = run(whole, s.X, s.y)
    part = fresh(learner)
    head = run(part, s.X[: s.split], s.y[: s.split])
    part = save(part)
    tail = run(part, s.X[s.split :], s.y[s.split :])
    expect_equal(np.concatenate([head, tail]), p_whole, f"predictions across {what}")
    # (the state after may differ in the last bits: predict_many of RFFAWV with gamma < 1
    # sums in another order after a restore; its rounds do not)
    expect_close(predict_rows(part, s.X), predict_rows(whole, s.X), s, f"the state after {what}")
    if has(learner, "get_params"):
        same_params(part.get_params(), whole.get_params(), f"get_params() after {what}")


def needs_pickle(learner, s: Stream):
    try:
        pickle.loads(pickle.dumps(fresh(learner)))
    except Exception as exc:
        return f"it does not pickle ({type(exc).__name__}: {exc})"
    return None


def check_pickle_mid_stream(learner, s: Stream) -> None:
    """``pickle.loads(pickle.dumps(l))`` mid-stream, then going on, predicts exactly as
    never stopping."""
    _round_trip_mid_stream(learner, s, lambda l: pickle.loads(pickle.dumps(l)), "a pickle")


def check_inputs_and_params_unchanged(learner, s: Stream) -> None:
    """The learner changes neither the arrays it is given nor its parameters: after each
    call of the protocol it has on (writable copies of) the stream, the copies hold the
    stream's bits and ``get_params()`` is the template's (learned state is no parameter)."""
    a = fresh(learner)
    X, y = s.X.copy(), s.y.copy()
    k = s.split
    loop(a, X[:k], y[:k])
    for method in ("learn_many", "progressive_predict"):
        if has(a, method):
            getattr(a, method)(X[k:], y[k:])
    predict_rows(a, X)
    expect_equal(X, s.X, "the rows after the calls")
    expect_equal(y, s.y, "the labels after the calls")
    if has(learner, "get_params"):
        same_params(a.get_params(), learner.get_params(), "get_params() after learning")


def check_copy_mid_stream(learner, s: Stream) -> None:
    """``copy.copy`` and ``copy.deepcopy`` mid-stream are independent: the copy goes on
    exactly as the original would, and learning in it leaves the original as it was."""
    for copier in (copy.copy, copy.deepcopy):
        what = f"copy.{copier.__name__}"
        a = fresh(learner)
        learn(a, s.X[: s.split], s.y[: s.split])
        before, want = fingerprint(a), predict_rows(a, s.X)
        b = copier(a)
        rest = s.X[s.split :], s.y[s.split :]
        p_copy = run(b, *rest)
        expect_same_state(a, before, f"the original after learning in its {what}")
        expect_equal(predict_rows(a, s.X), want, f"the original's predictions after its {what}")
        expect_equal(run(a, *rest), p_copy, f"the original against its {what}")


def needs_model_file(learner, s: Stream):
    from ..modelfile.values import is_learner

    if is_learner(learner):
        return None
    return "kernelstream.save writes registry learners and Conformal only"


def _through_a_model_file(learner):
    from ..modelfile import dumps, loads

    back = loads(dumps(learner))
    if type(back) is not type(learner):
        raise AssertionError(f"the model file holds a {type(back).__name__}")
    return back


def check_model_file_mid_stream(learner, s: Stream) -> None:
    """A model file mid-stream (the bytes ``kernelstream.save`` writes, read as
    ``kernelstream.load`` reads them: ``modelfile.dumps``/``loads``, no disk), then going
    on, predicts exactly as never stopping."""
    _round_trip_mid_stream(learner, s, _through_a_model_file, "a model file")


def check_get_params_round_trip(learner, s: Stream) -> None:
    """``type(l)(**l.get_params())`` is a fresh, identical learner: the same parameters,
    and, bit for bit, the run of a copy of the template."""
    a = rebuilt(learner)
    same_params(a.get_params(), learner.get_params(), "get_params() of the rebuilt learner")
    expect_equal(run(a, s.X, s.y), run(fresh(learner), s.X, s.y), "the rebuilt learner's run")


def needs_block_size(learner, s: Stream):
    if not has(learner, "get_params") or "block_size" not in learner.get_params():
        return "no block_size parameter"
    return None


#: the block sizes compared with single rounds (7 leaves a ragged last block)
BLOCK_SIZES = (2, 7, 64)


def check_block_size_independence(learner, s: Stream) -> None:
    """Results do not depend on ``block_size`` beyond rounding (docs/api.md): the run
    and the state after it with each of :data:`BLOCK_SIZES` agree with single rounds
    (``block_size=1``) to ``rtol`` of the stream's scale."""
    single = rebuilt(learner, block_size=1)
    want, after = run(single, s.X, s.y), predict_rows(single, s.X)
    for b in BLOCK_SIZES:
        blocked = rebuilt(learner, block_size=b)
        expect_close(run(blocked, s.X, s.y), want, s, f"the run with block_size={b}")
        expect_close(predict_rows(blocked, s.X), after, s, f"the state with block_size={b}")


def check_same_seed_same_run(learner, s: Stream) -> None:
    """Two learners built alike (from ``get_params()``, else copies of the template) run
    bit for bit alike: one seeded generator per learner, no global randomness."""
    build = rebuilt if has(learner, "get_params") else fresh
    runs = [run(build(learner), s.X, s.y) for _ in range(2)]
    expect_equal(runs[1], runs[0], "a second learner built alike")


needs_learn_many = _needs("learn_many")
needs_progressive = _needs("progressive_predict")
needs_get_params = _needs("get_params")
