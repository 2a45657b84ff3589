"""The discount's span (docs/choices.md, "Discounted AWV", Limit): with ``r`` coordinates
refilled one a round, a coordinate's regulariser falls to ``lam gamma^(r-1)`` between
refills, and below ``gamma^r = 1e-6`` the learners lose the digits a direct solve keeps
(RFFAWV, gamma = 0.9, 300 features: 0.59 of the largest prediction off in single rounds).
Such settings are refused with a ParameterError that says what to change, before any
state changes; a KORS dictionary stops growing there."""

from __future__ import annotations

import numpy as np
import pytest
from kernelstream import RFFAWV, AutoKernel, MultiKernelAWV, NystromAWV, TaylorAWV
from kernelstream.errors import ParameterError
from kernelstream.kernels import Gaussian

SPAN = 1e-6


def test_random_features_are_checked_at_construction():
    with pytest.raises(ParameterError, match=r"gamma\^300 = 1\.9e-14 is below 1e-6"):
        RFFAWV(Gaussian(1.0), n_features=300, gamma=0.9)
    with pytest.raises(ParameterError, match=r"gamma\^200"):
        RFFAWV(Gaussian(1.0), n_features=100, features="cossin", gamma=0.9)
    RFFAWV(Gaussian(1.0), n_features=131, gamma=0.9)  # 0.9^131 = 1.0e-6
    with pytest.raises(ParameterError, match="features per kernel"):
        MultiKernelAWV([Gaussian(1.0), Gaussian(2.0)], n_features=300, gamma=0.9)


def test_the_message_names_the_limits_on_either_parameter():
    with pytest.raises(ParameterError) as info:
        RFFAWV(Gaussian(1.0), n_features=300, gamma=0.9)
    least, most = SPAN ** (1 / 300), int(np.log(SPAN) / np.log(0.9))
    assert f"gamma >= {least:.4f}" in str(info.value)
    assert f"at most {most} features" in str(info.value)
    assert 0.9**most >= SPAN > 0.9 ** (most + 1)
    RFFAWV(Gaussian(1.0), n_features=300, gamma=round(least + 1e-4, 4))


def test_taylor_features_are_checked_at_the_first_round_and_nothing_changes():
    # degree 3 on d = 8: C(11, 3) = 165 features, 0.9^165 = 2.8e-8
    model = TaylorAWV(sigma=2.0, degree=3, gamma=0.9)
    x = np.full(8, 0.1)
    with pytest.raises(ParameterError, match=r"gamma\^165"):
        model.learn_one(x, 1.0)
    assert model.n_seen == 0
    model.learn_one(x[:2], 1.0)  # d = 2: 10 features
    assert model.n_seen == 1


def test_a_fixed_dictionary_is_checked_at_construction():
    D = np.random.default_rng(0).uniform(-1, 1, (200, 2))
    with pytest.raises(ParameterError, match="200 dictionary points"):
        NystromAWV(Gaussian(0.5), dictionary=D, gamma=0.9)
    NystromAWV(Gaussian(0.5), dictionary=D[:131], gamma=0.9)


def test_a_kors_dictionary_stops_growing_at_the_span():
    # inputs that keep moving: KORS would add points all along the stream
    rng = np.random.default_rng(1)
    n = 4000
    X = np.column_stack([np.linspace(0, 40, n), rng.uniform(-1, 1, n)])
    y = np.sin(X[:, 0]) + 0.1 * rng.standard_normal(n)
    model = NystromAWV(Gaussian(0.3), lam=0.1, gamma=0.9, mu=10.0, seed=2)
    p = model.progressive_predict(X, y)
    most = int(np.log(SPAN) / np.log(0.9))
    assert model.stats["insertions"] == most
    assert model.stats["refused_insertions"] > 0
    assert np.all(np.isfinite(p)) and np.max(np.abs(p)) < 10


def test_autokernel_checks_its_discounts_against_its_largest_expert():
    with pytest.raises(ParameterError, match="features per expert"):
        AutoKernel(discounts=(0.9,))
    AutoKernel(discounts=(0.99,), max_taylor_features=1000)  # 0.99^1000 = 4.3e-5
    with pytest.raises(ParameterError, match="features per expert"):
        AutoKernel(discounts=(0.99,), max_taylor_features=2000)
