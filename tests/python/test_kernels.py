"""Kernel objects: immutable, picklable, Gram matrices, readable repr."""

from __future__ import annotations

import pickle

import kernelstream as ks
import numpy as np
import pytest
from kernelstream.kernels import Gaussian, Laplacian


def test_gram_matrices(rng):
    X, Y = rng.normal(size=(5, 3)), rng.normal(size=(4, 3))
    sq = ((X[:, None] - Y[None]) ** 2).sum(-1)
    np.testing.assert_allclose(Gaussian(1.3)(X, Y), np.exp(-sq / (2 * 1.3**2)), rtol=1e-14)
    l1 = np.abs(X[:, None] - Y[None]).sum(-1)
    np.testing.assert_allclose(Laplacian(0.7)(X, Y), np.exp(-l1 / 0.7), rtol=1e-14)
    np.testing.assert_allclose(np.diag(Gaussian(1.0)(X)), 1.0)


def test_immutable_picklable_repr():
    k = Gaussian(2.0)
    with pytest.raises(AttributeError):
        k.sigma = 3.0
    assert pickle.loads(pickle.dumps(k)) == k
    assert repr(k) == "Gaussian(sigma=2.0)" and repr(Laplacian(1.0)) == "Laplacian(sigma=1.0)"
    assert Gaussian(1.0) != Laplacian(1.0)


@pytest.mark.parametrize("bad", [0.0, -1.0, float("nan"), float("inf"), "x", None])
def test_bad_sigma(bad):
    with pytest.raises(ks.ParameterError):
        Gaussian(bad)


def test_shape_mismatch():
    with pytest.raises(ks.InputError):
        Gaussian(1.0)(np.zeros((2, 3)), np.zeros((2, 4)))
