"""``forecast_panel``: one Forecaster per series of a long table, locally or on Dask.

The table is split by series on the client; each task carries the arrays of a few series
only, so a Dask worker holds the series it forecasts, never the table
(``docs/forecasting.md``, "Many series"). Every series' forecaster is seeded and
independent, so the results do not depend on the executor or on the number of workers.
"""

from __future__ import annotations

import numpy as np

from ..errors import InputError, ParameterError

#: series per task (fewer tasks: less scheduling; more: finer balance)
CHUNK = 16
COLUMNS = ["unique_id", "ds", "h", "forecast", "lower", "upper"]


def calendar(ds) -> np.ndarray | None:
    """Calendar features of datetime stamps, or None for other stamps: ``sin``/``cos`` of
    the hour of the day, the day of the week and the month of the year, each where the
    series' median step is finer than that cycle (hourly data: all three)."""
    ds = np.asarray(ds)
    if not np.issubdtype(ds.dtype, np.datetime64) or ds.size < 2:
        return None
    sec = ds.astype("datetime64[s]").astype(np.int64).astype(float)
    step = float(np.median(np.diff(sec)))
    cols = []
    days = sec / 86400.0
    if 0 < step < 86400:
        cols.append(2 * np.pi * (days % 1.0))
    if 0 < step < 7 * 86400:
        cols.append(2 * np.pi * ((days + 3) % 7) / 7)  # 1970-01-01 was a Thursday
    if 0 < step < 365 * 86400 / 12 * 1.5:
        month = ds.astype("datetime64[M]").astype(np.int64) % 12
        cols.append(2 * np.pi * month / 12)
    if not cols:
        return None
    return np.column_stack([f(c) for c in cols for f in (np.sin, np.cos)])


def _future_stamps(ds, h: int):
    """``h`` stamps after the last, at the series' median step (whole months for stamps
    at month starts); an :class:`InputError` where they pass the largest stamp of the
    column's type (integers and datetimes would wrap around)."""
    try:
        out = _next_stamps(np.asarray(ds), h)
    except OverflowError:  # (newer NumPy checks datetime arithmetic; older wraps)
        out = None
    if out is None or (out.size and not (out[0] > ds[-1] and np.all(out[1:] > out[:-1]))):
        raise InputError(
            f"the {h} stamps after the last one ({ds[-1]!s}) pass the largest value "
            f"of the stamps' type ({np.asarray(ds).dtype}): give the future rows in the table"
        )
    return out


def _next_stamps(ds, h: int):
    if np.issubdtype(ds.dtype, np.datetime64):
        if ds.size < 2:
            return ds[-1] + np.timedelta64(1, "D") * np.arange(1, h + 1)
        months = ds.astype("datetime64[M]")
        if np.all(months.astype(ds.dtype) == ds):  # month starts: step by whole months
            m = int(round(float(np.median(np.diff(months).astype(np.int64)))))
            if m >= 1:
                return (months[-1] + m * np.arange(1, h + 1)).astype(ds.dtype)
        unit = np.datetime_data(ds.dtype)[0]
        ticks = int(np.median(np.diff(ds).astype(np.int64)))
        return ds[-1] + np.arange(1, h + 1) * ticks * np.timedelta64(1, unit)  # type: ignore[call-overload]
    step = np.median(np.diff(ds)) if ds.size >= 2 else 1
    step = step.astype(ds.dtype) if hasattr(step, "astype") else step
    return ds[-1] + step * np.arange(1, h + 1)


def forecast_series(task) -> dict:
    """Forecasts of one chunk of series (a task): per series, the progressive forecasts
    of every observed value (its stamp, ``h``) and the forecasts of the next ``horizon``
    values after the last observed one."""
    from .forecaster import Forecaster

    horizon, params, series = task
    parts = []
    for uid, ds, y, X in series:
        observed = np.isfinite(y)
        n = int(np.argmin(observed)) if not observed.all() else y.size
        if n < 2 or observed[n:].any():
            where = (
                f"it is missing at {ds[n]!s} and observed after it"
                if observed[n:].any()
                else f"it has {n} before its first missing one"
            )
            raise InputError(
                f"series {uid!r}: the target needs 2 or more observed values, then only "
                f"missing ones (the future rows, with their exogenous values); {where}"
            )
        if X is not None and n == y.size:
            raise InputError(
                f"series {uid!r}: exogenous columns need future rows (a missing target) "
                "with their values known"
            )
        fut_ds = ds[n : n + horizon] if n < y.size else _future_stamps(ds, horizon)
        fut = fut_ds.size
        stamps = np.concatenate([ds[:n], fut_ds])
        cal = calendar(stamps)
        if X is not None:
            X = X[: n + fut]
        if cal is not None:
            X = cal if X is None else np.hstack([X, cal])
        fc = Forecaster(horizon=horizon, **params)
        F, lo, hi = fc._progressive(y[:n], None if X is None else X[:n])
        t, k = np.nonzero(np.isfinite(F))
        Xf = None if X is None else X[n:]
        f1 = fc.forecast(fut, Xf)
        l1, u1 = fc.forecast_interval(fut, Xf)
        parts.append(
            dict(
                unique_id=np.repeat(np.array([uid], dtype=object), t.size + fut),
                ds=np.concatenate([ds[t + k], fut_ds]),
                h=np.concatenate([k + 1, np.arange(1, fut + 1)]),
                forecast=np.concatenate([F[t, k], f1]),
                lower=np.concatenate([lo[t, k], l1]),
                upper=np.concatenate([hi[t, k], u1]),
            )
        )
    return {c: np.concatenate([p[c] for p in parts]) for c in COLUMNS} if parts else {}


def _split(frame, id_col, time_col, target):
    for c in (id_col, time_col, target):
        if c not in frame.columns:
            raise InputError(f"the table has no column {c!r} (columns: {list(frame.columns)})")
    from pandas.api.types import is_numeric_dtype

    exog = [c for c in frame.columns if c not in (id_col, time_col, target)]
    bad = [c for c in exog if not is_numeric_dtype(frame[c].dtype)]
    if bad:
        raise InputError(f"exogenous columns must be numeric, not {bad}")
    for c in (id_col, time_col):
        missing = frame[c].isna().to_numpy()
        if missing.any():
            raise InputError(
                f"column {c!r} is missing at {int(missing.sum())} rows (the first at "
                f"position {int(np.argmax(missing))}): each row needs its series and stamp"
            )
    try:
        yv = frame[target].to_numpy(dtype=float)
    except (TypeError, ValueError):
        raise InputError(f"the target column {target!r} must be numeric") from None
    series = []
    for uid, idx in frame.groupby(id_col, sort=True).indices.items():
        sub = frame.iloc[idx]
        try:
            order = np.argsort(sub[time_col].to_numpy(), kind="stable")
        except TypeError:
            raise InputError(
                f"series {uid!r}: the stamps of {time_col!r} cannot be ordered (values of "
                "different types)"
            ) from None
        ds = sub[time_col].to_numpy()[order]
        if ds.size > 1 and not np.all(ds[1:] > ds[:-1]):
            raise InputError(f"series {uid!r}: the stamps of {time_col!r} repeat")
        X = sub[exog].to_numpy(dtype=float)[order] if exog else None
        series.append((uid, ds, yv[idx][order], X))
    return series


def forecast_panel(
    frame,
    id_col: str = "unique_id",
    time_col: str = "ds",
    target: str = "y",
    horizon: int = 1,
    executor: str = "local",
    scheduler=None,
    **forecaster_params,
):
    """Forecasts of every series of a long table, one :class:`Forecaster` per series.

    Each series (the rows of one ``id_col`` value, in ``time_col`` order) runs through its
    own forecaster. Columns other than the id, time and target are exogenous (numeric,
    known at forecast time); datetime stamps add calendar features (hour, day of week,
    month). Rows at a series' end with a missing target are its future: their exogenous
    values are used for the forecasts after the last observed value (required when the
    table has exogenous columns).

    Parameters
    ----------
    frame : pandas.DataFrame
    id_col, time_col, target : str
    horizon : int, default 1
    executor : {"local", "dask"}
        ``"dask"``: the tasks (16 series each, only their rows) run on the cluster at
        ``scheduler`` (an address or a ``distributed.Client``).
    scheduler : str, Client or None
    **forecaster_params
        Passed to every :class:`Forecaster` (``learner``, ``lags``, ``season``, ``alpha``).

    Returns
    -------
    pandas.DataFrame
        ``unique_id, ds, h, forecast, lower, upper``: for every observed value, the
        forecasts of it made ``h`` steps before (``h = 1..horizon``), then the forecasts of
        the ``horizon`` values after the series' last observed value (stamps after the
        last), sorted by series as in the input's id order.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> import kernelstream as ks
    >>> t = np.arange(80)
    >>> frame = pd.DataFrame({"unique_id": np.repeat(["a", "b"], 80), "ds": np.tile(t, 2),
    ...                       "y": np.concatenate([np.sin(t / 3), 0.1 * t])})
    >>> out = ks.forecast_panel(frame, horizon=2, learner=ks.TaylorAWV(degree=2, sigma=10.0))
    >>> list(out.columns)
    ['unique_id', 'ds', 'h', 'forecast', 'lower', 'upper']
    >>> out[out.ds >= 80].shape[0]  # the future: 2 values of 2 series
    4
    """
    from .._optional import require
    from .forecaster import Forecaster

    pd = require("pandas", "forecast_panel")
    if not isinstance(frame, pd.DataFrame):
        raise InputError(f"frame must be a pandas DataFrame, got {type(frame).__name__}")
    if executor not in ("local", "dask"):
        raise ParameterError(f'executor must be "local" or "dask", got {executor!r}')
    Forecaster(horizon=horizon, **forecaster_params)  # the parameters, checked once here
    series = _split(frame, id_col, time_col, target)
    tasks = [
        (horizon, forecaster_params, series[i : i + CHUNK]) for i in range(0, len(series), CHUNK)
    ]
    if executor == "local":
        results = [forecast_series(t) for t in tasks]
    else:
        from ..executors import run_tasks

        if scheduler is None:
            raise ParameterError('executor="dask" needs scheduler (an address or a Client)')
        results = run_tasks(forecast_series, tasks, executor="dask", scheduler=scheduler)
    results = [r for r in results if r]
    if not results:
        return pd.DataFrame({c: [] for c in COLUMNS})
    return pd.DataFrame({c: np.concatenate([r[c] for r in results]) for c in COLUMNS})
