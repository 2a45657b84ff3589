"""VAW2 paper (Rokhlin & Gurtovaya 2025): RFFAWV, the aggregation rules, MultiKernelAWV,
Raker, the AR(4) stream, against the NumPy references and the paper's identities
(sec. 2-4)."""

from __future__ import annotations

import copy
import pickle

import kernelstream as ks
import numpy as np
import pytest
from kernelstream import aggregation as agg
from kernelstream.kernels import Gaussian, Laplacian, vaw2_grid
from kernelstream.reference import (
    AAReference,
    BOAReference,
    EWAReference,
    MLPolyReference,
    MLProdReference,
    MultiKernelAWVReference,
    RakerReference,
    RFFAWVReference,
    VAWMetaReference,
    draw_rff,
    rff_map,
)
from zoo import AGGREGATORS


def run_ref(ref, X, y):
    out = []
    for x, t in zip(X, y):
        out.append(ref.predict_one(x))
        ref.learn_one(x, t)
    return np.array(out)


def bounded_stream(n, d, seed):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, size=(n, d)) / np.sqrt(d)
    y = np.clip(0.5 + 0.4 * np.sin(3 * X[:, 0]) + 0.1 * rng.standard_normal(n), 0, 1)
    return X, y


# --- kernels and features ----------------------------------------------------------


def test_vaw2_grid_matches_the_paper():
    g = vaw2_grid()
    assert len(g) == 76
    assert all(isinstance(k, Gaussian) for k in g[:51]) and all(
        isinstance(k, Laplacian) for k in g[51:]
    )
    s2 = np.array([k.sigma**2 for k in g[:51]])
    np.testing.assert_allclose(s2[[0, 25, 50]], [0.01, 1.0, 100.0], rtol=1e-13)
    np.testing.assert_allclose(s2[1:] / s2[:-1], 10**0.08, rtol=1e-12)
    s = np.array([k.sigma for k in g[51:]])
    np.testing.assert_allclose(s[[0, 12, 24]], [0.01, 1.0, 100.0], rtol=1e-13)
    np.testing.assert_allclose(s[1:] / s[:-1], 10 ** (1 / 6), rtol=1e-12)


@pytest.mark.parametrize(
    "kernel,features",
    [
        (Gaussian(0.7), "cos"),
        (Laplacian(0.3), "cos"),
        (Gaussian(2.0), "cossin"),
        (Laplacian(1.0), "cossin"),
    ],
)
def test_rff_draws_and_features_match_reference(kernel, features):
    X, y = bounded_stream(5, 3, 0)
    m = ks.RFFAWV(kernel, n_features=40, features=features, seed=11)
    assert m.frequencies is None
    m.learn_one(X[0], y[0])
    omega, b = draw_rff(kernel, 3, 40, features, ks._core.Rng(11))
    np.testing.assert_array_equal(m.frequencies, omega)
    np.testing.assert_array_equal(m.offsets, b)
    for x in X:
        # |w.x| can reach 1e3 (Cauchy): summation order of w.x moves cos by ~1e-13
        np.testing.assert_allclose(
            m.random_features(x), rff_map(x, omega, b, features), rtol=0, atol=1e-12
        )


@pytest.mark.slow
def test_rff_unbiased_for_both_kernels():
    # Lemma 1: E phi(x).phi(y) / m = k(x, y) (Monte Carlo, 2e5 features).
    x, yg, yl = np.array([0.1, 0.2]), np.array([0.7, 1.0]), np.array([0.5, -0.4])
    for kernel, y, target in [
        (Gaussian(1.0), yg, np.exp(-0.5)),
        (Laplacian(1.0), yl, np.exp(-1.0)),
    ]:
        # (the Rust feature map is checked the same way in src/features/rff.rs)
        omega, b = draw_rff(kernel, 2, 200_000, "cos", ks._core.Rng(2))
        est = rff_map(x, omega, b, "cos") @ rff_map(y, omega, b, "cos") / 200_000
        assert abs(est - target) < 8e-3
        assert np.isclose(np.abs(kernel(x[None], y[None])[0, 0] - target), 0, atol=1e-12)


# --- RFFAWV --------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize(
    "kernel,features,lam,ridge",
    [
        (Gaussian(0.5), "cos", 1.0, False),
        (Laplacian(1.0), "cos", 0.3, False),
        (Gaussian(1.5), "cossin", 0.1, False),
        (Gaussian(0.5), "cos", 1.0, True),
        (Laplacian(0.8), "cossin", 1.0, True),
    ],
)
def test_rffawv_equals_reference(kernel, features, lam, ridge):
    X, y = bounded_stream(250, 2, 1)
    kw = dict(n_features=25, lam=lam, features=features, seed=7, ridge=ridge)
    fast = ks.RFFAWV(kernel, **kw)
    ref = RFFAWVReference(kernel, **kw)
    p = fast.progressive_predict(X, y)
    np.testing.assert_allclose(p, run_ref(ref, X, y), rtol=0, atol=1e-10)
    np.testing.assert_allclose(fast.weights, ref.vaw.weights(), rtol=0, atol=1e-9)
    assert p[0] == 0.0


def test_vaw_worked_example():
    # VAW by hand: m = 1, lam = 1, phi = 1, y_1 = 1 -> 0 then 1/3 (ridge would give 1/2).
    a = agg.VAWMeta(1, lam=1.0)
    assert a.predict([1.0]) == 0.0
    a.update([1.0], 1.0)
    assert abs(a.predict([1.0]) - 1 / 3) < 1e-15
    # ridge leaves the current point out of the matrix: 1 / (1 + 1)
    r = agg.VAWMeta(1, lam=1.0, ridge=True)
    r.update([1.0], 1.0)
    assert abs(r.predict([1.0]) - 1 / 2) < 1e-15


def test_ridge_differs_from_vaw_by_the_current_point():
    # ridge: phi_t^T (lam I + G_{t-1})^{-1} b_{t-1}; VAW: the same with G_t = G_{t-1} + phi_t phi_t^T.
    # Sherman-Morrison links them: VAW = ridge / (1 + phi_t^T (lam I + G_{t-1})^{-1} phi_t).
    X, y = bounded_stream(120, 2, 12)
    kw = dict(n_features=12, lam=0.5, features="cossin", seed=5)
    v, r = ks.RFFAWV(Gaussian(0.8), **kw), ks.RFFAWV(Gaussian(0.8), ridge=True, **kw)
    v.learn_one(X[0], y[0])  # (the features are drawn on the first round)
    r.learn_one(X[0], y[0])
    G = np.outer(v.random_features(X[0]), v.random_features(X[0]))
    for x, t in zip(X[1:], y[1:]):
        phi = v.random_features(x)
        lev = phi @ np.linalg.solve(0.5 * np.eye(24) + G, phi)
        pv, pr = v.predict_one(x), r.predict_one(x)
        assert pv == pytest.approx(pr / (1 + lev), rel=1e-9, abs=1e-12)
        G += np.outer(phi, phi)
        v.learn_one(x, t)
        r.learn_one(x, t)


# --- aggregators ---------------------------------------------------------------------

_REFERENCES = {
    "vaw": lambda n: VAWMetaReference(n, 0.7),
    "vaw-ridge": lambda n: VAWMetaReference(n, 0.7, ridge=True),
    "ewa": lambda n: EWAReference(n, 0.5),
    "aa": lambda n: AAReference(n, 0.0, 1.0),
    "boa": lambda n: BOAReference(n, True),
    "boa-loss": lambda n: BOAReference(n, False),
    "mlpoly": lambda n: MLPolyReference(n, True),
    "mlpoly-loss": lambda n: MLPolyReference(n, False),
    "mlprod": lambda n: MLProdReference(n, True),
    "mlprod-loss": lambda n: MLProdReference(n, False),
}
RULES = {name: (make, _REFERENCES[name]) for name, make in AGGREGATORS.items()}
CONVEX = [k for k in RULES if not k.startswith("vaw")]


def expert_stream(n, n_exp, seed, scale=1.0):
    rng = np.random.default_rng(seed)
    y = rng.uniform(0, 1, n)
    Z = np.clip(
        y[:, None]
        + rng.normal(0, 0.1, (n, n_exp)) * (1 + np.arange(n_exp))
        + rng.normal(0, 0.05, (n, 1)),
        0,
        1,
    )
    return scale * Z, y


@pytest.mark.parametrize("rule", list(RULES))
def test_aggregator_equals_reference(rule):
    make, make_ref = RULES[rule]
    Z, y = expert_stream(400, 6, 3)
    a, r = make(6), make_ref(6)
    p = a.progressive_predict(Z, y)
    pr = []
    for z, t in zip(Z, y):
        pr.append(r.predict(z))
        r.update(z, t)
    np.testing.assert_allclose(p, pr, rtol=0, atol=1e-10)
    np.testing.assert_allclose(a.weights, r.weights, rtol=0, atol=1e-10)


@pytest.mark.parametrize("n", [1000, pytest.param(5000, marks=pytest.mark.slow)])
@pytest.mark.parametrize("rule", [r for r in RULES if r not in ("vaw", "vaw-ridge", "aa")])
def test_aggregator_long_stream_extreme_losses(rule, n):
    # Losses up to ~1e8 per round over n rounds (cumulated losses ~1e11 at n = 1000, well
    # past exp's range): log-domain weights, no overflow, equal to the reference.
    make, make_ref = RULES[rule]
    rng = np.random.default_rng(5)
    y = rng.uniform(-1, 1, n)
    Z = y[:, None] + rng.standard_normal((n, 5)) * np.array([1e-2, 1.0, 1e2, 1e3, 1e4])
    a, r = make(5), make_ref(5)
    p = a.progressive_predict(Z, y)
    pr = []
    for z, t in zip(Z, y):
        pr.append(r.predict(z))
        r.update(z, t)
    assert np.all(np.isfinite(p)) and np.all(np.isfinite(a.weights))
    np.testing.assert_allclose(p, pr, rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(a.weights, r.weights, rtol=0, atol=1e-10)


@pytest.mark.parametrize("rule", CONVEX)
def test_convex_rules_equal_experts_and_simplex(rule):
    make, _ = RULES[rule]
    Z, y = expert_stream(200, 5, 8)
    a = make(5)
    for z, t in zip(Z, y):
        c = float(np.random.default_rng(int(1e6 * t)).uniform(0.05, 0.95))
        assert abs(a.predict(np.full(5, c)) - c) < 1e-12
        w = a.weights
        assert np.all(w >= 0) and abs(w.sum() - 1) < 1e-12
        a.update(z, t)


def test_ewa_round_t_uses_losses_up_to_t_minus_1():
    Z, y = expert_stream(50, 4, 9)
    a = agg.EWA(4, eta=0.5)
    # Round 1 ignores y_1 entirely.
    assert a.predict(Z[0]) == pytest.approx(Z[0].mean(), abs=1e-15)
    for t in range(50):
        L = ((Z[:t] - y[:t, None]) ** 2).sum(axis=0)
        w = np.exp(-0.5 * (L - L.min()))
        w /= w.sum()
        assert a.predict(Z[t]) == pytest.approx(w @ Z[t], abs=1e-13)
        a.update(Z[t], y[t])


def test_mlpoly_uniform_until_positive_regret():
    a = agg.MLPoly(3)
    np.testing.assert_array_equal(a.weights, np.full(3, 1 / 3))
    a.update([0.5, 0.5, 0.5], 0.2)  # all regrets 0
    np.testing.assert_array_equal(a.weights, np.full(3, 1 / 3))


@pytest.mark.parametrize("rule", list(RULES))
def test_aggregator_protocol(rule):
    make, _ = RULES[rule]
    Z, y = expert_stream(120, 4, 10)
    a, b = make(4), make(4)
    p = a.progressive_predict(Z, y)
    loop = []
    for z, t in zip(Z, y):
        loop.append(b.predict(z))
        b.update(z, t)
    np.testing.assert_allclose(p, loop, rtol=0, atol=1e-12)
    assert a.n_seen == 120 and a.n_experts == 4
    # pickle mid-stream then continue == never stopping
    whole, part = make(4), make(4)
    full = whole.progressive_predict(Z, y)
    part.progressive_predict(Z[:50], y[:50])
    part = pickle.loads(pickle.dumps(part))
    np.testing.assert_array_equal(part.progressive_predict(Z[50:], y[50:]), full[50:])
    c = copy.copy(part)
    c.update(Z[0], y[0])
    assert c.n_seen == part.n_seen + 1
    # bad input: error, state untouched
    before = pickle.dumps(a)
    bad = [
        ([0.1, 0.2], 0.5),
        ([0.1, np.nan, 0.2, 0.3], 0.5),
        ([0.1, 0.2, 0.3, 0.4], np.inf),
        ([], 0.1),
        ("abcd", 0.1),
        ([[0.1, 0.2, 0.3, 0.4]], 0.1),
        ([0.1, 0.2, 0.3, 0.4], "y"),
    ]
    for z, t in bad:
        with pytest.raises(ks.InputError):
            a.update(z, t)
    for Zb, yb in [
        (Z[:3, :2], y[:3]),
        (Z[:3], y[:2]),
        (np.zeros((0, 4)), np.zeros(0)),
        (Z[:3] * np.nan, y[:3]),
    ]:
        with pytest.raises(ks.InputError):
            a.progressive_predict(Zb, yb)
    with pytest.raises(ks.InputError):
        a.predict([1.0])
    assert pickle.dumps(a) == before
    with pytest.raises(ks.ParameterError):
        make(0)


def test_aggregator_parameter_errors():
    for bad in [
        lambda: agg.EWA(3, eta=0),
        lambda: agg.EWA(3, eta=np.nan),
        lambda: agg.VAWMeta(2, lam=-1),
        lambda: agg.VAWMeta(2, ridge="no"),
        lambda: agg.AggregatingAlgorithm(2, 1.0, 1.0),
        lambda: agg.AggregatingAlgorithm(2, 0, np.inf),
        lambda: agg.BOA(2, gradient="yes"),
        lambda: agg.MLPoly(2.5),
        lambda: agg.MLProd(True),
    ]:
        with pytest.raises(ks.ParameterError):
            bad()


# --- MultiKernelAWV ------------------------------------------------------------------

KERNELS = [Gaussian(0.2), Gaussian(1.0), Laplacian(0.5), Laplacian(3.0)]


@pytest.mark.parametrize(
    "aggregator,clip,gradient,features,ridge,meta_ridge",
    [
        ("vaw", None, True, "cos", False, None),
        ("vaw", (0, 1), True, "cos", False, None),
        ("ewa", (0, 1), True, "cos", False, None),
        ("aa", (0, 1), True, "cos", False, None),
        ("boa", (0, 1), True, "cos", False, None),
        ("mlpoly", (0, 1), False, "cos", False, None),
        ("mlprod", (0, 1), True, "cossin", False, None),
        # the second author's public code: cossin features, ridge at both levels
        ("vaw", None, True, "cossin", True, None),
        ("vaw", (0, 1), True, "cossin", True, None),
        ("mlprod", (0, 1), True, "cossin", True, None),
        # each level on its own
        ("vaw", None, True, "cos", True, False),
        ("vaw", None, True, "cos", False, True),
    ],
)
def test_multikernel_equals_reference(aggregator, clip, gradient, features, ridge, meta_ridge):
    X, y = bounded_stream(150, 3, 2)
    kw = dict(
        n_features=10,
        lam=1.0,
        aggregator=aggregator,
        clip=clip,
        gradient=gradient,
        features=features,
        ridge=ridge,
        meta_ridge=meta_ridge,
        seed=4,
    )
    fast = ks.MultiKernelAWV(KERNELS, **kw)
    ref = MultiKernelAWVReference(KERNELS, **kw)
    p = fast.progressive_predict(X, y)
    np.testing.assert_allclose(p, run_ref(ref, X, y), rtol=0, atol=1e-9)
    np.testing.assert_allclose(fast.weights, ref.weights, rtol=0, atol=1e-9)
    np.testing.assert_allclose(
        fast.expert_predictions(X[0]), ref.expert_predictions(X[0]), rtol=0, atol=1e-9
    )
    for j in range(len(KERNELS)):
        np.testing.assert_array_equal(fast.frequencies(j), ref.maps[j][0])


def test_meta_ridge_follows_ridge_unless_set():
    X, y = bounded_stream(80, 2, 13)
    both = ks.MultiKernelAWV(KERNELS, n_features=6, ridge=True, seed=2)
    explicit = ks.MultiKernelAWV(KERNELS, n_features=6, ridge=True, meta_ridge=True, seed=2)
    experts_only = ks.MultiKernelAWV(KERNELS, n_features=6, ridge=True, meta_ridge=False, seed=2)
    p = both.progressive_predict(X, y)
    np.testing.assert_array_equal(p, explicit.progressive_predict(X, y))
    assert np.abs(p - experts_only.progressive_predict(X, y)).max() > 1e-6
    assert both.get_params()["meta_ridge"] is None
    # convex rules: ridge reaches the experts only
    ewa = ks.MultiKernelAWV(KERNELS, n_features=6, ridge=True, aggregator="ewa", clip=(0, 1))
    ewa.progressive_predict(X, y)
    back = pickle.loads(pickle.dumps(both))
    assert back.get_params() == both.get_params()
    np.testing.assert_array_equal(back.predict_many(X[:5]), both.predict_many(X[:5]))


def test_multikernel_one_kernel_vaw_meta_is_scalar_vaw_on_the_expert():
    # With one kernel the expert is RFFAWV (same seed = same features) and the meta VAW is
    # y_hat = z (sum_{s<t} y_s z_s) / (lam + sum_{s<=t} z_s^2).
    X, y = bounded_stream(200, 2, 3)
    mk = ks.MultiKernelAWV([Gaussian(0.6)], n_features=15, seed=9)
    single = ks.RFFAWV(Gaussian(0.6), n_features=15, seed=9)
    z = single.progressive_predict(X, y)
    p = mk.progressive_predict(X, y)
    szz = np.concatenate([[0], np.cumsum(z**2)[:-1]]) + z**2
    syz = np.concatenate([[0], np.cumsum(y * z)[:-1]])
    np.testing.assert_allclose(p, z * syz / (1.0 + szz), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(mk.weights, [np.sum(y * z) / (1 + np.sum(z**2))], rtol=1e-10)


def test_vaw2_weights_can_be_negative_and_clip_only_touches_meta_input():
    X, y = bounded_stream(300, 2, 4)
    a = ks.MultiKernelAWV(vaw2_grid()[::8], n_features=10, seed=1)
    b = ks.MultiKernelAWV(vaw2_grid()[::8], n_features=10, clip=(0, 1), seed=1)
    a.progressive_predict(X, y)
    b.progressive_predict(X, y)
    assert (a.weights < 0).any()
    # experts are identical (they learn the raw labels in both)
    np.testing.assert_array_equal(a.expert_predictions(X[0]), b.expert_predictions(X[0]))


@pytest.mark.parametrize("aggregator", ["vaw", "ewa", "aa", "boa", "mlpoly", "mlprod"])
def test_progressive_experts_plus_aggregator_equals_multikernel(aggregator):
    X, y = bounded_stream(120, 2, 5)
    clip = None if aggregator == "vaw" else (0.0, 1.0)
    mk = ks.MultiKernelAWV(KERNELS, n_features=8, aggregator=aggregator, clip=clip, seed=3)
    p = mk.progressive_predict(X, y)
    Z = ks.MultiKernelAWV(KERNELS, n_features=8, seed=3).progressive_experts(X, y)
    rule = {
        "vaw": agg.VAWMeta(4, 1.0),
        "ewa": agg.EWA(4, 0.5),
        "aa": agg.AggregatingAlgorithm(4, 0, 1),
        "boa": agg.BOA(4),
        "mlpoly": agg.MLPoly(4),
        "mlprod": agg.MLProd(4),
    }[aggregator]
    Zin = Z if clip is None else np.clip(Z, *clip)
    np.testing.assert_array_equal(rule.progressive_predict(Zin, y), p)


def test_multikernel_parameter_errors():
    for kw in [
        dict(kernels=[]),
        dict(aggregator="nope"),
        dict(aggregator="aa"),
        dict(clip=(1, 0)),
        dict(clip=(0, np.nan)),
        dict(n_features=0),
        dict(lam=0),
        dict(eta=-1),
        dict(features="sin"),
        dict(gradient=1),
        dict(ridge=1),
        dict(meta_ridge="yes"),
        dict(meta_ridge=True, aggregator="ewa", clip=(0, 1)),
        dict(kernels="gaussian"),
        dict(kernels=[1.0]),
        dict(seed=-1),
    ]:
        args = dict(kernels=KERNELS)
        args.update(kw)
        with pytest.raises(ks.ParameterError):
            ks.MultiKernelAWV(**args)


# --- Raker, OMKL-GF ----------------------------------------------------------------


def test_raker_equals_reference():
    X, y = bounded_stream(200, 3, 6)
    fast = ks.Raker(KERNELS, n_features=12, seed=2)
    ref = RakerReference(KERNELS, n_features=12, seed=2)
    np.testing.assert_allclose(
        fast.progressive_predict(X, y), run_ref(ref, X, y), rtol=0, atol=1e-12
    )
    np.testing.assert_allclose(fast.weights, ref.weights, rtol=0, atol=1e-12)


def test_omklgf_graph_is_frozen_after_graph_rounds_and_predicts_from_chosen():
    X, y = bounded_stream(120, 2, 7)
    m = ks.OMKLGF(KERNELS, n_features=8, n_samples=2, graph_rounds=30, seed=1)
    m.progressive_predict(X[:40], y[:40])
    frozen = list(m.chosen)
    m.progressive_predict(X[40:], y[40:])
    assert list(m.chosen) == frozen and 1 <= len(frozen) <= 2
    # one kernel, all weight: OMKL-GF with M draws from a single kernel is Raker on it
    r = ks.Raker([Gaussian(0.5)], n_features=8, seed=3)
    o = ks.OMKLGF([Gaussian(0.5)], n_features=8, n_samples=3, explore=0.0, seed=3)
    np.testing.assert_allclose(
        o.progressive_predict(X, y), r.progressive_predict(X, y), rtol=0, atol=1e-13
    )


# --- AR(4) ---------------------------------------------------------------------------


def test_ar4_follows_eq_32():
    from kernelstream.datasets.synthetic import ar4

    X, y = ar4(n=300, seed=3)
    x = np.concatenate([[0, 0, 0, 0], X[:, 0], [y[-1]]])  # x_{-3..0}, x_1..x_n, x_{n+1}
    rng = ks._core.Rng(3)
    for t in range(1, 302):
        i = t + 3
        eps = x[i] - (0.5 * x[i - 4] - 0.3 * x[i - 3] + 0.2 * x[i - 2] + 0.1 * x[i - 1])
        assert eps == pytest.approx(rng.normal(), abs=1e-12)
    np.testing.assert_array_equal(X[1:, 0], y[:-1])
    X4, y4 = ar4(n=300, seed=3, lags=4)
    np.testing.assert_array_equal(X4[:, 0], X[:, 0])
    np.testing.assert_array_equal(X4[3:, 3], X[:-3, 0])
    np.testing.assert_array_equal(y4, y)


@pytest.mark.parametrize("ridge", [False, True])
def test_rffawv_blocked_rounds_equal_single_rounds(ridge):
    # r = 120 features ("cossin", 60 frequencies): automatic blocks against single rounds.
    X, y = bounded_stream(300, 3, 4)
    kw = dict(n_features=60, lam=0.5, features="cossin", seed=3, ridge=ridge)
    single = ks.RFFAWV(Gaussian(0.7), **kw, block_size=1)
    blocked = ks.RFFAWV(Gaussian(0.7), **kw)
    ref = RFFAWVReference(Gaussian(0.7), **kw)
    pb = blocked.progressive_predict(X, y)
    np.testing.assert_allclose(pb, single.progressive_predict(X, y), rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(pb, run_ref(ref, X, y), rtol=0, atol=1e-10)
    np.testing.assert_allclose(blocked.weights, single.weights, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(
        blocked.predict_many(X[:20]), [single.predict_one(x) for x in X[:20]], rtol=1e-9, atol=1e-12
    )
