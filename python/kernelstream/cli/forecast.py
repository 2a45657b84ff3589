"""``kernelstream forecast``: forecasts of the series of a CSV file (``docs/forecasting.md``).

The target column's series (one per ``--id`` value) runs through a
:class:`~kernelstream.Forecaster` each; the table of ``unique_id, ds, h, forecast, lower,
upper`` (the target's units) goes to ``--out`` (written atomically) or stdout, and
``--plot`` draws the first series with its horizon-1 forecasts and intervals.
"""

from __future__ import annotations

import sys

from kernelstream.errors import InputError

from .common import check_figure, check_outputs, count
from .notes import check_extras


def add_parser(sub) -> None:
    """The ``forecast`` subcommand on the CLI's subparsers."""
    f = sub.add_parser("forecast", help="online multi-horizon forecasts of a CSV column")
    f.add_argument("--csv", required=True, help="the CSV file")
    f.add_argument("--target", required=True, help="the column to forecast")
    f.add_argument("--time", help="the time column (datetimes add calendar features)")
    f.add_argument("--id", help="the series id column (one forecaster per series)")
    f.add_argument("--horizon", type=count, required=True, help="forecast 1..H steps ahead")
    f.add_argument("--season", type=count, help="the seasonal period (default: found)")
    f.add_argument("--out", help="write the forecasts to this CSV file (default: stdout)")
    f.add_argument("--plot", help="draw the first series' forecasts (matplotlib) to this file")
    f.set_defaults(func=cmd_forecast)


def _names(args) -> tuple:
    """``(target, time, id)`` column names of the table given to ``forecast_panel``: the
    file's own (so that its errors name them), a free name for one not given."""
    given = [c for c in (args.target, args.time, args.id) if c is not None]
    if len(set(given)) < len(given):
        raise InputError("--target, --time and --id must name different columns")

    def free(name):
        while name in given:
            name += "_"
        return name

    return args.target, args.time or free("ds"), args.id or free("unique_id")


def _table(args):
    from kernelstream._optional import require

    pd = require("pandas", "kernelstream forecast")
    try:
        frame = pd.read_csv(args.csv)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read {args.csv} as CSV: {exc}") from None
    for flag, col in (("--target", args.target), ("--time", args.time), ("--id", args.id)):
        if col is not None and col not in frame.columns:
            raise InputError(
                f"{flag} {col!r}: no such column in {args.csv} ({list(frame.columns)})"
            )
    target, time, uid = _names(args)
    y = pd.to_numeric(frame[args.target], errors="coerce")
    if y.isna().any() and not frame[args.target].isna().equals(y.isna()):
        raise InputError(f"--target {args.target!r} has values that are not numbers")
    out = pd.DataFrame({target: y.astype(float)})
    out[uid] = frame[args.id].astype(str) if args.id else "series"
    if args.time:
        ds = frame[args.time]
        if not pd.api.types.is_numeric_dtype(ds):
            try:
                ds = pd.to_datetime(ds)
            except (ValueError, TypeError):
                raise InputError(
                    f"--time {args.time!r}: values are neither numbers nor dates"
                ) from None
        out[time] = ds.to_numpy()
    else:
        out[time] = out.groupby(uid).cumcount().to_numpy()
    return out


def cmd_forecast(args) -> int:
    from kernelstream import forecast_panel
    from kernelstream._files import atomic_write

    check_outputs(("--out", args.out), ("--plot", args.plot))
    check_extras(args)
    check_figure("--plot", args.plot)
    frame = _table(args)
    target, time, uid = _names(args)
    params = {} if args.season is None else {"season": args.season}
    res = forecast_panel(
        frame, id_col=uid, time_col=time, target=target, horizon=args.horizon, **params
    )
    if args.out:
        with atomic_write(args.out, "w") as fh:
            res.to_csv(fh, index=False)
    else:
        res.to_csv(sys.stdout, index=False)
    if args.plot:
        _plot(frame[[uid, time, target]].set_axis(["unique_id", "ds", "y"], axis=1), res, args.plot)
    return 0


def _plot(frame, res, path) -> None:
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    from kernelstream._files import save_figure

    uid = res["unique_id"].iloc[0]
    s = frame[frame["unique_id"] == uid]
    r = res[(res["unique_id"] == uid) & (res["h"] == 1)]
    fig, ax = plt.subplots(figsize=(10, 4))
    ax.plot(s["ds"], s["y"], color="black", lw=1, label=str(uid))
    ax.plot(r["ds"], r["forecast"], lw=1, label="forecast, h=1")
    ok = r["lower"].abs().lt(float("inf")) & r["upper"].abs().lt(float("inf"))
    ax.fill_between(r["ds"][ok], r["lower"][ok], r["upper"][ok], alpha=0.25, label="interval")
    ax.legend(loc="best")
    save_figure(fig, path)
    plt.close(fig)
