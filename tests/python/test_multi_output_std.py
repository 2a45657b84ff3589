"""Predictive standard deviations and conformal intervals with several outputs: the AWV
family's std per output against the NumPy reference written from the definition
(``kernelstream.reference.predictive_std.MultiOutputStdReference``: one leverage, a noise
level per output), each output equal to the one-output learner on its column, K = 1 equal
to one output, and Conformal's intervals per output (docs/uncertainty.md, "Several
outputs"). Before: every call here raised a ParameterError (one output only)."""

from __future__ import annotations

import pickle

import kernelstream as ks
import numpy as np
import pytest
from kernelstream.errors import ParameterError
from kernelstream.kernels import Gaussian
from kernelstream.reference.predictive_std import MultiOutputStdReference
from kernelstream.reference.taylor_awv import taylor_kron_features


def stream(n, d=2, seed=0, noise=(0.2, 1.0, 0.05)):
    """``K = len(noise)`` targets of different functions and noise levels."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, size=(n, d))
    f = [np.sin(3 * X[:, 0]), np.cos(2 * X[:, -1]), X[:, 0] * X[:, -1]]
    Y = np.column_stack([f[j % 3] + s * rng.standard_normal(n) for j, s in enumerate(noise)])
    return X, Y


_CENTERS = np.random.default_rng(99).uniform(-1, 1, size=(20, 2))
LEARNERS = {
    "taylor": lambda: ks.TaylorAWV(sigma=0.9, degree=3, lam=0.3),
    "taylor-blocks": lambda: ks.TaylorAWV(degree=4, block_size=16),
    "taylor-discounted": lambda: ks.TaylorAWV(degree=2, gamma=0.99),
    "rff": lambda: ks.RFFAWV(Gaussian(0.7), n_features=40, seed=3),
    "kernel": lambda: ks.KernelAWV(Gaussian(0.6), lam=0.5),
    "nystrom-kors": lambda: ks.NystromAWV(Gaussian(0.6), seed=1),
    "nystrom-fixed": lambda: ks.NystromAWV(Gaussian(0.6), dictionary=_CENTERS),
    "mixture": lambda: ks.Mixture([ks.TaylorAWV(degree=2), ks.KernelAWV(Gaussian(0.6))]),
}


@pytest.mark.parametrize("ridge", [False, True])
def test_taylor_awv_std_per_output_equals_the_definition(ridge):
    X, Y = stream(120)
    phi = lambda x: taylor_kron_features(x, 0.9, 3)  # noqa: E731
    ref = MultiOutputStdReference(phi, k=3, lam=0.3, ridge=ridge)
    model = ks.TaylorAWV(sigma=0.9, degree=3, lam=0.3, ridge=ridge)
    worst = 0.0
    for t in range(len(Y)):
        want_p, want_s = ref.predict_std_one(X[t])
        if t > 0:  # (before the first round K is unknown: one value)
            got_p, got_s = model.predict_one(X[t], return_std=True)
            assert got_p.shape == got_s.shape == (3,)
            worst = max(worst, np.max(np.abs(got_s - want_s) / want_s))
            worst = max(worst, np.max(np.abs(got_p - want_p) / np.maximum(np.abs(want_p), 1e-3)))
            noise = ref.noise_std()
            worst = max(worst, np.max(np.abs(model.noise_std - noise) / noise))
        model.learn_one(X[t], Y[t])
        ref.learn_one(X[t], Y[t])
    assert worst < 1e-9
    # the std of the next rounds, as a batch: the same numbers
    got_p, got_s = model.predict_many_std(X[:5])
    want = [ref.predict_std_one(x) for x in X[:5]]
    np.testing.assert_allclose(got_s, [w[1] for w in want], rtol=1e-9)
    np.testing.assert_allclose(model.predict_std(X[:5]), got_s, rtol=0, atol=0)


def test_progressive_std_per_output_equals_the_definition():
    X, Y = stream(150, seed=4)
    ref = MultiOutputStdReference(lambda x: taylor_kron_features(x, 1.0, 2), k=3)
    preds, stds, noise = ks.TaylorAWV(degree=2).progressive_predict_std(X, Y, return_noise=True)
    assert preds.shape == stds.shape == noise.shape == (150, 3)
    assert np.all(np.isnan(stds[0])) and np.all(np.isnan(noise[0]))  # no estimate yet
    for t in range(len(Y)):
        p, s = ref.predict_std_one(X[t])
        np.testing.assert_allclose(preds[t], p, rtol=1e-9, atol=1e-12)
        if t:
            np.testing.assert_allclose(stds[t], s, rtol=1e-9)
            np.testing.assert_allclose(noise[t], ref.noise_std(), rtol=1e-9)
        ref.learn_one(X[t], Y[t])


@pytest.mark.parametrize("name", sorted(LEARNERS))
def test_each_output_is_the_one_output_learner_on_its_column(name):
    """The outputs share A (it does not depend on the targets), so each column's
    prediction, leverage and noise level are those of the learner fed that column."""
    X, Y = stream(160, seed=5)
    multi = LEARNERS[name]()
    P, S, N = multi.progressive_predict_std(X[:120], Y[:120], return_noise=True)
    Pn, Sn = multi.predict_many_std(X[120:])
    for k in range(Y.shape[1]):
        one = LEARNERS[name]()
        p, s, n = one.progressive_predict_std(X[:120], Y[:120, k], return_noise=True)
        np.testing.assert_allclose(P[:, k], p, rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(S[1:, k], s[1:], rtol=1e-9)
        np.testing.assert_allclose(N[1:, k], n[1:], rtol=1e-9)
        pn, sn = one.predict_many_std(X[120:])
        np.testing.assert_allclose(Pn[:, k], pn, rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(Sn[:, k], sn, rtol=1e-9)
        assert abs(multi.noise_std[k] - one.noise_std) <= 1e-9 * one.noise_std


def test_one_output_as_a_column_equals_one_output():
    X, Y = stream(100, seed=6)
    p1, s1, n1 = ks.TaylorAWV(degree=3).progressive_predict_std(X, Y[:, 0], return_noise=True)
    pk, sk, nk = ks.TaylorAWV(degree=3).progressive_predict_std(X, Y[:, :1], return_noise=True)
    assert pk.shape == (100, 1)
    np.testing.assert_array_equal(pk[:, 0], p1)
    np.testing.assert_array_equal(sk[:, 0], s1)
    np.testing.assert_array_equal(nk[:, 0], n1)


@pytest.mark.parametrize("name", ["taylor", "kernel", "nystrom-fixed"])
def test_an_added_output_has_the_noise_level_of_a_zero_column(name):
    """add_outputs: the new output's past targets and predictions were 0, so its noise
    level is that of a column of zeros learned from the first round."""
    X, Y = stream(90, seed=7)
    grown = LEARNERS[name]()
    grown.learn_many(X[:60], Y[:60, :2])
    grown.add_outputs(1)
    Z = np.column_stack([Y[:60, :2], np.zeros(60)])
    full = LEARNERS[name]()
    full.learn_many(X[:60], Z)
    np.testing.assert_allclose(grown.noise_std, full.noise_std, rtol=1e-12)
    P, S = grown.progressive_predict_std(X[60:], Y[60:])
    Pf, Sf = full.progressive_predict_std(X[60:], Y[60:])
    np.testing.assert_allclose(P, Pf, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(S, Sf, rtol=1e-9)


def test_std_per_output_survives_pickling():
    X, Y = stream(50, seed=8)
    m = ks.TaylorAWV(degree=2)
    m.learn_many(X, Y)
    back = pickle.loads(pickle.dumps(m))
    np.testing.assert_array_equal(back.predict_std(X[:4]), m.predict_std(X[:4]))
    np.testing.assert_array_equal(back.noise_std, m.noise_std)


def test_autokernel_refuses_a_std_per_output_without_mentioning_y():
    X, Y = stream(60, seed=9)
    m = ks.AutoKernel()
    m.learn_many(X, Y)
    for call in (
        lambda: m.predict_std(X[:3]),
        lambda: m.progressive_predict_std(X, Y),
    ):
        with pytest.raises(ParameterError, match="per output") as info:
            call()
        assert "pass y" not in str(info.value)


def test_sklearn_adapter_std_per_output():
    pytest.importorskip("sklearn", minversion="1.6")
    from kernelstream.adapters import SklearnRegressor

    X, Y = stream(200, seed=10)
    multi = SklearnRegressor(ks.TaylorAWV(degree=3)).fit(X, Y, shuffle=False)
    mean, std = multi.predict(X[:7], return_std=True)
    assert mean.shape == std.shape == (7, 3)
    for k in range(3):
        one = SklearnRegressor(ks.TaylorAWV(degree=3)).fit(X, Y[:, k], shuffle=False)
        m1, s1 = one.predict(X[:7], return_std=True)
        np.testing.assert_allclose(mean[:, k], m1, rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(std[:, k], s1, rtol=1e-9)


# -- Conformal with several outputs -------------------------------------------------


@pytest.mark.parametrize("normalize", [True, False])
def test_conformal_per_output_equals_conformal_on_each_column(normalize):
    """K independent procedures: output k's intervals, level and coverage are those of
    a one-output Conformal around the learner fed column k."""
    X, Y = stream(700, seed=11)
    multi = ks.Conformal(ks.TaylorAWV(degree=3), normalize=normalize, window=100)
    P, LO, HI = multi.progressive_interval(X[:500], Y[:500])
    for t in range(500, 520):  # then round by round
        lo, c, hi = multi.predict_interval_one(X[t])
        multi.learn_one(X[t], Y[t])
        P, LO, HI = np.vstack([P, c]), np.vstack([LO, lo]), np.vstack([HI, hi])
    assert LO.shape == (520, 3) and multi.coverage.shape == multi.alpha_t.shape == (3,)
    for k in range(3):
        one = ks.Conformal(ks.TaylorAWV(degree=3), normalize=normalize, window=100)
        p, lo, hi = one.progressive_interval(X[:500], Y[:500, k])
        for t in range(500, 520):
            lo1, c1, hi1 = one.predict_interval_one(X[t])
            one.learn_one(X[t], Y[t, k])
            p, lo, hi = np.append(p, c1), np.append(lo, lo1), np.append(hi, hi1)
        np.testing.assert_allclose(P[:, k], p, rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(LO[:, k], lo, rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(HI[:, k], hi, rtol=1e-9, atol=1e-12)
        assert multi.coverage[k] == one.coverage and multi.alpha_t[k] == one.alpha_t
        lo_next, hi_next = multi.predict_interval(X[600:])
        lo1, hi1 = one.predict_interval(X[600:])
        np.testing.assert_allclose(lo_next[:, k], lo1, rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(hi_next[:, k], hi1, rtol=1e-9, atol=1e-12)


def test_conformal_coverage_per_output():
    """90% intervals on a stream of three outputs with noise levels 0.05 to 1: each
    output's coverage is within the bound of Gibbs and Candes (Prop. 4.1) over the
    stream and within binomial tolerance after the first 200 rounds."""
    n, alpha, gamma = 4000, 0.1, 0.015
    X, Y = stream(n, seed=12)
    model = ks.Conformal(ks.TaylorAWV(degree=4), alpha=alpha, gamma=gamma)
    _, lo, hi = model.progressive_interval(X, Y)
    bound = (max(alpha, 1 - alpha) + gamma) / (gamma * n)
    assert np.all(np.abs(model.coverage - (1 - alpha)) <= bound)
    inside = (lo[200:] <= Y[200:]) & (Y[200:] <= hi[200:])
    tol = 4 * np.sqrt(alpha * (1 - alpha) / (n - 200))
    assert np.all(np.abs(inside.mean(axis=0) - (1 - alpha)) < tol)
    # the widths follow each output's noise level (0.2, 1.0, 0.05)
    width = np.median(hi[200:] - lo[200:], axis=0)
    assert width[1] > width[0] > width[2]


def test_conformal_per_output_with_weights_and_a_mixture():
    """Sample weights as with one output (a row of weight 0 neither learned nor scored),
    per output; around AutoKernel (no std per output yet) the scores are not normalised."""
    X, Y = stream(300, seed=13)
    w = np.where(np.arange(300) % 7 == 0, 0.0, 2.0)
    multi = ks.Conformal(ks.TaylorAWV(degree=2), window=50)
    _, LO, HI = multi.progressive_interval(X, Y, sample_weight=w)
    for k in (0, 2):
        one = ks.Conformal(ks.TaylorAWV(degree=2), window=50)
        _, lo, hi = one.progressive_interval(X, Y[:, k], sample_weight=w)
        np.testing.assert_allclose(LO[:, k], lo, rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(HI[:, k], hi, rtol=1e-9, atol=1e-12)
        assert multi.coverage[k] == one.coverage
    mix = ks.Conformal(ks.AutoKernel())
    _, lo, hi = mix.progressive_interval(X, Y)
    assert lo.shape == (300, 3) and np.all(lo[150:] < hi[150:])
    back = pickle.loads(pickle.dumps(multi))
    np.testing.assert_array_equal(back.coverage, multi.coverage)
    np.testing.assert_array_equal(back.predict_interval(X[:3])[0], multi.predict_interval(X[:3])[0])


def test_river_adapter_intervals_per_target():
    """Dict targets around a multi-output Conformal: one interval per target name, in
    the target's units, equal to the one-target adapter's on that target."""
    from kernelstream.adapters import RiverRegressor

    X, Y = stream(400, seed=14)
    Y = Y[:, :2] * [10.0, 0.1] + [5.0, -3.0]
    multi = RiverRegressor(ks.Conformal(ks.TaylorAWV(degree=3), window=100))
    ones = [RiverRegressor(ks.Conformal(ks.TaylorAWV(degree=3), window=100)) for _ in "ab"]
    for x, yt in zip(X, Y):
        xd = {"u": x[0], "v": x[1]}
        got = multi.predict_one(xd, with_interval=True)  # (before any target: one output)
        for name, one, yk in zip("ab", ones, yt):
            want = one.predict_one(xd, with_interval=True)
            for part in ("lower", "center", "upper") if multi.target_names else ():
                g, w = got[name][part], want[part]
                assert g == w or abs(g - w) <= 1e-8 * max(1.0, abs(w)), (name, part, g, w)
            one.learn_one(xd, float(yk))
        multi.learn_one(xd, {"a": float(yt[0]), "b": float(yt[1])})
    assert np.isfinite(got["a"]["lower"]) and got["a"]["lower"] < got["a"]["upper"]
