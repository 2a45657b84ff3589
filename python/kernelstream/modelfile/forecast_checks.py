"""The checks of a Forecaster's attributes against each other on reading a model file
(:mod:`.forecasts` writes and reads them): sizes per horizon and per expert, the buffers
against ``n_seen``, the build against the warm-up, the chosen period and lags, the
rules, the pooled leader's keys and the pending forecasts, whose references to a rule
and to the pooled columns are rebuilt as the same objects.
"""

from __future__ import annotations

import math

import numpy as np

from .objects import _bad

#: A pending forecast's fields (the tuple ``(f, lo, hi, z, c, sc, agg, (guard, cols,
#: levels), d)`` of ``Forecaster._entry``) and its origin.
_ENTRY = ("origin", "forecast", "lower", "upper", "z", "last", "scale", "rule", "guard",
          "columns", "levels", "local_scale")  # fmt: skip


def _float(v, name: str, lo: float = -math.inf, finite: bool = True) -> float:
    if type(v) is not float or math.isnan(v) or (finite and not math.isfinite(v)) or v < lo:
        bound = f" >= {lo:g}" if math.isfinite(lo) else ""
        _bad(f"{name} is not a {'finite ' if finite else ''}number{bound} ({_short(v)})")
    return v


def _same(a, b) -> bool:
    """``a == b`` of values of one type (a decoded value may be an array)."""
    return type(a) is type(b) and bool(a == b)


def _short(v) -> str:
    text = repr(v)
    return text if len(text) <= 60 else text[:57] + "..."


def _floats(v, name: str, shape: tuple, finite: bool = False, lo=None) -> np.ndarray:
    """A float64 array of ``shape``, without NaN (``finite``: nor infinities), ``>= lo``."""
    if not (isinstance(v, np.ndarray) and v.dtype == np.float64 and v.shape == shape):
        _bad(f"{name} is not a float64 array of shape {shape}")
    if np.any(np.isnan(v)) or (finite and not np.all(np.isfinite(v))):
        _bad(f"{name} holds values that are not {'finite' if finite else 'numbers'}")
    if lo is not None and np.any(v < lo):
        _bad(f"{name} holds values below {lo:g}")
    return v


class Whole:
    """The checks of a Forecaster's attributes against each other; fills ``out`` with
    the attributes to set (the pending forecasts' references rebuilt)."""

    def __init__(self, fc, state: dict, out: dict, readable):
        from ..forecast import features as F
        from ..forecast.forecaster import _simple_keys

        self.fc, self.state, self.out, self.F = fc, state, out, F
        self.readable = readable  # a value's readable form, as a model file's params
        self.H, self.W = fc.horizon, fc.warmup
        self.simple_keys = _simple_keys
        self.n = self.n_pre = self.n_post = 0
        self.cols: list = []  # the ``_cols`` keys, in order (the pending forecasts' references)

    def run(self) -> None:
        st, out = self.state, self.out
        self.buffers()
        built = st["_built"]
        if type(built) is not bool or built != (self.n >= self.W):
            _bad(f"the Forecaster's built flag {built!r} disagrees with {self.n} values seen "
                 f"and a warm-up of {self.W}")  # fmt: skip
        out["_built"] = built
        self.choices()
        self.experts()
        self.rules()
        self.pool()
        level = st["_level"]
        if (level is None) != (self.n == 0):
            _bad("the Forecaster's smoothed levels disagree with its values seen")
        if level is not None:
            _floats(level, "the Forecaster's smoothed levels", (self.F.SES_ALPHAS.size,), True)
        out["_level"] = level
        scale = _float(st["_scale"], "the Forecaster's scale", 0.0)
        if scale == 0.0 or (not built and scale != 1.0):
            _bad(f"the Forecaster's scale {scale!r} is not that of its warm-up")
        out["_scale"] = scale
        self.conf()
        self.pending()

    def conf(self) -> None:
        from ..forecast.intervals import HorizonConformal

        conf, H = self.state["_conf"], self.H
        if not isinstance(conf, list) or len(conf) != H or \
                not all(type(c) is HorizonConformal for c in conf):  # fmt: skip
            _bad(f"the Forecaster's intervals are not {H} HorizonConformal objects")
        if any(c.alpha != self.fc._params["alpha"] or c.n_scored > self.n for c in conf):
            _bad("the Forecaster's intervals disagree with its alpha or its values seen")
        self.out["_conf"] = conf

    # -- the series ------------------------------------------------------------------
    def buffers(self) -> None:
        from ..forecast.forecaster import _Buffer
        from ..forecast.limits import Y_LIMIT

        st, out = self.state, self.out
        y = st["_y"]
        if type(y) is not _Buffer or y.width is not None:
            _bad("the Forecaster's series is not a buffer of values")
        self.n = n = y.n
        if np.any(np.abs(y.data[:n]) > Y_LIMIT):
            _bad("the Forecaster's series holds values beyond its limit")
        dx, x = st["_dx"], st["_x"]
        if (dx is None) != (n == 0) or (dx is not None and (type(dx) is not int or dx < 0)):
            _bad(f"the Forecaster's exogenous width {dx!r} disagrees with {n} values seen")
        if not dx:
            if x is not None:
                _bad("the Forecaster holds exogenous rows but no exogenous columns")
        elif type(x) is not _Buffer or x.width != dx or x.n != n:
            _bad(f"the Forecaster's exogenous rows are not {n} rows of {dx} values")
        out.update(_y=y, _x=x, _dx=dx)

    # -- the warm-up's choices and the experts ---------------------------------------
    def choices(self) -> None:
        st, out, F, p = self.state, self.out, self.F, self.fc._params
        season, lags, kinds = st["season_"], st["lags_"], st["_kinds"]
        if not out["_built"]:
            if season is not None or lags is not None or not _same(kinds, []):
                _bad("the Forecaster has a period, lags or experts before its warm-up's end")
            out.update(season_=None, lags_=None, _kinds=[])
            return
        if p["season"] is not None:
            ok = _same(season, p["season"])
        else:
            ok = season is None or (type(season) is int and F.MIN_SEASON <= season <= self.W // 2)
        if not ok:
            _bad(f"the Forecaster's period {season!r} is not one it can have chosen")
        if p["lags"] != "auto":
            ok = _same(lags, p["lags"])
        else:
            ok = type(lags) is int and 2 <= lags <= F.MAX_LAGS
        if not ok:
            _bad(f"the Forecaster's lags {lags!r} are not what it can have chosen")
        want = ["level", "diff"] + (["sdiff"] if season else [])  # the code's strings
        if not _same(kinds, want):
            _bad(f"the Forecaster's expert kinds {kinds!r} are not {want!r}")
        out.update(season_=season, lags_=lags, _kinds=want)

    def experts(self) -> None:
        st, out, H = self.state, self.out, self.H
        experts, kinds = st["_experts"], out["_kinds"]
        if not out["_built"]:
            if not _same(experts, []):
                _bad("the Forecaster has experts before its warm-up's end")
            out["_experts"] = []
            return
        if not isinstance(experts, list) or len(experts) != H or \
                not all(isinstance(e, list) and len(e) == len(kinds) for e in experts):  # fmt: skip
            _bad(f"the Forecaster's experts are not {H} lists of {len(kinds)} learners")
        template = self.fc._params["learner"]
        if template is None:
            from ..learners.autokernel import AutoKernel

            template = AutoKernel()
        want = self.readable(template.get_params())
        s, L, dx = out["season_"], out["lags_"], out["_dx"]
        for learners in experts:
            for kind, lr in zip(kinds, learners):
                if type(lr) is not type(template):
                    _bad(f"a Forecaster's expert is a {type(lr).__name__}, its learner a "
                         f"{type(template).__name__}")  # fmt: skip
                if self.readable(lr.get_params()) != want:
                    _bad("a Forecaster's expert has other parameters than its learner")
                width = L + (s is not None and kind != "sdiff") + dx
                got = getattr(lr, "input_dim", None)
                if got is not None and got != width:
                    _bad(f"a Forecaster's {kind} expert takes rows of {got} values, not {width}")
        out["_experts"] = experts

    def rules(self) -> None:
        from ..forecast.forecaster import _rule
        from ..forecast.leader import Guarded, Leader

        st, out, H = self.state, self.out, self.H
        agg0 = st["_agg0"]
        self.n_pre = len(self.simple_keys(self._periods(False)))
        if not isinstance(agg0, list) or len(agg0) != 1 or type(agg0[0]) is not Leader \
                or agg0[0].loss.size != self.n_pre:  # fmt: skip
            _bad(f"the Forecaster's warm-up leader is not a Leader of {self.n_pre} experts")
        out["_agg0"] = agg0
        agg = st["_agg"]
        if not out["_built"]:
            if not _same(agg, []):
                _bad("the Forecaster has combinations before its warm-up's end")
            out["_agg"] = []
            return
        self.n_post = len(self.simple_keys(self._periods(True)))
        n_learn = len(out["_kinds"])
        if not isinstance(agg, list) or len(agg) != H or type(agg[0]) is not Guarded:
            _bad(f"the Forecaster's combinations are not {H}, the first guarded")
        g = agg[0]
        if g.n_learners != n_learn or g.lead.loss.size != self.n_post:
            _bad("the Forecaster's guarded combination has other experts than its horizon 1")
        for k, rule in enumerate([g.rule, *agg[1:]]):
            n = n_learn + (1 if k else 0) + self.n_post
            want = _rule(n)
            if type(rule) is not type(want) or rule.get_params() != want.get_params():
                _bad(f"the Forecaster's rule of horizon {k + 1} is not a "
                     f"{type(want).__name__} of {n} experts")  # fmt: skip
        out["_agg"] = agg

    def _periods(self, built: bool) -> list:
        s = self.out["season_"] if built else self.fc._params["season"]
        return sorted(set(self.F.PERIODS) | ({s} if s else set()))

    def _keys(self, built: bool) -> list:
        """The keys of the pending forecasts' columns made before or after the build
        (new strings, as ``Forecaster._entry`` makes them)."""
        return self.simple_keys(self._periods(built)) + (["combination"] if built else [])

    def pool(self) -> None:
        from ..forecast.leader import Pooled

        st, out, H, built = self.state, self.out, self.H, self.out["_built"]
        pool = st["_pool"]
        if type(pool) is not Pooled or pool.H != H or pool.built != built:
            _bad(f"the Forecaster's pooled leader is not one of {H} horizons, built={built}")
        # the keys as ``Forecaster._reset`` and ``_build`` add them
        keys = list(self.simple_keys(self._periods(False)))
        late = [False] * len(keys)
        for key in self._keys(True) if built else []:
            if key not in keys:
                keys.append(key)
                late.append(True)
        if pool.keys != keys or pool.late.tolist() != late:
            _bad(f"the Forecaster's pooled leader has the candidates {pool.keys!r}, not {keys!r}")
        if pool.best[0] != 0 or (not built and np.any(pool.n_common)):
            _bad("the Forecaster's pooled leader has scores it cannot have")
        cols: dict = {}
        for tk, arr in pool._cols.items():
            made = [self._keys(b) for b in {False, built} if tuple(self._keys(b)) == tk]
            if not made:
                _bad(f"the Forecaster's pooled leader has columns of the keys {tk!r}")
            cols[tuple(made[0])] = arr
            self.cols.append(tk)
        pool.keys, pool._cols = keys, cols
        out["_pool"] = pool

    # -- the pending forecasts -------------------------------------------------------
    def pending(self) -> None:
        st, out, H, n = self.state, self.out, self.H, self.n
        pend = st["_pending"]
        if (
            not isinstance(pend, list)
            or len(pend) != H
            or not all(isinstance(p, list) for p in pend)
        ):
            _bad(f"the Forecaster's pending forecasts are not {H} lists")
        cols = list(out["_pool"]._cols.values())
        result = []
        for k, entries in enumerate(pend):
            made: dict = {}
            last = 0  # origins are >= 1, each after the one before
            for e in entries:
                o, entry = self.entry(k, e, cols)
                if o <= last:
                    _bad(f"the pending forecasts of horizon {k + 1} are not in order of origin")
                made[o] = entry
                last = o
            if out["_dx"] == 0 and n >= 1 and n not in made:
                _bad(f"the Forecaster has no forecast of horizon {k + 1} after its last value")
            result.append(made)
        out["_pending"] = result

    def entry(self, k: int, e, cols: list) -> tuple:
        out, n, W = self.out, self.n, self.W
        if not isinstance(e, dict) or set(e) != set(_ENTRY):
            _bad(f"a pending forecast with the fields {sorted(e) if isinstance(e, dict) else e!r}")
        o = e["origin"]
        if type(o) is not int or not max(1, n - k) <= o <= n:
            _bad(f"a pending forecast of horizon {k + 1} of origin {o!r}, with {n} values seen")
        where = f"the pending forecast of horizon {k + 1} at origin {o}"
        pre = o < W  # made before the build
        f, lo, hi = e["forecast"], e["lower"], e["upper"]
        if not all(type(v) is float for v in (f, lo, hi)):
            _bad(f"{where} is not numbers")
        if not any(math.isnan(v) for v in (f, lo, hi)) and not lo <= f <= hi:
            _bad(f"{where} is outside its interval")
        n_z = self.n_pre if pre else len(out["_kinds"]) + (1 if k else 0) + self.n_post
        z = _floats(e["z"], f"the experts' forecasts of {where}", (n_z,), finite=True)
        c = _float(e["last"], f"the last value of {where}")
        if c != float(out["_y"].data[o - 1]):
            _bad(f"the last value of {where} is not the series' value before it")
        sc = _float(e["scale"], f"the scale of {where}", 0.0)
        if sc == 0.0 or (not pre and sc != out["_scale"]):
            _bad(f"the scale of {where} is not the Forecaster's")
        ref: str | None = None  # the rule the forecast is settled with (a horizon > 1's
        agg = None  # before the build: none, the pooled leader plays)
        if k == 0:
            ref, agg = ("_agg0[0]", out["_agg0"][0]) if pre else ("_agg[0]", out["_agg"][0])
        elif not pre:
            ref, agg = f"_agg[{k}]", out["_agg"][k]
        if not _same(e["rule"], ref):
            _bad(f"{where} refers to the rule {e['rule']!r}, not {ref!r}")
        guard = e["guard"]
        if k == 0 and not pre:
            if not (isinstance(guard, tuple) and len(guard) == 2
                    and all(type(g) is float and math.isfinite(g) for g in guard)):  # fmt: skip
                _bad(f"{where} has no guarded pair of forecasts")
        elif guard is not None:
            _bad(f"{where} has a guarded pair of forecasts it cannot have")
        keys = tuple(self._keys(not pre))
        at = self.cols.index(keys) if keys in self.cols else -1
        if at < 0 or not _same(e["columns"], f"_pool._cols[{at}]"):
            _bad(f"{where} refers to the columns {e['columns']!r}, not those of its candidates")
        levels = _floats(e["levels"], f"the candidates' forecasts of {where}", (len(keys),))
        d = e["local_scale"]
        if d is not None:
            _float(d, f"the local scale of {where}", 0.0, finite=False)
            if d == 0.0:
                _bad(f"the local scale of {where} is 0")
        return o, (f, lo, hi, z, c, sc, agg, (guard, cols[at], levels), d)
