"""Conformal: prediction intervals around any regressor, made online before each label.

Adaptive conformal inference (Gibbs and Candes, *Adaptive conformal inference under
distribution shift*, NeurIPS 2021, sec. 2, eq. (2)): round ``t`` predicts the interval

    C_t = [p_t - q_t s_t, p_t + q_t s_t],  q_t = Quantile_{1 - alpha_t}(S_{t-w..t-1}),

where ``p_t`` is the wrapped learner's prediction, ``s_t`` its predictive standard
deviation divided by its noise level when it has them and ``normalize`` is set (the
studentized score: ``s_t = sqrt(1 + phi^T A^-1 phi)`` for one AWV learner; else 1, and 1
while the learner has no noise estimate yet), ``S`` the normalised scores
``|y_u - p_u| / s_u`` of the last ``window`` rounds, and the quantile the ``ceil((1 - alpha_t)(n + 1))``-th
smallest of the ``n`` scores (split conformal's finite-sample rank; ``+inf`` when that
rank exceeds ``n``). After ``y_t`` is seen, ``err_t = 1{y_t not in C_t}`` and

    alpha_{t+1} = alpha_t + gamma (alpha - err_t)          (Gibbs and Candes, eq. (2)).

Whatever the data, the long-run miscoverage then satisfies
``|mean_t err_t - alpha| <= (max(alpha_1, 1 - alpha_1) + gamma) / (gamma T)``
(their Proposition 4.1): the guarantee is about the frequency of misses over the
stream, not about any single round (``docs/uncertainty.md``).

A learner with ``K`` outputs (targets of shape ``(n, K)``) gets ``K`` such procedures, one
per output: output ``k``'s interval is ``p_{t,k} +- q_{t,k} s_{t,k}`` from its own scores
``|y_{u,k} - p_{u,k}| / s_{u,k}`` and its own level ``alpha_{t,k}``, so that the guarantee
holds for each output's misses (docs/uncertainty.md, "Several outputs").
"""

from __future__ import annotations

import bisect
import copy
import math
from collections import deque

import numpy as np

from .._threads import serialised
from .._validation import as_matrix, as_row, as_weight, as_weights, flag, real, whole
from ..errors import InputError, ParameterError
from ._multi import as_target, as_target_rows
from .base import Learner

_STATE_VERSION = 2


def _as_outputs(a: np.ndarray, k) -> np.ndarray:
    """``(n,)`` values of a learner whose ``K`` is not fixed yet as ``(n, k)``."""
    return np.repeat(a[:, None], k, axis=1) if k is not None and a.ndim == 1 else a


def _rank_quantile(sorted_scores: list, level: float) -> float:
    """The ``ceil(level (n + 1))``-th smallest score (``+inf`` past the last, 0 below 1)."""
    n = len(sorted_scores)
    # Compared before rounding: alpha_t is not bounded (a stream of exact predictions
    # keeps raising it), and the rank of a huge level is no integer.
    rank = level * (n + 1) - 1e-12
    if rank > n:
        return math.inf
    if rank <= 0:
        return 0.0
    k = math.ceil(rank)
    return sorted_scores[k - 1]


class Conformal:
    """Online conformal prediction intervals around any kernelstream regressor.

    Parameters
    ----------
    learner : Learner
        The regressor whose predictions are the intervals' centres. It is copied with
        its current state; the object passed in is not changed.
    alpha : float, default 0.1
        Target miscoverage: ``1 - alpha`` intervals (0.1 gives 90% intervals).
    gamma : float, default 0.015
        Step of the adaptive level ``alpha_t`` (Gibbs and Candes's ``gamma``): larger
        adapts faster to a change (and to a learner that improves), smaller gives
        steadier widths; the default was chosen on the streams of ``docs/uncertainty.md``.
    window : int, default 500
        Past scores kept for the quantile (memory and cost per round independent of
        the stream's length).
    normalize : bool, default True
        Divide the scores by the learner's predictive standard deviation relative to
        its noise level when it has one (``has_predictive_std``): intervals then widen
        where the learner is uncertain (far from its data, right after a covariate
        shift); ``docs/uncertainty.md`` measures both.

    Attributes
    ----------
    alpha_t : float
        The adaptive level for the next round.
    coverage : float
        Fraction of learned rounds whose interval covered the label.

    Examples
    --------
    >>> import numpy as np
    >>> import kernelstream as ks
    >>> rng = np.random.default_rng(0)
    >>> X = rng.uniform(-1, 1, size=(3000, 2)); y = np.sin(3 * X[:, 0]) + 0.3 * rng.normal(size=3000)
    >>> model = ks.Conformal(ks.TaylorAWV(degree=4), alpha=0.1)
    >>> pred, lo, hi = model.progressive_interval(X, y)
    >>> bool(abs(np.mean((lo[200:] <= y[200:]) & (y[200:] <= hi[200:])) - 0.9) < 0.02)
    True
    >>> lower, upper = model.predict_interval(X[:2])
    >>> lower.shape, bool(np.all(lower < upper))
    ((2,), True)

    With ``K`` outputs, an interval per output (arrays of shape ``(n, K)``):

    >>> Y = np.column_stack([y, np.cos(2 * X[:, 1]) + 0.1 * rng.normal(size=3000)])
    >>> multi = ks.Conformal(ks.TaylorAWV(degree=4))
    >>> pred, lo, hi = multi.progressive_interval(X, Y)
    >>> lo.shape, bool(np.all(np.abs(multi.coverage - 0.9) < 0.02))
    ((3000, 2), True)
    """

    task = "regression"

    def __init__(
        self,
        learner,
        alpha: float = 0.1,
        gamma: float = 0.015,
        window: int = 500,
        normalize: bool = True,
    ):
        self._params, self._learner, self._state = self._build(
            dict(learner=learner, alpha=alpha, gamma=gamma, window=window, normalize=normalize)
        )
        self._more: list = []  # the states of outputs 2..K (empty with one output)

    # -- construction ----------------------------------------------------------
    @staticmethod
    def _build(params: dict):
        learner = params["learner"]
        if not isinstance(learner, Learner):
            raise ParameterError(
                f"learner must be a kernelstream learner, got {type(learner).__name__}"
            )
        if getattr(learner, "task", "regression") != "regression":
            raise ParameterError("Conformal wraps a regressor (its learner has task 'regression')")
        alpha = real("alpha", params["alpha"])
        if not 0.0 < alpha < 1.0:
            raise ParameterError(f"alpha must be in (0, 1), got {alpha!r}")
        gamma = real("gamma", params["gamma"])
        if not 0.0 < gamma < 1.0:
            raise ParameterError(f"gamma must be in (0, 1), got {gamma!r}")
        window = whole("window", params["window"])
        if not 1 <= window <= 10**7:
            raise ParameterError(f"window must be in [1, 10^7], got {window}")
        flag("normalize", params["normalize"])
        return dict(params), copy.copy(learner), Conformal._fresh(alpha, window)

    @staticmethod
    def _fresh(alpha: float, window: int) -> dict:
        """The state of one output before any round."""
        return dict(alpha_t=alpha, scores=deque(maxlen=window), sorted=[], n=0, covered=0)

    def _states(self, k: int = 1) -> list:
        """The states of the outputs, at least ``k`` of them (fresh ones appended, not kept)."""
        states = [self._state, *self._more]
        while len(states) < k:
            states.append(self._fresh(self._params["alpha"], self._params["window"]))
        return states

    _PARAMS = ("learner", "alpha", "gamma", "window", "normalize")

    def __setattr__(self, name, value):
        if name in self._PARAMS:
            raise AttributeError(
                f"{name} is a read-only hyperparameter of Conformal: use set_params before "
                "learning, or build a new one"
            )
        super().__setattr__(name, value)

    @property
    def learner(self):
        """The learner passed in (the prototype: a parameter, never trained here)."""
        return self._params["learner"]

    @property
    def learner_(self):
        """The wrapped learner, trained on the rounds seen (its current state)."""
        return self._learner

    @property
    def alpha(self) -> float:
        return self._params["alpha"]

    @property
    def gamma(self) -> float:
        return self._params["gamma"]

    @property
    def window(self) -> int:
        return self._params["window"]

    @property
    def normalize(self) -> bool:
        return bool(self._params["normalize"])

    # -- the interval of the next round ---------------------------------------
    def _uses_std(self, multi: bool = False) -> bool:
        """Whether the scores are studentized; ``multi``: for targets of ``K`` columns
        (a learner with a std per output: the AWV family, not its mixtures yet)."""
        if multi or self._n_outputs() > 1:
            if getattr(self._learner._core, "_noise_stds_multi", None) is None:
                return False
        return bool(self._params["normalize"]) and bool(
            getattr(self._learner, "has_predictive_std", False)
        )

    def _n_outputs(self) -> int:
        return getattr(self._learner, "n_outputs", None) or 1

    def _relative(self, s) -> np.ndarray:
        """The scale of each score: the learner's std over its noise level (the same
        for every input), 1 where that is not a positive number (no estimate yet)."""
        with np.errstate(divide="ignore", invalid="ignore"):  # NaN/0 noise: replaced below
            rel = np.asarray(s, dtype=np.float64) / self._learner.noise_std
        return np.where(np.isfinite(rel) & (rel > 0), rel, 1.0)

    def _centres_and_scales(self, X: np.ndarray, k=None):
        """Centres and score scales of the rows of ``X``: ``(n,)``, or ``(n, K)`` for a
        learner of ``K > 1`` outputs or for ``k`` outputs (``K`` not yet fixed)."""
        if self._uses_std(k is not None):
            p, s = self._learner.predict_many_std(X)
            return _as_outputs(p, k), _as_outputs(self._relative(s), k)
        p = _as_outputs(self._learner.predict_many(X), k)
        return p, np.ones(p.shape)

    def _radius(self, k=None):
        """``q_t``: a number, or one per output for ``k`` outputs."""
        if k is None:
            return _rank_quantile(self._state["sorted"], 1.0 - self._state["alpha_t"])
        return np.array(
            [_rank_quantile(st["sorted"], 1.0 - st["alpha_t"]) for st in self._states(k)]
        )

    def predict_one(self, x) -> float:
        """The wrapped learner's prediction for ``x`` (the interval's centre)."""
        return self._learner.predict_one(x)

    def predict_many(self, X) -> np.ndarray:
        return self._learner.predict_many(X)

    @serialised
    def predict_interval(self, X):
        """``(lower, upper)`` for each row of ``X`` as the next round (state unchanged):
        ``(n,)`` each, or ``(n, K)`` for a learner of ``K > 1`` outputs."""
        X = as_matrix(X)
        p, s = self._centres_and_scales(X)
        half = self._radius(p.shape[1] if p.ndim == 2 else None) * s
        return p - half, p + half

    def predict_interval_one(self, x) -> tuple:
        """``(lower, centre, upper)`` for one input as the next round (``K`` values
        each for a learner of ``K > 1`` outputs)."""
        lo, hi = self.predict_interval(as_row(x)[None, :])
        if lo.ndim == 2:
            return lo[0], np.asarray(self.predict_one(x), dtype=np.float64), hi[0]
        return float(lo[0]), float(self.predict_one(x)), float(hi[0])

    # -- learning ----------------------------------------------------------------
    def _closed(self, state: dict, p, s, y, lo, hi, learned=None) -> dict:
        """``state`` after the rounds whose centres, stds and labels are ``p, s, y``
        (their intervals written into ``lo``/``hi``); ``state`` itself is not changed.
        ``learned`` (a mask, ``None``: every round): the rounds of positive weight; the
        others get their interval and change nothing (docs/choices.md, "Sample weights")."""
        alpha, gamma = self._params["alpha"], self._params["gamma"]
        alpha_t, n, covered = state["alpha_t"], state["n"], state["covered"]
        window = deque(state["scores"], maxlen=state["scores"].maxlen)
        ranked = list(state["sorted"])
        for t in range(len(p)):
            q = _rank_quantile(ranked, 1.0 - alpha_t)
            lo[t], hi[t] = p[t] - q * s[t], p[t] + q * s[t]
            if learned is not None and not learned[t]:
                continue
            miss = 0.0 if abs(y[t] - p[t]) <= q * s[t] else 1.0
            alpha_t += gamma * (alpha - miss)  # Gibbs and Candes, eq. (2)
            n += 1
            covered += int(miss == 0.0)
            if len(window) == window.maxlen:
                del ranked[bisect.bisect_left(ranked, window[0])]
            score = abs(y[t] - p[t]) / s[t]
            window.append(score)
            bisect.insort(ranked, score)
        return dict(alpha_t=alpha_t, scores=window, sorted=ranked, n=n, covered=covered)

    def _close(self, p, s, y, lo, hi, learned=None) -> None:
        """Closes rounds the learner has already learned. A Ctrl-C here is held until
        the (pure, short) update is done, so that the learner and the intervals never
        disagree on the rounds seen; it is raised after."""
        pending = None
        while True:
            try:
                if p.ndim == 1:
                    self._state = self._closed(self._state, p, s, y, lo, hi, learned)
                else:  # an independent procedure per output (the columns)
                    cols = [
                        self._closed(st, p[:, k], s[:, k], y[:, k], lo[:, k], hi[:, k], learned)
                        for k, st in enumerate(self._states(p.shape[1]))
                    ]
                    self._state, self._more = cols[0], cols[1:]
                break
            except KeyboardInterrupt as exc:
                pending = exc
        if pending is not None:
            raise pending

    @serialised
    def learn_one(self, x, y, w: float = 1.0) -> None:
        """Reveal ``y``: the interval made for ``x`` is scored, then the learner learns.

        ``y``: a number, or the ``K`` targets of a multi-output learner. ``w``: the sample
        weight, passed to the learner; the score set counts a row of positive weight once,
        a row of weight 0 is neither learned nor scored (docs/choices.md, "Sample weights").
        """
        x = as_row(x)
        multi, y = as_target(y)
        w = as_weight(w)
        if w == 0.0:
            return
        p, s = self._centres_and_scales(x[None, :], y.shape[0] if multi else None)
        if not np.all(np.isfinite(p)):
            raise InputError("the learner's prediction is not finite")
        Y = y[None, :] if multi else np.array([y])
        n0 = self._learner.n_seen
        try:
            self._learner.learn_one(x, y, w)  # checks x and y before any change
        finally:
            # learned, even if a Ctrl-C that came during the call is raised as it returns
            if self._learner.n_seen != n0:
                self._close(p, s, Y, np.empty(p.shape), np.empty(p.shape))

    def learn_many(self, X, y, sample_weight=None) -> None:
        self.progressive_interval(X, y, sample_weight=sample_weight)

    @serialised
    def progressive_interval(self, X, y, sample_weight=None):
        """``(prediction, lower, upper)`` for each row, each made before its label.

        The learner runs the stream through its own ``progressive_predict`` (in Rust);
        the intervals follow the same rounds. Ctrl-C stops at a round boundary with a
        ``KeyboardInterrupt`` carrying ``rounds_completed`` and ``predictions``.
        ``sample_weight``: as :meth:`learn_one`'s ``w``, one a row. ``y`` of shape
        ``(n, K)`` (a multi-output learner): ``(n, K)`` arrays, an interval per output.
        """
        X = as_matrix(X)
        multi, y = as_target_rows(y, X.shape[0])
        sw = as_weights(sample_weight, X.shape[0])
        if sw is not None and not np.all(sw == 1.0):
            return self._weighted_interval(X, y, sw)
        p, lo, hi = np.empty(y.shape), np.empty(y.shape), np.empty(y.shape)
        scale = np.ones(y.shape)
        n = X.shape[0]
        use_std = self._uses_std(multi)
        chunk = max(4096, self._params["window"])
        done = 0  # rounds learned by the learner and scored here
        try:
            for start in range(0, n, chunk):
                stop = min(start + chunk, n)
                self._chunk(X, y, start, stop, use_std, p, scale, lo, hi)
                done = stop
        except KeyboardInterrupt as exc:
            done += getattr(exc, "_chunk_rounds", 0)
            exc.rounds_completed = done
            exc.predictions = p[:done].copy()
            raise
        return p, lo, hi

    def _chunk(self, X, y, start, stop, use_std, p, scale, lo, hi) -> None:
        """Rows ``start:stop`` through the learner's own loop, then their intervals. On
        Ctrl-C the learner and the intervals agree on the rounds seen: the rounds the
        learner completed are scored (``_chunk_rounds`` on the exception), or, if the
        signal landed after its loop so that their predictions were lost (or the scores
        need stds the interrupt does not carry), the learner is put back as it was
        before the chunk."""
        before = self._learner.copy()
        try:
            if use_std:
                # The std of round t comes from the state before round t (in Rust).
                got = self._learner.progressive_predict_std(
                    X[start:stop], y[start:stop], return_noise=True
                )
                p[start:stop] = got[0]
                rel = got[1] / got[2]
                scale[start:stop] = np.where(np.isfinite(rel) & (rel > 0), rel, 1.0)
            else:
                p[start:stop] = self._learner.progressive_predict(X[start:stop], y[start:stop])
        except KeyboardInterrupt as exc:
            k = int(getattr(exc, "rounds_completed", 0))
            got = getattr(exc, "predictions", None)
            # The interrupt carries no stds: with normalised scores the chunk's rounds
            # are undone rather than scored on another scale.
            if use_std or got is None or self._learner.n_seen != before.n_seen + k:
                self._learner, k = before, 0
            if k:
                p[start : start + k] = got[:k]
                sl = slice(start, start + k)
                self._close(p[sl], scale[sl], y[sl], lo[sl], hi[sl])
            exc._chunk_rounds = k  # type: ignore[attr-defined]
            raise
        sl = slice(start, stop)
        try:
            self._close(p[sl], scale[sl], y[sl], lo[sl], hi[sl])
        except KeyboardInterrupt as exc:
            exc._chunk_rounds = stop - start  # type: ignore[attr-defined]
            raise

    def _weighted_interval(self, X, y, sw):
        """:meth:`progressive_interval` with weights, row by row: each row's interval
        before its label, then the learner learns it with its weight and the score set
        takes it if its weight is positive."""
        n, k = X.shape[0], (y.shape[1] if y.ndim == 2 else None)
        p, lo, hi = np.empty(y.shape), np.empty(y.shape), np.empty(y.shape)
        done = 0
        try:
            for t in range(n):
                pt, st = self._centres_and_scales(X[t : t + 1], k)
                if not np.all(np.isfinite(pt)):
                    raise InputError(f"row {t}: the learner's prediction is not finite")
                self._learner.learn_one(X[t], y[t] if k else float(y[t]), float(sw[t]))
                p[t] = pt[0]
                sl = slice(t, t + 1)
                self._close(pt, st, y[sl], lo[sl], hi[sl], sw[sl] > 0.0)
                done = t + 1
        except KeyboardInterrupt as exc:
            exc.rounds_completed = done
            exc.predictions = p[:done].copy()
            raise
        return p, lo, hi

    def progressive_predict(self, X, y, sample_weight=None) -> np.ndarray:
        """The centres of :meth:`progressive_interval` (the learner's predictions)."""
        return self.progressive_interval(X, y, sample_weight=sample_weight)[0]

    # -- the protocol's bookkeeping ---------------------------------------------
    @property
    def alpha_t(self):
        """The level of the next round (one per output, an array, with ``K > 1``)."""
        levels = [float(st["alpha_t"]) for st in self._states()]
        return np.array(levels) if self._more else levels[0]

    @property
    def coverage(self):
        """The fraction of covered rounds (one per output, an array, with ``K > 1``)."""
        cov = [st["covered"] / st["n"] if st["n"] else math.nan for st in self._states()]
        return np.array(cov) if self._more else float(cov[0])

    @property
    def n_seen(self) -> int:
        return self._learner.n_seen

    @property
    def dim(self) -> int:
        return self._learner.dim

    @property
    def input_dim(self):
        return self._learner.input_dim

    def get_params(self, deep: bool = True) -> dict:
        return dict(self._params)

    @serialised
    def set_params(self, **params):
        if not params:
            return self
        unknown = sorted(set(params) - set(self._params))
        if unknown:
            raise ParameterError(f"Conformal has no parameter {unknown[0]!r}")
        if self.n_seen:
            raise ParameterError(
                f"set_params on a Conformal that has seen {self.n_seen} rounds: parameters "
                "can only change before learning (build a new one)"
            )
        self._params, self._learner, self._state = self._build({**self._params, **params})
        self._more = []
        return self

    def clone(self):
        return type(self)(**{**self._params, "learner": self._params["learner"].clone()})

    @serialised
    def __copy__(self):
        new = type(self).__new__(type(self))
        new._params = dict(self._params)
        new._learner = copy.copy(self._learner)
        new._state = copy.deepcopy(self._state)
        new._more = copy.deepcopy(self._more)
        return new

    def __deepcopy__(self, memo):
        return self.__copy__()

    def copy(self):
        return self.__copy__()

    @serialised
    def __getstate__(self):
        st = self._state
        return {
            "format_version": _STATE_VERSION,
            "params": {k: v for k, v in self._params.items() if k != "learner"},
            "prototype": self._params["learner"],
            "learner": self._learner,
            "alpha_t": st["alpha_t"],
            "scores": list(st["scores"]),
            "n": st["n"],
            "covered": st["covered"],
            # outputs 2..K (absent with one output)
            **({"more": [self._stored(m) for m in self._more]} if self._more else {}),
        }

    @staticmethod
    def _stored(st: dict) -> dict:
        return {
            k: list(st["scores"]) if k == "scores" else st[k]
            for k in ("alpha_t", "scores", "n", "covered")
        }

    def __setstate__(self, state):
        if not isinstance(state, dict) or state.get("format_version") != _STATE_VERSION:
            raise InputError(f"unsupported pickled Conformal (this version reads {_STATE_VERSION})")
        try:
            params, learner, _ = self._build({**state["params"], "learner": state["learner"]})
            prototype = state["prototype"]
            if type(prototype) is not type(learner):
                raise TypeError("the prototype and the learner are of different classes")
            st = self._restored(state, params)
            more = [self._restored(m, params) for m in state.get("more", [])]
        except (KeyError, TypeError, ValueError, OverflowError) as exc:
            raise InputError(f"corrupt pickled Conformal: {exc}") from None
        params["learner"] = prototype
        self._params, self._learner, self._state = params, state["learner"], st
        self._more = more

    @classmethod
    def _restored(cls, stored: dict, params: dict) -> dict:
        """One output's state from its stored form, checked (an ``InputError`` if not)."""
        scores = [float(v) for v in stored["scores"]]
        alpha_t, n, covered = float(stored["alpha_t"]), int(stored["n"]), int(stored["covered"])
        if (
            len(scores) > params["window"]
            or not all(math.isfinite(v) and v >= 0 for v in scores)
            or not math.isfinite(alpha_t)
            or not 0 <= covered <= n
        ):
            raise InputError("scores, level or counts out of range")
        st = cls._fresh(params["alpha"], params["window"])
        st.update(alpha_t=alpha_t, n=n, covered=covered, sorted=sorted(scores))
        st["scores"].extend(scores)
        return st

    def __repr__(self):
        args = ", ".join(f"{k}={v!r}" for k, v in self._params.items())
        return f"Conformal({args})"


__all__ = ["Conformal"]
