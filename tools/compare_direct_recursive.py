"""Direct against recursive multi-horizon forecasts, on the series of bench_forecast.py.

Direct (what ``Forecaster`` does): one learner set per horizon. Recursive: the horizon-1
forecaster only, its forecast appended to the history and fed back for the next step
(the learners' and the rule's predictions are pure, so the state is not touched). Both
are the same forecaster otherwise; the table gives MASE at h = 1, 3, 12 (h = 1 is the
same for both).

    python tools/compare_direct_recursive.py [--series NAME ...]
"""

from __future__ import annotations

import argparse
import sys

import kernelstream as ks
import numpy as np
from kernelstream.evaluate.forecasting import mase_scale
from kernelstream.forecast import features as F

sys.path.insert(0, __file__.rsplit("/", 1)[0])
import bench_forecast as B  # noqa: E402

H = 12


def recursive_path(fc, h: int) -> np.ndarray:
    """The horizon-1 forecaster's forecasts of the next ``h`` values, each fed back."""
    y = list(fc._y.view())
    lev = fc._level
    out = []
    for _ in range(h):
        arr = np.asarray(y, float)
        o = arr.size
        preds = []
        if fc._built:
            for kind, lr in zip(fc._kinds, fc._experts[0]):
                Z, off = F.rows(kind, arr, None, [o], 0, fc.lags_, fc.season_)
                preds.append(lr.predict_one(Z[0]) + off[0])
        z, c, sc = fc._expert_z(o, 0, preds, lev, arr)
        g = fc._agg[0].predict(z)[0] if fc._built else fc._agg0[0].predict(z)
        f = c + sc * g
        out.append(f)
        y.append(f)
        lev = F.ses_step(lev, f)
    return np.array(out)


def recursive(y) -> np.ndarray:
    n = y.size
    fc = ks.Forecaster(horizon=1)
    R = np.full((n, H), np.nan)
    for t in range(n):
        if t:
            h = min(H, n - t)
            R[t, :h] = recursive_path(fc, h)
        fc.learn_one(y[t])
    return R


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    names = [k for k in B.SERIES if k != "syn_exogenous"]  # recursive needs future drivers
    ap.add_argument("--series", nargs="*", default=names, choices=names)
    args = ap.parse_args(argv)
    print("| series | MASE h=1 | direct h=3 | recursive h=3 | direct h=12 | recursive h=12 |")
    print("|---|---:|---:|---:|---:|---:|")
    for name in args.series:
        y, _, s = B.SERIES[name]()
        start, scale = max(1, s or 1), mase_scale(y, s)
        D = ks.Forecaster(horizon=H).progressive_forecast(y)
        R = recursive(y)
        md, mr = B.scores(D, y, start, scale)[1], B.scores(R, y, start, scale)[1]
        print(
            f"| {name} | {md[0]:.3f} | {md[2]:.3f} | {mr[2]:.3f} | {md[11]:.3f} | {mr[11]:.3f} |",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
