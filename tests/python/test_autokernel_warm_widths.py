"""AutoKernel(warm_widths=...): the warm-up's kernel ridge predictors at several widths,
mixed with the nearest row's target by AdaHedge (docs/autokernel.md, step 1), against a
NumPy reference written from the definitions."""

from __future__ import annotations

import pickle

import kernelstream as ks
import numpy as np
import pytest

PARAMS = dict(warmup=40, lams=(0.1, 1.0), max_taylor_features=35)
WIDTHS = ks.AutoKernel().get_params()["warm_widths"]
LAM = np.sqrt(0.1 * 1.0)  # the centre of lams


def stream(n=70, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    level = np.where(np.arange(n) < 25, 4.0, -2.0)  # a level that moves in the warm-up
    y = level + np.exp(-4 * X[:, 0] ** 2) + 0.5 * X[:, 1] + 0.05 * rng.standard_t(3, size=n)
    X[:, 2] += level  # an input that shows it
    return X, y


def standardise(A):
    """Column by column, by the mean and population standard deviation (the absolute
    mean, or 1, where the spread vanishes)."""
    m, s = A.mean(0), A.std(0)
    tiny = ~(s > 1e-12 * np.abs(m)) | (s == 0)
    s = np.where(tiny, np.where(m != 0, np.abs(m), 1.0), s)
    return (A - m) / s, m, s


def median_distance(Z):
    i, j = np.triu_indices(len(Z), 1)
    dist = np.sort(np.sqrt(((Z[i] - Z[j]) ** 2).sum(1)))
    return dist[len(dist) // 2] if len(dist) else 1.0


def gram(A, B, sigma):
    return np.exp(-((A[:, None, :] - B[None, :, :]) ** 2).sum(2) / (2 * sigma**2))


def candidates(X, y, warmup, widths, neighbour=True):
    """Per warm-up round: kernel ridge regression at each width (rows so far standardised
    by their own mean and spread, width ``c rho``), then the nearest row's target."""
    out = [np.zeros(len(widths) + neighbour)]
    for t in range(1, warmup):
        Z, mx, sx = standardise(X[:t])
        v, my, sy = standardise(y[:t, None])
        rho, q = median_distance(Z), (X[t] - mx) / sx
        row = []
        for c in widths:
            alpha = np.linalg.solve(gram(Z, Z, c * rho) + LAM * np.eye(t), v[:, 0])
            row.append(my[0] + sy[0] * (gram(q[None], Z, c * rho) @ alpha)[0])
        if neighbour:
            row.append(y[np.argmin(((Z - q) ** 2).sum(1))])
        out.append(row)
    return np.array(out)


def adahedge(Z, y):
    """AdaHedge (de Rooij et al. 2014) over the columns of ``Z``: eta = ln(N) / gap."""
    n = Z.shape[1]
    cum, gap, out = np.zeros(n), 0.0, []
    for z, t in zip(Z, y):
        if gap > 0:
            eta = np.log(n) / gap
            w = np.exp(-eta * (cum - cum.min()))
        else:
            w = (cum == cum.min()).astype(float)
        w /= w.sum()
        out.append(w @ z)
        loss = (z - t) ** 2
        if gap > 0:
            mix = loss.min() - np.log(w @ np.exp(-eta * (loss - loss.min()))) / eta
        else:
            mix = loss[w > 0].min()
        gap += max(w @ loss - mix, 0.0)
        cum += loss
    return np.array(out)


@pytest.mark.parametrize("neighbour", [True, False])
def test_warm_up_equals_the_reference_and_the_rest_is_unchanged(neighbour):
    X, y = stream()
    w = PARAMS["warmup"]
    got = ks.AutoKernel(**PARAMS, warm_neighbour=neighbour).progressive_predict(X, y)
    C = candidates(X, y, w, WIDTHS, neighbour)
    want = adahedge(C, y[:w])
    np.testing.assert_allclose(got[:w], want, rtol=1e-9, atol=1e-9 * np.abs(y).max())
    # several predictors carry weight (the mix is not one of them)
    assert all(np.abs(want - C[:, j]).max() > 1e-3 for j in range(C.shape[1]))
    old = ks.AutoKernel(**PARAMS, warm_neighbour=neighbour, warm_widths=()).progressive_predict(
        X, y
    )
    assert not np.allclose(got[:w], old[:w])
    # the experts' replay does not use the warm-up predictions: the same bits after it
    np.testing.assert_array_equal(got[w:], old[w:])


def test_one_width_without_the_neighbour_is_kernel_ridge_alone():
    X, y = stream(seed=4)
    w = PARAMS["warmup"]
    got = ks.AutoKernel(**PARAMS, warm_neighbour=False, warm_widths=(2.0,)).progressive_predict(
        X, y
    )
    np.testing.assert_allclose(
        got[:w], candidates(X, y, w, (2.0,), False)[:, 0], rtol=1e-9, atol=1e-12
    )


def test_loops_pickles_and_units_agree():
    X, y = stream(seed=1)
    w = PARAMS["warmup"]
    ref = ks.AutoKernel(**PARAMS).progressive_predict(X, y)
    a = ks.AutoKernel(**PARAMS)
    got = []
    for i in range(w + 5):
        if i in (9, 30):  # the mix's sums over the predictors travel with the pickle
            a = pickle.loads(pickle.dumps(a))
        got.append(a.predict_one(X[i]))
        a.learn_one(X[i], y[i])
    np.testing.assert_array_equal(got[:w], ref[:w])
    scaled = ks.AutoKernel(**PARAMS).progressive_predict(1e3 * X, 1e-3 * y)
    np.testing.assert_allclose(1e3 * scaled[:w], ref[:w], rtol=1e-6, atol=1e-9)


def test_the_option_is_validated_and_reported():
    assert WIDTHS == pytest.approx((2**-0.5, 2**0.5, 2**1.5))
    assert ks.AutoKernel(warm_widths=()).get_params()["warm_widths"] == ()
    for bad in ([-1.0], [0.0], [float("nan")], "wide"):
        with pytest.raises(ValueError, match="warm_widths"):
            ks.AutoKernel(warm_widths=bad)
    # each width is a factorisation per warm-up round, the unit Ctrl-C stops at
    assert len(ks.AutoKernel(warm_widths=[1.0] * 16).get_params()["warm_widths"]) == 16
    with pytest.raises(ks.ParameterError, match="17 entries, at most 16"):
        ks.AutoKernel(warm_widths=[1.0] * 17)


def test_a_state_without_the_option_warms_up_as_it_was_saved():
    """A state saved before warm_widths existed lacks it: it loads with
    ``warm_widths=()`` (its declared ``absent`` value: one kernel ridge predictor at the
    centre of the grid, as before) and goes on as that learner, mid warm-up."""
    from kernelstream.modelfile.statebytes import seal

    X, y = stream(seed=2)
    old = ks.AutoKernel(**PARAMS, warm_widths=())
    old.learn_many(X[:10], y[:10])
    state = old.__getstate__()
    assert b"warm_widths" in state["core"]
    # another name of the same length: the state's map no longer holds the field
    state["core"] = seal(state["core"].replace(b"warm_widths", b"warm_xidths"))
    loaded = ks.AutoKernel(**PARAMS)
    loaded.__setstate__(state)
    assert loaded.get_params()["warm_widths"] == ()
    want = old.progressive_predict(X[10:], y[10:])
    np.testing.assert_array_equal(loaded.progressive_predict(X[10:], y[10:]), want)


def test_a_state_whose_mix_does_not_match_its_predictors_is_refused():
    from kernelstream.modelfile.statebytes import seal

    X, y = stream(seed=3)
    a = ks.AutoKernel(**PARAMS)
    a.learn_many(X[:10], y[:10])
    before = a.predict_one(X[10])
    core = a.__getstate__()["core"]
    # the mix's sums: a MessagePack array of 4 float64 (three widths and the neighbour)
    i = core.index(b"\xa3cum\x94") + 4
    three = core[:i] + b"\x93" + core[i + 1 : i + 28] + core[i + 37 :]
    b = ks.AutoKernel(**PARAMS)
    with pytest.raises(ValueError, match="warm-up mix"):
        b.__setstate__(dict(a.__getstate__(), core=seal(three)))
    assert b.get_params() == ks.AutoKernel(**PARAMS).get_params() and not b.fitted
    assert a.predict_one(X[10]) == before
