"""ScaleWarning: once per learner, on the first rows, when the data are far from the scale
the learner's parameters assume (criteria in ``learners/_scale_check.py``)."""

from __future__ import annotations

import pickle
import warnings

import kernelstream as ks
import numpy as np
import pytest
from kernelstream.kernels import Gaussian, Laplacian, Min
from kernelstream.learners import _scale_check


def _house_prices(rng, n=300):
    """Raw tabular data: features of order 200 (areas, years), prices of order 250,000."""
    X = np.column_stack(
        [rng.normal(200, 60, n), rng.integers(1950, 2020, n), rng.normal(8, 2, n)]
    ).astype(float)
    y = 250_000 + 900 * (X[:, 0] - 200) + 2_000 * (X[:, 2] - 8) + rng.normal(0, 20_000, n)
    return X, y


def _well_scaled(rng, n=300, d=4):
    X = rng.normal(size=(n, d)) / np.sqrt(d)
    return X, np.sin(3 * X[:, 0]) + 0.1 * rng.normal(size=n)


def _scale_warnings(run) -> list:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        run()
    return [w for w in caught if issubclass(w.category, ks.ScaleWarning)]


def test_scale_warning_is_a_user_warning():
    assert issubclass(ks.ScaleWarning, UserWarning)
    assert ks.errors.ScaleWarning is ks.ScaleWarning


def test_taylor_awv_on_raw_house_prices_warns_once_and_says_what_to_do(rng):
    X, y = _house_prices(rng)
    model = ks.TaylorAWV()
    caught = _scale_warnings(lambda: model.progressive_predict(X, y))
    assert len(caught) == 1
    text = str(caught[0].message)
    assert caught[0].filename == __file__  # points at the user's call
    for needed in ("kernel width", "Taylor features vanish", "targets", "scale=True", "AutoKernel"):
        assert needed in text, needed
    # once per learner: more data, and a copy, stay silent
    assert not _scale_warnings(lambda: model.learn_many(X, y))
    assert not _scale_warnings(lambda: model.copy().learn_one(X[0], y[0]))
    # the same stream through the default adapter (which scales) is silent and useful
    from kernelstream.adapters import SklearnRegressor

    est = SklearnRegressor(ks.TaylorAWV())
    assert not _scale_warnings(lambda: est.fit(X, y))
    assert est.score(X, y) > 0.5


@pytest.mark.parametrize(
    "make",
    [
        ks.TaylorAWV,
        lambda: ks.KernelAWV(Gaussian(1.0)),
        lambda: ks.NystromAWV(Gaussian(1.0)),
        lambda: ks.RFFAWV(Laplacian(1.0), n_features=30),
        lambda: ks.FOGD(Gaussian(1.0), n_features=30),
        lambda: ks.MultiKernelAWV([Gaussian(0.5), Gaussian(2.0)], n_features=20),
        lambda: ks.Mixture([ks.TaylorAWV(), ks.RFFAWV(Gaussian(1.0), n_features=20)]),
    ],
    ids=["TaylorAWV", "KernelAWV", "NystromAWV", "RFFAWV", "FOGD", "MultiKernelAWV", "Mixture"],
)
@pytest.mark.parametrize("call", ["progressive_predict", "learn_many", "learn_one"])
def test_warns_on_raw_data_only(rng, make, call):
    def run(X, y):
        model = make()
        if call == "learn_one":
            for x, t in zip(X[:40], y[:40]):
                model.learn_one(x, t)
        else:
            getattr(model, call)(X[:60], y[:60])

    X, y = _house_prices(rng)
    assert len(_scale_warnings(lambda: run(X, y))) == 1
    X, y = _well_scaled(rng)
    assert not _scale_warnings(lambda: run(X, y))


def test_each_criterion_alone(rng):
    X, y = _well_scaled(rng, 100)
    # targets only (inputs well scaled): root mean square above 100
    caught = _scale_warnings(lambda: ks.KernelAWV(Gaussian(1.0)).learn_many(X, 1e3 * y + 500))
    assert len(caught) == 1 and "root mean square" in str(caught[0].message)
    # a centred target of order one is fine at any offset of the inputs for a
    # translation-invariant kernel, but not for the Taylor basis (centred at the origin)
    assert not _scale_warnings(lambda: ks.KernelAWV(Gaussian(1.0)).learn_many(X + 50.0, y))
    caught = _scale_warnings(lambda: ks.TaylorAWV().learn_many(X + 50.0, y))
    assert len(caught) == 1 and "median norm" in str(caught[0].message)
    # classification labels are +-1: no target check; inputs far apart still warn
    labels = np.where(y > 0, 1.0, -1.0)
    clf = ks.FOGD(Gaussian(1.0), n_features=20, loss="hinge")
    assert not _scale_warnings(lambda: clf.learn_many(X, labels))
    clf = ks.FOGD(Gaussian(1.0), n_features=20, loss="hinge")
    caught = _scale_warnings(lambda: clf.learn_many(100 * X, labels))
    assert len(caught) == 1 and "median distance" in str(caught[0].message)


def test_threshold_is_the_documented_one():
    """Two rows: warn exactly when their distance exceeds FAR sigma."""
    sigma = 2.0
    for dist, warns in [
        (_scale_check.FAR * sigma * 0.99, False),
        (_scale_check.FAR * sigma * 1.01, True),
    ]:
        X = np.array([[0.0, 0.0], [dist, 0.0]]) - [dist / 2, 0.0]  # norms below FAR sigma
        model = ks.KernelAWV(Gaussian(sigma))
        assert bool(_scale_warnings(lambda m=model, X=X: m.learn_many(X, [0.0, 1.0]))) is warns
    for rms, warns in [(99.0, False), (101.0, True)]:
        model = ks.KernelAWV(Gaussian(1.0))
        y = [rms, -rms]
        assert bool(_scale_warnings(lambda m=model, y=y: m.learn_many([[0.0], [0.5]], y))) is warns


def test_median_distance_equals_the_definition(rng):
    X = rng.normal(size=(20, 3)) * 7 + 1e4  # far from the origin: centring keeps it exact
    pairs = [np.linalg.norm(X[i] - X[j]) for i in range(20) for j in range(i + 1, 20)]
    assert _scale_check._median_distance(X) == pytest.approx(np.median(pairs), rel=1e-9)
    assert _scale_check._median_distance(np.ones((5, 2))) == 0.0  # only duplicates


def test_short_streams_are_checked_and_the_check_stops_at_n_rows(rng):
    X, y = _house_prices(rng, 3)
    model = ks.TaylorAWV()
    assert len(_scale_warnings(lambda: model.learn_one(X[0], y[0]))) == 1  # first row: targets
    model = ks.KernelAWV(Gaussian(1.0))
    Xs, ys = _well_scaled(rng, _scale_check.N_ROWS + 5, d=3)
    model.learn_many(Xs, ys)
    assert model._scale_rows == ()  # done: nothing kept, nothing more checked
    assert not _scale_warnings(lambda: model.learn_many(*_house_prices(rng, 40)))


def test_no_check_without_a_kernel_width_or_with_own_scaling(rng):
    X, y = _house_prices(rng, 250)
    assert not _scale_warnings(lambda: ks.AutoKernel(warmup=50).progressive_predict(X, y))
    U = rng.uniform(0, 1, (50, 2))  # the Min kernel's domain; huge targets
    assert not _scale_warnings(lambda: ks.KernelAWV(Min()).learn_many(U, 1e6 * U[:, 0]))


def test_a_learner_restored_mid_stream_does_not_check_again(rng):
    X, y = _well_scaled(rng, 10, d=3)
    model = ks.TaylorAWV()
    model.learn_many(X, y)
    restored = pickle.loads(pickle.dumps(model))
    Xh, yh = _house_prices(rng, 40)
    assert not _scale_warnings(lambda: restored.learn_many(Xh, yh))


def test_a_refused_row_is_not_counted(rng):
    model = ks.TaylorAWV()
    with pytest.raises(ks.InputError):
        model.learn_many([[1.0, np.nan]], [1.0])
    X, y = _house_prices(rng, 40)
    assert len(_scale_warnings(lambda: model.learn_many(X, y))) == 1


def test_learn_one_with_a_dict_points_at_the_river_adapter():
    model = ks.TaylorAWV()
    for call in (
        lambda: model.learn_one({"a": 1.0}, 1.0),
        lambda: model.predict_one({"a": 1.0}),
        lambda: model.learn_many([{"a": 1.0}], [1.0]),
    ):
        with pytest.raises(ks.InputError, match="RiverRegressor or RiverClassifier"):
            call()
    assert model.n_seen == 0
