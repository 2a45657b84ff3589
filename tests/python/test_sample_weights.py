"""Sample weights (docs/choices.md, "Sample weights"): ``learn_one(x, y, w)``,
``learn_many``/``progressive_predict(..., sample_weight=...)`` and the adapters.

The references come from the definitions: for the AWV family a round of weight ``w`` is
the ridge update ``A += w phi phi^T``, ``b += w y phi``, so an integer weight equals the
row repeated ``w`` times; for a gradient learner the weight scales the loss, so one round
of weight ``w`` equals one round with the step size times ``w``; for EWA the log-weights
are ``-eta sum_t w_t loss_t``.
"""

from __future__ import annotations

import pickle

import kernelstream as ks
import numpy as np
import pytest
from kernelstream.kernels import Gaussian, Laplacian
from zoo import ZOO

G = Gaussian(1.0)


def _data(n=60, d=3, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1.0, 1.0, size=(n, d))
    y = np.sin(2.0 * X[:, 0]) + X[:, 1 % d] * X[:, 2 % d] + 0.1 * rng.normal(size=n)
    w = rng.integers(0, 4, size=n).astype(float)  # weights in {0, 1, 2, 3}
    return X, y, w


AWV = {
    "TaylorAWV-single": lambda: ks.TaylorAWV(degree=3, block_size=1),
    "TaylorAWV-blocks": lambda: ks.TaylorAWV(degree=3, block_size=16),
    "TaylorAWV-ridge": lambda: ks.TaylorAWV(degree=2, ridge=True),
    "RFFAWV": lambda: ks.RFFAWV(G, n_features=40, seed=3),
    "RFFAWV-blocks": lambda: ks.RFFAWV(G, n_features=40, seed=3, block_size=8),
    "MultiKernelAWV": lambda: ks.MultiKernelAWV([G, Laplacian(1.0)], n_features=20, seed=1),
}


@pytest.mark.parametrize("name", list(AWV))
def test_integer_weights_equal_repeated_rows_awv(name):
    """Weighted rows (single rounds) against the rows repeated (the learner's own blocks)."""
    X, y, w = _data()
    reps = w.astype(int)
    weighted, repeated = AWV[name](), AWV[name]()
    preds = weighted.progressive_predict(X, y, sample_weight=w)
    Xr, yr = np.repeat(X, reps, axis=0), np.repeat(y, reps)
    preds_r = repeated.progressive_predict(Xr, yr)
    probe = np.random.default_rng(9).uniform(-1.0, 1.0, size=(20, 3))
    if name != "MultiKernelAWV":  # its meta-rule sees each repeat: only the experts agree
        np.testing.assert_allclose(
            weighted.predict_many(probe), repeated.predict_many(probe), rtol=0, atol=1e-10
        )
        # each weighted row's prediction is that of its first repeat
        first = np.concatenate([[0], np.cumsum(reps)[:-1]])[reps > 0]
        np.testing.assert_allclose(preds[reps > 0], preds_r[first], rtol=0, atol=1e-10)
    assert weighted.n_seen == int((w > 0).sum())  # a zero-weight row is not learned


def test_multi_kernel_experts_equal_repeated_rows():
    X, y, w = _data()
    a, b = AWV["MultiKernelAWV"](), AWV["MultiKernelAWV"]()
    a.learn_many(X, y, sample_weight=w)
    reps = w.astype(int)
    b.learn_many(np.repeat(X, reps, axis=0), np.repeat(y, reps))
    probe = np.random.default_rng(9).uniform(-1.0, 1.0, size=(10, 3))
    for x in probe:
        np.testing.assert_allclose(
            a.expert_predictions(x), b.expert_predictions(x), rtol=0, atol=1e-10
        )


def test_weighted_round_is_the_weighted_ridge_solution():
    """After weighted rounds, TaylorAWV predicts phi^T (lam I + sum w phi phi^T)^-1 sum w y phi
    (the weighted ridge solution; the AWV prediction adds the point itself to A)."""
    X, y, _ = _data(n=30)
    w = np.random.default_rng(5).uniform(0.0, 3.0, size=30)
    lr = ks.TaylorAWV(degree=2, ridge=True)
    lr.learn_many(X, y, sample_weight=w)
    core = lr._core
    Phi = np.array([core.features(x) for x in X])
    A = np.eye(Phi.shape[1]) * lr.get_params()["lam"] + (Phi * w[:, None]).T @ Phi
    theta = np.linalg.solve(A, Phi.T @ (w * y))
    probe = np.random.default_rng(2).uniform(-1.0, 1.0, size=(5, 3))
    expect = np.array([core.features(x) for x in probe]) @ theta
    np.testing.assert_allclose(lr.predict_many(probe), expect, rtol=0, atol=1e-10)


@pytest.mark.parametrize("name", list(ZOO))
def test_unit_weights_are_the_unweighted_path_bit_for_bit(name):
    entry = ZOO[name]
    X, y, _ = _data(n=40, d=entry.d)
    lo, hi = entry.domain
    X = lo + (X + 1.0) / 2.0 * (hi - lo)
    if entry.task == "classification":
        y = np.where(y >= 0, 1.0, -1.0)
    a, b = entry.factory(), entry.factory()
    pa = a.progressive_predict(X, y)
    pb = b.progressive_predict(X, y, sample_weight=np.ones(len(y)))
    assert np.array_equal(pa, pb)
    assert pickle.dumps(a) == pickle.dumps(b)
    a.learn_one(X[0], y[0])
    b.learn_one(X[0], y[0], w=1.0)
    assert pickle.dumps(a) == pickle.dumps(b)


@pytest.mark.parametrize("name", list(ZOO))
def test_zero_weight_leaves_the_learner_as_it_was(name):
    entry = ZOO[name]
    X, y, _ = _data(n=30, d=entry.d)
    lo, hi = entry.domain
    X = lo + (X + 1.0) / 2.0 * (hi - lo)
    if entry.task == "classification":
        y = np.where(y >= 0, 1.0, -1.0)
    lr = entry.factory()
    lr.learn_many(X[:20], y[:20])
    before, n = pickle.dumps(lr), lr.n_seen
    lr.learn_one(X[20], y[20], w=0.0)
    lr.learn_many(X[20:], y[20:], sample_weight=np.zeros(10))
    assert lr.n_seen == n
    assert pickle.dumps(lr) == before
    # progressive predictions of zero-weight rows are the pure predictions
    p = lr.progressive_predict(X[20:], y[20:], sample_weight=np.zeros(10))
    np.testing.assert_allclose(p, [lr.predict_one(x) for x in X[20:]], rtol=1e-12, atol=1e-12)
    assert pickle.dumps(lr) == before


@pytest.mark.parametrize("bad", [-1.0, float("nan"), float("inf"), "2", True, [1.0, 2.0]])
def test_bad_weight_is_an_input_error_and_changes_nothing(bad):
    X, y, _ = _data(n=10)
    lr = ks.TaylorAWV()
    lr.learn_many(X[:5], y[:5])
    before = pickle.dumps(lr)
    with pytest.raises(ks.InputError):
        lr.learn_one(X[5], y[5], w=bad)
    sw = np.ones(5, dtype=object)
    sw[2] = bad
    with pytest.raises(ks.InputError):
        lr.learn_many(X[5:], y[5:], sample_weight=sw)
    with pytest.raises(ks.InputError):
        lr.progressive_predict(X[5:], y[5:], sample_weight=sw)
    assert pickle.dumps(lr) == before


def test_wrong_number_of_weights_is_an_input_error():
    X, y, _ = _data(n=10)
    lr = ks.TaylorAWV()
    with pytest.raises(ks.InputError, match="sample_weight has 3 values"):
        lr.learn_many(X, y, sample_weight=np.ones(3))
    assert lr.n_seen == 0


@pytest.mark.parametrize("name", ["KernelAWV", "NystromAWV", "OnlineProjection", "AutoKernel"])
def test_repeating_learners_learn_integer_weights_as_repeats(name):
    """Learners without a weighted round of their own: integer w is the row w times;
    other weights are refused before any change."""
    cls = getattr(ks, name)
    entry = ZOO[name]
    X, y, w = _data(n=20, d=entry.d)
    lo, hi = entry.domain
    X = lo + (X + 1.0) / 2.0 * (hi - lo)
    a, b = cls(**cls._example()), cls(**cls._example())
    a.learn_many(X[:10], y[:10], sample_weight=w[:10])
    reps = w[:10].astype(int)
    b.learn_many(np.repeat(X[:10], reps, axis=0), np.repeat(y[:10], reps))
    assert pickle.dumps(a) == pickle.dumps(b)
    before = pickle.dumps(a)
    for bad in (np.full(10, 1.5), np.full(10, 1e6)):
        with pytest.raises(ks.InputError, match="whole numbers"):
            a.learn_many(X[10:], y[10:], sample_weight=bad)
    assert pickle.dumps(a) == before


# -- gradient learners: weight w is the step size times w, one round from the same state --
STEP = {
    "FOGD": (lambda s: ks.FOGD(G, n_features=30, lr=0.2 * s, seed=1)),
    "NOGD": (lambda s: ks.NOGD(G, budget=10, rank=4, lr=0.2 * s)),
    "AveragedKernelSGD": (lambda s: ks.AveragedKernelSGD(G, gamma0=0.3 * s)),
    "Raker": (lambda s: ks.Raker([G, Laplacian(1.0)], n_features=20, lr=0.2 * s, seed=1)),
}


@pytest.mark.parametrize("name", list(STEP))
def test_gradient_weight_scales_the_step(name):
    X, y, _ = _data(n=5)
    X = (X + 1.0) / 2.0  # AveragedKernelSGD's unit cube
    weighted, scaled = STEP[name](1.0), STEP[name](2.5)
    weighted.learn_one(X[0], y[0], w=2.5)
    scaled.learn_one(X[0], y[0])
    np.testing.assert_allclose(weighted.predict_many(X), scaled.predict_many(X), rtol=1e-12)


def test_pros_n_kons_weight_moves_the_learner_and_is_finite():
    X, y, w = _data(n=40)
    a, b = ks.ProsNKons(G), ks.ProsNKons(G)
    a.learn_many(X, y, sample_weight=np.where(w > 0, 2.0, 1.0))
    b.learn_many(X, y)
    pa, pb = a.predict_many(X), b.predict_many(X)
    assert np.isfinite(pa).all() and not np.array_equal(pa, pb)


# -- mixtures: the rule's losses weighted --------------------------------------------
def test_ewa_mixture_log_weights_are_weighted_cumulative_losses():
    X, y, _ = _data(n=25)
    w = np.random.default_rng(4).uniform(0.0, 2.0, size=25)
    experts = [lambda: ks.TaylorAWV(degree=2), lambda: ks.RFFAWV(G, n_features=20, seed=5)]
    eta = 0.7
    mix = ks.Mixture([e() for e in experts], rule="ewa", eta=eta)
    mix.learn_many(X, y, sample_weight=w)
    # each expert alone, weighted: its predictions before each label
    Z = np.column_stack([e().progressive_predict(X, y, sample_weight=w) for e in experts])
    logw = -eta * (w[:, None] * (Z - y[:, None]) ** 2).sum(axis=0)
    expect = np.exp(logw - logw.max())
    np.testing.assert_allclose(mix.weights, expect / expect.sum(), rtol=1e-10)


# -- adapters --------------------------------------------------------------------------
sklearn = pytest.importorskip("sklearn")


def test_sklearn_regressor_integer_weights_equal_repeated_rows():
    from kernelstream.adapters import SklearnRegressor

    X, y, w = _data()
    reps = w.astype(int)
    a = SklearnRegressor(ks.TaylorAWV(degree=3), scale=False).fit(
        X, y, sample_weight=w, shuffle=False
    )
    b = SklearnRegressor(ks.TaylorAWV(degree=3), scale=False).fit(
        np.repeat(X, reps, axis=0), np.repeat(y, reps)
    )
    np.testing.assert_allclose(a.predict(X), b.predict(X), rtol=0, atol=1e-10)


def test_sklearn_zero_weights_equal_dropped_rows_with_scaling():
    from kernelstream.adapters import SklearnClassifier, SklearnRegressor

    X, y, w = _data()
    keep = w > 0
    a = SklearnRegressor(ks.TaylorAWV()).fit(
        X, y, sample_weight=(w > 0).astype(float), shuffle=False
    )
    b = SklearnRegressor(ks.TaylorAWV()).fit(X[keep], y[keep], shuffle=False)
    np.testing.assert_array_equal(a.predict(X), b.predict(X))
    labels = (y > 0).astype(int)
    c = SklearnClassifier(ks.TaylorAWV()).fit(
        X, labels, sample_weight=(w > 0).astype(float), shuffle=False
    )
    d = SklearnClassifier(ks.TaylorAWV()).fit(X[keep], labels[keep], shuffle=False)
    np.testing.assert_array_equal(c.decision_function(X), d.decision_function(X))


def test_sklearn_bad_sample_weight_is_an_input_error():
    from kernelstream.adapters import SklearnRegressor

    X, y, _ = _data(n=10)
    with pytest.raises(ks.InputError):
        SklearnRegressor(ks.TaylorAWV()).fit(X, y, sample_weight=-np.ones(10))
    with pytest.raises(ks.InputError):
        SklearnRegressor(ks.TaylorAWV()).fit(X, y, sample_weight=np.ones(3))


def test_cross_val_score_and_grid_search_route_sample_weight():
    from kernelstream.adapters import SklearnClassifier, SklearnRegressor
    from sklearn.model_selection import GridSearchCV, KFold, cross_val_score

    X, y, w = _data(n=80)
    cv = KFold(4)
    got = cross_val_score(
        SklearnRegressor(ks.TaylorAWV()), X, y, cv=cv, params={"sample_weight": w}
    )
    expect = []
    for tr, te in cv.split(X):
        est = SklearnRegressor(ks.TaylorAWV()).fit(X[tr], y[tr], sample_weight=w[tr])
        expect.append(est.score(X[te], y[te]))
    np.testing.assert_allclose(got, expect, rtol=1e-12)
    # with metadata routing on: requested through set_fit_request
    with sklearn.config_context(enable_metadata_routing=True):
        est = SklearnClassifier(ks.TaylorAWV()).set_fit_request(sample_weight=True)
        est = est.set_score_request(sample_weight=False)
        grid = GridSearchCV(est, {"scale": [True, False]}, cv=cv)
        grid.fit(X, (y > 0).astype(int), sample_weight=w)
        assert grid.best_params_["scale"] in (True, False)


def test_river_learn_one_weight():
    pytest.importorskip("river")
    from kernelstream.adapters import RiverRegressor

    X, y, w = _data(n=30)
    a = RiverRegressor(ks.TaylorAWV(), scale=False)
    b = RiverRegressor(ks.TaylorAWV(), scale=False)
    for xi, yi, wi in zip(X, y, w):
        x = dict(enumerate(xi))
        a.learn_one(x, yi, w=wi)
        for _ in range(int(wi)):
            b.learn_one(x, yi)
    probe = dict(enumerate(X[0]))
    assert abs(a.predict_one(probe) - b.predict_one(probe)) < 1e-10
    before = pickle.dumps(a)
    a.learn_one(probe, 1.0, w=0)
    assert pickle.dumps(a) == before
    with pytest.raises(ks.InputError):
        a.learn_one(probe, 1.0, w=-2)


# -- evaluate.progressive ------------------------------------------------------------
def test_evaluate_progressive_weighted_losses():
    from kernelstream.evaluate import progressive

    X, y, w = _data(n=50)
    res = progressive(ks.TaylorAWV(), X, y, sample_weight=w, checkpoints=[20, 50], progress=False)
    p = ks.TaylorAWV().progressive_predict(X, y, sample_weight=w)
    np.testing.assert_array_equal(res.predictions, p)
    for k, n in enumerate([20, 50]):
        loss = (w[:n] * (p[:n] - y[:n]) ** 2).sum() / w[:n].sum()
        np.testing.assert_allclose(res.loss[k], loss, rtol=1e-12)
    plain = progressive(ks.TaylorAWV(), X, y, checkpoints=[20, 50], progress=False)
    ones = progressive(
        ks.TaylorAWV(), X, y, sample_weight=np.ones(50), checkpoints=[20, 50], progress=False
    )
    np.testing.assert_allclose(ones.loss, plain.loss, rtol=1e-14)
    with pytest.raises(ks.InputError):
        progressive(ks.TaylorAWV(), X, y, sample_weight=-w, progress=False)


# -- the command line ----------------------------------------------------------------
@pytest.mark.slow
def test_cli_run_weight_column(tmp_path):
    import subprocess
    import sys

    X, y, w = _data(n=80)
    path = tmp_path / "w.csv"
    rows = ["a,b,c,wt,y"] + [
        f"{a!r},{b!r},{c!r},{wi!r},{yi!r}"
        for (a, b, c), wi, yi in zip(X.tolist(), w.tolist(), y.tolist())
    ]
    path.write_text("\n".join(rows) + "\n")
    out = tmp_path / "p.csv"
    cmd = [
        sys.executable,
        "-m",
        "kernelstream",
        "run",
        "--csv",
        str(path),
        "--target",
        "y",
        "--weight",
        "wt",
        "--learner",
        "taylor-awv",
        "--scale",
        "none",
        "--save-predictions",
        str(out),
    ]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    got = np.loadtxt(out, delimiter=",", skiprows=1)[:, 1]
    np.testing.assert_allclose(
        got, ks.TaylorAWV().progressive_predict(X, y, sample_weight=w), rtol=1e-12, atol=1e-12
    )
    bad = subprocess.run(
        cmd[:-2] + ["--weight", "nope"], capture_output=True, text=True, timeout=120
    )
    assert bad.returncode == 2
    assert bad.stderr.strip().splitlines()[-1].startswith("kernelstream: error: --weight nope")


# -- several outputs -------------------------------------------------------------------
@pytest.mark.parametrize("name", ["TaylorAWV-single", "TaylorAWV-blocks", "RFFAWV"])
def test_multi_output_integer_weights_equal_repeated_rows(name):
    X, y, w = _data()
    Y = np.column_stack([y, np.cos(X[:, 0]), -y])
    reps = w.astype(int)
    a, b = AWV[name](), AWV[name]()
    P = a.progressive_predict(X, Y, sample_weight=w)
    Pr = b.progressive_predict(np.repeat(X, reps, axis=0), np.repeat(Y, reps, axis=0))
    first = np.concatenate([[0], np.cumsum(reps)[:-1]])[reps > 0]
    np.testing.assert_allclose(P[reps > 0], Pr[first], rtol=0, atol=1e-10)
    np.testing.assert_allclose(a.predict_many(X), b.predict_many(X), rtol=0, atol=1e-10)
    before = pickle.dumps(a)
    a.learn_one(X[0], Y[0], w=0.0)
    assert pickle.dumps(a) == before


def test_weighted_multiclass_classifiers():
    pytest.importorskip("river")
    from kernelstream.adapters import RiverClassifier, SklearnClassifier

    X, y, w = _data(n=90)
    labels = np.digitize(y, [-0.3, 0.3])  # three classes
    reps = w.astype(int)
    a = SklearnClassifier(ks.TaylorAWV(), scale=False).fit(X, labels, sample_weight=w)
    b = SklearnClassifier(ks.TaylorAWV(), scale=False).fit(
        np.repeat(X, reps, axis=0), np.repeat(labels, reps)
    )
    np.testing.assert_allclose(a.decision_function(X), b.decision_function(X), atol=1e-10)
    r = RiverClassifier(ks.TaylorAWV(), scale=False)
    for xi, li, wi in zip(X, labels, w):
        r.learn_one(dict(enumerate(xi)), int(li), w=wi)
    assert r.predict_one(dict(enumerate(X[0]))) in (0, 1, 2)
