"""OnlineProjection (Zhang and Simon, Algorithm 2) against batch least squares and the
paper's identities."""

from __future__ import annotations

import math
import pickle

import kernelstream as ks
import numpy as np
import pytest
from kernelstream.datasets.projection_examples import EXAMPLES
from kernelstream.kernels import AdditiveSobolev2, BernoulliPeriodic, Min
from kernelstream.reference.online_projection import (
    NaiveOnlineProjection,
    ProjectionDesign,
    add_column_step,
    batch_projection,
    hermite_eigenvalues,
    hermite_functions,
    sherman_morrison_step,
    sine_eigenvalues,
    trig_eigenvalues,
)

_PREFIX = {None: None, "constant": 0, "quadratic": 2}


def design_of(example, d=None):
    p = dict(EXAMPLES[example].projection)
    prefix = _PREFIX[p.pop("prefix", None)]
    return ProjectionDesign(d or EXAMPLES[example].d, prefix_degree=prefix, **p)


def thetas_every_n(model, X, y):
    out = []
    for x, yt in zip(X, y):
        model.learn_one(x, yt)
        out.append(model.coefficients.copy())
    return out


def batch_every_n(design, X, y, n_min):
    """Batch least squares at every n by a direct solve of the normal equations of the
    active columns (cumulative Gram matrices of the NumPy design matrix)."""
    n = len(y)
    N_final = design.n_units(n)
    Psi = design.matrix(X, N_final)
    out = {}
    G = np.zeros((Psi.shape[1],) * 2)
    r = np.zeros(Psi.shape[1])
    for i in range(n):
        G += np.outer(Psi[i], Psi[i])
        r += Psi[i] * y[i]
        if i + 1 >= n_min:
            p = design.n_columns(i + 1)
            out[i + 1] = np.linalg.solve(G[:p, :p], r[:p])
    return out


# The basis grows with n: the default sizes pass several growths of each design, the
# full sizes (under -m slow) several more.
_SLOW = pytest.mark.slow


@pytest.mark.parametrize(
    "example,n,refresh",
    [
        ("example1", 5_000, True),
        ("example2", 3_000, True),
        ("example2", 3_000, False),
        ("a1", 3_000, True),
        ("a2", 3_000, True),
        ("a2", 3_000, False),
        pytest.param("example1", 20_000, True, marks=_SLOW),
        pytest.param("example2", 10_000, True, marks=_SLOW),
        pytest.param("example2", 10_000, False, marks=_SLOW),
        pytest.param("a1", 10_000, True, marks=_SLOW),
        pytest.param("a2", 10_000, True, marks=_SLOW),
        pytest.param("a2", 10_000, False, marks=_SLOW),
    ],
)
def test_online_equals_batch_least_squares_at_every_n(example, n, refresh):
    ex = EXAMPLES[example]
    X, y = ex.sample(n, seed=3)
    model = ex.make_projection(refresh=refresh)
    thetas = thetas_every_n(model, X, y)
    design = design_of(example)
    n_min = 2 * design.n_columns(50) + 50  # past the warm-up
    batch = batch_every_n(design, X, y, n_min)
    worst = 0.0
    for m, th in batch.items():
        online = thetas[m - 1]
        assert online.shape == th.shape
        worst = max(worst, np.max(np.abs(online - th)) / np.max(np.abs(th)))
    assert worst <= 1e-10, worst


def test_additive_online_equals_batch():
    ex = EXAMPLES["additive"]
    X, y = ex.sample(3000, seed=4)
    X = X[:, :3].copy()  # d = 3 keeps the reference cheap
    model = ks.OnlineProjection(basis="trig", alpha=2.0, c=0.2, prefix="quadratic", additive=True)
    thetas = thetas_every_n(model, X, y)
    design = ProjectionDesign(3, basis="trig", alpha=2.0, c=0.2, prefix_degree=2, additive=True)
    batch = batch_every_n(design, X, y, 200)
    worst = max(np.max(np.abs(thetas[m - 1] - th)) / np.max(np.abs(th)) for m, th in batch.items())
    assert worst <= 1e-10
    assert model.dim == 1 + 3 * 2 + 3 * design.n_units(3000)


@pytest.mark.slow
def test_warm_up_and_pairs_and_tensor_match_naive_algorithm_1():
    rng = np.random.default_rng(0)
    cases = [
        (
            dict(basis="trig", alpha=2.0, c=0.2, count="pair"),
            dict(basis="trig", alpha=2.0, c=0.2, pairs=True),
            1,
        ),
        (
            dict(basis="trig", alpha=2.0, c=1 / 30, prefix="quadratic"),
            dict(basis="trig", alpha=2.0, c=1 / 30, prefix_degree=2),
            1,
        ),
        (dict(basis="sine", alpha=1.5, c=0.3), dict(basis="sine", alpha=1.5, c=0.3), 2),
        (
            dict(basis="trig", alpha=1.5, c=0.5, cos_first=True),
            dict(basis="trig", alpha=1.5, c=0.5, cos_first=True),
            2,
        ),
    ]
    for kw_fast, kw_ref, d in cases:
        X = rng.uniform(0, 1, size=(300, d))
        y = np.sin(5 * X.sum(1)) + 0.1 * rng.standard_normal(300)
        fast = ks.OnlineProjection(**kw_fast)
        ref = NaiveOnlineProjection(d=d, **kw_ref)
        for i, (x, yt) in enumerate(zip(X, y)):
            # round-off of any least-squares solver scales with cond(Psi^T Psi): the tolerance
            # is 1e-9 once the design is well conditioned, looser just after a switch-on
            cond = np.linalg.cond(fast.gram) if fast.is_ready else np.inf
            if np.isfinite(cond):
                tol = max(1e-9, 1e-14 * cond)
                assert fast.predict_one(x) == pytest.approx(ref.predict_one(x), rel=tol, abs=tol), (
                    kw_fast,
                    i,
                    cond,
                )
            else:
                # warm-up: minimum-norm least squares
                assert fast.predict_one(x) == pytest.approx(
                    ref.predict_one(x), rel=1e-6, abs=1e-6
                ), (kw_fast, i)
            fast.learn_one(x, yt)
            ref.learn_one(x, yt)
            assert fast.dim == ref.dim


def test_eq22_row_step_matches_direct_solve(rng):
    Psi = rng.standard_normal((40, 6))
    Y = rng.standard_normal(40)
    Phi = np.linalg.inv(Psi[:-1].T @ Psi[:-1])
    theta = Phi @ Psi[:-1].T @ Y[:-1]
    Phi_n, theta_n = sherman_morrison_step(Phi, theta, Psi[-1], Y[-1])
    np.testing.assert_allclose(theta_n, np.linalg.lstsq(Psi, Y, rcond=None)[0], rtol=0, atol=1e-13)
    np.testing.assert_allclose(Phi_n, np.linalg.inv(Psi.T @ Psi), rtol=0, atol=1e-13)


def test_eq74_column_step_matches_direct_solve(rng):
    Psi = rng.standard_normal((50, 5))
    w = rng.standard_normal(50)
    Y = rng.standard_normal(50)
    Phi = np.linalg.inv(Psi.T @ Psi)
    theta = Phi @ Psi.T @ Y
    Phi2, theta2, k = add_column_step(Phi, theta, Psi, w, Y)
    full = np.column_stack([Psi, w])
    np.testing.assert_allclose(theta2, np.linalg.lstsq(full, Y, rcond=None)[0], rtol=0, atol=1e-13)
    np.testing.assert_allclose(Phi2, np.linalg.inv(full.T @ full), rtol=0, atol=1e-13)
    H = Psi @ Phi @ Psi.T
    assert k == pytest.approx(np.sum(((np.eye(50) - H) @ w) ** 2), rel=1e-12)


def test_rust_schur_path_without_refresh_matches_eq74():
    """refresh=False: Phi after many Sherman-Morrison and Schur steps equals the inverse Gram."""
    ex = EXAMPLES["example2"]
    X, y = ex.sample(5000, seed=8)
    m = ex.make_projection(refresh=False)
    m.learn_many(X, y)
    assert m.counters["refreshes"] == 0
    Psi = m.basis_matrix(X)
    np.testing.assert_allclose(m.gram, Psi.T @ Psi, rtol=1e-12, atol=1e-9)
    G = Psi.T @ Psi
    assert np.max(np.abs(m.phi @ G - np.eye(m.dim))) < 1e-10


# Active column counts at n = 1e2 .. 1e6 ("N counts individual functions")
P_TABLE = {
    "example1": [3, 5, 8, 13, 21],
    "example2": [5, 12, 27, 58, 125],
    "a1": [6, 13, 28, 59, 126],
    "a2": [7, 10, 15, 22, 34],
}


@pytest.mark.parametrize("example", sorted(P_TABLE))
def test_active_counts_match_spec_table(example):
    design = design_of(example)
    assert [design.n_columns(10**k) for k in range(2, 7)] == P_TABLE[example]
    # and the Rust learner on an actual stream up to 1e4
    ex = EXAMPLES[example]
    X, y = ex.sample(10_000, seed=0)
    m = ex.make_projection()
    dims = []
    for lo, hi in [(0, 100), (100, 1000), (1000, 10_000)]:
        m.learn_many(X[lo:hi], y[lo:hi])
        dims.append(m.dim)
    assert dims == P_TABLE[example][:3]


def test_switch_on_indices_and_figure3_counts():
    s = ks.OnlineProjection.switch_on_index
    assert [s(0.2, 5, N) for N in range(1, 11)] == [
        0,
        6,
        48,
        204,
        625,
        1555,
        3361,
        6553,
        11809,
        20000,
    ]
    assert [s(0.5, 3, N) for N in range(1, 11)] == [0, 4, 13, 32, 62, 108, 171, 256, 364, 500]
    for alpha, expected in [(1, [10, 21, 46, 100]), (2, [3, 6, 10, 15]), (3, [2, 3, 5, 7])]:
        d = ProjectionDesign(1, basis="sine", alpha=alpha, c=1.0)
        assert [d.n_columns(10**k) for k in range(3, 7)] == expected


def test_several_units_switched_on_in_one_round():
    # alpha = 0.1 (kappa = 1.2), c = 0.5: t_1, t_2, t_3 = 0, 1, 1 -- an "if n == t_{N+1}" test would
    # switch on only one of the two units due at n = 1 (the paper's equality test would miss one; docs/choices.md)
    s = ks.OnlineProjection.switch_on_index
    assert [s(0.5, 1.2, N) for N in (1, 2, 3, 4)] == [0, 1, 1, 2]
    m = ks.OnlineProjection(basis="sine", alpha=0.1, c=0.5)
    m.learn_one([0.3], 1.0)
    assert m.n_units == 3 and m.dim == 3
    m.learn_one([0.6], 1.0)
    assert m.n_units == 4
    # A.2: t_1, t_2 = 0, 1 with three prefix columns
    m = ks.OnlineProjection(basis="trig", alpha=2.0, c=1 / 30, prefix="quadratic")
    m.learn_one([0.3], 1.0)
    assert m.n_units == 2 and m.dim == 5


# -- kernel identities (sec. 2) -------------------------------------------------


def test_bernoulli_kernel_equals_fourier_series():
    s = np.linspace(0, 1, 41)
    K = BernoulliPeriodic()(s[:, None], s[:, None])
    k = np.arange(1, 3001)
    series = np.zeros_like(K)
    for kk in np.array_split(k, 10):
        w = 2.0 / (2 * np.pi * kk) ** 4
        series += np.einsum(
            "k,ik,jk->ij",
            w,
            np.cos(2 * np.pi * np.outer(s, kk)),
            np.cos(2 * np.pi * np.outer(s, kk)),
        )
        series += np.einsum(
            "k,ik,jk->ij",
            w,
            np.sin(2 * np.pi * np.outer(s, kk)),
            np.sin(2 * np.pi * np.outer(s, kk)),
        )
    assert np.max(np.abs(K - series)) < 1e-12
    assert K[3, 3] == pytest.approx(1 / 720, rel=1e-14)


def test_min_kernel_equals_sine_series_and_eigen_equation():
    s = np.linspace(0, 1, 21)
    J = 20000
    lam = sine_eigenvalues(J)
    psi = np.sqrt(2) * np.sin((2 * np.arange(1, J + 1) - 1) * np.pi * s[:, None] / 2)
    series = (psi * lam) @ psi.T
    tail = 1.0 - np.sum(
        8.0 / ((2 * np.arange(1, J + 1) - 1) ** 2 * np.pi**2)
    )  # sum of the rest of 2 lambda_j
    K = Min()(s[:, None], s[:, None])
    assert np.all(np.abs(K - series) <= tail + 1e-13)
    # eigen-equation int_0^1 min(s, t) psi_j(t) dt = lambda_j psi_j(s), by Gauss-Legendre on [0, s] and [s, 1]
    t, w = np.polynomial.legendre.leggauss(60)
    for j in (1, 2, 5, 12):
        for si in (0.13, 0.5, 0.91):
            val = 0.0
            for a, b in ((0.0, si), (si, 1.0)):
                tt = 0.5 * (b - a) * t + 0.5 * (a + b)
                val += (
                    0.5
                    * (b - a)
                    * np.sum(
                        w * np.minimum(si, tt) * np.sqrt(2) * np.sin((2 * j - 1) * np.pi * tt / 2)
                    )
                )
            assert val == pytest.approx(
                lam[j - 1] * np.sqrt(2) * np.sin((2 * j - 1) * np.pi * si / 2), abs=1e-13
            )


def test_additive_kernel_is_psd_and_additive():
    rng = np.random.default_rng(1)
    X = rng.uniform(0, 1, size=(150, 3))
    K = AdditiveSobolev2()(X)
    assert np.linalg.eigvalsh(K).min() > -1e-10
    parts = sum(
        X[:, [l]] * X[:, [l]].T + (X[:, [l]] * X[:, [l]].T) ** 2 + BernoulliPeriodic()(X[:, [l]])
        for l in range(3)
    )
    np.testing.assert_allclose(K, parts, rtol=0, atol=1e-14)


def _rust_basis(basis, X, m, **kw):
    """psi_1..psi_m from the Rust core: a learner whose first m units switch on at n <= 1."""
    learner = ks.OnlineProjection(basis=basis, alpha=1.0, c=1.0 / (m + 1) ** 3 * 0.999, **kw)
    learner.learn_one(np.full(X.shape[1], 0.5 if basis != "gaussian" else 0.0), 0.0)
    B = learner.basis_matrix(X)
    assert B.shape[1] >= m
    return B[:, :m]


def test_rust_bases_match_closed_forms():
    x = np.linspace(0, 1, 101)[:, None]
    B = _rust_basis("sine", x, 200)
    j = np.arange(1, 201)
    np.testing.assert_allclose(
        B, np.sqrt(2) * np.sin((2 * j - 1) * np.pi * x / 2), rtol=0, atol=1e-12
    )
    B = _rust_basis("trig", x, 200)
    k = (j + 1) // 2
    expect = np.where(
        j % 2 == 1, np.sqrt(2) * np.sin(2 * np.pi * k * x), np.sqrt(2) * np.cos(2 * np.pi * k * x)
    )
    np.testing.assert_allclose(B, expect, rtol=0, atol=1e-12)
    xg = np.linspace(-3, 3, 61)[:, None]
    B = _rust_basis("gaussian", xg, 25, a=1.0, eps=0.7)
    np.testing.assert_allclose(B, hermite_functions(xg[:, 0], 25, 1.0, 0.7), rtol=1e-10, atol=1e-12)


def test_gaussian_eigensystem_orthonormal_and_reproduces_kernel():
    a, eps, m = 1.0, 0.7, 60
    t, w = np.polynomial.hermite.hermgauss(120)  # int e^{-u^2} g(u) du, x = u / a
    x = (t / a)[:, None]
    B = _rust_basis("gaussian", x, m, a=a, eps=eps)
    G = (B * (w / np.sqrt(np.pi))[:, None]).T @ B
    np.testing.assert_allclose(G[:30, :30], np.eye(30), rtol=0, atol=1e-10)
    s = np.linspace(-2, 2, 17)[:, None]
    Bs = _rust_basis("gaussian", s, m, a=a, eps=eps)
    lam = hermite_eigenvalues(m, a, eps)
    K = np.exp(-(eps**2) * (s - s.T) ** 2)
    np.testing.assert_allclose((Bs * lam) @ Bs.T, K, rtol=0, atol=1e-12)
    # no overflow for high orders or at the edge of the domain
    far = _rust_basis("gaussian", np.array([[29.0], [-29.9], [0.0]]), 400, a=a, eps=eps)
    assert np.all(np.isfinite(far))


def test_tensor_order_is_by_product_eigenvalue_then_lexicographic():
    m = ks.OnlineProjection(basis="sine", alpha=1.0, c=1.0 / 2000)
    m.learn_one([0.5, 0.5], 0.0)
    names = m.active_basis[:6]
    assert names == ["sine[1,1]", "sine[1,2]", "sine[2,1]", "sine[1,3]", "sine[3,1]", "sine[1,4]"]
    lam = sine_eigenvalues(100)
    prods = [
        lam[int(a) - 1] * lam[int(b) - 1] for a, b in (n[5:-1].split(",") for n in m.active_basis)
    ]
    assert all(p1 >= p2 * (1 - 1e-12) for p1, p2 in zip(prods, prods[1:]))
    assert len(trig_eigenvalues(4)) == 4


# -- basis-scaling invariance (the estimator does not depend on the basis scaling) -----------------------------------------


def test_predictions_invariant_to_basis_scaling_and_prefix_orthogonalisation():
    ex = EXAMPLES["a2"]
    X, y = ex.sample(4000, seed=2)
    m = ex.make_projection()
    m.learn_many(X, y)
    Psi = m.basis_matrix(X)
    # replace the Legendre prefix by raw 1, x, x^2 and rescale every trig column by c_j
    x = X[:, 0]
    scales = np.linspace(0.1, 7.0, Psi.shape[1] - 3)
    alt = np.column_stack([np.ones_like(x), x, x**2, Psi[:, 3:] * scales])
    theta = batch_projection(alt, y, rcond=None)
    grid = np.linspace(0, 1, 201)
    G = m.basis_matrix(grid[:, None])
    alt_grid = np.column_stack([np.ones_like(grid), grid, grid**2, G[:, 3:] * scales])
    np.testing.assert_allclose(m.predict_many(grid[:, None]), alt_grid @ theta, rtol=0, atol=1e-9)


def test_outside_domain_is_input_error_and_state_unchanged():
    m = ks.OnlineProjection(basis="sine", alpha=1.0, c=0.5)
    X = np.random.default_rng(0).uniform(0, 1, size=(50, 1))
    m.learn_many(X, np.sin(X[:, 0]))
    before = pickle.dumps(m)
    for bad in ([1.2], [-0.1]):
        with pytest.raises(ks.InputError, match="outside the domain"):
            m.learn_one(bad, 0.0)
        with pytest.raises(ks.InputError):
            m.predict_one(bad)
    with pytest.raises(ks.InputError):
        m.learn_many(np.array([[0.5], [3.0]]), np.array([0.0, 1.0]))
    assert pickle.dumps(m) == before


def test_bad_parameters():
    for kw in [
        dict(basis="wavelet"),
        dict(alpha=0),
        dict(c=-1),
        dict(count="triple"),
        dict(tol=2.0),
        dict(prefix="cubic"),
        dict(basis="sine", count="pair"),
    ]:
        with pytest.raises(ks.ParameterError):
            ks.OnlineProjection(**kw)
    m = ks.OnlineProjection(basis="trig", count="pair")
    with pytest.raises(ks.ParameterError):
        m.learn_one([0.1, 0.2], 1.0)  # pairs need d = 1 unless additive


def test_averaged_sgd_matches_reference():
    from kernelstream.reference.online_projection import AveragedKernelSGDReference

    for kernel, gamma0, ex in [(Min(), 5.0, "example2"), (BernoulliPeriodic(), 128.0, "example1")]:
        X, y = EXAMPLES[ex].sample(400, seed=5)
        fast = ks.AveragedKernelSGD(kernel, gamma0=gamma0)
        ref = AveragedKernelSGDReference(kernel, gamma0=gamma0)
        preds = fast.progressive_predict(X, y)
        ref_preds = []
        for x, yt in zip(X, y):
            ref_preds.append(ref.predict_one(x))
            ref.learn_one(x, yt)
        np.testing.assert_allclose(preds, ref_preds, rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(fast.coefficients, ref.a, rtol=1e-10, atol=1e-14)


def test_exact_l2_error_matches_fine_quadrature():
    from kernelstream.datasets.projection_examples import l2_error

    ex = EXAMPLES["a1"]
    X, y = ex.sample(2000, seed=0)
    m = ex.make_projection()
    m.learn_many(X, y)
    err = l2_error(m.predict_many, ex)
    grid = (np.arange(400_000) + 0.5) / 400_000
    diff = m.predict_many(grid[:, None]) - ex.f(grid)
    assert err == pytest.approx(np.mean(diff**2 * (grid + 0.5)), rel=1e-6)
    assert math.isfinite(err) and err > 0


def test_example_generators_follow_their_design_and_noise():
    from kernelstream.datasets import synthetic
    from kernelstream.datasets.projection_examples import f_a1, f_example2

    X, y = synthetic.example2(200_000, seed=1)
    # density x + 0.5: E X = 7/12, E X^2 = 5/12 - ... (int x^2 (x + 0.5) = 1/4 + 1/6)
    assert X.mean() == pytest.approx(7 / 12, abs=3e-3)
    assert (X**2).mean() == pytest.approx(1 / 4 + 1 / 6, abs=3e-3)
    assert np.std(y - f_example2(X[:, 0])) == pytest.approx(
        5.0, rel=0.01
    )  # "Normal(0, 5)" read as sd 5
    X, y = synthetic.example1(100_000, seed=2)
    resid = y - X[:, 0] ** 4 + 2 * X[:, 0] ** 3 - X[:, 0] ** 2 + 1 / 30
    assert np.abs(resid).max() <= 0.02 and X.min() >= 0 and X.max() <= 1
    X, y = synthetic.example_a1(1000, seed=3)
    assert np.all((X >= 0) & (X <= 1))
    assert f_a1(np.array([0.2, 0.5, 1.0])).tolist() == pytest.approx([1.0, 1.6, 3.1])
    X, y = synthetic.additive_doppler(10, seed=4)
    assert X.shape == (10, 10)
    X1, y1 = synthetic.additive_doppler(10, seed=4)
    np.testing.assert_array_equal(y, y1)


def test_a_schedule_that_outruns_the_data_is_refused_before_the_call_runs():
    """c = 1e-6 on d = 2 switches on more columns than samples by round ~16: a batch call
    over the stream is refused before any round (it used to stop there, after seconds
    of 600-column eigen-solves), and the learner stays fresh."""
    X = np.random.default_rng(0).uniform(0, 1, size=(2000, 2))
    y = X[:, 0]
    for call in ("progressive_predict", "learn_many"):
        m = ks.OnlineProjection(c=1e-6)
        with pytest.raises(ks.ParameterError, match="c = 1.000000e-6 would switch on"):
            getattr(m, call)(X, y)
        assert m.n_seen == 0 and m.input_dim is None
    # the same configuration on d = 1 grows slowly enough and runs
    m = ks.OnlineProjection(c=1e-6)
    m.learn_many(X[:50, :1], y[:50])
    assert m.n_seen == 50
    # a call that ends before the schedule outruns the data still runs
    m = ks.OnlineProjection(c=1e-6)
    m.learn_many(X[:3], y[:3])
    assert m.n_seen == 3
