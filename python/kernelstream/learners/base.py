"""The learner protocol of the API contract, shared by every learner.

A learner is a thin Python object around a Rust core object (``self._core``):
this class converts inputs (:mod:`kernelstream._validation`), delegates the work,
and implements ``get_params`` and pickling once for everybody. Subclasses set
``_core_class`` and implement ``_core_kwargs(params)``; see
:class:`kernelstream.TaylorAWV` for a complete example.
"""
from __future__ import annotations

import copy
import warnings

import numpy as np

from .. import _core
from .._validation import as_label, as_matrix, as_row, as_targets

#: Version of the pickled Python-side envelope; the Rust state carries its own.
PICKLE_FORMAT_VERSION = 1


def _restore(cls, params, state):
    obj = cls(**params)
    obj.__setstate__(state)
    return obj


class Learner:
    """Base class of all online learners (regression on ``y``, or ``-1/+1`` labels)."""

    _core_class = None
    #: ``"regression"`` or ``"classification"`` (for losses that need +-1 labels).
    task = "regression"

    def __init__(self, **params):
        self._params = dict(params)
        self._core = self._core_class(**self._core_kwargs(self._params))

    # -- construction -------------------------------------------------------
    def _core_kwargs(self, params: dict) -> dict:  # pragma: no cover - overridden
        return dict(params)

    def get_params(self, deep: bool = True) -> dict:
        """The constructor arguments: ``type(l)(**l.get_params())`` is a fresh, identical learner.

        (``deep`` is accepted for scikit-learn's ``clone`` and ignored.)
        """
        return dict(self._params)

    def clone(self):
        """A fresh learner with the same parameters (no data seen)."""
        return type(self)(**self.get_params())

    # -- the protocol -------------------------------------------------------
    def predict_one(self, x) -> float:
        """Prediction for ``x`` as the next round (pure: the state does not change)."""
        return float(self._core.predict_one(as_row(x)))

    def learn_one(self, x, y) -> None:
        """Reveal the label ``y`` of ``x`` and update."""
        self._core.learn_one(as_row(x), as_label(y))

    def progressive_predict(self, X, y) -> np.ndarray:
        """Run the online protocol over the rows of ``X`` in order (in Rust, GIL released).

        The t-th output is the prediction made before ``y[t]`` was seen; the learner then
        learns ``(X[t], y[t])``, so the state moves on.
        """
        X = as_matrix(X)
        return self._core.progressive_predict(X, as_targets(y, X.shape[0]))

    def predict_many(self, X) -> np.ndarray:
        """``predict_one`` for each row of ``X``; the state does not change."""
        return self._core.predict_many(as_matrix(X))

    def learn_many(self, X, y) -> None:
        """Learn the rows of ``X`` in order (equals a loop of ``learn_one``)."""
        X = as_matrix(X)
        self._core.learn_many(X, as_targets(y, X.shape[0]))

    @property
    def n_seen(self) -> int:
        """Rounds learned so far."""
        return int(self._core.n_seen)

    @property
    def dim(self) -> int:
        """Current dimension of the learner's representation."""
        return int(self._core.dim)

    @property
    def input_dim(self):
        """Input dimension ``d`` fixed by the first call (``None`` before)."""
        return self._core.input_dim

    # -- copying and pickling ------------------------------------------------
    def __copy__(self):
        new = type(self).__new__(type(self))
        new.__dict__.update(self.__dict__)
        new._params = dict(self._params)
        new._core = copy.copy(self._core)
        return new

    def __deepcopy__(self, memo):
        return self.__copy__()

    def copy(self):
        """An independent copy with the same state (used by the adversary and by grids)."""
        return self.__copy__()

    def __getstate__(self):
        from .. import __version__

        return {
            "format_version": PICKLE_FORMAT_VERSION,
            "kernelstream_version": __version__,
            "params": self.get_params(),
            "core": bytes(self._core._state_bytes()),
            "extra": self._extra_state(),
        }

    def __setstate__(self, state):
        from .. import __version__
        from ..errors import InputError

        if not isinstance(state, dict) or state.get("format_version") != PICKLE_FORMAT_VERSION:
            raise InputError(
                f"unsupported pickled learner format {state.get('format_version') if isinstance(state, dict) else state!r};"
                f" this kernelstream reads format {PICKLE_FORMAT_VERSION}"
            )
        if state.get("kernelstream_version") != __version__:
            warnings.warn(
                f"unpickling a learner saved by kernelstream {state.get('kernelstream_version')} "
                f"with kernelstream {__version__}",
                stacklevel=2,
            )
        self._params = dict(state["params"])
        self._core = self._core_class(**self._core_kwargs(self._params))
        self._core._set_state_bytes(state["core"])
        self._set_extra_state(state.get("extra"))

    def __reduce__(self):
        return (_restore, (type(self), self.get_params(), self.__getstate__()))

    def _extra_state(self):
        """Python-side state beyond the core (none by default)."""
        return None

    def _set_extra_state(self, extra) -> None:
        pass

    def __repr__(self):
        args = ", ".join(f"{k}={v!r}" for k, v in self._params.items())
        return f"{type(self).__name__}({args})"


__all__ = ["Learner", "PICKLE_FORMAT_VERSION"]
