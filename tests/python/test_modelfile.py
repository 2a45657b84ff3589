"""Model files (``kernelstream.save`` / ``kernelstream.load``, ``kernelstream.modelfile``):
damaged, truncated, foreign or crafted files are refused with one ``InputError`` and run
no code; a file written before an option existed loads with the option's neutral
default. (That every learner of the zoo round-trips mid-stream with identical next
predictions is the check battery's ``check_model_file_mid_stream``: test_protocol.py,
test_checks.py.)"""

from __future__ import annotations

import hashlib
import json
import os
import pickle
import struct
import subprocess
import sys
from pathlib import Path

import kernelstream as ks
import numpy as np
import pytest
from kernelstream.errors import InputError
from kernelstream.modelfile import dumps, format, loads, statebytes
from zoo import ZOO


def _trained(name, n=30, extra=12):
    e = ZOO[name]
    rng = np.random.default_rng(7)
    X = rng.uniform(*e.domain, size=(n + extra, e.d))
    y = np.sign(X[:, 0]) + (X[:, 0] == 0) if e.task == "classification" else np.sin(3 * X[:, 0])
    learner = e.factory()
    learner.learn_many(X[:n], y[:n])
    return learner, X[n:], y[n:]


def _parts(data: bytes) -> tuple[dict, bytes]:
    fixed = len(format.MAGIC) + 12
    (hlen,) = struct.unpack_from("<Q", data, len(format.MAGIC) + 4)
    return json.loads(data[fixed : fixed + hlen]), data[fixed + hlen + 8 : -32]


def _build(header: dict, blobs: bytes) -> bytes:
    """A model file of ``header`` and ``blobs`` with correct sizes and digest (what a
    crafted file looks like)."""
    text = json.dumps(header).encode()
    body = b"".join([format.MAGIC, struct.pack("<IQ", format.FORMAT_VERSION, len(text)), text,
                     struct.pack("<Q", len(blobs)), blobs])  # fmt: skip
    return body + hashlib.sha256(body).digest()


def test_the_header_is_readable_json_with_versions():
    learner, _, _ = _trained("Mixture")
    header, blobs = _parts(dumps(learner))
    assert header["kernelstream_version"] == ks.__version__
    assert header["learner"]["class"] == "Mixture"
    experts = header["learner"]["params"]["$dict"]["experts"]["$tuple"]
    assert [e["$learner"]["class"] for e in experts] == ["TaylorAWV", "RFFAWV", "FOGD"]
    assert experts[0]["$learner"]["params"]["$dict"]["degree"] == 3
    versions = {e["core_class"]: e["state_version"] for e in ks._core.registry()}
    assert header["components"]["Mixture"] == versions["Mixture"]
    assert header["components"]["TaylorAWV"] == versions["TaylorAWV"]
    assert sum(header["blobs"]) == len(blobs)


_MARKER_SCRIPT = """
import sys, kernelstream as ks
try:
    ks.load(sys.argv[1])
except ks.InputError as exc:
    print("refused:", exc)
"""


def _load_in_child(path) -> str:
    res = subprocess.run([sys.executable, "-c", _MARKER_SCRIPT, str(path)],
                         capture_output=True, text=True, timeout=120)  # fmt: skip
    assert res.returncode == 0, res.stderr
    return res.stdout


class _Boom:
    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        return (os.system, (f"touch {self.marker}",))


@pytest.mark.slow
def test_a_pickle_renamed_runs_no_code(tmp_path):
    marker = tmp_path / "ran"
    path = tmp_path / "evil.ksm"
    path.write_bytes(pickle.dumps(_Boom(marker)))
    assert pickle.loads(path.read_bytes()) == 0 and marker.exists()  # the payload works
    marker.unlink()
    out = _load_in_child(path)
    assert "this is a pickle, not a kernelstream model file" in out
    assert not marker.exists()


@pytest.mark.slow
@pytest.mark.parametrize("where", ["class", "kernel", "nested-class", "tag", "state-class"])
def test_a_crafted_header_naming_code_builds_nothing(tmp_path, where):
    marker = tmp_path / "ran"
    learner, _, _ = _trained("Mixture")
    header, blobs = _parts(dumps(learner))
    node = header["learner"]
    expert = node["state"]["$dict"]["params"]["$dict"]["experts"]["$tuple"][0]["$learner"]
    if where == "class":
        node["class"] = "os.system"
    elif where == "nested-class":
        expert["class"] = "posix.system"
    elif where == "kernel":
        rff = node["state"]["$dict"]["params"]["$dict"]["experts"]["$tuple"][1]["$learner"]
        rff["state"]["$dict"]["params"] = {"$dict": {"kernel": {"$kernel": ["os.system", []]}}}
    elif where == "tag":
        node["state"] = {"$call": ["os.system", [f"touch {marker}"]]}
    else:
        node["state"]["$dict"]["format_version"] = {"$pickle": "cos\nsystem\n"}
    path = tmp_path / "m.ksm"
    path.write_bytes(_build(header, blobs))
    out = _load_in_child(path)
    assert out.startswith("refused:"), out
    assert not marker.exists()


def test_damage_anywhere_is_refused():
    learner, _, _ = _trained("TaylorAWV")
    data = dumps(learner)
    rng = np.random.default_rng(0)
    for i in rng.choice(len(data) * 8, size=300, replace=False):
        bad = bytearray(data)
        bad[i // 8] ^= 1 << (i % 8)
        with pytest.raises(InputError):
            loads(bytes(bad))
    for n in [0, 1, 11, 12, 20, 30, len(data) // 2, len(data) - 33, len(data) - 1]:
        with pytest.raises(InputError):
            loads(data[:n])
    with pytest.raises(InputError):
        loads(data + b"\0")


@pytest.mark.parametrize("field", ["header", "blobs"])
def test_a_size_field_beyond_the_file_is_refused_before_reading(field):
    data = bytearray(dumps(_trained("TaylorAWV")[0]))
    at = len(format.MAGIC) + 4  # the header's length
    if field == "blobs":
        at += 8 + struct.unpack_from("<Q", data, at)[0]
    struct.pack_into("<Q", data, at, 2**63)
    with pytest.raises(InputError, match="truncated or damaged"):
        loads(bytes(data))


def test_not_a_model_file(tmp_path):
    for content in [b"", b"hello", json.dumps({"format": "x"}).encode(), b"\x89KSMODEL\r\n"]:
        p = tmp_path / "x"
        p.write_bytes(content)
        with pytest.raises(InputError, match=str(p)):
            ks.load(p)


def test_a_state_of_another_version_names_the_release(tmp_path):
    learner, _, _ = _trained("TaylorAWV")
    header, blobs = _parts(dumps(learner))
    header["components"]["TaylorAWV"] += 1
    header["kernelstream_version"] = "9.9.9"
    with pytest.raises(InputError, match=r"written by kernelstream 9\.9\.9 holds a TaylorAWV "
                       r"state of format version \d+; kernelstream .* reads version \d+"):  # fmt: skip
        loads(_build(header, blobs))


def test_a_file_written_before_an_option_existed_loads_with_its_default():
    """The aggregator ML-Poly gained its Fixed Share rate ``share`` (``#[serde(default)]``,
    0: the rule before it): a model file whose state lacks the field, and whose
    parameters lack the option, loads, with predictions identical to the file that has
    it (share=0)."""
    msgpack = pytest.importorskip("msgpack")
    learner, X, y = _trained("MultiKernelAWV-mlpoly")
    header, blobs = _parts(dumps(learner))
    assert len(header["blobs"]) == 1
    state = msgpack.unpackb(blobs[statebytes.HEADER :], raw=False, strict_map_key=False)

    def drop(v):
        if isinstance(v, dict):
            mine = int("share" in v and "regret" in v)  # an ML-Poly state
            if mine:
                del v["share"]
            return mine + sum(drop(x) for x in v.values())
        return sum(drop(x) for x in v) if isinstance(v, list) else 0

    assert drop(state) >= 1  # every ML-Poly state of the learner
    payload = msgpack.packb(state, use_bin_type=True)
    old = statebytes.seal(blobs[: statebytes.HEADER] + payload)
    header["blobs"] = [len(old)]
    del header["learner"]["params"]["$dict"]["share"]  # the option did not exist yet
    back = loads(_build(header, old))
    assert back.get_params()["share"] == 0.0
    np.testing.assert_array_equal(back.progressive_predict(X, y), learner.progressive_predict(X, y))


def test_a_held_learner_written_before_an_option_existed_loads_with_its_default():
    """A Conformal's AutoKernel whose readable parameters lack an option added later
    (``warm_neighbour_outputs``, False: the K-output warm-up before it) loads with its
    default and predicts as the file that has it; a held learner's parameter that
    differs from its state is refused."""
    rng = np.random.default_rng(3)
    X = rng.uniform(-1, 1, size=(40, 2))
    y = np.sin(3 * X[:, 0])
    model = ks.Conformal(ks.AutoKernel(warmup=20, lams=(0.1, 1.0), max_taylor_features=35))
    model.learn_many(X[:30], y[:30])
    header, blobs = _parts(dumps(model))
    held = header["learner"]["params"]["$dict"]["learner"]["$learner"]["params"]["$dict"]
    assert held["warm_neighbour_outputs"] is False
    del held["warm_neighbour_outputs"]
    back = loads(_build(header, blobs))
    assert back.learner.get_params()["warm_neighbour_outputs"] is False
    np.testing.assert_array_equal(back.predict_many(X[30:]), model.predict_many(X[30:]))
    held["warmup"] = 21
    with pytest.raises(InputError, match="differ from its state"):
        loads(_build(header, blobs))


def test_save_is_atomic_and_refuses_what_it_cannot_save(tmp_path):
    path = tmp_path / "m.ksm"
    ks.save(ks.TaylorAWV(), path)
    before = path.read_bytes()
    with pytest.raises(TypeError, match="saves kernelstream learners"):
        ks.save(object(), path)
    with pytest.raises(OSError):
        ks.save(ks.TaylorAWV(), tmp_path / "no" / "such" / "dir.ksm")
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.ksm"]


def test_deep_nesting_is_refused():
    header, blobs = _parts(dumps(ks.TaylorAWV()))
    header["learner"]["state"] = "PLACEHOLDER"
    raw = json.dumps(header).replace('"PLACEHOLDER"', "[" * 100_000 + "]" * 100_000).encode()
    body = b"".join([format.MAGIC, struct.pack("<IQ", format.FORMAT_VERSION, len(raw)), raw,
                     struct.pack("<Q", len(blobs)), blobs])  # fmt: skip
    with pytest.raises(InputError):
        loads(body + hashlib.sha256(body).digest())


@pytest.mark.parametrize("drop", ["learner", "components", "blobs", "format"])
def test_a_header_without_a_key_is_refused(drop):
    """(tools/fuzz_models.py found a header without "learner" raising KeyError.)"""
    header, blobs = _parts(dumps(ks.TaylorAWV()))
    del header[drop]
    with pytest.raises(InputError):
        loads(_build(header, blobs))


@pytest.mark.slow  # a short run of tools/fuzz_models.py (about 5 s)
def test_the_model_file_fuzzer_finds_nothing():
    """The bounded CI run of ``tools/fuzz_models.py`` (each load in a worker process)."""
    tool = Path(__file__).resolve().parents[2] / "tools" / "fuzz_models.py"
    done = subprocess.run([sys.executable, str(tool), "--seconds", "5"],
                          capture_output=True, text=True, timeout=300)  # fmt: skip
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert "failures    0" in done.stdout


@pytest.mark.parametrize(
    "name", ["KernelAWV", "RFFAWV", "MultiKernelAWV", "Mixture", "AveragedKernelSGD"]
)
def test_a_flipped_bit_in_a_pickled_state_is_refused(name):
    """The state checksum: one flipped bit of a pickled learner's core
    state was accepted (predictions then reached 1e305). Every state carries a CRC-32
    now: 2,000 bits spread over the state, each flipped alone, are all refused, and the
    object they were loaded into stays as it was."""
    learner, X, _ = _trained(name)
    state = learner.__getstate__()
    core = state["core"]
    rng = np.random.default_rng(1)
    target = type(learner)(**learner.get_params())
    for i in rng.choice(len(core) * 8, size=min(2000, len(core) * 8), replace=False):
        bad = bytearray(core)
        bad[i // 8] ^= 1 << (i % 8)
        with pytest.raises(InputError):
            target.__setstate__({**state, "core": bytes(bad)})
    assert target.n_seen == 0
    target.__setstate__(state)
    np.testing.assert_array_equal(target.predict_many(X), learner.predict_many(X))
