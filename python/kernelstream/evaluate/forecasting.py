"""Forecast evaluation: progressive forecasts of a series scored per horizon, beside the
naive and seasonal-naive forecasts (``docs/forecasting.md``).

For horizon ``h = k + 1`` the forecast ``F[t, k]`` of ``y[t + k]`` is made after ``y[:t]``;
the errors are scored over the origins ``t >= start`` with ``t + k < n``, the same origins
for every method. MASE divides the MAE by the in-sample MAE of the one-step (seasonal)
naive forecast over the whole series, ``mean_{i >= m} |y[i] - y[i - m]|`` with ``m`` the
period (1 without one): Hyndman and Koehler (2006), *Another look at measures of forecast
accuracy*, eq. for ``q_t`` (sec. 3.4). Below 1: better than that naive forecast in sample.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass, field

import numpy as np

from .._validation import whole
from ..errors import InputError, ParameterError


def naive_forecasts(y, horizon: int) -> np.ndarray:
    """``N[t, k] = y[t - 1]`` (NaN for ``t = 0`` or ``t + k >= n``)."""
    y = np.asarray(y, float)
    n = y.size
    out = np.full((n, horizon), np.nan)
    for k in range(horizon):
        t = np.arange(1, n - k)
        out[t, k] = y[t - 1]
    return out


def seasonal_naive_forecasts(y, horizon: int, season: int) -> np.ndarray:
    """``S[t, k] = y[t + k - m s]`` with ``m = ceil((k + 1) / s)``, the same season of the
    last cycle seen (NaN where that index is negative or ``t + k >= n``)."""
    y = np.asarray(y, float)
    n = y.size
    out = np.full((n, horizon), np.nan)
    for k in range(horizon):
        back = -(-(k + 1) // season) * season
        t = np.arange(max(0, back - k), n - k)
        out[t, k] = y[t + k - back]
    return out


def mase_scale(y, season: int | None) -> float:
    """``mean_{i >= m} |y[i] - y[i - m]|``: the in-sample MAE of the (seasonal) naive."""
    y = np.asarray(y, float)
    m = season or 1
    if y.size <= m:
        raise InputError(f"MASE needs more than {m} values, got {y.size}")
    return float(np.mean(np.abs(y[m:] - y[:-m])))


@dataclass
class ForecastEvaluation:
    """Per-horizon scores of a forecaster and of the naive and seasonal-naive forecasts.

    ``scores[method][metric]`` is an array over horizons ``1..H``; methods
    ``"forecaster"``, ``"naive"`` and (with a period) ``"seasonal_naive"``; metrics
    ``"mae"``, ``"rmse"``, ``"mse"``, ``"mase"``, and for the forecaster ``"coverage"``
    and ``"width"`` (mean interval width) over origins ``t >= burn_in``.
    """

    y: np.ndarray
    forecasts: np.ndarray
    lower: np.ndarray
    upper: np.ndarray
    season: int | None
    start: int
    burn_in: int
    scores: dict = field(default_factory=dict)

    def table(self) -> str:
        """The scores as a plain-text table, one row per method and horizon."""
        lines = ["method          h      MAE      RMSE     MASE   coverage    width"]
        for method, sc in self.scores.items():
            for k in range(self.forecasts.shape[1]):
                cov = sc.get("coverage", [np.nan] * (k + 1))[k]
                wid = sc.get("width", [np.nan] * (k + 1))[k]
                lines.append(
                    f"{method:<15}{k + 1:>2} {sc['mae'][k]:>9.4g} {sc['rmse'][k]:>9.4g} "
                    f"{sc['mase'][k]:>8.3f} {cov:>10.3f} {wid:>9.4g}"
                )
        return "\n".join(lines)

    def plot(self, ax=None, h: int = 1, title=None):
        """The series, the horizon-``h`` forecasts and their intervals; returns the figure.

        Needs matplotlib (the ``plots`` extra)."""
        from .._optional import require

        matplotlib = require("matplotlib", "plotting")
        matplotlib.use("Agg", force=False)
        import matplotlib.pyplot as plt

        if ax is None:
            fig, ax = plt.subplots(figsize=(10, 4))
        else:
            fig = ax.figure
        H = self.forecasts.shape[1]
        if (
            isinstance(h, (bool, np.bool_))
            or not isinstance(h, numbers.Integral)
            or not 1 <= h <= H
        ):
            raise InputError(f"h must be a whole number in [1, {H}], got {h!r}")
        k = int(h) - 1
        n = self.y.size
        t = np.arange(n - k)
        target = t + k  # plotted at the time of the value forecast
        ax.plot(np.arange(n), self.y, color="black", lw=1, label="series")
        ax.plot(target, self.forecasts[t, k], lw=1, label=f"forecast, h={h}")
        lo, hi = self.lower[t, k], self.upper[t, k]
        ok = np.isfinite(lo) & np.isfinite(hi)
        ax.fill_between(target[ok], lo[ok], hi[ok], alpha=0.25, label="interval")
        ax.legend(loc="best")
        ax.set_xlabel("t")
        if title:
            ax.set_title(title)
        return fig


def _scores(F, y, start, scale) -> dict:
    n, H = F.shape
    out = {m: np.full(H, np.nan) for m in ("mae", "rmse", "mse", "mase")}
    for k in range(H):
        t = np.arange(start, n - k)
        if t.size == 0:
            continue
        e = y[t + k] - F[t, k]
        out["mae"][k] = float(np.mean(np.abs(e)))
        out["mse"][k] = float(np.mean(e * e))
        out["rmse"][k] = float(np.sqrt(out["mse"][k]))
        out["mase"][k] = out["mae"][k] / scale if scale > 0 else np.nan
    return out


def forecast(forecaster, y, X=None, season=None, burn_in=None) -> ForecastEvaluation:
    """Progressive forecasts of ``y`` by ``forecaster``, scored per horizon.

    Parameters
    ----------
    forecaster : Forecaster
        Run through the series (its state moves on); a fresh one is usual.
    y : array of shape (n,)
    X : array of shape (n, d) or None
        Exogenous rows, ``X[t]`` known at time ``t``.
    season : int or None
        The period of the seasonal-naive forecast and of the MASE scale; None: the
        forecaster's ``season_`` after the run (found or given), else none.
    burn_in : int or None
        Origins before it are left out of the coverage and width; None: 200 (a quarter of
        the series when shorter than 800 values).

    Returns
    -------
    ForecastEvaluation

    Examples
    --------
    >>> import numpy as np
    >>> import kernelstream as ks
    >>> t = np.arange(150); y = 5 + np.sin(2 * np.pi * t / 12) + 0.02 * t
    >>> ev = ks.evaluate.forecast(ks.Forecaster(horizon=2, learner=ks.TaylorAWV(degree=2, sigma=10.0)), y)
    >>> ev.season, sorted(ev.scores)
    (12, ['forecaster', 'naive', 'seasonal_naive'])
    >>> bool(ev.scores["forecaster"]["mase"][0] < ev.scores["naive"]["mase"][0])
    True
    """
    from ..forecast.forecaster import Forecaster

    if not isinstance(forecaster, Forecaster):
        raise ParameterError(
            f"forecaster must be a kernelstream.Forecaster, got {type(forecaster).__name__}"
        )
    if season is not None and whole("season", season) < 2:
        raise ParameterError(f"season must be None or a whole number >= 2, got {season!r}")
    if burn_in is not None:
        whole("burn_in", burn_in)
    F, lower, upper = forecaster._progressive(y, X)
    y = np.asarray(y, float)
    n, H = F.shape
    s = season if season is not None else getattr(forecaster, "season_", None)
    start = max(1, s or 1)
    scale = mase_scale(y, s)
    if burn_in is None:
        burn_in = 200 if n >= 800 else n // 4
    scores = {"forecaster": _scores(F, y, start, scale)}
    cov, wid = np.full(H, np.nan), np.full(H, np.nan)
    for k in range(H):
        t = np.arange(max(burn_in, start), n - k)
        if t.size:
            inside = (lower[t, k] <= y[t + k]) & (y[t + k] <= upper[t, k])
            cov[k] = float(np.mean(inside))
            wid[k] = float(np.mean(upper[t, k] - lower[t, k]))
    scores["forecaster"]["coverage"], scores["forecaster"]["width"] = cov, wid
    scores["naive"] = _scores(naive_forecasts(y, H), y, start, scale)
    if s:
        scores["seasonal_naive"] = _scores(seasonal_naive_forecasts(y, H, s), y, start, scale)
    return ForecastEvaluation(y, F, lower, upper, s, start, int(burn_in), scores)


__all__ = [
    "forecast",
    "ForecastEvaluation",
    "naive_forecasts",
    "seasonal_naive_forecasts",
    "mase_scale",
]
