"""Fixed Share (``share``) on EWA, BOA, ML-Poly and ML-Prod: equal to NumPy references
written here from the formulas (each rule's update, then the next weights ``p`` become
``(1 - share) p + share / N`` with the rule's state set to play them, docs/choices.md
"Fixed Share"), to 1e-12; ``share = 0`` is the plain rule bit for bit."""

from __future__ import annotations

import numpy as np
import pytest
from kernelstream import Mixture, MultiKernelAWV, TaylorAWV
from kernelstream import aggregation as agg
from kernelstream.errors import ParameterError
from kernelstream.kernels import Gaussian

ETA0 = np.exp(700.0)


def _lse(a):
    m = np.max(a)
    return m + np.log(np.sum(np.exp(a - m)))


def _softmax(a):
    e = np.exp(a - np.max(a))
    return e / e.sum()


def _mix(p, share):
    return (1 - share) * p + share / len(p)


def ref_ewa(Z, y, eta, share):
    n = Z.shape[1]
    logw = np.zeros(n)
    out = []
    for z, yt in zip(Z, y):
        p = _softmax(logw)
        out.append(p @ z)
        logw = logw - eta * (z - yt) ** 2
        if share > 0:
            logw = np.log(_mix(_softmax(logw), share))
    return np.array(out), _softmax(logw)


def ref_boa(Z, y, share):
    n = Z.shape[1]
    R, eta, V, B = np.zeros(n), np.ones(n), np.zeros(n), np.full(n, 2.0**-20)

    def logw():
        return np.log(eta) - np.log(n) + eta * R

    out = []
    for z, yt in zip(Z, y):
        p = _softmax(logw())
        yh = p @ z
        out.append(yh)
        r = 2 * (yh - yt) * (yh - z)
        B = np.maximum(B, np.abs(r))
        B2 = 2.0 ** np.ceil(np.log2(B))
        V = V + r**2
        eta = np.minimum(1 / B2, np.sqrt(np.log(n) / V))
        R = R + 0.5 * (r - eta * r**2 + B2 * (eta * r > 0.5))
        if share > 0:
            L = _lse(logw())
            q = _mix(_softmax(logw()), share)
            R = (np.log(q) + L - np.log(eta) + np.log(n)) / eta
    return np.array(out), _softmax(logw())


def ref_mlpoly(Z, y, share):
    n = Z.shape[1]
    R, eta, B = np.zeros(n), np.full(n, ETA0), 0.0

    def probs():
        if R.max() > 0:
            w = (eta / eta.max()) * np.maximum(R, 0)
            return w / w.sum()
        return np.full(n, 1 / n)

    out = []
    for z, yt in zip(Z, y):
        p = probs()
        yh = p @ z
        out.append(yh)
        r = 2 * (yh - yt) * (yh - z)
        R = R + r
        Bn = max(B, np.max(r**2))
        eta = 1 / (1 / eta + r**2 + Bn - B)
        B = Bn
        S = np.sum((eta / eta.max()) * np.maximum(R, 0))
        if share > 0 and S > 0:
            R = _mix(probs(), share) * S / (eta / eta.max())
    return np.array(out), probs()


def ref_mlprod(Z, y, share):
    n = Z.shape[1]
    R, L, M, eta = np.full(n, -np.log(n)), np.ones(n), np.zeros(n), np.full(n, ETA0)
    out = []
    for z, yt in zip(Z, y):
        p = _softmax(np.log(eta) + R)
        yh = p @ z
        out.append(yh)
        r = 2 * (yh - yt) * (yh - z)
        L = L + r**2
        M = np.maximum(M, np.abs(r))
        en = np.minimum(1 / (2 * M), np.sqrt(np.log(n) / L))
        R = (en / eta) * R + np.log1p(en * r)
        eta = en
        if share > 0:
            lw = np.log(eta) + R
            R = np.log(_mix(_softmax(lw), share)) + _lse(lw) - np.log(eta)
    return np.array(out), _softmax(np.log(eta) + R)


def _switching(n=3000, N=4, seed=0):
    """Expert j is the accurate one on the j-th quarter of the stream."""
    rng = np.random.default_rng(seed)
    y = rng.uniform(0, 1, n)
    Z = y[:, None] + 0.3 * rng.normal(size=(n, N))
    for j in range(N):
        sl = slice(j * n // N, (j + 1) * n // N)
        Z[sl, j] = y[sl] + 0.02 * rng.normal(size=sl.stop - sl.start)
    return Z, y


CASES = {
    "ewa": (lambda s: agg.EWA(4, eta=2.0, share=s), lambda Z, y, s: ref_ewa(Z, y, 2.0, s)),
    "boa": (lambda s: agg.BOA(4, share=s), ref_boa),
    "mlpoly": (lambda s: agg.MLPoly(4, share=s), ref_mlpoly),
    "mlprod": (lambda s: agg.MLProd(4, share=s), ref_mlprod),
}


@pytest.mark.slow
@pytest.mark.parametrize("share", [0.0, 0.003, 0.05])
@pytest.mark.parametrize("rule", sorted(CASES))
def test_fixed_share_equals_reference(rule, share):
    Z, y = _switching()
    make, ref = CASES[rule]
    want, w_want = ref(Z, y, share)
    a = make(share)
    got = a.progressive_predict(Z, y)
    assert np.max(np.abs(got - want)) <= 1e-12 * np.max(np.abs(want))
    assert np.max(np.abs(a.weights - w_want)) <= 1e-12


@pytest.mark.parametrize("rule", sorted(CASES))
def test_share_zero_is_the_plain_rule(rule):
    Z, y = _switching()
    make, _ = CASES[rule]
    plain = {"ewa": agg.EWA(4, eta=2.0), "boa": agg.BOA(4), "mlpoly": agg.MLPoly(4)}.get(
        rule, agg.MLProd(4)
    )
    assert np.array_equal(plain.progressive_predict(Z, y), make(0.0).progressive_predict(Z, y))


def _rounds_to_switch(a, Z, y, half):
    """Rounds after the switch until the new best expert holds half the weight."""
    a.progressive_predict(Z[:half], y[:half])
    for t in range(half, len(y)):
        a.update(Z[t], y[t])
        if a.weights[1] > 0.5:
            return t - half
    return len(y) - half


@pytest.mark.parametrize("rule", ["ewa", "boa", "mlprod"])
def test_share_switches_to_the_new_best_expert_sooner(rule):
    # Two experts, the second is the accurate one from round 6000 on.
    Z, y = _switching(n=12_000, N=2)
    Z, y = Z[:6400], y[:6400]
    make = {
        "ewa": lambda s: agg.EWA(2, eta=2.0, share=s),
        "boa": lambda s: agg.BOA(2, share=s),
        "mlprod": lambda s: agg.MLProd(2, share=s),
    }[rule]
    plain = _rounds_to_switch(make(0.0), Z, y, 6000)
    shared = _rounds_to_switch(make(0.001), Z, y, 6000)
    assert shared < plain / 1.5, (plain, shared)


@pytest.mark.parametrize("share", [-0.1, 1.5, float("nan")])
def test_bad_share_raises(share):
    for make in (
        lambda: agg.EWA(3, share=share),
        lambda: agg.BOA(3, share=share),
        lambda: agg.MLPoly(3, share=share),
        lambda: agg.MLProd(3, share=share),
        lambda: Mixture([TaylorAWV(), TaylorAWV(sigma=2.0)], share=share),
        lambda: MultiKernelAWV([Gaussian(1.0), Gaussian(2.0)], aggregator="boa", share=share),
    ):
        with pytest.raises(ParameterError, match="share"):
            make()


@pytest.mark.parametrize("rule", ["boa", "ewa", "mlpoly", "mlprod"])
def test_mixture_share_equals_the_rule_on_expert_predictions(rule):
    rng = np.random.default_rng(3)
    X = rng.uniform(-1, 1, size=(600, 2))
    y = np.where(np.arange(600) < 300, np.sin(3 * X[:, 0]), X[:, 1])
    experts = [TaylorAWV(sigma=s, degree=3, gamma=g) for s, g in [(0.5, 1.0), (1.0, 0.97)]]
    params = {"eta": 2.0} if rule == "ewa" else {}
    m = Mixture([e for e in experts], rule=rule, share=0.02, **params)
    trace = m.progressive_trace(X, y)
    a = {
        "boa": lambda: agg.BOA(2, share=0.02),
        "ewa": lambda: agg.EWA(2, eta=2.0, share=0.02),
        "mlpoly": lambda: agg.MLPoly(2, share=0.02),
        "mlprod": lambda: agg.MLProd(2, share=0.02),
    }[rule]()
    want = a.progressive_predict(trace.expert_predictions, y)
    assert np.max(np.abs(trace.predictions - want)) <= 1e-12 * np.max(np.abs(want))
