"""The pipelines users write first, on public sets shipped with scikit-learn and river:
the adapters' default online scaling makes them work (``docs/adapters.md``, "Scale")."""

from __future__ import annotations

import warnings

import kernelstream as ks
import numpy as np
import pytest
from kernelstream.adapters import RiverRegressor, SklearnRegressor

#: MAE of RiverRegressor(TaylorAWV(), scale=True) on TrumpApproval before scaling became
#: the default (docs/adapters.md): the reference the pipeline is held to.
TRUMP_SCALED_MAE = 0.607


def test_standard_scaler_pipeline_on_diabetes_matches_ridge():
    from sklearn.datasets import load_diabetes
    from sklearn.linear_model import Ridge
    from sklearn.model_selection import KFold, cross_val_score
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    X, y = load_diabetes(return_X_y=True)
    cv = KFold(5, shuffle=True, random_state=0)

    def r2(est):
        return cross_val_score(est, X, y, cv=cv, scoring="r2").mean()

    ridge = r2(make_pipeline(StandardScaler(), Ridge()))
    ours = r2(make_pipeline(StandardScaler(), SklearnRegressor(ks.TaylorAWV())))
    assert ours >= 0.95 * ridge, (ours, ridge)  # measured: 0.480 vs 0.490
    # raw features through the default adapter: the same
    assert r2(SklearnRegressor(ks.TaylorAWV())) >= 0.95 * ridge


def test_standard_scaler_pipeline_on_trump_approval_matches_the_scaled_adapter():
    from river import datasets, evaluate, metrics, preprocessing

    def mae(model):
        return evaluate.progressive_val_score(datasets.TrumpApproval(), model, metrics.MAE()).get()

    with warnings.catch_warnings():
        warnings.simplefilter("error", ks.ScaleWarning)  # nothing left unscaled
        piped = mae(preprocessing.StandardScaler() | RiverRegressor(ks.TaylorAWV()))
        scaled = mae(RiverRegressor(ks.TaylorAWV()))
    assert scaled == pytest.approx(TRUMP_SCALED_MAE, abs=5e-4)
    assert piped <= 1.1 * scaled, (piped, scaled)  # measured: 0.607 both (before: 22.8)


def test_double_standardization_is_avoided_on_standardized_input(rng):
    """A stream standardized upstream passes the adapter's feature scaling unchanged (its
    running root mean square is of order one), apart from the division by sqrt(d)."""
    from kernelstream.adapters._scaling import UNIT_RANGE, OnlineStandardizer

    Z = rng.normal(size=(200, 3)) + [0.0, 1.5, -0.5]
    xs = OnlineStandardizer(per_dimension=True, keep_unit=True)
    out = xs.learn_transform(Z)
    rms = np.sqrt(np.mean(Z**2, axis=0))
    assert np.all((rms > UNIT_RANGE[0]) & (rms < UNIT_RANGE[1]))
    np.testing.assert_array_equal(out[1:], Z[1:] / np.sqrt(3))  # row 0: rms 0 scaled to 0
    # far from order one (raw units): standardized as before
    raw = OnlineStandardizer(per_dimension=True, keep_unit=True).learn_transform(100 * Z + 1e3)
    ref = OnlineStandardizer(per_dimension=True).learn_transform(100 * Z + 1e3)
    np.testing.assert_array_equal(raw, ref)
