"""Forecaster: online multi-horizon forecasts of one series, with intervals per horizon.

Per horizon ``k`` (direct forecasts: one learner per horizon and expert), level,
differenced and seasonally differenced experts (:mod:`.features`), the horizon-1
forecaster's recursive path (``k > 0``) and the simple forecasts are combined on the level scale by BOA (Wintenberger 2017,
:class:`kernelstream.aggregation.BOA`); intervals come from each horizon's own conformal
scores, locally weighted by its recent error scale (:mod:`.intervals`). ``docs/forecasting.md`` describes the method and its measures.
"""

from __future__ import annotations

import contextlib
import copy
import math
import numbers
from typing import Any

import numpy as np

from .._rounds import whole_round
from .._threads import LOCK_ATTR, serialised
from .._validation import _to_float_array
from ..errors import InputError, ParameterError
from . import features as F
from .intervals import HorizonConformal
from .leader import Guarded, Leader, Pooled, period_prior
from .limits import Y_LIMIT, too_large

#: rounds seen before the lags and the period are chosen (the forecasts are the last
#: value until then); larger when a given period or lag count needs more
WARMUP = 48
#: Fixed Share rate of each horizon's BOA (Herbster and Warmuth 1998), so that the
#: weights can move to the expert that is best now
SHARE = 1e-3
_MAX_HORIZON = 10_000
#: the aggregation rule of every horizon
RULE = "boa"
ETA = 1.0


def _rule(n_experts: int):
    from ..learners.mixture import RULES

    if RULE == "ewa":
        return RULES[RULE](n_experts, eta=ETA, share=SHARE)
    return RULES[RULE](n_experts, share=SHARE)


def _clone(learner):
    if learner is None:
        from ..learners.autokernel import AutoKernel

        return AutoKernel()
    return type(learner)(**learner.get_params())


class _Buffer:
    """A growable float64 array of rows (the series, or its exogenous rows)."""

    def __init__(self, width: int | None = None):
        self.width = width
        self.data = np.zeros((16,) if width is None else (16, width))
        self.n = 0

    def append(self, value) -> None:
        if self.n == self.data.shape[0]:
            self.data = np.concatenate([self.data, np.zeros_like(self.data)])
        self.data[self.n] = value
        self.n += 1

    def view(self, extra=None) -> np.ndarray:
        head = self.data[: self.n]
        return head if extra is None else np.concatenate([head, extra])


class Forecaster:
    """Online forecasts of one series for horizons ``1..horizon``, with intervals.

    Each round gives the series' next value (and the exogenous row known at its time).
    The first ``warmup`` rounds forecast the last value; then the period (``season=None``:
    the autocorrelation peak of the first differences, or none) and the lags
    (``lags="auto"``: the partial autocorrelations of the first differences) are chosen
    on them, and for every horizon a level, a differenced and (with a period) a
    seasonally differenced learner are built, replayed on the warm-up and run online
    beside the naive and seasonal-naive forecasts; BOA combines the five on the level
    scale, each horizon on its own; at horizon 1 the combination is played once it leads
    the simple experts' leader by a margin, at the longer horizons the leader over the
    horizons 1..h is (:mod:`.leader`). A learner of horizon ``h`` learns a pair once its
    label is seen, ``h - 1`` rounds after the pair's forecast was made.

    Values must be finite and at most ``Y_LIMIT`` (5e149) in absolute value, so that the
    differenced learners' targets stay within the learners' 1e150. A value refused, a
    learner that refuses the warm-up's rows at the build, or an error or Ctrl-C during
    ``progressive_forecast`` leaves the forecaster as it was; Ctrl-C during
    ``learn_one`` takes effect at the round's end. ``kernelstream.save(forecaster, path)``
    writes it to a model file at any round (``kernelstream.load`` reads it back, and it
    goes on as the saved one would have).

    Parameters
    ----------
    learner : Learner or None, default None
        The regressor under every expert (cloned from ``get_params()``); None:
        :class:`~kernelstream.AutoKernel` with its defaults.
    horizon : int, default 1
        Forecasts are made for ``y[t], ..., y[t + horizon - 1]`` after ``y[:t]``.
    lags : "auto" or int, default "auto"
    season : int or None, default None
        The seasonal period (at least 2), or None to find one (or none) on the warm-up.
    alpha : float, default 0.1
        Miscoverage of the intervals: ``1 - alpha`` intervals per horizon.

    Attributes
    ----------
    season_ : int or None
        The period in use once the warm-up is over.
    lags_ : int or None
        The number of lags in use once the warm-up is over.

    Examples
    --------
    >>> import numpy as np
    >>> import kernelstream as ks
    >>> t = np.arange(120)
    >>> y = 10 + 0.05 * t + np.sin(2 * np.pi * t / 12)
    >>> model = ks.Forecaster(horizon=3, learner=ks.TaylorAWV(degree=2, sigma=10.0))
    >>> for v in y:
    ...     model.learn_one(v)
    >>> model.season_, model.forecast().shape
    (12, (3,))
    >>> lower, upper = model.forecast_interval()
    >>> bool(np.all(lower <= upper))
    True
    """

    def __init__(self, learner=None, horizon: int = 1, lags="auto", season=None, alpha=0.1):
        self._params = dict(learner=learner, horizon=horizon, lags=lags, season=season, alpha=alpha)
        self._check_params()
        self._reset()

    # -- parameters ------------------------------------------------------------
    def _check_params(self) -> None:
        p = self._params
        lr = p["learner"]
        if lr is not None and not all(
            hasattr(lr, m) for m in ("get_params", "learn_one", "predict_one")
        ):
            raise ParameterError(
                "learner must be None or a regressor with get_params, learn_one and "
                f"predict_one, got {type(lr).__name__}"
            )
        for name, lo, hi in (("horizon", 1, _MAX_HORIZON), ("season", 2, 100_000)):
            v = p[name]
            if name == "season" and v is None:
                continue
            if isinstance(v, bool) or not isinstance(v, numbers.Integral) or not lo <= int(v) <= hi:
                raise ParameterError(f"{name} must be a whole number in [{lo}, {hi}], got {v!r}")
        lags = p["lags"]
        if not (lags == "auto" if isinstance(lags, str) else False):
            if (
                isinstance(lags, bool)
                or not isinstance(lags, numbers.Integral)
                or not (1 <= int(lags) <= 1000)
            ):
                raise ParameterError(
                    f'lags must be "auto" or a whole number in [1, 1000], got {lags!r}'
                )
        a = p["alpha"]
        if isinstance(a, bool) or not isinstance(a, numbers.Real) or not 0 < float(a) < 1:
            raise ParameterError(f"alpha must be a number in (0, 1), got {a!r}")

    def get_params(self) -> dict:
        return dict(self._params)

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self._params.items())
        return f"Forecaster({args})"

    @property
    def horizon(self) -> int:
        return int(self._params["horizon"])

    @property
    def warmup(self) -> int:
        """Rounds before the experts are built."""
        p = self._params
        lags = p["lags"] if p["lags"] != "auto" else F.MAX_LAGS
        return max(WARMUP, 2 * (p["season"] or 0) + int(lags) + 2)

    @property
    def n_seen(self) -> int:
        return self._y.n

    def _reset(self) -> None:
        H, a = self.horizon, float(self._params["alpha"])
        self._y = _Buffer()
        self._x: _Buffer | None = None
        self._dx: int | None = None  # exogenous width, fixed by the first round
        self._built = False
        self.season_: int | None = None
        self.lags_: int | None = None
        self._kinds: list = []
        self._experts: list = []  # per horizon: one learner per kind
        self._agg: list = []
        keys = _simple_keys(self._periods_now())
        # horizon 1's during the warm-up; a seasonal naive of a period not given starts
        # behind the last value by its prior (:func:`.leader.period_prior`)
        self._agg0 = [Leader(len(keys), prior=period_prior(keys, self._params["season"]))]
        self._pool = Pooled(keys, H)  # the played forecast of the horizons >= 2
        self._level = None  # the smoothed levels after the last value
        self._scale = 1.0
        self._conf = [HorizonConformal(a) for _ in range(H)]
        self._pending: list = [dict() for _ in range(H)]  # origin -> (f, lo, hi, z, centre)

    # -- input checks ------------------------------------------------------------
    def _check_y(self, y) -> float:
        if isinstance(y, (bool, np.bool_)) or not isinstance(y, numbers.Real):
            raise InputError(f"y must be a finite number, got {y!r}")
        v = float(y)
        if not math.isfinite(v):
            raise InputError(f"y must be a finite number, got {y!r}")
        if abs(v) > Y_LIMIT:
            raise too_large("y", v)
        return v

    def _check_rows(self, X, what: str, n_min: int = 0):
        """Exogenous rows ``(n, dx)`` checked against the width seen so far (or None)."""
        if X is None:
            if self._dx:
                raise InputError(f"{what} is missing: this series has {self._dx} exogenous columns")
            return None
        A = _to_float_array(X, what)
        if A.ndim == 1:
            A = A.reshape(1, -1) if n_min <= 1 and what == "x" else A.reshape(-1, 1)
        if A.ndim != 2 or A.shape[1] == 0:
            raise InputError(f"{what} must be rows of exogenous values, got shape {A.shape}")
        if not np.all(np.isfinite(A)):
            raise InputError(f"{what} has a value that is not finite")
        if self._dx is not None and A.shape[1] != self._dx:
            raise InputError(
                f"{what} has {A.shape[1]} exogenous columns, the series has {self._dx or 0}"
            )
        if A.shape[0] < n_min:
            raise InputError(f"{what} needs {n_min} rows (one per horizon), got {A.shape[0]}")
        return A

    # -- online interface --------------------------------------------------------
    @serialised
    def learn_one(self, y, x=None) -> None:
        """The series' next value ``y`` and the exogenous row ``x`` known at its time."""
        v = self._check_y(y)
        row = self._check_rows(x, "x", 1)
        if row is not None and row.shape[0] != 1:
            raise InputError(f"x must be one row, got {row.shape[0]}")
        if not self._built and self._y.n + 1 == self.warmup:
            # the round that builds the experts (it replays the warm-up through every
            # learner): a learner that refuses the rows, or Ctrl-C, leaves the
            # forecaster as it was (its state before the build is small)
            with self._all_or_nothing():
                self._learn(v, row)
            return
        with whole_round():  # Ctrl-C waits for the round's end
            self._learn(v, row)

    def __getstate__(self):
        state = dict(self.__dict__)
        state.pop(LOCK_ATTR, None)  # each copy has its own (kernelstream._threads)
        return state

    @contextlib.contextmanager
    def _all_or_nothing(self):
        """Runs the block; if it raises (Ctrl-C too), the forecaster is as before it."""
        state = self.__dict__  # `_params` is read, never changed; the lock is held
        same = ("_params", LOCK_ATTR)
        kept = copy.deepcopy({k: v for k, v in state.items() if k not in same})
        before = {k: state[k] if k in same else kept[k] for k in state}
        try:
            yield
        except BaseException:
            self.__dict__.clear()
            self.__dict__.update(before)
            raise

    def _learn(self, v: float, row) -> None:
        if self._dx is None:
            self._dx = 0 if row is None else row.shape[1]
            self._x = None if row is None else _Buffer(self._dx)
        t = self._y.n
        self._y.append(v)
        self._level = F.ses_step(self._level, v)
        if self._x is not None:
            self._x.append(row[0])
        if self._built:
            y_all, X_all = self._y.view(), self._xview()
            for k, learners in enumerate(self._experts):
                o = t - k
                for kind, lr in zip(self._kinds, learners):
                    if o >= F.first_origin(kind, self.lags_, self.season_, k):
                        Z, off = F.rows(kind, y_all, X_all, [o], k, self.lags_, self.season_)
                        lr.learn_one(Z[0], v - off[0])
        self._settle(t, v)
        if not self._built and self._y.n == self.warmup:
            self._build()
        self._pool.refresh()
        if self._dx == 0:
            self._prepare(self._y.n, None, self.horizon)

    @serialised
    def forecast(self, h=None, X_future=None) -> np.ndarray:
        """The forecasts of the next ``h`` values (default ``horizon``)."""
        return self._forecast(h, X_future)[0]

    @serialised
    def forecast_interval(self, h=None, X_future=None) -> tuple:
        """``(lower, upper)``: the ``1 - alpha`` intervals of the next ``h`` values."""
        _, lo, hi = self._forecast(h, X_future)
        return lo, hi

    def _forecast(self, h, X_future):
        if h is None:
            h = self.horizon
        if isinstance(h, bool) or not isinstance(h, numbers.Integral) or not 1 <= h <= self.horizon:
            raise InputError(f"h must be a whole number in [1, horizon={self.horizon}], got {h!r}")
        if self._y.n == 0:
            raise InputError("nothing to forecast from: no value of the series was learned yet")
        o = self._y.n
        if self._dx:
            Xf = self._check_rows(X_future, "X_future", h)
            self._prepare(o, Xf[:h], h)
        elif X_future is not None:
            raise InputError("X_future was given, but the series has no exogenous columns")
        rows = [self._pending[k][o] for k in range(h)]
        return tuple(np.array([r[i] for r in rows]) for i in range(3))

    # -- the rounds ----------------------------------------------------------------
    def _xview(self, extra=None):
        return None if self._x is None else self._x.view(extra)

    def _periods_now(self) -> list:
        """The seasonal-naive experts' periods: :data:`.features.PERIODS` and the period
        given or (after the warm-up) found."""
        s = self.season_ if self._built else self._params["season"]
        return sorted(set(F.PERIODS) | ({s} if s else set()))

    def _expert_z(self, o, k, preds, level, y_all=None):
        """BOA's inputs: the experts' level forecasts (learners, then the simple experts of
        :func:`.features.simple_values`) minus the last value ``c``, divided by the scale
        ``sc`` (an affine map, which a convex combination commutes with)."""
        y_all = self._y.view() if y_all is None else y_all
        c = float(y_all[o - 1])
        if self._built:
            sc = self._scale
        else:  # the warm-up's running scale: the mean absolute first difference so far
            d = np.abs(np.diff(y_all[:o]))
            sc = float(np.mean(d)) if d.size and np.mean(d) > 0 else 1.0
        z = np.array(list(preds) + F.simple_values(y_all, o, k, self._periods_now(), level))
        return (z - c) / sc, c, sc

    def _entry(self, o, k, z, c, sc):
        """Combine, interval, and keep the forecast until its label comes. The memo
        holds the candidates' level forecasts (the simple experts', then the combination's
        once built) and their columns in :class:`.leader.Pooled`."""
        keys = _simple_keys(self._periods_now())
        levels = c + sc * np.asarray(z[len(z) - len(keys) :], float)
        if k == 0:  # horizon 1: the simple experts' leader, then against the combination
            if self._built:
                agg = self._agg[0]
                g, guard = agg.predict(z)
                levels = np.append(levels, c + sc * guard[1])
            else:
                agg, guard = self._agg0[0], None
                g = agg.predict(z)
            f = c + sc * g
        else:  # the horizons >= 2: the pooled leader (:class:`.leader.Pooled`)
            guard, agg = None, self._agg[k] if self._built else None
            if agg is not None:
                levels = np.append(levels, c + sc * agg.predict(z))
        cols = self._pool.index(keys + (["combination"] if self._built else []))
        if k:
            f = float(levels[int(np.flatnonzero(cols == self._pool.best[k])[0])])
        memo = (guard, cols, levels)
        q, d = self._conf[k].half_width()
        self._pending[k][o] = entry = (f, f - q, f + q, z, c, sc, agg, memo, d)
        return entry

    def _prepare(self, o, Xf, h) -> None:
        """Every forecast of origin ``o`` (after ``y[:o]``) up to horizon ``h``."""
        y_all, X_all = self._y.view(), self._xview(Xf)
        path = self._recursive(o, y_all, X_all, self._level, h) if self._built and h > 1 else []
        for k in range(h):
            preds = []
            if self._built:
                for kind, lr in zip(self._kinds, self._experts[k]):
                    Z, off = F.rows(kind, y_all, X_all, [o], k, self.lags_, self.season_)
                    preds.append(lr.predict_one(Z[0]) + off[0])
                if k:
                    preds.append(path[k])
            z, c, sc = self._expert_z(o, k, preds, self._level)
            self._entry(o, k, z, c, sc)

    def _recursive(self, o, y_hist, X_all, lev, h) -> list:
        """The recursive expert: the horizon-1 learners and rule forecast ``y[o + j]`` from
        ``y[:o]`` followed by their own forecasts of ``y[o..o + j - 1]`` (their
        predictions are pure: no state changes), for ``j < h``."""
        y_ext = np.asarray(y_hist[:o], float)
        out: list = []
        for j in range(h):
            oj = o + j
            preds = []
            for kind, lr in zip(self._kinds, self._experts[0]):
                Z, off = F.rows(kind, y_ext, X_all, [oj], 0, self.lags_, self.season_)
                preds.append(lr.predict_one(Z[0]) + off[0])
            z, c, sc = self._expert_z(oj, 0, preds, lev, y_ext)
            f = c + sc * self._agg[0].predict(z)[0]
            out.append(f)
            if j + 1 < h:
                y_ext = np.append(y_ext, f)
                lev = F.ses_step(lev, f)
        return out

    def _settle(self, t, v) -> None:
        """The label ``y[t] = v`` of every pending forecast: scores and weights."""
        for k in range(self.horizon):
            entry = self._pending[k].pop(t - k, None)
            if entry is None:
                continue
            f, lo, hi, z, c, sc, agg, (guard, cols, levels), d = entry
            self._conf[k].update(f, lo, hi, v, d)
            if k == 0 and guard is not None:
                agg.update(z, (v - c) / sc, guard)
            elif agg is not None:
                agg.update(z, (v - c) / sc)
            after = guard is not None if k == 0 else agg is not None
            self._pool.update(k, cols, levels, v, after)

    def _build(self) -> None:
        """Choose the period and lags on the warm-up, build and replay the experts."""
        W = self._y.n
        window = self._y.view().copy()
        p = self._params
        self.season_ = p["season"] if p["season"] is not None else F.find_season(window)
        self.lags_ = int(p["lags"]) if p["lags"] != "auto" else F.find_lags(window)
        s, L = self.season_, self.lags_
        self._kinds = ["level", "diff"] + (["sdiff"] if s else [])
        sd = float(np.mean(np.abs(np.diff(window))))
        self._scale = sd if math.isfinite(sd) and sd > 0 else 1.0
        X_all = self._xview()
        levels, lev = [None], None  # levels[o]: the smoothed levels after y[o - 1]
        for v in window:
            lev = F.ses_step(lev, v)
            levels.append(lev)
        self._built = True
        n_simple = 1 + F.SES_ALPHAS.size + len(self._periods_now())
        self._pool.add(_simple_keys(self._periods_now()) + ["combination"])
        paths: dict = {}  # origin -> the recursive expert's path (horizons 2..H)
        for k in range(self.horizon):
            learners, replay = [], {}
            for kind in self._kinds:
                lr = _clone(p["learner"])
                origins = np.arange(F.first_origin(kind, L, s, k), W - k)
                if origins.size:
                    Z, off = F.rows(kind, window, X_all, origins, k, L, s)
                    pred = _progressive(lr, Z, window[origins + k] - off)
                    replay[kind] = dict(zip(origins.tolist(), (pred + off).tolist()))
                learners.append(lr)
            self._experts.append(learners)
            n_learn = len(self._kinds) + (1 if k else 0)
            agg: Any = _rule(n_learn + n_simple)  # horizons >= 2: the pool plays
            if k == 0:
                agg = Guarded(agg, n_learn, n_simple)
            start = max(F.first_origin(kind, L, s, j) for kind in self._kinds for j in {0, k})
            self._agg.append(agg)
            for o in range(start, W - k):
                preds = [replay[kind][o] for kind in self._kinds]
                if k:  # from the replayed horizon-1 learners and rule
                    if o not in paths:
                        paths[o] = self._recursive(
                            o, window, X_all, levels[o], min(self.horizon, W - o)
                        )
                    preds.append(paths[o][k])
                z, c, sc = self._expert_z(o, k, preds, levels[o], window)
                if k == 0:
                    agg.update(z, (window[o + k] - c) / sc, agg.predict(z)[1])
                else:
                    agg.update(z, (window[o + k] - c) / sc)

    # -- whole series ------------------------------------------------------------
    def progressive_forecast(self, y, X=None) -> np.ndarray:
        """Entry ``[t, k]``: the forecast of ``y[t + k]`` made after ``y[:t]`` (and the
        exogenous rows ``X[:t + k + 1]``), NaN where ``t + k >= n`` or ``t = 0`` on a
        fresh forecaster. The series runs through the forecaster (its state moves on),
        with the same results as ``forecast`` then ``learn_one`` round by round."""
        return self._progressive(y, X)[0]

    @serialised
    def _progressive(self, y, X=None) -> tuple:
        """``(forecasts, lower, upper)``, each ``(n, horizon)``."""
        from .batch import progressive_forecast

        with self._all_or_nothing():  # an error or Ctrl-C midway changes nothing
            return progressive_forecast(self, y, X)


def _simple_keys(periods) -> list:
    """The simple experts' names, in the order of :func:`.features.simple_values`."""
    return ["last", *(f"ses{a}" for a in F.SES_ALPHAS), *(f"snaive{P}" for P in periods)]


def _progressive(lr, Z, target) -> np.ndarray:
    """``lr.progressive_predict`` or, for a learner without it, predict then learn."""
    if hasattr(lr, "progressive_predict"):
        return np.asarray(lr.progressive_predict(Z, target), float)
    out = np.empty(len(target))
    for i in range(len(target)):
        out[i] = lr.predict_one(Z[i])
        lr.learn_one(Z[i], target[i])
    return out
