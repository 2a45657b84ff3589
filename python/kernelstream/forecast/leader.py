"""Which forecast is played: follow the leader, with a margin before the played expert
changes (``docs/forecasting.md``, "Which forecast is played").

Follow the leader (FTL) plays the expert with the smallest cumulative squared loss; when
two experts are nearly tied (the last value and a smoothed level on a random walk), it
flips between them and pays each flip. :class:`Leader` keeps an incumbent, first the
expert 0 (the last value), and passes to another expert only once that expert's
cumulative loss is below the incumbent's by more than ``margin``: each change is paid
for by a lead of at least ``margin`` already won (FTL with hysteresis), and a series on
which no expert gets ahead of the last value by that much is forecast by the last value
itself.
"""

from __future__ import annotations

import numpy as np

#: the lead, in squared units of the forecaster's scale (the warm-up's mean absolute
#: first difference: about the last value's loss of one round), that a challenger must
#: have over the incumbent before it is played
MARGIN = 1.0
#: during the warm-up, the prior of a seasonal naive of a period ``P`` not given (the
#: periods 4, 7, 12, 24 tried on every series): ``PERIOD_PRIOR * max(P - PRIOR_FROM, 0)``
#: squared units of the running scale, its cumulative loss at the start (:func:`period_prior`)
PERIOD_PRIOR = 1.5
#: the periods up to this one enter on the margin alone
PRIOR_FROM = 12


def period_prior(keys, trusted) -> np.ndarray:
    """The initial losses of the warm-up's simple experts named ``keys`` (``"last"``,
    ``"ses…"``, ``"snaive<P>"``): zero, except for a seasonal naive of a period ``P`` other
    than ``trusted`` (the period given), which starts ``PERIOD_PRIOR * max(P - PRIOR_FROM,
    0)`` squared units of the running scale behind (``docs/forecasting.md``, "Which
    forecast is played"): 18 for the period 24.

    Until round ``P`` such an expert is the last value, so nothing seen tells whether the
    period is real when it first differs, and on a random walk its loss per round is about
    ``P`` times the last value's: the longer the period, the later (in a warm-up of 48
    rounds) and the costlier a lucky first round that makes it the incumbent. A prior on
    the periods up to 12 delayed real seasons of 7 and 12 (measured in the page).
    """
    out = np.zeros(len(keys))
    for i, key in enumerate(keys):
        if key.startswith("snaive") and int(key[6:]) != trusted:
            out[i] = PERIOD_PRIOR * max(int(key[6:]) - PRIOR_FROM, 0)
    return out


class Leader:
    """Plays the incumbent expert's forecast, first the expert 0 (the last value).

    After each round, with incumbent ``i`` and cumulative squared losses ``L`` (from
    ``prior``, the initial losses, zeros by default): if some ``L_i - L_j > margin``, the
    incumbent becomes the ``j`` with the smallest ``L_j``. ``margin=0`` is follow the
    leader (ties keep the incumbent). Against every expert ``j`` the played loss is at most
    ``j``'s loss plus ``prior_j - prior_0``, plus the margin per change and one more, plus
    each change's round of loss difference (``tests/python/test_forecast_leader.py``).
    """

    def __init__(self, n_experts: int, margin: float = MARGIN, prior=None):
        self.margin = float(margin)
        self.loss = np.zeros(n_experts) if prior is None else np.array(prior, float)
        self.best = 0

    def predict(self, z) -> float:
        return float(np.asarray(z)[self.best])

    def update(self, z, y) -> None:
        d = np.asarray(z, float) - y
        self.loss += d * d
        j = int(self.loss.argmin())
        if self.loss[self.best] - self.loss[j] > self.margin:
            self.best = j


class Guarded:
    """After the warm-up: the leader of the simple experts (the last value first), or the
    rule's combination of every expert once its cumulative loss is below that leader's by
    the margin (both :class:`Leader`, the warm-up's replayed rounds included; no prior:
    :func:`period_prior` is the warm-up's)."""

    def __init__(self, rule, n_learners: int, n_simple: int):
        self.rule, self.n_learners = rule, n_learners
        self.lead, self.pick = Leader(n_simple), Leader(2)

    def predict(self, z) -> tuple:
        """``(played, memo)``: the memo goes back to :meth:`update` with the label."""
        memo = (self.lead.predict(z[self.n_learners :]), self.rule.predict(z))
        return self.pick.predict(memo), memo

    def update(self, z, y, memo) -> None:
        self.pick.update(memo, y)
        self.lead.update(z[self.n_learners :], y)
        self.rule.update(z, y)


class Pooled:
    """The played forecast of the horizons ``h >= 2``: follow the leader with a margin, on
    the evidence of the horizons ``1..h`` (``docs/forecasting.md``, "Which forecast is
    played").

    The candidates are the simple experts (the last value first, the incumbent at the
    start) and, once built, each horizon's combination; candidate ``j`` of horizon ``k``
    means the same forecasting rule at every horizon (the last value, a smoothed level, a
    seasonal naive of one period, the horizon's combination). The labels of horizon ``h``
    arrive ``h - 1`` rounds late, those of the shorter horizons sooner, so the challenge
    of horizon ``k`` sums the evidence of the horizons ``j <= k``: a challenger ``c``
    replaces the incumbent ``i`` once, for the squared and for the absolute loss,

        sum_{j <= k} (L_{j,i} - L_{j,c}) / (L_{j,i} / N_j) > margin,

    its lead counted in rounds of the incumbent's own mean loss at each horizon (a lead
    relative to the incumbent's accuracy, so that the margin means the same on a series
    whose last value is poor as on one where it is best). Losses are summed over the rounds
    on which both candidates existed: a candidate that appears when the experts are built
    (the combination, the seasonal naive of a period found then) is compared on the rounds
    after the build only, not on the warm-up's replay, on which the lags and the period
    were chosen. Among the challengers that pass, the one with the largest squared lead
    is played. Requiring both losses keeps the incumbent unless the challenger is better
    by the two measures the forecasts are scored by (MSE and MASE).
    """

    def __init__(self, keys: list, horizon: int, margin: float = MARGIN):
        self.margin = float(margin)
        self.H = horizon
        self.keys = list(keys)
        self.late = np.zeros(len(keys), bool)
        J = len(keys)
        self.full = np.zeros((2, horizon, J))  # every round (the early candidates)
        self.n_full = np.zeros(horizon)
        self.common = np.zeros((2, horizon, J))  # rounds after the build
        self.n_common = np.zeros(horizon)
        self.best = [0] * horizon
        self.built = False
        self._cols: dict = {}  # :meth:`index`'s columns by their keys

    def add(self, keys: list) -> None:
        """The candidates that appear at the build (compared after it only)."""
        for key in keys:
            if key in self.keys:
                continue
            self.keys.append(key)
            self.late = np.append(self.late, True)
            pad = np.zeros((2, self.H, 1))
            self.full = np.concatenate([self.full, pad], axis=2)
            self.common = np.concatenate([self.common, pad], axis=2)
        self.built = True

    def index(self, keys: list) -> np.ndarray:
        """The columns of ``keys`` (the same few lists every round: kept by their names)."""
        tk = tuple(keys)
        cols = self._cols.get(tk)
        if cols is None:
            cols = self._cols[tk] = np.array([self.keys.index(key) for key in keys])
        return cols

    def update(self, k: int, cols: np.ndarray, values: np.ndarray, y: float, after: bool) -> None:
        """Horizon ``k``'s label ``y`` of the candidates' forecasts ``values`` (columns
        ``cols``); ``after``: the forecasts were made after the build."""
        e = np.asarray(values, float) - y
        e2, ae = e * e, np.abs(e)
        if after:
            self.common[0, k, cols] += e2
            self.common[1, k, cols] += ae
            self.n_common[k] += 1
        early = ~self.late[cols]
        self.full[0, k, cols[early]] += e2[early]
        self.full[1, k, cols[early]] += ae[early]
        self.n_full[k] += 1

    def _lead(self, k: int, i: int, c: int) -> tuple:
        both = self.late[i] or self.late[c]
        L, N = (self.common, self.n_common) if both else (self.full, self.n_full)
        lead = [0.0, 0.0]
        for j in range(k + 1):
            if N[j] == 0:
                continue
            for q in (0, 1):
                mean = L[q, j, i] / N[j]
                if mean > 0:
                    lead[q] += (L[q, j, i] - L[q, j, c]) / mean
        return lead[0], lead[1]

    def refresh(self) -> None:
        """After every horizon's labels of a round: the incumbent of each horizon ``>= 2``
        gives way to the challenger with the largest squared lead among those that pass."""
        J = len(self.keys)
        for k in range(1, self.H):
            i, top, pick = self.best[k], self.margin, None
            for c in range(J):
                if c == i or (self.late[c] and not self.built):
                    continue
                sq, ab = self._lead(k, i, c)
                if sq > top and ab > self.margin:
                    top, pick = sq, c
            if pick is not None:
                self.best[k] = pick
