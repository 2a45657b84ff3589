"""Forecaster, evaluate.forecast, forecast_panel and ``kernelstream forecast``: semantics
(no look-ahead, intervals before labels, the whole-stream path equal to the online
rounds), the naive/seasonal-naive/MASE definitions, input errors."""

from __future__ import annotations

import pickle

import kernelstream as ks
import numpy as np
import pytest
from kernelstream.evaluate.forecasting import (
    mase_scale,
    naive_forecasts,
    seasonal_naive_forecasts,
)
from kernelstream.forecast import features as F


def _series(n=110, seed=0):
    rng = np.random.default_rng(seed)
    t = np.arange(n)
    return 0.02 * t + np.sin(2 * np.pi * t / 12) + 0.2 * rng.normal(size=n)


def _loop(fc, y, X=None):
    """The online rounds: forecast (and its interval), then learn, round by round."""
    n, H = y.size, fc.horizon
    out = np.full((3, n, H), np.nan)
    for t in range(n):
        h = min(H, n - t)
        if t:
            Xf = None if X is None else X[t : t + h]
            out[0, t, :h] = fc.forecast(h, Xf)
            out[1, t, :h], out[2, t, :h] = fc.forecast_interval(h, Xf)
        fc.learn_one(y[t], None if X is None else X[t])
    return out


@pytest.mark.slow
@pytest.mark.parametrize("H, exog", [(1, False), (3, False), (2, True)])
def test_progressive_forecast_equals_the_online_loop(H, exog):
    y = _series()
    X = np.random.default_rng(1).normal(size=(y.size, 2)) if exog else None
    a, b = ks.Forecaster(horizon=H), ks.Forecaster(horizon=H)
    got = np.array(a._progressive(y, X))
    want = _loop(b, y, X)
    assert np.array_equal(np.isnan(got), np.isnan(want))
    ok = np.isfinite(want)
    # the bound: the core's whole-stream call against its own rounds (docs/forecasting.md)
    assert np.max(np.abs(got[ok] - want[ok])) <= 1e-9 * (1 + np.max(np.abs(y)))
    assert np.isnan(got[0, 0]).all()  # nothing seen at t = 0
    for k in range(H):  # NaN exactly where t + k >= n
        assert np.isnan(got[0, y.size - k :, k]).all()
        assert np.isfinite(got[0, 1 : y.size - k, k]).all()
    if not exog:  # and both end in the same state
        assert np.allclose(a.forecast(), b.forecast(), rtol=0, atol=1e-9)


@pytest.mark.slow
@pytest.mark.parametrize("j", [30, 70, 100])
def test_a_value_changes_no_forecast_or_interval_made_before_it(j):
    y = _series()
    H = 3
    base = np.array(ks.Forecaster(horizon=H)._progressive(y))
    z = y.copy()
    z[j] += 5.0
    pert = np.array(ks.Forecaster(horizon=H)._progressive(z))
    n = y.size
    t = np.arange(n)[:, None] + np.zeros(H, int)
    before = t <= j  # made after y[:t], which does not hold y[j] (targets y[j] included)
    assert np.array_equal(base[:, before], pert[:, before], equal_nan=True)
    after = (t > j) & np.isfinite(base[0])
    assert np.any(base[0][after] != pert[0][after])  # the test can fail: y[j] is used later


@pytest.mark.slow
def test_an_exogenous_row_is_used_only_from_its_own_time():
    y = _series()
    X = np.random.default_rng(2).normal(size=(y.size, 1))
    H, j = 3, 80
    base = np.array(ks.Forecaster(horizon=H)._progressive(y, X))
    X2 = X.copy()
    X2[j] += 3.0
    pert = np.array(ks.Forecaster(horizon=H)._progressive(y, X2))
    t = np.arange(y.size)[:, None]
    k = np.arange(H)[None, :]
    known = t + k < j  # the row X[j] is known only from forecasts of y[j] on
    assert np.array_equal(base[:, known], pert[:, known], equal_nan=True)
    assert not np.array_equal(base[0, j - 1 : j + 1], pert[0, j - 1 : j + 1], equal_nan=True)


def test_naive_seasonal_naive_and_mase_follow_their_definitions():
    rng = np.random.default_rng(3)
    y = rng.normal(size=30).cumsum()
    H, s = 5, 4
    N, S = naive_forecasts(y, H), seasonal_naive_forecasts(y, H, s)
    for t in range(30):
        for k in range(H):
            # naive: the last value seen, y[t - 1]
            want = y[t - 1] if t >= 1 and t + k < 30 else np.nan
            assert np.array_equal(N[t, k], want, equal_nan=True)
            # seasonal naive: the value one or more whole seasons before y[t + k], already seen
            m = 1
            while t + k - m * s > t - 1:
                m += 1
            i = t + k - m * s
            want = y[i] if i >= 0 and t + k < 30 else np.nan
            assert np.array_equal(S[t, k], want, equal_nan=True)
    # Hyndman and Koehler (2006): scale = mean over i = m..n-1 of |y_i - y_{i-m}|
    ref = sum(abs(y[i] - y[i - s]) for i in range(s, 30)) / (30 - s)
    assert mase_scale(y, s) == pytest.approx(ref, rel=1e-14)
    assert mase_scale(y, None) == pytest.approx(np.mean(np.abs(np.diff(y))), rel=1e-14)


@pytest.mark.slow
def test_evaluate_forecast_scores_the_progressive_forecasts():
    y = _series(120)
    ev = ks.evaluate.forecast(ks.Forecaster(horizon=2), y, season=12)
    F_, lo, hi = ks.Forecaster(horizon=2)._progressive(y)
    scale = mase_scale(y, 12)
    for k in range(2):
        t = np.arange(12, y.size - k)
        e = y[t + k] - F_[t, k]
        assert ev.scores["forecaster"]["mae"][k] == pytest.approx(np.mean(np.abs(e)), rel=1e-12)
        assert ev.scores["forecaster"]["rmse"][k] == pytest.approx(
            np.sqrt(np.mean(e * e)), rel=1e-12
        )
        assert ev.scores["forecaster"]["mase"][k] == pytest.approx(np.mean(np.abs(e)) / scale)
        tb = np.arange(ev.burn_in, y.size - k)
        cov = np.mean((lo[tb, k] <= y[tb + k]) & (y[tb + k] <= hi[tb, k]))
        assert ev.scores["forecaster"]["coverage"][k] == pytest.approx(cov)
        en = y[t + k] - y[t - 1]
        assert ev.scores["naive"]["mae"][k] == pytest.approx(np.mean(np.abs(en)), rel=1e-12)
    assert "seasonal_naive" in ev.scores and "h" in ev.table()


def test_evaluate_forecast_refuses_bad_arguments_before_running():
    y = _series(60)
    fc = ks.Forecaster(horizon=2, learner=ks.TaylorAWV(degree=2))
    for kw in (dict(season=0), dict(season=1), dict(season=1.5), dict(season=True),
               dict(burn_in=-1), dict(burn_in=float("nan"))):  # fmt: skip
        with pytest.raises(ks.ParameterError):
            ks.evaluate.forecast(fc, y, **kw)
    with pytest.raises(ks.ParameterError, match="Forecaster"):
        ks.evaluate.forecast(ks.TaylorAWV(), y)
    assert fc.n_seen == 0  # nothing ran
    ev = ks.evaluate.forecast(fc, y)
    pytest.importorskip("matplotlib")
    for h in (0, 3, 1.0, True):
        with pytest.raises(ks.InputError, match=r"h must be a whole number in \[1, 2\]"):
            ev.plot(h=h)


def test_interval_scores_are_those_of_labels_seen_before():
    from kernelstream.forecast.intervals import HorizonConformal

    c = HorizonConformal(alpha=0.5, gamma=0.0)
    assert c.half_width() == (np.inf, None)  # no score yet, no scale
    c.update(0.0, -10, 10, 5.0, None)  # made before any error: not scored
    assert c.half_width() == (np.inf, 5.0) and c.n_scored == 1
    for v in (1.0, 2.0, 3.0):
        c.update(0.0, -10, 10, v, 1.0)
    # split conformal's rank: ceil(0.5 * 4) = 2nd smallest of the scores {1, 2, 3}, times
    # the local scale, the median of the absolute errors seen (5, 1, 2, 3: 2.5)
    assert c.half_width() == (5.0, 2.5)


def test_interval_scores_are_divided_by_the_scale_they_were_made_with():
    # locally weighted scores: |y - f| / d with d the median of the errors seen before the
    # forecast; the next half-width is the scores' quantile times the current median
    from kernelstream.forecast.intervals import HorizonConformal

    rng = np.random.default_rng(4)
    c = HorizonConformal(alpha=0.2, gamma=0.01, window=30, scale_window=7)
    errors, scores, alpha_t = [], [], 0.2
    for t in range(60):
        q, d = c.half_width()
        med = float(np.median(np.abs(errors[-7:]))) if errors else None
        assert d == (pytest.approx(med, rel=1e-15) if errors else None)
        if len(scores) >= 9:
            s = np.sort(scores[-30:])
            rank = int(np.ceil((1 - alpha_t) * (s.size + 1)))
            assert q == pytest.approx(s[rank - 1] * med if rank <= s.size else np.inf)
        elif d is None:
            assert q == np.inf
        f, v = 0.0, (1.0 + 4.0 * (t >= 30)) * rng.normal()
        c.update(f, f - q, f + q, v, d)
        alpha_t += 0.01 * (0.2 - float(not (-q <= v <= q)))
        errors.append(abs(v))
        if d is not None:
            scores.append(abs(v) / d)
    assert c.alpha_t == pytest.approx(alpha_t)


def test_season_and_lags_found_on_the_warm_up():
    t = np.arange(48)
    assert F.find_season(np.sin(2 * np.pi * t / 12) + 0.01 * t) == 12
    assert F.find_season(np.random.default_rng(0).normal(size=48)) is None
    # Durbin-Levinson equals the last coefficient of the Yule-Walker system of order k
    z = np.random.default_rng(1).normal(size=200).cumsum()
    r = np.concatenate([[1.0], F.acf(z, 5)])
    p = F.pacf(z, 5)
    for k in range(1, 6):
        R = np.array([[r[abs(i - j)] for j in range(k)] for i in range(k)])
        assert p[k - 1] == pytest.approx(np.linalg.solve(R, r[1 : k + 1])[-1], abs=1e-12)


def test_bad_input_raises_and_leaves_the_forecaster_as_it_was():
    fc = ks.Forecaster(horizon=2)
    with pytest.raises(ks.InputError, match="no value"):
        fc.forecast()
    for bad in (np.nan, "a", None, True):
        with pytest.raises(ks.InputError):
            fc.learn_one(bad)
    assert fc.n_seen == 0
    fc.learn_one(1.0)
    with pytest.raises(ks.InputError, match="exogenous"):
        fc.learn_one(2.0, [1.0])
    with pytest.raises(ks.InputError, match="h must be"):
        fc.forecast(3)
    with pytest.raises(ks.InputError, match="X_future"):
        fc.forecast(1, [[1.0]])
    assert fc.n_seen == 1 and fc.forecast().tolist() == [1.0, 1.0]
    with pytest.raises(ks.InputError, match="not finite"):
        ks.Forecaster().progressive_forecast([1.0, np.inf])
    ex = ks.Forecaster()
    ex.learn_one(1.0, [0.0, 1.0])
    with pytest.raises(ks.InputError, match="missing"):
        ex.forecast()
    with pytest.raises(ks.InputError, match="columns"):
        ex.learn_one(1.0, [0.0])
    assert ex.n_seen == 1


def test_values_past_the_limit_are_refused_before_any_change():
    from kernelstream.forecast.limits import Y_LIMIT

    assert Y_LIMIT == ks._core.Y_MAX / 2  # a difference of two values stays within Y_MAX
    y = _series(60)
    fc = ks.Forecaster(horizon=2)
    for v in y[:47]:  # the next value builds the experts
        fc.learn_one(v)
    before = pickle.dumps(fc)
    for bad in (2 * Y_LIMIT, -1e300):
        with pytest.raises(ks.InputError, match="too large"):
            fc.learn_one(bad)
        assert pickle.dumps(fc) == before
    with pytest.raises(ks.InputError, match=r"y\[3\] = .* too large"):
        ks.Forecaster().progressive_forecast([1.0, 2.0, 3.0, -Y_LIMIT * 1.5])
    # at the limit, the largest difference is 2 Y_LIMIT = Y_MAX: the learners take it
    edge = np.where(np.arange(60) % 2, Y_LIMIT, -Y_LIMIT)
    assert np.isfinite(ks.Forecaster().progressive_forecast(edge)[1:]).all()


class _RefusesAt:
    """A regressor that raises on its ``n``-th learned row (counted over every copy)."""

    calls = [0]

    def __init__(self, n=10):
        self.n = n
        self.inner = ks.TaylorAWV(degree=2)

    def get_params(self):
        return {"n": self.n}

    def predict_one(self, x):
        return self.inner.predict_one(x)

    def learn_one(self, x, y):
        self.calls[0] += 1
        if self.calls[0] == self.n:
            raise ks.NumericalError("refused")
        self.inner.learn_one(x, y)


def test_a_learner_that_fails_at_the_build_leaves_the_forecaster_as_it_was():
    y = _series(60) / 3
    fc = ks.Forecaster(learner=_RefusesAt(10), horizon=2, lags=2)
    for v in y[:47]:
        fc.learn_one(v)
    before, f0 = pickle.dumps(fc), fc.forecast()
    _RefusesAt.calls[0] = 0
    with pytest.raises(ks.NumericalError, match="refused"):
        fc.learn_one(y[47])  # the build replays the warm-up through the learners
    assert pickle.dumps(fc) == before and np.array_equal(fc.forecast(), f0)
    fc.learn_one(y[47])  # the count is past 10: the build succeeds now
    fresh = ks.Forecaster(learner=_RefusesAt(10), horizon=2, lags=2)
    _RefusesAt.calls[0] = 11
    for v in y[:48]:
        fresh.learn_one(v)
    assert fc.n_seen == fresh.n_seen == 48
    assert np.array_equal(fc.forecast(), fresh.forecast())


@pytest.mark.parametrize(
    "kw",
    [dict(horizon=0), dict(horizon=1.5), dict(lags="x"), dict(lags=0), dict(season=1),
     dict(alpha=1.0), dict(alpha=0), dict(learner=object())],
)  # fmt: skip
def test_bad_parameters_raise_parameter_error(kw):
    with pytest.raises(ks.ParameterError):
        ks.Forecaster(**kw)


def test_a_pickled_forecaster_continues_the_same():
    y = _series(80)
    fc = ks.Forecaster(horizon=2)
    fc.progressive_forecast(y[:70])
    other = pickle.loads(pickle.dumps(fc))
    for v in y[70:]:
        fc.learn_one(v)
        other.learn_one(v)
    assert np.array_equal(fc.forecast(), other.forecast())


def test_any_learner_underneath_is_cloned_per_expert():
    lr = ks.TaylorAWV(degree=2)
    fc = ks.Forecaster(learner=lr, horizon=2, season=12, lags=3)
    fc.progressive_forecast(_series(80) / 3)
    assert lr.n_seen == 0  # the object passed in is not trained
    assert fc.season_ == 12 and fc.lags_ == 3
    assert len({id(e) for exps in fc._experts for e in exps}) == 6  # 2 horizons x 3 kinds


def test_panel_rows_are_each_series_own_forecasts():
    pd = pytest.importorskip("pandas")
    a, b = _series(70, 4), _series(60, 5) * 2
    frame = pd.DataFrame(
        {"unique_id": ["b"] * 60 + ["a"] * 70, "ds": np.r_[np.arange(60), np.arange(70)],
         "y": np.r_[b, a]}
    )  # fmt: skip
    out = ks.forecast_panel(frame.sample(frac=1, random_state=0), horizon=2)
    assert list(out.columns) == ["unique_id", "ds", "h", "forecast", "lower", "upper"]
    F_ = ks.Forecaster(horizon=2).progressive_forecast(a)
    rows = out[(out.unique_id == "a") & (out.h == 2) & (out.ds < 70)]
    assert np.array_equal(rows.forecast.to_numpy(), F_[rows.ds.to_numpy() - 1, 1])
    fut = out[(out.unique_id == "a") & (out.ds >= 70)]
    assert fut.ds.tolist() == [70, 71] and fut.h.tolist() == [1, 2]
    assert out.unique_id.iloc[0] == "a"  # sorted by id


def test_panel_input_errors():
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame({"unique_id": [1, 1, 1], "ds": [0, 1, 1], "y": [1.0, 2.0, 3.0]})
    with pytest.raises(ks.InputError, match="repeat"):
        ks.forecast_panel(frame)
    with pytest.raises(ks.InputError, match="no column"):
        ks.forecast_panel(frame, target="z")
    with pytest.raises(ks.ParameterError, match="executor"):
        ks.forecast_panel(frame, executor="ray")
    frame = pd.DataFrame({"unique_id": 1, "ds": np.arange(5), "y": 1.0, "x": 2.0})
    with pytest.raises(ks.InputError, match="future rows"):
        ks.forecast_panel(frame)


def test_panel_refuses_what_it_would_drop_or_wrap():
    pd = pytest.importorskip("pandas")
    t = np.arange(30)
    frame = pd.DataFrame({"unique_id": np.repeat(["a", "b"], 30), "ds": np.tile(t, 2),
                          "y": np.sin(np.tile(t, 2) / 3)})  # fmt: skip
    ok = ks.forecast_panel(frame, horizon=2, learner=ks.TaylorAWV(degree=2))
    assert set(ok.unique_id) == {"a", "b"}
    # a row without its series or stamp (pandas' groupby would drop it silently)
    for col in ("unique_id", "ds"):
        holed = frame.astype({col: object})
        holed.loc[3, col] = None
        with pytest.raises(ks.InputError, match=f"column '{col}' is missing at 1 rows"):
            ks.forecast_panel(holed)
    mixed = frame.astype({"ds": object})
    mixed.loc[4, "ds"] = "4"
    with pytest.raises(ks.InputError, match="cannot be ordered"):
        ks.forecast_panel(mixed)
    with pytest.raises(ks.InputError, match="must be numeric"):
        ks.forecast_panel(frame.assign(x=pd.array(["u"] * 60, dtype="string")))
    # future stamps past the type's largest value would wrap around to its smallest
    top = np.iinfo(np.int64).max - 40
    with pytest.raises(ks.InputError, match="pass the largest value"):
        ks.forecast_panel(frame.assign(ds=frame.ds + top), horizon=20)
    assert ks.forecast_panel(frame.assign(ds=frame.ds + top), horizon=10).ds.max() == top + 39
    late = np.datetime64("2262-04-01", "ns") + np.tile(t, 2) * np.timedelta64(6, "h")
    with pytest.raises(ks.InputError, match=r"datetime64\[ns\]"):
        ks.forecast_panel(frame.assign(ds=late), horizon=30)


def test_cli_forecast_writes_the_table_and_fails_in_one_line(tmp_path, capsys):
    pd = pytest.importorskip("pandas")
    from kernelstream.cli import main

    csv = tmp_path / "s.csv"
    t = np.arange(60)
    pd.DataFrame(
        {"month": pd.date_range("2000-01-01", periods=60, freq="MS"), "v": 5 + np.sin(t / 2)}
    ).to_csv(csv, index=False)
    out = tmp_path / "o.csv"
    assert main(["forecast", "--csv", str(csv), "--target", "v", "--time", "month",
                 "--horizon", "2", "--out", str(out)]) == 0  # fmt: skip
    res = pd.read_csv(out)
    assert res.tail(2).ds.tolist() == ["2005-01-01", "2005-02-01"]
    assert np.all(res.forecast.between(2, 8))  # the target's units
    for argv, text in (
        (["--target", "nope"], "no such column"),
        (["--target", "month"], "not numbers"),
        (["--target", "v", "--season", "1"], "season"),
    ):
        capsys.readouterr()
        code = main(["forecast", "--csv", str(csv), "--horizon", "2", *argv])
        err = capsys.readouterr().err.strip()
        assert code == 2 and err.count("\n") == 0 and err.startswith("kernelstream: error:")
        assert text in err
    with pytest.raises(SystemExit) as exc:
        main(["forecast", "--csv", str(csv), "--target", "v", "--horizon", "0"])
    assert exc.value.code == 2
    assert main(["forecast", "--csv", str(tmp_path / "no.csv"), "--target", "v",
                 "--horizon", "1"]) == 2  # fmt: skip


@pytest.mark.slow
def test_the_forecasting_page_runs():
    """Every ``>>>`` example of docs/forecasting.md runs and prints what the page shows."""
    import doctest
    import re
    from pathlib import Path

    path = Path(__file__).resolve().parents[2] / "docs" / "forecasting.md"
    text = re.sub(r"^```.*$", "", path.read_text(), flags=re.MULTILINE)
    test = doctest.DocTestParser().get_doctest(text, {}, "forecasting.md", str(path), 0)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.attempted >= 10 and result.failed == 0
