"""The river adapter's feature policy: None is a missing key (0), a key first seen after the
first row takes a reserved input or widens the learner (exact zero-extension either way),
never ignored."""

from __future__ import annotations

import kernelstream as ks
import numpy as np
import pytest
from kernelstream.adapters import RiverClassifier, RiverRegressor
from kernelstream.kernels import Gaussian, Laplacian, Min


def _stream(rng, n=80, late=30):
    """Rows with keys a, b; key c appears from row ``late`` on (0 before, as if missing)."""
    X = rng.normal(size=(n, 3)) * 0.5
    X[:late, 2] = 0.0
    y = np.sin(2 * X[:, 0]) + X[:, 2]
    rows = [{"a": x[0], "b": x[1], **({"c": x[2]} if t >= late else {})} for t, x in enumerate(X)]
    return rows, X, y


@pytest.mark.parametrize(
    "make",
    [
        lambda: ks.KernelAWV(Gaussian(1.0)),
        lambda: ks.TaylorAWV(degree=3),
        lambda: ks.NystromAWV(Laplacian(1.0), seed=2),
    ],
    ids=["KernelAWV", "TaylorAWV", "NystromAWV-Laplacian"],
)
def test_a_late_key_is_exact_zero_extension(rng, make):
    """The adapter with spare inputs predicts as the learner on the zero-extended arrays, and
    (distance kernels) the spare, never-used inputs change nothing: equal to the learner fed
    only the columns in use."""
    rows, X, y = _stream(rng)
    reg = RiverRegressor(make(), scale=False, max_features=5)
    wide, narrow = make(), make()  # 5 inputs (two never used) / the 3 real ones
    pad = np.zeros((len(X), 2))
    for t, (row, x5, x3) in enumerate(zip(rows, np.hstack([X, pad]), X)):
        p = reg.predict_one(row)
        assert p == wide.predict_one(x5)
        np.testing.assert_allclose(p, narrow.predict_one(x3), rtol=1e-9, atol=1e-12)
        reg.learn_one(row, y[t])
        wide.learn_one(x5, y[t])
        narrow.learn_one(x3, y[t])
    assert reg.feature_names == ["a", "b", "c"] and reg.learner.input_dim == 5


def test_late_key_without_reserved_inputs_widens_the_learner(rng):
    rows, X, y = _stream(rng, late=5)
    reg = RiverRegressor(ks.TaylorAWV())
    for row, t in zip(rows[:5], y[:5]):
        reg.learn_one(row, t)
    # a key not learned yet is left out of a prediction (as if missing)
    assert reg.predict_one(rows[5]) == reg.predict_one({"a": rows[5]["a"], "b": rows[5]["b"]})
    reg.learn_one(rows[5], y[5])
    assert reg.feature_names == ["a", "b", "c"] and reg.learner.input_dim == 4
    assert reg.learner.n_seen == reg.scaler.n == reg.target_scaler.n == 6
    # reserved inputs all taken: the same refusal, naming the limit
    full = RiverRegressor(ks.TaylorAWV(), max_features=2)
    full.learn_one(rows[0], y[0])
    with pytest.raises(ks.InputError, match="larger max_features"):
        full.learn_one(rows[5], y[5])
    with pytest.raises(ks.InputError, match="more than max_features=1"):
        RiverRegressor(ks.TaylorAWV(), max_features=1).learn_one(rows[0], y[0])


def test_none_and_a_missing_key_mean_the_same(rng):
    rows, X, y = _stream(rng, n=40, late=0)
    a = RiverRegressor(ks.TaylorAWV(), max_features=4)
    b = RiverRegressor(ks.TaylorAWV(), max_features=4)
    for t, row in enumerate(rows):
        holed = dict(row)
        if t % 3 == 0:
            holed["b"] = None  # a: None; b: the key is missing
        a.learn_one(holed, y[t])
        b.learn_one({k: v for k, v in holed.items() if v is not None}, y[t])
    for row in rows[:10]:
        assert a.predict_one({**row, "a": None}) == b.predict_one({"b": row["b"], "c": row["c"]})
    # a key takes an input when first learned with a value: "b" was None in the first row
    assert a.feature_names == b.feature_names == ["a", "c", "b"]
    a.learn_one({"a": 0.1, "zzz": None}, 0.0)  # a key only ever None takes none
    assert a.feature_names == ["a", "c", "b"]


def test_max_features_is_checked():
    for bad in (0, -1, 2.5, True, "8"):
        with pytest.raises(ks.ParameterError, match="max_features"):
            RiverRegressor(ks.TaylorAWV(), max_features=bad)
    # a kernel on [0, 1]: an input at 0 is not neutral, so zero-extension would not be exact
    with pytest.raises(ks.ParameterError, match="Gaussian or Laplacian"):
        RiverRegressor(ks.KernelAWV(Min()), max_features=4)
    RiverClassifier(ks.AutoKernel(), max_features=4)  # its experts are Gaussian


def test_one_hot_encoder_pipeline_with_a_category_first_seen_mid_stream(rng):
    from river import compose, preprocessing

    n, first_b = 300, 120
    cats = np.where(rng.uniform(size=n) < 0.5, "a", "c")
    cats[first_b:] = np.where(rng.uniform(size=n - first_b) < 0.4, "b", cats[first_b:])
    u = rng.normal(size=n)
    y = np.where(cats == "b", 3.0, 0.0) + 0.5 * u + 0.05 * rng.normal(size=n)

    def model(**kw):
        encode = compose.Select("cat") | preprocessing.OneHotEncoder()
        return (compose.Select("u") + encode) | RiverRegressor(ks.TaylorAWV(), **kw)

    def late_b_error(pipe):
        err = []
        for t in range(n):
            x = {"cat": str(cats[t]), "u": float(u[t])}
            err.append(abs(pipe.predict_one(x) - y[t]))
            pipe.learn_one(x, y[t])
        return np.mean([e for t, e in enumerate(err) if cats[t] == "b" and t > first_b + 60])

    pipe = model(max_features=8)
    ours = late_b_error(pipe)
    reg = pipe[-1]
    assert set(reg.feature_names) == {"u", "cat_a", "cat_b", "cat_c"}
    assert reg.feature_names.index("cat_b") == 3  # came last, took the next free input
    # the late category is learned: on its rows the error is a fraction of that of a model
    # blind to the category (what ignoring the new key gave)
    blind = late_b_error(compose.Select("u") | RiverRegressor(ks.TaylorAWV()))
    assert ours < 0.3 * blind, (ours, blind)
    # without reserved inputs the pipeline widens the learner at the new category: the
    # learner fed zero-padded rows, as the reserved one (up to the rounding of the spare,
    # always-zero inputs' Taylor features)
    np.testing.assert_allclose(late_b_error(model()), ours, rtol=1e-6)


@pytest.mark.parametrize(
    "change", ["value", "same value, new object", "key added", "key removed", "key renamed"]
)
def test_a_dict_changed_between_predict_and_learn_is_learned_as_it_is(rng, change):
    """``learn_one`` after ``predict_one`` of the same dict object reuses its vector only
    while the dict holds the same keys and the same value objects: a dict changed in
    between is learned as it is then, as by an adapter that never saw the prediction."""
    rows, _, y = _stream(rng, n=40, late=0)
    served = RiverRegressor(ks.TaylorAWV(degree=2), scale=False)
    plain = RiverRegressor(ks.TaylorAWV(degree=2), scale=False)
    for model in (served, plain):  # every key has its input from the first row
        model.learn_one({"a": 0.1, "b": 0.2, "c": 0.3, "d": 0.4}, 1.0)
    for row, target in zip(rows, y):
        x = dict(row)
        served.predict_one(x)
        if change == "value":
            x["a"] = x["a"] + 1.0
        elif change == "same value, new object":
            x["b"] = float(str(x["b"]))  # (equal, another float object)
        elif change == "key added":
            x["d"] = 0.5
        elif change == "key removed":
            del x["b"]
        else:  # the last key's value object under another name: the same values
            x["d"] = x.pop("c")
        served.learn_one(x, target)
        plain.learn_one(dict(x), target)
    assert served.feature_names == plain.feature_names
    probe = {"a": 0.3, "b": -0.2, "c": 0.1, "d": 0.4}
    assert served.predict_one(probe) == plain.predict_one(probe)
    assert served.learner.n_seen == plain.learner.n_seen == len(rows) + 1
