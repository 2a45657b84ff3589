"""FOGD and NOGD (Lu et al. 2016): equality with the NumPy references and the paper's identities."""

from __future__ import annotations

import kernelstream as ks
import numpy as np
import pytest
from kernelstream.kernels import Gaussian, Laplacian
from kernelstream.reference import FOGDReference, NOGDReference


def data(n=200, d=3, seed=0, classification=False):
    rng = np.random.default_rng(seed)
    X = rng.uniform(0, 1, size=(n, d))
    y = 0.5 + 0.4 * np.sin(5 * X[:, 0]) + 0.05 * rng.standard_normal(n)
    if classification:
        y = np.where(y >= 0.5, 1.0, -1.0)
    return X, y


def loop(ref, X, y):
    out = []
    for x, t in zip(X, y):
        out.append(ref.predict_one(x))
        ref.learn_one(x, t)
    return np.array(out)


@pytest.mark.parametrize("kernel", [Gaussian(0.7), Laplacian(1.5)])
@pytest.mark.parametrize(
    "loss,eps",
    [("squared", 0.0), ("squared", 0.1), ("hinge", 0.0), ("logistic", 0.0), ("squared_hinge", 0.0)],
)
def test_fogd_equals_reference(kernel, loss, eps):
    X, y = data(classification=loss != "squared")
    m = ks.FOGD(kernel, n_features=40, lr=0.3, loss=loss, epsilon=eps, seed=5)
    ref = FOGDReference(kernel, 40, 0.3, loss, eps, seed=5)
    np.testing.assert_allclose(m.progressive_predict(X, y), loop(ref, X, y), atol=1e-12, rtol=0)
    np.testing.assert_allclose(m.weights, ref.w, atol=1e-12)


def test_fogd_features_approximate_the_kernel():
    k = Gaussian(0.8)
    m = ks.FOGD(k, n_features=20000, lr=0.1, seed=1)
    X, y = data(5)
    m.learn_one(X[0], y[0])
    Z = np.array([m.features(x) for x in X])
    assert np.abs(Z @ Z.T - k(X)).max() < 0.03
    np.testing.assert_allclose(
        np.sum(Z**2, axis=1), 1.0, atol=1e-12
    )  # cos^2 + sin^2, scaled by 1/D


@pytest.mark.parametrize(
    "loss,eps", [("squared", 0.05), ("squared", 0.0), ("hinge", 0.0), ("logistic", 0.0)]
)
@pytest.mark.parametrize("rank", [None, 3, 10])
def test_nogd_equals_reference(loss, eps, rank):
    X, y = data(250, classification=loss != "squared")
    m = ks.NOGD(Gaussian(0.7), budget=10, rank=rank, lr=0.3, loss=loss, epsilon=eps)
    ref = NOGDReference(Gaussian(0.7), 10, rank, 0.3, loss, eps)
    np.testing.assert_allclose(m.progressive_predict(X, y), loop(ref, X, y), atol=1e-9, rtol=0)
    assert m.embedded and m.n_support == 10
    assert m.dim == (2 if rank is None else rank)


def test_nogd_stage1_is_kernel_ogd_and_transition_is_projection():
    X, y = data(200, seed=3)
    k = Gaussian(0.7)
    m = ks.NOGD(k, budget=8, rank=8, lr=0.2)
    # Stage 1: f = sum_i alpha_i k(s_i, .) with alpha = -lr l'(f)
    S, alpha, t = [], [], 0
    while len(S) < 8:
        x, yt = X[t], y[t]
        f = sum(a * k(x[None], s[None])[0, 0] for a, s in zip(alpha, S))
        assert m.predict_one(x) == pytest.approx(f, abs=1e-12)
        m.learn_one(x, yt)
        S.append(x)
        alpha.append(-0.2 * 2 * (f - yt))
        t += 1
    # full rank at the transition keeps the function: f(x) = alpha^T k_B(x) on the next predictions
    f_before = m.predict_many(X[100:110])
    while not m.embedded:
        x, yt = X[t], y[t]
        m.learn_one(x, yt)
        t += 1
    assert m.n_support == 8 and f_before.shape == (10,)


def test_fogd_nogd_reject_bad_labels_for_classification():
    X, y = data(20, classification=True)
    for m in (ks.FOGD(Gaussian(1.0), loss="hinge"), ks.NOGD(Gaussian(1.0), loss="logistic")):
        m.learn_many(X, y)
        with pytest.raises(ks.InputError):
            m.learn_one(X[0], 2.0)
        assert m.n_seen == 20
    with pytest.raises(ks.ParameterError):
        ks.FOGD(Gaussian(1.0), loss="hinge", epsilon=0.1)
    with pytest.raises(ks.ParameterError):
        ks.NOGD(Gaussian(1.0), budget=5, rank=6)
    with pytest.raises(ks.ParameterError):
        ks.FOGD(Gaussian(1.0), loss="l1")
