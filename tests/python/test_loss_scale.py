"""AutoKernel's rule on regrets relative to the running loss scale (``loss_window``,
docs/choices.md "Relative regrets"): equal to a NumPy reference written from the
definition (BOA with Fixed Share whose regrets of round t are divided by the discounted
mean of the mixture's squared errors of the rounds before), and it finds an expert that
is ten times better than the others on a stream whose losses shrink."""

from __future__ import annotations

import numpy as np
import pytest
from kernelstream import AutoKernel
from kernelstream.errors import ParameterError


def _softmax(a):
    e = np.exp(a - np.max(a))
    return e / e.sum()


def ref_relative_boa(Z, y, share, window):
    """BOA (opera 1.2.0), regrets ``r_j / s_{t-1}``, Fixed Share ``share``."""
    n = Z.shape[1]
    R, eta, V, B = np.zeros(n), np.ones(n), np.zeros(n), np.full(n, 2.0**-20)
    beta = 1 - 1 / window
    num = den = 0.0

    def logw():
        return np.log(eta) - np.log(n) + eta * R

    out = []
    for z, yt in zip(Z, y):
        yh = _softmax(logw()) @ z
        out.append(yh)
        s = max(num / den, 1e-12) if den > 0 else 1.0
        r = 2 * (yh - yt) * (yh - z) / s
        B = np.maximum(B, np.abs(r))
        B2 = 2.0 ** np.ceil(np.log2(B))
        V = V + r**2
        with np.errstate(divide="ignore"):  # V_j = 0 while every expert agrees
            eta = np.minimum(1 / B2, np.sqrt(np.log(n) / V))
        R = R + 0.5 * (r - eta * r**2 + B2 * (eta * r > 0.5))
        if share > 0:
            lw = logw()
            m = lw.max()
            L = m + np.log(np.sum(np.exp(lw - m)))
            q = (1 - share) * _softmax(lw) + share / n
            R = (np.log(q) + L - np.log(eta) + np.log(n)) / eta
        num = beta * num + (yh - yt) ** 2
        den = beta * den + 1
    return np.array(out)


def _stream(n=600, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    y = np.sin(X[:, 0]) + X[:, 1] * X[:, 2] + 0.1 * rng.normal(size=n)
    return X, y


@pytest.mark.parametrize("window", [30, 300, 2000])
def test_relative_regrets_equal_the_reference(window):
    """(A window of a few rounds makes the weights jump with every error ratio, so
    rounding is amplified: the equality is checked where the rule is well conditioned.)"""
    X, y = _stream()
    ak = AutoKernel(warmup=40, widths=(0.5, 2.0), lams=(0.1,), max_taylor_features=20,
                    share=1e-3, loss_window=window)  # fmt: skip
    tr = ak.progressive_trace(X, y)
    sc = ak.scale
    w = ak.warmup_expert_predictions
    Z = np.vstack([w, tr.expert_predictions[w.shape[0] :]])
    Zs, ys = (Z - sc["y_loc"]) / sc["y_scale"], (y - sc["y_loc"]) / sc["y_scale"]
    ref = sc["y_loc"] + sc["y_scale"] * ref_relative_boa(Zs, ys, 1e-3, window)
    np.testing.assert_allclose(tr.predictions[40:], ref[40:], rtol=1e-10, atol=1e-12)


def test_relative_regrets_find_the_expert_ten_times_better():
    """A linear target with little noise: the linear expert's post-warm-up error is a
    fraction of the kernel experts', at a scale far below the replayed warm-up's. With
    plain BOA the mixture stays at more than twice the best expert; relative regrets
    bring it near it."""
    rng = np.random.default_rng(1)
    X = rng.normal(size=(1500, 4))
    y = X @ np.array([1.0, -2.0, 0.5, 3.0]) + 0.01 * rng.normal(size=1500)
    ratio = {}
    for window in (0, 2000):
        ak = AutoKernel(warmup=50, widths=(1.0, 4.0), lams=(0.1,), nystrom_widths=(),
                        discount_widths=(1.0,), max_taylor_features=35,
                        laplace_widths=(), loss_window=window)  # fmt: skip
        tr = ak.progressive_trace(X, y)
        best = np.min(np.mean((tr.expert_predictions[50:] - y[50:, None]) ** 2, axis=0))
        ratio[window] = np.mean((tr.predictions[50:] - y[50:]) ** 2) / best
    assert ratio[0] > 2.0
    assert ratio[2000] < 1.3


def test_loss_window_parameters():
    assert AutoKernel(rule="vaw").get_params()["loss_window"] is None  # resolved to 0
    AutoKernel(rule="vaw").learn_many(*_stream(250))
    with pytest.raises(ParameterError, match="loss_window"):
        AutoKernel(rule="vaw", loss_window=10)
    with pytest.raises(ParameterError, match="loss_window"):
        AutoKernel(loss_window=-1)
    with pytest.raises(ParameterError, match="loss_window"):
        AutoKernel(loss_window=10**12)
