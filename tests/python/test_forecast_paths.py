"""The forecaster's per-round helpers against their definitions, bit for bit: the
intervals' local scale is ``np.median`` of the last errors, an expert's rows are its lags
column by column (``kernelstream/forecast/features.py``), and the leaders' losses are
sums of squared (and absolute) errors."""

from __future__ import annotations

import numpy as np
import pytest
from kernelstream.forecast import features as F
from kernelstream.forecast.intervals import HorizonConformal
from kernelstream.forecast.leader import Leader, Pooled


@pytest.mark.parametrize("window", [1, 4, 7, 100])
def test_the_local_scale_is_the_median_of_the_last_errors(window):
    rng = np.random.default_rng(window)
    conf = HorizonConformal(0.1, scale_window=window)
    assert conf.scale() is None
    errors = []
    for i in range(3 * window + 40):
        # ties and zeros (rounded errors), a NaN forecast once, heavy tails
        y = float(np.round(rng.standard_t(2), 1)) if i % 3 else 0.0
        f = float("nan") if i == 2 * window + 5 else 0.0
        conf.update(f, -1.0, 1.0, y, None)
        errors.append(abs(y - f))
        e = np.array(errors[-window:])
        d = float(np.median(e))
        if d <= 0.0:
            d = float(np.mean(e))
        want = d if d > 0.0 else 1.0  # the definition (a NaN median: 1)
        assert conf.scale() == want or (np.isnan(want) and np.isnan(conf.scale()))


def _rows_by_columns(kind, y, X, origins, k, p, s):
    """The definition: one column per lag, then the seasonal value, then ``X[o + k]``."""
    o = np.asarray(origins, dtype=np.intp)
    last = y[o - 1]
    if kind == "level":
        offset, cols = np.zeros(o.size), [y[o - j] for j in range(1, p + 1)]
    elif kind == "diff":
        offset, cols = last, [y[o - j] - y[o - j - 1] for j in range(1, p + 1)]
    else:
        offset = y[o + k - F.seasons_back(k, s) * s]
        cols = [y[o - j] - y[o - j - s] for j in range(1, p + 1)]
    if s is not None and kind != "sdiff":
        seasonal = y[o + k - F.seasons_back(k, s) * s]
        cols.append(seasonal - last if kind == "diff" else seasonal)
    Z = np.column_stack(cols)
    if X is not None:
        Z = np.hstack([Z, X[o + k]])
    return Z, offset


@pytest.mark.parametrize("kind", ["level", "diff", "sdiff"])
@pytest.mark.parametrize(
    "k, p, s, dx", [(0, 2, None, 0), (0, 5, 12, 2), (3, 3, 4, 1), (13, 8, 7, 0)]
)
def test_rows_are_the_lags_column_by_column(kind, k, p, s, dx):
    if kind == "sdiff" and s is None:
        pytest.skip("no seasonal difference without a period")
    rng = np.random.default_rng(p + k)
    y = rng.normal(size=200).cumsum() * 1e3
    X = rng.normal(size=(200, dx)) if dx else None
    lo = F.first_origin(kind, p, s, k)
    for origins in ([lo], [lo + 17], np.arange(lo, 200 - k)):
        Z, off = F.rows(kind, y, X, origins, k, p, s)
        Z0, off0 = _rows_by_columns(kind, y, X, origins, k, p, s)
        assert Z.shape == Z0.shape and Z.flags.c_contiguous
        assert np.array_equal(Z, Z0) and np.array_equal(off, off0)


def test_the_leaders_losses_are_sums_of_squared_and_absolute_errors():
    rng = np.random.default_rng(3)
    lead, pool = Leader(4, margin=0.5), Pooled(["a", "b", "c"], horizon=2)
    pool.add(["d"])
    cols = pool.index(["b", "d", "a"])
    assert cols.tolist() == [1, 3, 0] and pool.index(["b", "d", "a"]) is cols
    sq, ab, sq4 = np.zeros(4), np.zeros(4), np.zeros(4)
    for _ in range(50):
        z, y = rng.normal(size=4) * 10, float(rng.normal())
        lead.update(z, y)
        sq4 += (z - y) ** 2
        v = z[:3]
        pool.update(1, cols, v, y, after=True)
        sq[cols] += (v - y) ** 2
        ab[cols] += np.abs(v - y)
    assert np.array_equal(lead.loss, sq4)
    assert np.array_equal(pool.common[0, 1], sq) and np.array_equal(pool.common[1, 1], ab)
    early = [0, 1]  # "d" came at the build: not in the full-stream sums
    assert np.array_equal(pool.full[0, 1, early], sq[early]) and pool.full[0, 1, 3] == 0.0


def test_a_state_pickled_without_the_sorted_errors_gives_the_same_scale():
    import pickle

    conf = HorizonConformal(0.1, scale_window=5)
    for i, y in enumerate([3.0, 1.0, 4.0, 1.0, 5.0, 9.0, 2.0]):
        conf.update(0.0, -1.0, 1.0, y, None if i < 2 else 1.0)
    old = HorizonConformal.__new__(HorizonConformal)
    state = {k: v for k, v in vars(conf).items() if k not in ("sorted_errors", "n_nan")}
    old.__setstate__(pickle.loads(pickle.dumps(state)))
    assert old.scale() == conf.scale() == float(np.median([4.0, 1.0, 5.0, 9.0, 2.0]))
    assert old.half_width() == conf.half_width()
