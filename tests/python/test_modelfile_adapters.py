"""The adapters in model files: ``kernelstream.save``/``load`` of SklearnRegressor,
SklearnClassifier, RiverRegressor and RiverClassifier keep the wrapped learners, the
scalers' moments, the classes and the feature keys (no pickle), and the next
predictions are identical; damaged or crafted files are refused.

Before: ``kernelstream.save`` refused every adapter (TypeError)."""

from __future__ import annotations

import json

import kernelstream as ks
import numpy as np
import pytest
from kernelstream.adapters import RiverClassifier, RiverRegressor
from kernelstream.errors import InputError
from kernelstream.modelfile import dumps, loads
from kernelstream.modelfile.format import MAGIC

pytest.importorskip("sklearn", minversion="1.6")
sk = pytest.importorskip("kernelstream.adapters.sklearn")


def _rows(n=60, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-2, 5, (n, 3))
    return X, np.sin(X[:, 0]) + 0.3 * X[:, 1]


def _header(data: bytes) -> dict:
    (hlen,) = np.frombuffer(data[len(MAGIC) + 4 : len(MAGIC) + 12], "<u8")
    return json.loads(data[len(MAGIC) + 12 : len(MAGIC) + 12 + int(hlen)])


def test_sklearn_regressor_round_trip(tmp_path):
    X, y = _rows()
    reg = sk.SklearnRegressor(ks.TaylorAWV(degree=2, lam=0.5)).fit(X[:40], y[:40])
    path = tmp_path / "reg.ksm"
    ks.save(reg, path)
    back = ks.load(path)
    assert type(back) is sk.SklearnRegressor and back.learner.degree == 2
    np.testing.assert_array_equal(back.predict(X[40:]), reg.predict(X[40:]))
    reg.partial_fit(X[40:50], y[40:50])
    back.partial_fit(X[40:50], y[40:50])
    np.testing.assert_array_equal(back.predict(X[50:]), reg.predict(X[50:]))
    head = _header(path.read_bytes())
    assert head["learner"]["class"] == "SklearnRegressor"
    assert head["learner"]["params"]["$dict"]["learner"]["$learner"]["class"] == "TaylorAWV"


def test_sklearn_classifier_round_trip_with_string_classes():
    X, _ = _rows(90, seed=1)
    labels = np.array(["ham", "spam", "eggs"])[(X[:, 0] > 1).astype(int) + (X[:, 1] > 2)]
    clf = sk.SklearnClassifier(ks.RFFAWV(ks.kernels.Gaussian(1.0), n_features=10, seed=2))
    clf.fit(X[:60], labels[:60])
    back = loads(dumps(clf))
    assert back.classes_.tolist() == clf.classes_.tolist()
    np.testing.assert_array_equal(back.predict_proba(X[60:]), clf.predict_proba(X[60:]))
    clf.partial_fit(X[60:75], labels[60:75])
    back.partial_fit(X[60:75], labels[60:75])
    np.testing.assert_array_equal(back.predict_proba(X[75:]), clf.predict_proba(X[75:]))
    np.testing.assert_array_equal(back.predict(X[75:]), clf.predict(X[75:]))


def _dicts(X):
    return [{"a": float(r[0]), "b": float(r[1]), "c": float(r[2])} for r in X]


def test_river_regressor_round_trip():
    X, y = _rows()
    rows = _dicts(X)
    reg = RiverRegressor(ks.RFFAWV(ks.kernels.Gaussian(1.0), n_features=8, seed=3))
    for x, t in zip(rows[:40], y[:40]):
        reg.learn_one(x, float(t))
    back = loads(dumps(reg))
    assert back.feature_names == reg.feature_names and back.n_learned == 40
    for x, t in zip(rows[40:], y[40:]):
        assert back.predict_one(x) == reg.predict_one(x)
        reg.learn_one(x, float(t))
        back.learn_one(x, float(t))
    assert back.n_learned == reg.n_learned == 60


def test_river_classifier_round_trip_with_a_class_seen_after_loading():
    X, _ = _rows(80, seed=4)
    rows = _dicts(X)
    labels = ["low" if v < 1 else "high" for v in X[:, 0]]
    labels[70] = "new"
    clf = RiverClassifier(ks.FOGD(ks.kernels.Gaussian(1.0), n_features=10, loss="logistic"))
    for x, t in zip(rows[:50], labels[:50]):
        clf.learn_one(x, t)
    back = loads(dumps(clf))
    assert back.classes == clf.classes
    for x, t in zip(rows[50:], labels[50:]):
        assert back.predict_proba_one(x) == clf.predict_proba_one(x)
        clf.learn_one(x, t)
        back.learn_one(x, t)
    assert back.classes == clf.classes and "new" in back.classes


def test_damaged_adapter_file_is_refused():
    X, y = _rows()
    reg = RiverRegressor(ks.TaylorAWV(degree=2))
    for x, t in zip(_dicts(X[:20]), y[:20]):
        reg.learn_one(x, float(t))
    data = bytearray(dumps(reg))
    data[len(data) // 2] ^= 0x10
    with pytest.raises(InputError):
        loads(bytes(data))


def _resealed(header: dict, data: bytes) -> bytes:
    """The model file ``data`` with its header replaced (sizes and digest recomputed)."""
    import hashlib
    import struct

    fixed = len(MAGIC) + 12
    (hlen,) = struct.unpack_from("<Q", data, len(MAGIC) + 4)
    rest = data[fixed + hlen : -32]
    text = json.dumps(header).encode()
    body = data[: len(MAGIC) + 4] + struct.pack("<Q", len(text)) + text + rest
    return body + hashlib.sha256(body).digest()


def test_crafted_adapter_attributes_are_refused(tmp_path):
    X, y = _rows()
    reg = RiverRegressor(ks.TaylorAWV(degree=2))
    for x, t in zip(_dicts(X[:20]), y[:20]):
        reg.learn_one(x, float(t))
    data = dumps(reg)
    head = _header(data)
    state = head["learner"]["state"]["$dict"]
    # a helper object of a class outside the allow-list
    bad = json.loads(json.dumps(head))
    bad["learner"]["state"]["$dict"]["scaler"] = {
        "$object": {"class": "os.system", "state": {"$dict": {"n": 1}}}
    }
    with pytest.raises(InputError, match="unknown class"):
        loads(_resealed(bad, data))
    # a scaler whose second moments are negative
    bad = json.loads(json.dumps(head))
    sc = bad["learner"]["state"]["$dict"]["scaler"]["$object"]["state"]["$dict"]
    sc["m2"]["$array"]["data"] = [-1.0 for _ in sc["m2"]["$array"]["data"]]
    with pytest.raises(InputError, match="scaler"):
        loads(_resealed(bad, data))
    # the learner replaced by a value that is not one
    bad = json.loads(json.dumps(head))
    bad["learner"]["state"]["$dict"]["learner"] = 3
    with pytest.raises(InputError):
        loads(_resealed(bad, data))
    assert "scaler" in state


@pytest.mark.parametrize("width", [1, 4, 2**31, 10**20])
def test_a_fitted_sklearn_adapter_whose_input_width_disagrees_with_its_parts_is_refused(width):
    pytest.importorskip("sklearn", minversion="1.6")
    from kernelstream.adapters import SklearnClassifier, SklearnRegressor

    X, y = _rows()
    for est, t in ((SklearnRegressor(ks.TaylorAWV(degree=2)), y),
                   (SklearnClassifier(ks.TaylorAWV(degree=2)), (y > 0).astype(int))):  # fmt: skip
        est.partial_fit(X[:20], t[:20], **({"classes": [0, 1]} if t.dtype.kind == "i" else {}))
        data = dumps(est)
        head = _header(data)
        assert head["learner"]["state"]["$dict"]["n_features_in_"] == X.shape[1]
        loads(_resealed(head, data))  # the file as written loads
        head["learner"]["state"]["$dict"]["n_features_in_"] = width
        with pytest.raises(InputError, match="expects .* inputs"):
            loads(_resealed(head, data))
