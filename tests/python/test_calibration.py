"""The online softmax calibration layer (kernelstream.calibration) and its binning stage
against their NumPy reference (reference/calibration.py, written from the ONS update
formula and from the definitions of the binning stage), and the protocol: probabilities
sum to one and are made before the label, all-or-nothing input checks, pickling
mid-stream, a class added mid-stream."""

from __future__ import annotations

import pickle
import struct

import numpy as np
import pytest
from kernelstream.calibration import SoftmaxCalibrator
from kernelstream.errors import InputError, ParameterError
from kernelstream.modelfile.statebytes import seal, version_of
from kernelstream.reference.calibration import SoftmaxCalibrator as Reference
from kernelstream.reference.calibration import isotonic


def _stream(n=400, k=4, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, n)
    S = np.eye(k)[y] + 0.6 * rng.normal(size=(n, k))
    return S, y


@pytest.mark.parametrize(("k", "lam", "gamma"), [(2, 1.0, 0.3), (4, 0.1, 1.0), (10, 3.0, 0.05)])
def test_equals_reference(k, lam, gamma):
    S, y = _stream(k=k)
    cal = SoftmaxCalibrator(lam=lam, gamma=gamma, binning=False)
    P = cal.progressive_proba(S, y)
    ref = Reference(lam, gamma, binning=False)
    Q = ref.progressive_proba(S, y)
    # scalar recursions on O(1) quantities: rounding stays near 1e-15 per round
    np.testing.assert_allclose(P, Q, rtol=0, atol=1e-11)
    assert cal.slope == pytest.approx(ref.a, rel=1e-11)


def test_probabilities_sum_to_one_and_come_before_the_label():
    S, y = _stream()
    P = SoftmaxCalibrator().progressive_proba(S, y)
    np.testing.assert_allclose(P.sum(axis=1), 1.0, atol=1e-12)
    assert np.all(P > 0)
    y2 = y.copy()
    y2[200] = (y[200] + 1) % 4
    P2 = SoftmaxCalibrator().progressive_proba(S, y2)
    np.testing.assert_array_equal(P2[:201], P[:201])  # row 200 did not see its label
    assert not np.allclose(P2[201], P[201])


def test_binary_is_platt_scaling_and_keeps_the_decisions():
    """K = 2: P(class 1) = sigmoid(a (s_1 - s_0)); the most probable class is the
    highest score's (a > 0), for any K."""
    S, y = _stream(k=2)
    cal = SoftmaxCalibrator(binning=False)
    cal.learn(S, y)
    p = cal.predict_proba(S)[:, 1]
    np.testing.assert_allclose(p, 1 / (1 + np.exp(-cal.slope * (S[:, 1] - S[:, 0]))), atol=1e-14)
    S4, y4 = _stream(k=4)
    P4 = SoftmaxCalibrator(binning=False).progressive_proba(S4, y4)
    np.testing.assert_array_equal(P4.argmax(axis=1), S4.argmax(axis=1))


def test_learns_a_sharper_slope_on_informative_scores():
    S, y = _stream(n=3000, k=3)
    cal = SoftmaxCalibrator()
    P = cal.progressive_proba(S, y)
    late = -np.log(P[2000:][np.arange(1000), y[2000:]]).mean()
    assert late < 0.6 * np.log(3)  # far better than the uniform distribution
    assert cal.slope > 1.0


def test_add_class_mid_stream_equals_reference():
    S, y = _stream(n=300, k=4)
    t = 100
    y[:t] %= 3  # class 3 first seen at row t
    y[t] = 3
    cal, ref = SoftmaxCalibrator(binning=False), Reference(binning=False)
    P1 = cal.progressive_proba(S[:t, :3], y[:t])
    Q1 = ref.progressive_proba(S[:t, :3], y[:t])
    with pytest.raises(InputError, match="3 classes"):
        cal.progressive_proba(S[t:], y[t:])
    cal.add_class()
    P2 = cal.progressive_proba(S[t:], y[t:])
    Q2 = ref.progressive_proba(S[t:], y[t:])
    np.testing.assert_allclose(P1, Q1, atol=1e-12)
    np.testing.assert_allclose(P2, Q2, atol=1e-11)
    assert cal.n_classes == 4


def test_pickle_mid_stream_continues_identically():
    S, y = _stream()
    a = SoftmaxCalibrator()
    a.learn(S[:150], y[:150])
    b = pickle.loads(pickle.dumps(a))
    np.testing.assert_array_equal(
        a.progressive_proba(S[150:], y[150:]), b.progressive_proba(S[150:], y[150:])
    )


@pytest.mark.parametrize(
    "bad",
    [
        lambda S, y: (S[:, :3], y),  # wrong width
        lambda S, y: (S, np.where(np.arange(len(y)) == 50, 4, y)),  # label out of range
        lambda S, y: (S, np.where(np.arange(len(y)) == 50, -1, y)),  # negative label
        lambda S, y: (np.where(np.arange(len(y))[:, None] == 60, np.nan, S), y),
        lambda S, y: (S, y[:-1]),  # lengths differ
        lambda S, y: (S, y + 0.5),  # not indices
    ],
)
def test_bad_input_leaves_the_state(bad):
    S, y = _stream()
    cal = SoftmaxCalibrator()
    cal.learn(S[:100], y[:100])
    before = pickle.dumps(cal)
    with pytest.raises(InputError):
        cal.progressive_proba(*bad(S[100:], y[100:]))
    assert pickle.dumps(cal) == before


@pytest.mark.parametrize("params", [{"lam": 0.0}, {"gamma": -1.0}, {"lam": float("nan")}])
def test_bad_parameters(params):
    with pytest.raises(ParameterError):
        SoftmaxCalibrator(**params)


def test_before_any_data_the_slope_is_the_floor():
    P = SoftmaxCalibrator(binning=False).predict_proba([[3.0, -1.0, 0.5]])
    z = 1e-3 * np.array([3.0, -1.0, 0.5])
    np.testing.assert_allclose(P[0], np.exp(z) / np.exp(z).sum(), rtol=1e-14)


def test_a_corrupt_state_is_refused():
    S, y = _stream()
    cal = SoftmaxCalibrator()
    cal.learn(S[:50], y[:50])
    state = cal.__getstate__()
    raw = bytearray(state["core"])
    future = seal(bytes(raw), version=version_of(bytes(raw)) + 1)
    for bad in (bytes(raw[:-1]), bytes(raw) + b"\0", seal(bytes(raw) + b"\0"), future):
        fresh = SoftmaxCalibrator()
        with pytest.raises(InputError):
            fresh.__setstate__({**state, "core": bad})
        assert fresh.n_seen == 0
    # the slope below its floor (the field "slope", a MessagePack float64: 0xcb and 8
    # bytes big-endian; the checksum recomputed): refused by validation
    k = raw.index(b"\xa5slope\xcb" + struct.pack(">d", cal.slope)) + 7
    raw[k : k + 8] = struct.pack(">d", -1.0)
    with pytest.raises(InputError, match="slope"):
        SoftmaxCalibrator().__setstate__({**state, "core": seal(bytes(raw))})


# The binning stage (src/calibration/binning.rs).


@pytest.mark.slow
@pytest.mark.parametrize(("k", "noise"), [(2, 0.6), (3, 1.0), (6, 0.4)])
def test_binning_equals_reference(k, noise):
    """The two stages against the reference, which recounts every bin from the history,
    fits the isotonic regression by the max-min formula and multiplies the models'
    predictive probabilities (no log shift): the same numbers to rounding."""
    rng = np.random.default_rng(k)
    y = rng.integers(0, k, 150)
    S = 2.0 * np.eye(k)[y] + noise * rng.normal(size=(150, k))
    cal = SoftmaxCalibrator()
    P = cal.progressive_proba(S, y)
    ref = Reference()
    Q = ref.progressive_proba(S, y)
    # O(1) recursions, sums of at most 150 counts: rounding near 1e-15 per round
    np.testing.assert_allclose(P, Q, rtol=1e-12, atol=1e-14)
    w = ref.stage2.evidence / ref.stage2.evidence.sum()
    np.testing.assert_allclose(cal.model_weights, w, rtol=1e-10)


def test_isotonic_reference_is_the_pooled_fit():
    """The reference's max-min formula equals scikit-learn's isotonic regression."""
    IsotonicRegression = pytest.importorskip("sklearn.isotonic").IsotonicRegression
    rng = np.random.default_rng(1)
    g, u = rng.random(40), 0.5 + rng.random(40)
    fit = IsotonicRegression().fit_transform(np.arange(40), g, sample_weight=u)
    np.testing.assert_allclose(isotonic(g, u), fit, atol=1e-14)


@pytest.mark.slow
def test_binning_mixture_loss_is_the_mean_of_the_models_likelihoods():
    """The Bayesian average: the summed log loss of the mixture's probability of "label
    = top class" is exactly -ln(mean_i prod_t q_{i,t}), so at most ln 6 above the best
    model's (the first stage included)."""
    S, y = _stream(n=200, k=3, seed=3)
    ref = Reference()
    own, models = 0.0, []
    for s, label in zip(S, y):
        p = ref.first_stage(s)
        q = ref.stage2.models(p)
        hit = int(np.argmax(p)) == label
        w = ref.stage2.evidence / ref.stage2.evidence.sum()
        own -= np.log(w @ q if hit else 1.0 - w @ q)
        models.append(q if hit else 1.0 - q)
        ref.learn(s, int(label))
    per_model = -np.log(np.array(models)).sum(axis=0)
    assert own == pytest.approx(-np.log(np.mean(np.exp(-per_model))), rel=1e-12)
    assert own <= per_model.min() + np.log(6) + 1e-9


def test_binning_fixes_a_flat_accuracy():
    """Scores whose accuracy is capped at 0.9 (10% of the labels flipped, as on a noisy
    stream): the one-slope layer is over-confident at large scores, the binning stage
    brings the confident rows' probability to their accuracy."""
    rng = np.random.default_rng(5)
    n = 6000
    f = rng.normal(scale=2.0, size=n)
    y = ((f > 0) ^ (rng.random(n) < 0.1)).astype(int)
    S = np.column_stack([(1 - f) / 2, (1 + f) / 2])
    sure = np.abs(f) > 2
    for binning in (False, True):
        P = SoftmaxCalibrator(binning=binning).progressive_proba(S, y)
        late = sure & (np.arange(n) > 3000)
        gap = abs(P[late].max(axis=1).mean() - (P[late].argmax(axis=1) == y[late]).mean())
        assert (gap < 0.02) if binning else (gap > 0.04)  # measured: 0.011 and 0.044


@pytest.mark.parametrize("k", [1, 2, 5])
def test_binning_probabilities_are_inside_and_keep_the_order(k):
    """Probabilities in (0, 1) summing to one, the most probable class the highest
    score's, the binary probability non-decreasing in the score; constant scores give
    the uniform distribution without NaN."""
    rng = np.random.default_rng(k)
    y = rng.integers(0, k, 400)
    S = 30.0 * (np.eye(k)[y] + rng.normal(size=(400, k)))  # far beyond the softmax's range
    cal = SoftmaxCalibrator()
    P = cal.progressive_proba(S, y)
    np.testing.assert_allclose(P.sum(axis=1), 1.0, atol=1e-14)
    if k == 1:
        np.testing.assert_array_equal(P, 1.0)
        return
    assert np.all((P > 0) & (P < 1))
    np.testing.assert_array_equal(P.argmax(axis=1), S.argmax(axis=1))
    flat = cal.progressive_proba(np.zeros((50, k)), y[:50])
    np.testing.assert_allclose(flat, 1.0 / k, rtol=1e-14)
    if k == 2:
        f = np.linspace(-40, 40, 2001)
        p1 = cal.predict_proba(np.column_stack([(1 - f) / 2, (1 + f) / 2]))[:, 1]
        assert np.all(np.diff(p1) >= 0) and p1[0] < 0.5 < p1[-1]


def test_binning_pickle_mid_stream_continues_identically():
    S, y = _stream()
    a = SoftmaxCalibrator()
    a.learn(S[:150], y[:150])
    b = pickle.loads(pickle.dumps(a))
    np.testing.assert_array_equal(a.model_weights, b.model_weights)
    np.testing.assert_array_equal(
        a.progressive_proba(S[150:], y[150:]), b.progressive_proba(S[150:], y[150:])
    )
    assert SoftmaxCalibrator(binning=False).model_weights is None


def test_binning_parameter_must_be_a_bool():
    with pytest.raises(ParameterError, match="binning"):
        SoftmaxCalibrator(binning="yes")


# The one-row calls of the serving loops (the river and scikit-learn classifiers).


@pytest.mark.parametrize("binning", [True, False])
def test_one_row_calls_equal_the_matrix_calls(binning):
    """``_predict_row`` and ``_learn_row`` (one row of scores, no matrices) give, round
    by round, the probabilities and the state of ``predict`` and ``progressive`` on
    that row, bit for bit."""
    S, y = _stream(n=300, k=5, seed=3)
    rows, matrix = SoftmaxCalibrator(binning=binning), SoftmaxCalibrator(binning=binning)
    for s, label in zip(S, y):
        p = rows._core._predict_row(s)
        assert isinstance(p, list)
        assert np.array_equal(p, matrix._core.predict(s[None, :])[0])
        rows._core._learn_row(s, int(label))
        matrix._core.progressive(s[None, :], np.array([label], dtype=np.int64))
        assert rows._core._state_bytes() == matrix._core._state_bytes()


@pytest.mark.parametrize(
    ("scores", "label"),
    [
        (np.array([0.1, 0.2, 0.3]), 1),  # wrong width
        (np.array([0.1, np.nan, 0.3, 0.0]), 1),
        (np.array([0.1, 0.2, 0.3, 0.0]), 4),  # not a class
        (np.array([0.1, 0.2, 0.3, 0.0]), -1),
    ],
)
def test_one_row_bad_input_leaves_the_state(scores, label):
    S, y = _stream()
    cal = SoftmaxCalibrator()
    cal.learn(S[:50], y[:50])
    before = cal._core._state_bytes()
    with pytest.raises(InputError):
        cal._core._learn_row(scores, label)
    if label in (1,):
        with pytest.raises(InputError):
            cal._core._predict_row(scores)
    assert cal._core._state_bytes() == before
