"""The learner protocol's check battery (docs/api.md), for kernelstream's learners and
for your own: ``check_learner(learner)`` runs every check that applies and raises
:class:`CheckFailure` naming the first that fails and what differed;
``yield_checks(learner)`` gives the checks one by one (for ``pytest.mark.parametrize``).

A learner here is an object with ``predict_one(x)`` and ``learn_one(x, y)`` that
copies (``copy.deepcopy``). What it has beyond that decides which checks run; a check
that needs more is skipped, with the reason (on kernelstream's learners only what they
cannot have is skipped: the label check on regressors, the block-size check without
``block_size``, one of the two std checks, the multi-output check outside the AWV
family):

| check | runs on a learner with |
|---|---|
| `check_predict_is_pure` | the two methods (and `predict_many` if it has one) |
| `check_learn_many_equals_learn_one` | `learn_many` |
| `check_progressive_predict_equals_loop` | `progressive_predict` |
| `check_inputs_and_params_unchanged` | the two methods (`get_params` for the parameters) |
| `check_copy_mid_stream` | the two methods |
| `check_pickle_mid_stream` | pickling (a class defined in a doctest does not pickle) |
| `check_model_file_mid_stream` | a registry learner or `Conformal` (`kernelstream.save`) |
| `check_pickle_refuses_unknown_format` | a pickled state with a `format_version` |
| `check_refusals_leave_learner_unchanged` | the two methods (and the batch calls it has) |
| `check_classifier_refuses_other_labels` | `task == "classification"` |
| `check_get_params_round_trip` | `get_params` |
| `check_block_size_independence` | a `block_size` parameter |
| `check_same_seed_same_run` | the two methods (`get_params` to build two alike) |
| `check_predictive_std` | `has_predictive_std` (docs/uncertainty.md) |
| `check_no_std_is_refused` | `predict_std` without `has_predictive_std` |
| `check_multi_output` | `n_outputs`, in a configuration that takes several |

Bad input must raise ``InputError`` from kernelstream's own classes and a ``ValueError``
(which ``InputError`` is) from any other, and change nothing (the same pickled bytes,
``n_seen`` and ``input_dim``). The rounds after a copy, a pickle or a model file, those
of a learner rebuilt from ``get_params()`` and a repeated run must agree bit for bit.
Batch calls, ``predict_many`` and other block sizes must agree with single rounds up to
rounding: within ``rtol`` (default ``1e-10``, the bound docs/api.md guarantees for
``block_size``) of the stream's scale ``max(1, |y|, |prediction|)``. The
default stream (60 rows in the learner's input box, labels of order 1) keeps the
learners' regularised systems well conditioned; a stream of your own with nearly
repeated rows or labels far from 1 may need a larger ``rtol``.

Examples
--------
A running mean written from scratch passes the battery (its data checks are those any
learner needs: it refuses what it cannot learn, before changing anything):

>>> import math, numbers
>>> import numpy as np
>>> from kernelstream.checks import check_learner
>>> class RunningMean:
...     def __init__(self, prior=0.0):
...         self.prior, self.n_seen, self.total, self.input_dim = prior, 0, 0.0, None
...     def get_params(self):
...         return {"prior": self.prior}
...     def _row(self, x):
...         x = np.asarray(x, dtype=float)
...         if x.ndim != 1 or x.size == 0 or not np.isfinite(x).all():
...             raise ValueError(f"a row is a non-empty 1-d array of finite numbers: {x!r}")
...         if self.input_dim not in (None, x.size):
...             raise ValueError(f"{x.size} features, expected {self.input_dim}")
...         return x
...     def predict_one(self, x):
...         self._row(x)
...         return (self.prior + self.total) / (1 + self.n_seen)
...     def learn_one(self, x, y):
...         x = self._row(x)
...         if not isinstance(y, numbers.Real) or not math.isfinite(y):
...             raise ValueError(f"a label is a finite number: {y!r}")
...         self.input_dim, self.n_seen, self.total = x.size, self.n_seen + 1, self.total + y
>>> outcome = check_learner(RunningMean(prior=0.5))
>>> [n for n, r in outcome.items() if r == "passed"]  # doctest: +NORMALIZE_WHITESPACE
['check_predict_is_pure', 'check_inputs_and_params_unchanged', 'check_copy_mid_stream',
 'check_refusals_leave_learner_unchanged', 'check_get_params_round_trip',
 'check_same_seed_same_run']
>>> outcome["check_block_size_independence"]
'skipped: no block_size parameter'

(it has no batch calls; a class defined in a doctest does not pickle.)

A learner whose ``predict_one`` changes its state is caught:

>>> class Forgetful(RunningMean):
...     def predict_one(self, x):
...         self.total *= 0.5
...         return super().predict_one(x)
>>> check_learner(Forgetful())  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
kernelstream.checks.CheckFailure: check_predict_is_pure failed for Forgetful: ... changed
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterator, Optional

import numpy as np

from . import _extras as e
from . import _protocol as p
from . import _refusals as r
from ._tools import Stream, default_stream, refusal_of, task_of


class CheckFailure(AssertionError):
    """A check of the battery failed: ``check`` is its name, ``learner`` the learner's
    class name, ``detail`` what differed."""

    def __init__(self, check: str, learner: str, detail: str):
        super().__init__(f"{check} failed for {learner}: {detail}")
        self.check, self.learner, self.detail = check, learner, detail


CheckFailure.__module__ = __name__


def _always(learner, s: Stream) -> Optional[str]:
    return None


#: ``(check, when it applies)``, in the order they run.
BATTERY: tuple = (
    (p.check_predict_is_pure, _always),
    (p.check_learn_many_equals_learn_one, p.needs_learn_many),
    (p.check_progressive_predict_equals_loop, p.needs_progressive),
    (p.check_inputs_and_params_unchanged, _always),
    (p.check_copy_mid_stream, _always),
    (p.check_pickle_mid_stream, p.needs_pickle),
    (p.check_model_file_mid_stream, p.needs_model_file),
    (r.check_pickle_refuses_unknown_format, r.needs_versioned_state),
    (r.check_refusals_leave_learner_unchanged, _always),
    (r.check_classifier_refuses_other_labels, r.needs_classifier),
    (p.check_get_params_round_trip, p.needs_get_params),
    (p.check_block_size_independence, p.needs_block_size),
    (p.check_same_seed_same_run, _always),
    (e.check_predictive_std, e.needs_predictive_std),
    (e.check_no_std_is_refused, e.needs_std_refusal),
    (e.check_multi_output, e.needs_outputs),
)

#: the names of the checks, in order
CHECKS: tuple = tuple(f.__name__ for f, _ in BATTERY)


@dataclass(frozen=True)
class Check:
    """One check bound to a learner and a stream: calling it runs it (a
    :class:`CheckFailure` if it fails); ``name`` is the check's."""

    name: str
    learner: object
    stream: Stream
    func: Callable

    def __call__(self) -> None:
        try:
            self.func(self.learner, self.stream)
        except Exception as exc:
            detail = str(exc) if isinstance(exc, AssertionError) else f"{type(exc).__name__}: {exc}"
            raise CheckFailure(self.name, type(self.learner).__name__, detail) from exc

    def __repr__(self) -> str:
        return f"{self.name}[{type(self.learner).__name__}]"


def _stream(learner, X, y, rtol: float) -> Stream:
    if getattr(learner, "n_seen", 0):
        raise ValueError(
            f"the learner has learned {learner.n_seen} rounds: give one that has not (the "
            "checks compare it with learners built from its parameters)"
        )
    if (X is None) != (y is None):
        raise ValueError("give both X and y, or neither (the default stream)")
    if X is None:
        X, y = default_stream(learner)
    X, y = np.asarray(X, dtype=float), np.asarray(y, dtype=float)
    if X.ndim != 2 or y.shape != (X.shape[0],) or X.shape[0] < 3 or X.shape[1] < 1:
        raise ValueError(f"X must be (n >= 3, d >= 1) and y (n,): got {X.shape} and {y.shape}")
    if not (np.isfinite(X).all() and np.isfinite(y).all()):
        raise ValueError("X and y must be finite")
    if not rtol >= 0:
        raise ValueError(f"rtol must be >= 0, got {rtol!r}")
    return Stream(X, y, task_of(learner), float(rtol), refusal_of(learner))


def _battery(learner, X, y, rtol: float) -> Iterator[tuple]:
    s = _stream(learner, X, y, rtol)
    for func, applies in BATTERY:
        yield Check(func.__name__, learner, s, func), applies(learner, s)


def yield_checks(learner, X=None, y=None, *, rtol: float = 1e-10) -> Iterator[Check]:
    """The checks that apply to ``learner``, each a :class:`Check` to call, on the rows
    ``X`` and labels ``y`` (default: 60 rows in the learner's input box). ``learner`` is
    the template, one that has learned nothing: the checks work on copies of it and
    never change it.

    In a test suite, one test per check:

        @pytest.mark.parametrize("check", yield_checks(MyLearner()), ids=repr)
        def test_protocol(check):
            check()

    Examples
    --------
    >>> from kernelstream import TaylorAWV
    >>> from kernelstream.checks import yield_checks
    >>> first = next(yield_checks(TaylorAWV(degree=2)))
    >>> first
    check_predict_is_pure[TaylorAWV]
    >>> first()  # passes: nothing to say
    """
    for check, skipped in _battery(learner, X, y, rtol):
        if skipped is None:
            yield check


def check_learner(learner, X=None, y=None, *, rtol: float = 1e-10) -> dict:
    """Runs the whole battery on ``learner`` (see :func:`yield_checks` for the
    arguments); raises :class:`CheckFailure` at the first check that fails. Returns
    ``{check: "passed" or "skipped: <reason>"}`` in the battery's order."""
    outcome = {}
    for check, skipped in _battery(learner, X, y, rtol):
        if skipped is None:
            check()
        outcome[check.name] = "passed" if skipped is None else f"skipped: {skipped}"
    return outcome


__all__ = ["CHECKS", "Check", "CheckFailure", "check_learner", "yield_checks"]
