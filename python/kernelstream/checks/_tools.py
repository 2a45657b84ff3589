"""What the checks share: the stream they run on, fresh copies of the learner, the
protocol's calls with fallbacks for a learner that has only ``predict_one`` and
``learn_one``, and comparisons that say what differed."""

from __future__ import annotations

import copy
import pickle
from dataclasses import dataclass

import numpy as np

#: Rows of the default stream: past AutoKernel's and Conformal's warm-ups, small enough
#: that the whole battery on a registry learner takes about a second.
N_ROWS = 60


@dataclass(frozen=True)
class Stream:
    """The rows ``X`` and labels ``y`` a check runs on, and how it judges the results."""

    X: np.ndarray
    y: np.ndarray
    task: str  # "regression" or "classification" (labels -1/+1)
    rtol: float  # of the stream's scale, for results equal "up to rounding"
    refusal: type[Exception]  # the exception a refused input must raise

    @property
    def split(self) -> int:
        """Where a check stops the stream mid-way (two thirds in)."""
        return 2 * len(self.X) // 3

    @property
    def scale(self) -> float:
        return max(1.0, float(np.max(np.abs(self.y))))


def _registry_shape(learner) -> tuple:
    """``(width, input box)`` of a registry learner's example rows, else ``(3, (-1, 1))``;
    a learner that has fixed its width keeps it."""
    from ..learners import _registry

    inner = getattr(learner, "_learner", learner)  # Conformal: its learner's
    name = type(inner).__name__
    d, box = 3, (-1.0, 1.0)
    if name in _registry.names() and type(inner) is _registry.face(name):
        d, box = _registry.face(name)._example_d, _registry.input_box(name)
    fixed = getattr(learner, "input_dim", None)
    return (fixed if isinstance(fixed, int) else d), box


def default_stream(learner, n: int = N_ROWS, seed: int = 0) -> tuple:
    """``(X, y)``: ``n`` rows uniform in the learner's input box; labels a smooth
    function of the row plus noise (``-1/+1`` signs of it for a classifier)."""
    d, (lo, hi) = _registry_shape(learner)
    rng = np.random.default_rng(seed)
    X = rng.uniform(lo, hi, size=(n, d))
    f = np.sin(3 * X[:, 0]) * np.cos(X[:, -1])
    if task_of(learner) == "classification":
        return X, np.where(f + 0.3 * rng.standard_normal(n) >= 0, 1.0, -1.0)
    return X, f + 0.1 * rng.standard_normal(n)


def task_of(learner) -> str:
    return "classification" if getattr(learner, "task", None) == "classification" else "regression"


def refusal_of(learner) -> type[Exception]:
    """kernelstream's learners (and subclasses) raise ``InputError``; any other learner a
    ``ValueError`` (which ``InputError`` is)."""
    from ..errors import InputError
    from ..learners import Conformal, Learner

    return InputError if isinstance(learner, (Learner, Conformal)) else ValueError


def fresh(learner):
    """An independent copy of the template (the checks never touch the one given)."""
    return copy.deepcopy(learner)


def rebuilt(learner, **changes):
    """``type(l)(**l.get_params())``, with ``changes`` over the parameters."""
    return type(learner)(**{**learner.get_params(), **changes})


def has(learner, method: str) -> bool:
    return callable(getattr(learner, method, None))


def predict_rows(learner, X) -> np.ndarray:
    """``predict_many(X)``, or ``predict_one`` row by row for a learner without it."""
    if has(learner, "predict_many"):
        return np.asarray(learner.predict_many(X), dtype=float)
    return np.array([learner.predict_one(x) for x in X], dtype=float)


def loop(learner, X, y) -> np.ndarray:
    """The online protocol by definition: predict each row, then learn its label."""
    out = []
    for x, t in zip(X, y):
        out.append(learner.predict_one(x))
        learner.learn_one(x, t)
    return np.array(out, dtype=float)


def run(learner, X, y) -> np.ndarray:
    """``progressive_predict(X, y)``, or :func:`loop` for a learner without it."""
    if has(learner, "progressive_predict"):
        return np.asarray(learner.progressive_predict(X, y), dtype=float)
    return loop(learner, X, y)


def learn_one_by_one(learner, X, y) -> None:
    for x, t in zip(X, y):
        learner.learn_one(x, t)


def learn(learner, X, y) -> None:
    """``learn_many(X, y)``, or :func:`learn_one_by_one` for a learner without it (they
    are equal: :func:`~._protocol.check_learn_many_equals_learn_one`)."""
    if has(learner, "learn_many"):
        learner.learn_many(X, y)
    else:
        learn_one_by_one(learner, X, y)


def fingerprint(learner) -> tuple:
    """What the state is: ``n_seen``, ``input_dim`` and the pickled bytes (``None``
    where the learner has no such thing; see :func:`pickled`)."""
    return getattr(learner, "n_seen", None), getattr(learner, "input_dim", None), pickled(learner)


def pickled(learner):
    """``pickle.dumps(learner)``; for a class pickle cannot find (one defined in a
    function or a doctest) its instance dictionary's; ``None`` if neither pickles."""
    for obj in (learner, getattr(learner, "__dict__", None)):
        try:
            return pickle.dumps(obj)
        except Exception:
            continue
    return None


def expect_same_state(learner, before: tuple, what: str) -> None:
    now = fingerprint(learner)
    for label, a, b in zip(("n_seen", "input_dim"), now, before):
        if a != b:
            raise AssertionError(f"{what}: {label} went from {b!r} to {a!r}")
    if now[2] != before[2]:
        raise AssertionError(f"{what}: the pickled state changed")


def expect_same_sizes(a, b, what: str) -> None:
    """The same ``n_seen`` and ``dim`` (the representation's size), where they exist."""
    for attr in ("n_seen", "dim"):
        u, v = getattr(a, attr, None), getattr(b, attr, None)
        if u != v:
            raise AssertionError(f"{what}: {attr} {u!r} instead of {v!r}")


def _diff(got: np.ndarray, want: np.ndarray, bad: np.ndarray, what: str) -> str:
    i = np.unravel_index(int(np.argmax(bad)), bad.shape)
    return (
        f"{what}: {int(bad.sum())} of {bad.size} values differ, the first at {tuple(map(int, i))}:"
        f" {float(got[i])!r} instead of {float(want[i])!r}"
    )


def _arrays(got, want, what: str) -> tuple:
    got, want = np.asarray(got, dtype=float), np.asarray(want, dtype=float)
    if got.shape != want.shape:
        raise AssertionError(f"{what}: shape {got.shape} instead of {want.shape}")
    return got, want


def expect_equal(got, want, what: str) -> None:
    """Bit for bit (NaN equals NaN)."""
    got, want = _arrays(got, want, what)
    bad = ~((got == want) | (np.isnan(got) & np.isnan(want)))
    if bad.any():
        raise AssertionError(_diff(got, want, bad, what))


def expect_close(got, want, s: Stream, what: str) -> None:
    """Equal up to rounding: within ``s.rtol`` of the scale ``max(1, |y|, |want|)``
    (NaN equals NaN: a std before any noise estimate)."""
    got, want = _arrays(got, want, what)
    tol = s.rtol * max(s.scale, float(np.max(np.abs(want[np.isfinite(want)]), initial=0.0)))
    bad = ~((np.abs(got - want) <= tol) | (np.isnan(got) & np.isnan(want)))
    if bad.any():
        raise AssertionError(_diff(got, want, bad, f"{what} (tolerance {tol:.3g})"))


def same_params(a, b, where: str = "get_params()") -> None:
    """Equal parameters: arrays element-wise, lists and tuples (of any subclass) item
    by item, an object with ``get_params`` by class and parameters, anything else by its
    own ``==``."""
    if isinstance(a, dict) and isinstance(b, dict):
        if a.keys() != b.keys():
            raise AssertionError(f"{where}: keys {sorted(a)} instead of {sorted(b)}")
        for k in a:
            same_params(a[k], b[k], f"{where}[{k!r}]")
    elif isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        if not np.array_equal(np.asarray(a), np.asarray(b)):
            raise AssertionError(f"{where}: arrays differ")
    elif isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        if isinstance(a, tuple) != isinstance(b, tuple) or len(a) != len(b):
            raise AssertionError(f"{where}: {a!r} instead of {b!r}")
        for i, (u, v) in enumerate(zip(a, b)):
            same_params(u, v, f"{where}[{i}]")
    elif has(a, "get_params") and not isinstance(a, type):
        if type(a) is not type(b):
            raise AssertionError(f"{where}: {type(a).__name__} instead of {type(b).__name__}")
        same_params(a.get_params(), b.get_params(), f"{where}.get_params()")
    elif not a == b:
        raise AssertionError(f"{where}: {a!r} instead of {b!r}")
