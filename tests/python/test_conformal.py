"""Conformal: adaptive conformal inference (Gibbs and Candes 2021) around any regressor.

The reference below is written from the paper's definitions, with a plain sort per
round; the class keeps a sorted window instead."""

from __future__ import annotations

import math
import pickle

import kernelstream as ks
import numpy as np
import pytest
from kernelstream.errors import InputError, ParameterError


def aci_reference(p, y, alpha, gamma, window, s=None):
    """Intervals p_t +- q_t s_t with q_t the ceil((1 - alpha_t)(n + 1))-th smallest of the
    last `window` scores |y_u - p_u| / s_u (inf past the last, 0 below the first), and
    alpha_{t+1} = alpha_t + gamma (alpha - err_t) (Gibbs and Candes, eq. (2)). `s`: the
    score scales (None: 1), a non-finite one replaced by 1."""
    alpha_t, scores, lo, hi = alpha, [], [], []
    s = np.ones(len(p)) if s is None else np.array(s, dtype=float)
    for t in range(len(p)):
        if not np.isfinite(s[t]) or s[t] <= 0:
            s[t] = 1.0
        past = np.sort(np.array(scores[-window:])) if scores else np.array([])
        k = math.ceil((1 - alpha_t) * (len(past) + 1) - 1e-12)
        q = math.inf if k > len(past) else (0.0 if k < 1 else past[k - 1])
        lo.append(p[t] - q * s[t])
        hi.append(p[t] + q * s[t])
        err = 0.0 if abs(y[t] - p[t]) <= q * s[t] else 1.0
        alpha_t += gamma * (alpha - err)
        scores.append(abs(y[t] - p[t]) / s[t])
    return np.array(lo), np.array(hi), alpha_t


def stream(n=3000, seed=0, shift=None):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, size=(n, 2))
    noise = 0.3 * rng.standard_t(3, size=n)
    if shift is not None:  # the noise level jumps 5x halfway: a change the intervals must track
        noise[shift:] *= 5
    return X, np.sin(3 * X[:, 0]) + noise


@pytest.mark.parametrize("window", [1, 7, 50, 1000])
@pytest.mark.parametrize("normalize", [False, True])
def test_intervals_equal_the_reference(window, normalize):
    X, y = stream(1500)
    model = ks.Conformal(
        ks.TaylorAWV(degree=3), alpha=0.2, gamma=0.01, window=window, normalize=normalize
    )
    p, lo, hi = model.progressive_interval(X, y)
    plain, std, noise = ks.TaylorAWV(degree=3).progressive_predict_std(X, y, return_noise=True)
    np.testing.assert_array_equal(p, plain)
    assert np.isnan(std[0]) and np.all(std[1:] > 0)  # no noise estimate before round 1
    # studentized scores: the std over the noise level, sqrt(1 + phi^T A^-1 phi)
    rel = std / noise
    assert np.all(rel[1:] >= 1.0)
    ref_lo, ref_hi, ref_alpha = aci_reference(p, y, 0.2, 0.01, window, rel if normalize else None)
    np.testing.assert_allclose(lo, ref_lo, rtol=1e-12, atol=0)
    np.testing.assert_allclose(hi, ref_hi, rtol=1e-12, atol=0)
    assert model.alpha_t == pytest.approx(ref_alpha, rel=0, abs=1e-12)


@pytest.mark.slow
def test_normalised_intervals_follow_the_learners_std():
    """Where the learner has seen no data its std is large, and so is the interval (prior
    variance sigma^2 / lam: with lam = 0.01 up to sqrt(1 + 1 / lam) ~ 10 noise stds)."""
    rng = np.random.default_rng(5)
    X = rng.uniform(-1, 0, size=(1000, 1))  # only the left half of [-1, 1] is seen
    y = np.sin(3 * X[:, 0]) + 0.1 * rng.normal(size=1000)

    def make():
        return ks.KernelAWV(ks.kernels.Gaussian(0.2), lam=0.01)

    model = ks.Conformal(make())
    model.progressive_interval(X, y)
    lo, hi = model.predict_interval([[-0.5], [0.9]])
    assert hi[1] - lo[1] > 5 * (hi[0] - lo[0])
    flat = ks.Conformal(make(), normalize=False)
    flat.progressive_interval(X, y)
    lo, hi = flat.predict_interval([[-0.5], [0.9]])
    assert hi[1] - lo[1] == pytest.approx(hi[0] - lo[0], rel=1e-12)


def test_round_loop_equals_whole_stream():
    X, y = stream(800, seed=1)
    whole = ks.Conformal(ks.TaylorAWV(degree=3), window=100)
    _, lo, hi = whole.progressive_interval(X, y)
    loop = ks.Conformal(ks.TaylorAWV(degree=3), window=100)
    for t in range(len(y)):
        lo_t, centre, hi_t = loop.predict_interval_one(X[t])
        assert (lo_t, hi_t) == (lo[t], hi[t])
        assert centre == loop.learner_.predict_one(X[t])
        loop.learn_one(X[t], y[t])
    assert loop.alpha_t == whole.alpha_t and loop.coverage == whole.coverage


@pytest.mark.parametrize("alpha, gamma", [(0.1, 0.005), (0.1, 0.05), (0.3, 0.02)])
def test_long_run_coverage_bound_holds_under_a_shift(alpha, gamma):
    """Proposition 4.1: |mean err - alpha| <= (max(alpha, 1 - alpha) + gamma) / (gamma T),
    for any data (here the noise jumps fivefold halfway)."""
    X, y = stream(4000, seed=2, shift=2000)
    model = ks.Conformal(ks.TaylorAWV(degree=3), alpha=alpha, gamma=gamma, window=200)
    _, lo, hi = model.progressive_interval(X, y)
    miss = 1.0 - np.mean((lo <= y) & (y <= hi))
    bound = (max(alpha, 1 - alpha) + gamma) / (gamma * len(y))
    assert abs(miss - alpha) <= bound
    assert model.coverage == pytest.approx(1 - miss, abs=1e-12)


def test_pickle_mid_stream_then_continue():
    X, y = stream(600, seed=3)
    a = ks.Conformal(ks.RFFAWV(ks.kernels.Gaussian(0.7), n_features=20, seed=1), window=64)
    a.progressive_interval(X[:300], y[:300])
    b = pickle.loads(pickle.dumps(a))
    c = a.copy()
    ra, rb, rc = (m.progressive_interval(X[300:], y[300:]) for m in (a, b, c))
    for u, v, w in zip(ra, rb, rc):
        np.testing.assert_array_equal(u, v)
        np.testing.assert_array_equal(u, w)


def test_the_learner_passed_in_is_not_changed():
    X, y = stream(100)
    inner = ks.TaylorAWV()
    ks.Conformal(inner).progressive_interval(X, y)
    assert inner.n_seen == 0


@pytest.mark.parametrize(
    "kwargs",
    [
        dict(alpha=0.0),
        dict(alpha=1.0),
        dict(alpha="0.1"),
        dict(gamma=0.0),
        dict(window=0),
        dict(window=1.5),
        dict(normalize="yes"),
    ],
)
def test_bad_parameters(kwargs):
    with pytest.raises(ParameterError):
        ks.Conformal(ks.TaylorAWV(), **kwargs)


def test_wraps_regressors_only():
    with pytest.raises(ParameterError):
        ks.Conformal(np.zeros(3))
    with pytest.raises(ParameterError):
        ks.Conformal(ks.FOGD(ks.kernels.Gaussian(1.0), loss="hinge"))


def test_bad_input_leaves_the_model_untouched():
    X, y = stream(50)
    model = ks.Conformal(ks.TaylorAWV(), window=10)
    model.progressive_interval(X, y)
    before = pickle.dumps(model)
    for bad in (lambda: model.learn_one([np.nan, 0.0], 1.0), lambda: model.learn_one([0.0], 1.0)):
        with pytest.raises(InputError):
            bad()
    with pytest.raises(InputError):
        model.progressive_interval(np.vstack([X[:3], [[np.inf, 0]]]), y[:4])
    assert pickle.dumps(model) == before


def test_corrupt_state_is_refused():
    model = ks.Conformal(ks.TaylorAWV(), window=5)
    model.progressive_interval(*stream(20))
    state = model.__getstate__()
    for key, value in [("scores", [1.0] * 6), ("scores", [-1.0]), ("alpha_t", math.nan)]:
        bad = {**state, key: value}
        fresh = ks.Conformal(ks.TaylorAWV(), window=5)
        with pytest.raises(InputError):
            fresh.__setstate__(bad)


def test_river_adapter_gives_intervals_in_the_target_units():
    pytest.importorskip("river")
    from kernelstream.adapters import RiverRegressor

    X, y = stream(300, seed=4)
    y = 1000.0 + 50.0 * y  # far from unit scale: the adapter scales the target
    plain = RiverRegressor(ks.Conformal(ks.TaylorAWV(), window=50), scale=False)
    bare = ks.Conformal(ks.TaylorAWV(), window=50)
    scaled = RiverRegressor(ks.Conformal(ks.TaylorAWV(), window=50))
    for t in range(len(y)):
        x = dict(enumerate(X[t]))
        got = plain.predict_one(x, with_interval=True)
        assert (got["lower"], got["center"], got["upper"]) == bare.predict_interval_one(X[t])
        iv = scaled.predict_one(x, with_interval=True)
        assert iv["center"] == pytest.approx(scaled.predict_one(x), rel=1e-12)
        assert iv["lower"] <= iv["center"] <= iv["upper"]
        for m in (plain, scaled):
            m.learn_one(x, y[t])
        bare.learn_one(X[t], y[t])
    assert math.isfinite(iv["upper"] - iv["lower"])
    with pytest.raises(ParameterError, match="Conformal"):
        RiverRegressor(ks.TaylorAWV()).predict_one({0: 1.0}, with_interval=True)


def test_coverage_after_a_burn_in_is_the_level_it_paid_back():
    """Summing eq. (2) over rounds s+1..T: the coverage of those rounds is exactly
    1 - alpha - (alpha_{s+1} - alpha_{T+1}) / (gamma (T - s)). Over-coverage before s
    (alpha_t raised) is paid back after s: the reason a short stream whose learner's
    errors shrink at first is under-covered after its burn-in."""
    X, y = stream(1200, seed=4)
    y[:300] += np.linspace(3.0, 0.0, 300) * np.random.default_rng(1).normal(size=300)
    model = ks.Conformal(ks.TaylorAWV(degree=3), alpha=0.1, gamma=0.015)
    s = 200
    model.progressive_interval(X[:s], y[:s])
    a_s = model.alpha_t
    _, lo, hi = model.progressive_interval(X[s:], y[s:])
    a_end = model.alpha_t
    covered = np.mean((lo <= y[s:]) & (y[s:] <= hi))
    assert covered == pytest.approx(0.9 - (a_s - a_end) / (0.015 * (len(y) - s)), abs=1e-12)
    assert a_s != pytest.approx(0.1, abs=0.01)  # the burn-in did move the level
