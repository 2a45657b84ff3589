"""Forecasters in model files (``kernelstream.save`` / ``kernelstream.load``,
``kernelstream/modelfile/forecasts.py``): a Forecaster saved before, at or after its
warm-up's build and loaded goes on exactly as the saved one (forecasts and intervals
bit for bit, the same pickle); the file holds no pickle; the objects its pending
forecasts share with it are shared again; damaged or crafted files are refused with
one ``InputError`` naming what is wrong.

Before: ``kernelstream.save(forecaster, path)`` raised TypeError (a Forecaster could
only be pickled)."""

from __future__ import annotations

import copy
import hashlib
import json
import pickle
import struct
import subprocess
import sys
import threading

import kernelstream as ks
import numpy as np
import pytest
from kernelstream._threads import LOCK_ATTR, lock_of
from kernelstream.errors import InputError
from kernelstream.modelfile import dumps, forecasts, format, loads, statebytes


def _series(n: int, seed: int = 0) -> tuple:
    """A trend, a season of 12 and noise; two exogenous columns."""
    t = np.arange(n)
    rng = np.random.default_rng(seed)
    y = 10 + 0.05 * t + 2 * np.sin(2 * np.pi * t / 12) + 0.3 * rng.normal(size=n)
    return y, rng.normal(size=(n, 2))


def _taylor():
    return ks.TaylorAWV(degree=2, sigma=10.0)


def _feed(fc, y, X, start: int, stop: int) -> None:
    """Rounds ``start..stop - 1`` as a user runs them: the forecasts (with the
    exogenous rows of the values to come), then the next value; then the forecasts
    after the last one (with exogenous rows, they are made when asked for)."""
    H = fc.horizon
    for t in range(start, stop + 1):
        if fc.n_seen:
            fc.forecast_interval(X_future=None if X is None else X[t : t + H])
        if t < stop:
            fc.learn_one(y[t], None if X is None else X[t : t + 1])


def _continue_alike(a, b, y, X, start: int, rounds: int = 30) -> None:
    """Feeds ``a`` and ``b`` the same rounds; their forecasts and intervals are equal bit
    for bit every round, and after the last value."""
    H = a.horizon
    for t in range(start, start + rounds + 1):
        if a.n_seen:
            kw = {"X_future": None if X is None else X[t : t + H]}
            fa, fb = a.forecast(**kw), b.forecast(**kw)
            (la, ua), (lb, ub) = a.forecast_interval(**kw), b.forecast_interval(**kw)
            assert np.array_equal(fa, fb), (t, fa, fb)
            assert np.array_equal(la, lb) and np.array_equal(ua, ub), t
        if t == start + rounds:
            break
        x = None if X is None else X[t : t + 1]
        a.learn_one(y[t], x)
        b.learn_one(y[t], x)


def _shared(fc) -> int:
    """The objects each pending forecast shares with the forecaster are its own (the
    rule it is settled with, the pooled leader's columns); the number of forecasts."""
    n = 0
    cols = list(fc._pool._cols.values())
    for k, pending in enumerate(fc._pending):
        for o, entry in pending.items():
            agg, col = entry[6], entry[7][1]
            if k == 0:
                assert agg is (fc._agg0[0] if o < fc.warmup else fc._agg[0])
            else:
                assert agg is (None if o < fc.warmup else fc._agg[k])
            assert any(col is c for c in cols)
            n += 1
    return n


#: horizon 1 and 4, the period found and given, exogenous columns, lags given
CONFIGS = {
    "h1": dict(horizon=1),
    "h4": dict(horizon=4),
    "h4-season": dict(horizon=4, season=12),
    "h3-exog": dict(horizon=3, exog=2),
    "h1-exog-lags": dict(horizon=1, lags=3, exog=1),
}


@pytest.mark.parametrize("when", ["early", "before-build", "build", "after"])
@pytest.mark.parametrize("name", list(CONFIGS))
def test_a_loaded_forecaster_goes_on_as_the_saved_one(tmp_path, name, when):
    cfg = dict(CONFIGS[name])
    dx = cfg.pop("exog", 0)
    fc = ks.Forecaster(learner=_taylor(), **cfg)
    W, H = fc.warmup, fc.horizon
    cut = {"early": 20, "before-build": W - 1, "build": W, "after": W + 17}[when]
    y, X = _series(cut + 30 + H)
    X = X[:, :dx] if dx else None
    _feed(fc, y, X, 0, cut)
    assert fc._built == (cut >= W)
    path = tmp_path / "forecaster.ksm"
    ks.save(fc, path)
    back = ks.load(path)
    assert type(back) is ks.Forecaster and back.n_seen == cut and back._built == fc._built
    assert back.get_params()["learner"].get_params() == fc.get_params()["learner"].get_params()
    assert (back.season_, back.lags_) == (fc.season_, fc.lags_)
    assert _shared(back) == _shared(fc) > 0
    assert pickle.dumps(back) == pickle.dumps(fc)
    _continue_alike(fc, back, y, X, cut)
    assert back._built and back.season_ == 12 and _shared(back) > 0  # given or found
    assert pickle.dumps(back) == pickle.dumps(fc)


@pytest.mark.parametrize("cut", [0, 47, 90])
def test_the_default_autokernel_forecaster_goes_on_as_the_saved_one(cut):
    """The default learner (AutoKernel) on a short series: fresh, the round before the
    build, and after it."""
    y, _ = _series(150, seed=3)
    fc = ks.Forecaster(horizon=2)
    assert fc.warmup == 48
    _feed(fc, y, None, 0, cut)
    back = loads(dumps(fc))
    assert type(back._experts[0][0]).__name__ == "AutoKernel" if cut > 48 else back._experts == []
    assert back.get_params() == fc.get_params() and back.get_params()["learner"] is None
    assert pickle.dumps(back) == pickle.dumps(fc)
    _continue_alike(fc, back, y, None, cut)
    assert pickle.dumps(back) == pickle.dumps(fc)


def test_a_forecaster_run_by_progressive_forecast_goes_on_alike():
    """The whole-series path leaves NumPy floats in the interval scores; they come back
    as the same numbers in Python floats, and the rounds after are the same."""
    y, X = _series(140, seed=5)
    fc = ks.Forecaster(horizon=3, learner=_taylor())
    fc.progressive_forecast(y[:90])
    back = loads(dumps(fc))
    assert back.n_seen == 90 and _shared(back) > 0
    _continue_alike(fc, back, y, None, 90, rounds=40)


def _parts(data: bytes) -> tuple:
    fixed = len(format.MAGIC) + 12
    (hlen,) = struct.unpack_from("<Q", data, len(format.MAGIC) + 4)
    return json.loads(data[fixed : fixed + hlen]), data[fixed + hlen + 8 : -32]


def _resealed(header: dict, blobs: bytes) -> bytes:
    """A model file of ``header`` and ``blobs``, its sizes and SHA-256 recomputed (a
    crafted file), as :func:`kernelstream.modelfile.format.dumps` writes them."""
    text = json.dumps(header).encode()
    body = b"".join([format.MAGIC, struct.pack("<IQ", format.FORMAT_VERSION, len(text)), text,
                     struct.pack("<Q", len(blobs)), blobs])  # fmt: skip
    return body + hashlib.sha256(body).digest()


def _trained(horizon=3, dx=0, cut=60, **kw):
    y, X = _series(cut + 10)
    fc = ks.Forecaster(horizon=horizon, learner=_taylor(), **kw)
    _feed(fc, y, X[:, :dx] if dx else None, 0, cut)
    return fc


def test_the_file_holds_no_pickle_and_a_readable_header(monkeypatch):
    fc = _trained(dx=2)
    fc.forecast(X_future=np.zeros((3, 2)))  # the forecasts after the last value, pending
    data = dumps(fc)
    fixed = len(format.MAGIC) + 12
    (hlen,) = struct.unpack_from("<Q", data, len(format.MAGIC) + 4)
    raw = data[fixed : fixed + hlen]
    assert raw.isascii() and b"\x80" not in raw  # no pickle opcode (PROTO is 0x80)
    header, section = _parts(data)
    text = json.dumps(header)
    assert "$pickle" not in text and LOCK_ATTR not in text
    node = header["learner"]
    assert node["class"] == "Forecaster"
    params = node["params"]["$dict"]
    assert params["horizon"] == 3 and params["lags"] == "auto" and params["season"] is None
    assert params["learner"]["$learner"]["class"] == "TaylorAWV"
    assert params["learner"]["$learner"]["params"]["$dict"]["degree"] == 2
    comps = header["components"]
    assert comps["Forecaster"] == forecasts.FORECASTER_STATE_VERSION
    assert comps["BOA"] == int(ks._core.BOA._state_version()) and "TaylorAWV" in comps
    # the blobs: the core states (each with its own header), and the two buffers' rows
    state = node["state"]["$dict"]
    rows = {
        state[b]["$object"]["state"]["$dict"]["data"]["$blob"]: getattr(fc, b) for b in ("_y", "_x")
    }
    blobs, at = [], 0
    for n in header["blobs"]:
        blobs.append(section[at : at + n])
        at += n
    assert len(blobs) > 2
    for i, blob in enumerate(blobs):
        if i in rows:
            assert blob == rows[i].data.astype("<f8").tobytes()
        else:
            assert blob.startswith(statebytes.MAGIC)
        assert not blob.startswith(b"\x80")
    entry = state["_pending"][0][0]["$dict"]
    assert entry["rule"] == "_agg[0]" and entry["columns"].startswith("_pool._cols[")

    def refuse(*args, **kwargs):
        raise AssertionError("a model file was unpickled")

    for name in ("loads", "load", "Unpickler"):
        monkeypatch.setattr(pickle, name, refuse)
    back = loads(data)
    assert back.n_seen == fc.n_seen


def test_the_lock_is_not_saved_and_the_loaded_forecaster_has_its_own():
    fc = _trained()
    assert LOCK_ATTR in fc.__dict__
    back = loads(dumps(fc))
    assert LOCK_ATTR not in back.__dict__
    back.learn_one(1.0)
    assert lock_of(back) is not lock_of(fc)


def test_save_waits_for_a_round_in_progress():
    """The state is read under the forecaster's lock (a racing learn_one is in the file
    wholly or not at all)."""
    fc = _trained()
    out: list = []
    with lock_of(fc):  # a round under way in this thread
        saver = threading.Thread(target=lambda: out.append(dumps(fc)))
        saver.start()
        saver.join(0.3)
        assert saver.is_alive() and not out
    saver.join(30)
    assert len(out) == 1 and loads(out[0]).n_seen == fc.n_seen


def test_what_a_model_file_cannot_hold_is_refused_on_saving(tmp_path):
    class Mine:
        def get_params(self):
            return {}

        def learn_one(self, x, y):
            pass

        def predict_one(self, x):
            return 0.0

    with pytest.raises(TypeError, match="whose learner is None or a kernelstream learner"):
        dumps(ks.Forecaster(learner=Mine()))
    with pytest.raises(TypeError, match="saves kernelstream learners and Forecasters"):
        ks.save(object(), tmp_path / "x.ksm")


def test_another_forecaster_format_version_is_refused_naming_the_versions(tmp_path, monkeypatch):
    v = forecasts.FORECASTER_STATE_VERSION
    path = tmp_path / "f.ksm"
    ks.save(_trained(), path)
    header, blobs = _parts(path.read_bytes())
    header["components"]["Forecaster"] = v + 1
    header["kernelstream_version"] = "9.9.9"
    with pytest.raises(InputError, match=rf"written by kernelstream 9\.9\.9 holds a Forecaster "
                       rf"state of format version {v + 1}; kernelstream .* reads version {v}"):  # fmt: skip
        loads(_resealed(header, blobs))
    header["components"]["Forecaster"] = True  # == 1, but not a version
    with pytest.raises(InputError, match="holds a Forecaster state of format version True"):
        loads(_resealed(header, blobs))
    # the file read by a release whose Forecaster attributes are of another version
    monkeypatch.setattr(forecasts, "FORECASTER_STATE_VERSION", v + 1)
    with pytest.raises(InputError, match=rf"{path.name}: model file written by kernelstream "
                       rf"{ks.__version__} holds a Forecaster state of format version {v}; "
                       rf"kernelstream {ks.__version__} reads version {v + 1}"):  # fmt: skip
        ks.load(path)


# -- damaged and crafted headers ---------------------------------------------------------
def _o(v) -> dict:
    """The attributes of a ``$object`` value."""
    return v["$object"]["state"]["$dict"]


def _entry(st, k, i) -> dict:
    return st["_pending"][k][i]["$dict"]


def _rename_key(h, st) -> None:
    pool = _o(st["_pool"])
    pool["keys"] = ["ses0.3" if k == "ses0.2" else k for k in pool["keys"]]
    for pair in pool["_cols"]:
        pair[0]["$tuple"] = ["ses0.3" if k == "ses0.2" else k for k in pair[0]["$tuple"]]


def _shrink(arr) -> None:
    a = arr["$array"]
    a["data"].pop()
    a["shape"][-1] -= 1


def _set(d, key, value):
    d[key] = value


N = 60  # values seen by the "post" and "exog" files; "pre" has seen 20
CASES = [
    # a helper's fields, a list of the wrong length
    ("post", lambda h, st: _o(st["_agg0"][0]).pop("best"),
     r"a Leader with the fields \['loss', 'margin'\]"),
    ("post", lambda h, st: _set(_o(st["_pool"]), "extra", 1), r"a Pooled with the fields"),
    ("post", lambda h, st: st["_conf"].pop(), r"intervals are not 3 HorizonConformal"),
    ("post", lambda h, st: st["_experts"][1].pop(), r"experts are not 3 lists of 3 learners"),
    ("post", lambda h, st: st["_agg"].pop(), r"combinations are not 3, the first guarded"),
    ("post", lambda h, st: st["_pending"].pop(), r"pending forecasts are not 3 lists"),
    ("post", lambda h, st: h["learner"].pop("params"), r"not a Forecaster"),
    ("post", lambda h, st: st.pop("_level"), r"a Forecaster with the attributes"),
    ("post", lambda h, st: _entry(st, 0, 0).pop("guard"), r"a pending forecast with the fields"),
    # pending forecasts' origins
    ("post", lambda h, st: _set(_entry(st, 2, -1), "origin", N + 1),
     rf"horizon 3 of origin {N + 1}, with {N} values seen"),
    ("post", lambda h, st: _set(_entry(st, 0, 0), "origin", N - 1),
     rf"horizon 1 of origin {N - 1}, with {N} values seen"),
    ("post", lambda h, st: st["_pending"][2].reverse(), r"horizon 3 are not in order of origin"),
    ("post", lambda h, st: st["_pending"][0].clear(), r"no forecast of horizon 1 after its last"),
    # counts, deques, sorted lists, probabilities
    ("post", lambda h, st: _set(_o(st["_conf"][0]), "n_covered", -1),
     r"count of covered labels is not a count"),
    ("post", lambda h, st: _set(_o(st["_conf"][1]), "n_covered", _o(st["_conf"][1])["n_scored"] + 1),
     r"a horizon's counts \(\d+ covered of \d+\) disagree"),
    ("post", lambda h, st: _set(_o(st["_conf"][0])["errors"]["$deque"], "maxlen", 5),
     r"a deque of \d+ items, longer than its maxlen 5"),
    ("post", lambda h, st: _set(_o(st["_conf"][0]), "scores", _o(st["_conf"][0])["sorted"]),
     r"a horizon's scores are not a deque"),
    ("post", lambda h, st: _o(st["_conf"][0])["sorted"].reverse(),
     r"sorted scores are not its scores in order"),
    ("post", lambda h, st: _o(st["_conf"][2])["sorted_errors"].reverse(),
     r"sorted errors are not its errors in order"),
    ("post", lambda h, st: _set(_o(st["_conf"][0]), "alpha", 1.5), r"alpha is not in \(0, 1\)"),
    ("post", lambda h, st: _set(st["_params"]["$dict"], "alpha", 0.2) or _set(
        h["learner"]["params"]["$dict"], "alpha", 0.2), r"intervals disagree with its alpha"),
    ("post", lambda h, st: _set(_o(st["_agg0"][0]), "best", 99),
     r"incumbent 99 is not one of its \d+ experts"),
    ("post", lambda h, st: _set(_o(st["_agg0"][0])["loss"]["$array"]["data"], 0, {"$float": "nan"}),
     r"a leader's losses holds values that are not numbers"),
    ("post", lambda h, st: _set(_o(st["_agg"][0]), "n_learners", 4),
     r"guarded combination's rule has \d+ experts"),
    ("post", lambda h, st: _shrink(_o(st["_pool"])["n_full"]),
     r"n_full is not a float64 array of shape \(3,\)"),
    ("post", _rename_key, r"pooled leader has the candidates"),
    # the series' buffers
    ("post", lambda h, st: _set(_o(st["_y"]), "n", h["blobs"][_o(st["_y"])["data"]["$blob"]] // 8 + 1),
     r"a buffer holds \d+ rows in an array of \d+"),
    ("exog", lambda h, st: _set(_o(st["_x"]), "n", N - 1), rf"exogenous rows are not {N} rows"),
    ("exog", lambda h, st: _set(st, "_dx", 3), rf"exogenous rows are not {N} rows of 3 values"),
    ("post", lambda h, st: _set(st, "_level", None), r"smoothed levels disagree"),
    # values of the wrong type; the build against the warm-up
    ("post", lambda h, st: _set(st, "_scale", "1.0"), r"the Forecaster's scale is not a finite"),
    ("post", lambda h, st: _set(st, "_built", 1), r"built flag 1 disagrees with 60 values"),
    ("pre", lambda h, st: _set(st, "_built", True), r"built flag True disagrees with 20 values"),
    ("pre", lambda h, st: _set(st, "_scale", 2.0), r"scale 2\.0 is not that of its warm-up"),
    ("post", lambda h, st: _set(st, "season_", 3), r"period 3 is not one it can have chosen"),
    ("post", lambda h, st: _set(st, "lags_", 99), r"lags 99 are not what it can have chosen"),
    ("post", lambda h, st: _set(st, "_kinds", ["level", "diff"]), r"expert kinds"),
    ("post", lambda h, st: _set(st["_params"]["$dict"], "horizon", 0),
     r"the Forecaster's parameters: horizon must be"),
    ("post", lambda h, st: _set(st["_params"]["$dict"], "learner", 3),
     r"the Forecaster's learner is not a kernelstream learner"),
    ("post", lambda h, st: _set(h["learner"]["params"]["$dict"], "horizon", 5),
     r"the parameters of the Forecaster differ from its state"),
    # classes off the allow-list, or in the wrong place
    ("post", lambda h, st: _set(st["_agg0"][0]["$object"], "class", "os.system"),
     r"an object of unknown class 'os.system'"),
    ("post", lambda h, st: _set(st["_agg"][1]["$wrapped"], "class", "posix.system"),
     r"no object class 'posix.system'"),
    ("post", lambda h, st: _set(st["_experts"][0][0]["$learner"], "class", "os.system"),
     r"'os.system', which is not a kernelstream learner"),
    ("post", lambda h, st: _set(st["_agg0"], 0, copy.deepcopy(st["_conf"][0])),
     r"warm-up leader is not a Leader"),
    ("post", lambda h, st: _set(st["_params"]["$dict"], "learner", {"$learner": copy.deepcopy(
        h["learner"])}), r"'Forecaster', which is not a kernelstream learner"),
    # the pending forecasts: the references they share, their numbers
    ("post", lambda h, st: _set(_entry(st, 0, 0), "rule", "_agg0[0]"),
     r"refers to the rule '_agg0\[0\]', not '_agg\[0\]'"),
    ("pre", lambda h, st: _set(_entry(st, 1, 0), "rule", "_agg[1]"),
     r"refers to the rule '_agg\[1\]', not None"),
    ("post", lambda h, st: _set(_entry(st, 1, 0), "columns", "_pool._cols[9]"),
     r"refers to the columns '_pool._cols\[9\]'"),
    ("post", lambda h, st: _shrink(_entry(st, 0, 0)["z"]),
     r"experts' forecasts of the pending forecast of horizon 1 at origin 60 is not a float64 "
     r"array of shape \(\d+,\)"),
    ("post", lambda h, st: _set(_entry(st, 1, 0), "last", _entry(st, 1, 0)["last"] + 1.0),
     r"horizon 2 at origin 59 is not the series' value before it"),
    ("post", lambda h, st: _set(_entry(st, 0, 0), "lower", _entry(st, 0, 0)["forecast"] + 1.0),
     r"horizon 1 at origin 60 is outside its interval"),
    ("post", lambda h, st: _set(_entry(st, 0, 0), "guard", None), r"has no guarded pair"),
    ("post", lambda h, st: h["components"].pop("Forecaster"),
     r"no component version of its Forecaster"),
]  # fmt: skip


@pytest.fixture(scope="module")
def files() -> dict:
    """The decoded header and the blobs of a file past the build, one before it, and
    one with exogenous columns."""
    out = {
        "post": _trained(cut=N),
        "pre": _trained(cut=20),
        "exog": _trained(horizon=2, dx=2, cut=N),
    }
    return {name: _parts(dumps(fc)) for name, fc in out.items()}


@pytest.mark.parametrize("base, mutate, match", CASES, ids=[c[2][:40] for c in CASES])
def test_a_crafted_forecaster_is_refused_by_the_check_it_targets(files, base, mutate, match):
    header, blobs = files[base]
    assert loads(_resealed(header, blobs)).n_seen in (20, N)  # the file before the edit
    header = copy.deepcopy(header)
    mutate(header, header["learner"]["state"]["$dict"])
    with pytest.raises(InputError, match=match):
        loads(_resealed(header, blobs))


def test_an_expert_unlike_its_learner_is_refused():
    """Written from objects (the writer checks nothing): an expert of other parameters
    than the forecaster's learner, or taking rows of another width."""
    fc = _trained()
    fc._experts[1][0] = ks.TaylorAWV(degree=3, sigma=10.0)
    with pytest.raises(InputError, match="expert has other parameters than its learner"):
        loads(dumps(fc))
    fc = _trained()
    other = _taylor()
    other.learn_one(np.zeros(2), 0.0)
    fc._experts[0][1] = other
    with pytest.raises(InputError, match=r"diff expert takes rows of 2 values, not \d+"):
        loads(dumps(fc))


_FUZZ = r"""
import copy, hashlib, json, random, struct, sys, warnings
import numpy as np
import kernelstream as ks
from kernelstream.errors import InputError, KernelstreamError
from kernelstream.modelfile import dumps, format, loads

warnings.simplefilter("ignore")  # a crafted number may overflow in a round: not a failure
t = np.arange(100)
y = 10 + 0.05 * t + 2 * np.sin(2 * np.pi * t / 12)
fc = ks.Forecaster(horizon=3, learner=ks.TaylorAWV(degree=2, sigma=10.0))
for v in y[:60]:
    fc.learn_one(float(v))
data = dumps(fc)
fixed = len(format.MAGIC) + 12
(hlen,) = struct.unpack_from("<Q", data, len(format.MAGIC) + 4)
header = json.loads(data[fixed : fixed + hlen])
VALUES = [None, True, 0, -1, 1, 2**63, 1e308, -0.5, "", "os.system", [], {}, {"$float": "nan"},
          {"$float": "inf"}, {"$blob": 0}, {"$tuple": []}, "_agg[0]", "_agg0[0]", "_pool._cols[0]"]

def paths(v, path=()):
    yield path
    items = v.items() if isinstance(v, dict) else enumerate(v) if isinstance(v, list) else ()
    for k, x in items:
        yield from paths(x, path + (k,))

NODES = [p for p in paths(header["learner"]["state"]) if p]

def reseal(head: bytes, text: bytes) -> bytes:
    body = head + struct.pack("<Q", len(text)) + text + data[fixed + hlen : -32]
    return body + hashlib.sha256(body).digest()

rng = random.Random(int(sys.argv[1]))
counts = {"refused": 0, "loaded": 0, "refused-on-use": 0}
failures = []
for i in range(int(sys.argv[2])):
    kind = ("flip", "flip-resealed", "edit")[i % 3]
    b = bytearray(data)
    if kind == "flip":  # damage: the digest sees it
        for j in rng.sample(range(len(b) * 8), rng.randint(1, 3)):
            b[j // 8] ^= 1 << (j % 8)
        bad = bytes(b)
    elif kind == "flip-resealed":  # a bit of the header, the digest recomputed
        j = rng.randrange(fixed * 8, (fixed + hlen) * 8)
        b[j // 8] ^= 1 << (j % 8)
        bad = bytes(b[:-32]) + hashlib.sha256(bytes(b[:-32])).digest()
    else:  # one value of the Forecaster's attributes replaced or dropped, resealed
        h = copy.deepcopy(header)
        path = rng.choice(NODES)
        parent = h["learner"]["state"]
        for k in path[:-1]:
            parent = parent[k]
        old = parent[path[-1]]
        if rng.random() < 0.1:
            del parent[path[-1]]
        elif type(old) in (int, float) and rng.random() < 0.5:
            parent[path[-1]] = rng.choice([old + 1, old - 1, -old, old * 2])
        else:
            parent[path[-1]] = copy.deepcopy(rng.choice(VALUES))
        bad = reseal(data[: len(format.MAGIC) + 4], json.dumps(h).encode())
    try:
        back = loads(bad)
    except InputError:
        counts["refused"] += 1
        continue
    except BaseException as exc:
        failures.append(f"{kind}: load raised {type(exc).__name__}: {exc}"[:300])
        continue
    if kind == "flip":
        failures.append("a damaged file loaded")
        continue
    try:
        for v in y[60:66]:
            back.forecast()
            back.forecast_interval()
            back.learn_one(float(v))
        counts["loaded"] += 1
    except KernelstreamError:  # a crafted number may be refused in a round
        counts["refused-on-use"] += 1
    except BaseException as exc:
        failures.append(f"{kind}: a round raised {type(exc).__name__}: {exc}"[:300])
print(json.dumps({"counts": counts, "failures": failures}))
"""


def test_random_damage_is_refused_or_loads_usable():
    """300 mutations in a subprocess (a crash or a hang fails the test): bits flipped
    anywhere (refused by the digest), bits flipped in the header and values of the
    attributes replaced with the file resealed (refused with an InputError, or loaded,
    then usable for a few rounds: any error but a kernelstream one is a failure)."""
    done = subprocess.run([sys.executable, "-c", _FUZZ, "0", "300"],
                          capture_output=True, text=True, timeout=600)  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout.splitlines()[-1])
    assert result["failures"] == []
    counts = result["counts"]
    assert sum(counts.values()) == 300
    assert counts["refused"] > 150 and counts["loaded"] > 0, counts
