"""Model file fuzzer: damaged and crafted model files (``kernelstream.save``), each loaded
by ``kernelstream.load`` in a worker subprocess (an abort or a hang is a failure).

Every registered learner's example, Mixture, AutoKernel, a Conformal, the four
adapters and a Forecaster (past its warm-up, its pending forecasts and intervals
included) are trained on a few rows and saved; each case damages one file:

- ``flip``, ``byte``, ``truncate``, ``trailing``, ``size`` (the header's and the blob
  section's u64 lengths): damage as a disk or a copy makes it. These must be refused
  (``InputError``): the file's SHA-256 and sizes see them.
- the same with the digest recomputed (``+digest``), and edits of the readable header
  (``json``: a value replaced, a key dropped, a blob length changed) or of a core
  state's MessagePack (``state``: lengths, integers, floats, with the state's CRC and
  the file's digest recomputed): what a crafted file looks like. These must be refused
  with an ``InputError`` or load and be usable (their predictions are not checked:
  a crafted file may hold other numbers).

    python tools/fuzz_models.py --seconds 15
    python tools/fuzz_models.py --minutes 5
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import struct
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fuzz_state  # noqa: E402
import fuzzlib  # noqa: E402

INTERESTING = [0, -1, 1, 2**31, 2**63, 2**64, 10**30, 1e308, -1e308, 0.5, "", "os.system",
               "TaylorAWV", None, True, [], {}, {"$blob": 0}, {"$tuple": [1]}, [[[]]]]  # fmt: skip


def models() -> dict:
    """``{name: (file bytes, X, y)}``: a small trained learner of each kind, saved."""
    import kernelstream as ks
    import numpy as np
    from kernelstream.learners import _registry as registry
    from kernelstream.modelfile import dumps

    out = {}
    made = {n: registry.example(n) for n in registry.names()}
    made["Conformal"] = ks.Conformal(ks.TaylorAWV(degree=2), window=20)
    for name, learner in made.items():
        d = registry.face(name)._example_d if name != "Conformal" else 3
        lo, hi = registry.input_box(name) if name != "Conformal" else (-1.0, 1.0)
        rng = np.random.default_rng(0)
        X = rng.uniform(lo, hi, (40, d))
        y = np.sin(3 * X[:, 0])
        learner.learn_many(X[:30], y[:30])
        out[name] = (dumps(learner), X[30:], y[30:])
    t = np.arange(80)
    series = 10 + 0.05 * t + np.sin(2 * np.pi * t / 12)
    fc = ks.Forecaster(horizon=3, learner=ks.TaylorAWV(degree=2, sigma=10.0))
    for v in series[:60]:
        fc.learn_one(float(v))
    out["Forecaster"] = (dumps(fc), series[60:, None], series[60:])
    for name, adapter in adapters().items():
        rng = np.random.default_rng(1)
        X = rng.uniform(-1.0, 1.0, (40, 3))
        y = np.sin(3 * X[:, 0])
        use(adapter, X[:30], y[:30])
        out[name] = (dumps(adapter), X[30:], y[30:])
    return out


def adapters() -> dict:
    """The scikit-learn and river adapters (untrained), as model files hold them."""
    import kernelstream as ks
    from kernelstream.adapters import RiverClassifier, RiverRegressor

    G = ks.kernels.Gaussian
    out = {
        "RiverRegressor": RiverRegressor(ks.RFFAWV(G(1.0), n_features=6, seed=1)),
        "RiverClassifier": RiverClassifier(ks.FOGD(G(1.0), n_features=6, loss="logistic")),
    }
    try:
        from kernelstream.adapters.sklearn import SklearnClassifier, SklearnRegressor
    except ImportError:  # scikit-learn not installed
        return out
    out["SklearnRegressor"] = SklearnRegressor(ks.TaylorAWV(degree=2))
    out["SklearnClassifier"] = SklearnClassifier(ks.RFFAWV(G(1.0), n_features=6, seed=2))
    return out


def use(model, X, y) -> None:
    """Predictions then learning on ``(X, y)`` by the model's own protocol (labels
    ``"lo"``/``"hi"`` from the sign of ``y`` for the classifiers)."""
    import numpy as np

    name = type(model).__name__
    t = np.where(y > 0, "hi", "lo") if name.endswith("Classifier") else y
    if name == "Forecaster":  # forecasts, intervals, then the next value, round by round
        for v in y:
            model.forecast()
            model.forecast_interval()
            model.learn_one(float(v))
    elif name.startswith("Sklearn"):
        if hasattr(model, "n_features_in_"):
            model.predict(X)
        model.partial_fit(X, t, **({"classes": ["hi", "lo"]} if "Classifier" in name else {}))
    elif name.startswith("River"):
        for row, target in zip(X, t):
            x = {f"f{j}": float(v) for j, v in enumerate(row)}
            model.predict_one(x)
            model.learn_one(x, target if isinstance(target, str) else float(target))
    else:
        model.predict_many(X)
        model.progressive_predict(X, y)


def _split(data: bytes):
    from kernelstream.modelfile.format import MAGIC

    fixed = len(MAGIC) + 12
    (hlen,) = struct.unpack_from("<Q", data, len(MAGIC) + 4)
    header = json.loads(data[fixed : fixed + hlen])
    blob = data[fixed + hlen + 8 : -32]
    blobs, at = [], 0
    for n in header["blobs"]:
        blobs.append(blob[at : at + n])
        at += n
    return header, blobs


def _build(header: dict, blobs: list, lengths: bool = True) -> bytes:
    from kernelstream.modelfile.format import FORMAT_VERSION, MAGIC

    if lengths and isinstance(header, dict):
        header["blobs"] = [len(b) for b in blobs]
    text = json.dumps(header).encode()
    section = b"".join(blobs)
    body = b"".join([MAGIC, struct.pack("<IQ", FORMAT_VERSION, len(text)), text,
                     struct.pack("<Q", len(section)), section])  # fmt: skip
    return body + hashlib.sha256(body).digest()


def _redigest(data: bytes) -> bytes:
    return data[:-32] + hashlib.sha256(data[:-32]).digest() if len(data) >= 32 else data


def _json_edit(v, rng: random.Random):
    """``v`` (the header) with one value replaced or one key dropped, somewhere."""
    if isinstance(v, dict) and v and rng.random() < 0.7:
        k = rng.choice(sorted(v))
        if rng.random() < 0.15:
            return {key: x for key, x in v.items() if key != k}
        return {**v, k: _json_edit(v[k], rng)}
    if isinstance(v, list) and v and rng.random() < 0.7:
        i = rng.randrange(len(v))
        return v[:i] + [_json_edit(v[i], rng)] + v[i + 1 :]
    return rng.choice(INTERESTING)


def mutate(data: bytes, rng: random.Random) -> tuple[str, bytes, bool]:
    """``(what, damaged bytes, crafted)``: crafted files may load; the others must not."""
    op = rng.choice(["flip", "byte", "truncate", "trailing", "size", "json", "state", "state"])
    if op in ("json", "state"):
        header, blobs = _split(data)
        if op == "json":
            return op, _build(_json_edit(header, rng), blobs, lengths=rng.random() < 0.8), True
        i = rng.randrange(len(blobs))
        what, blobs[i] = fuzz_state.mutate(blobs[i], rng)
        return f"state {what}", _build(header, blobs), True
    b = bytearray(data)
    if op == "flip":
        for _ in range(rng.randint(1, 4)):
            j = rng.randrange(len(b) * 8)
            b[j // 8] ^= 1 << (j % 8)
    elif op == "byte":
        b[rng.randrange(len(b))] = rng.randrange(256)
    elif op == "truncate":
        b = b[: rng.randrange(len(b))]
    elif op == "trailing":
        b += bytes(rng.randrange(256) for _ in range(rng.randint(1, 40)))
    else:
        from kernelstream.modelfile.format import MAGIC

        at = len(MAGIC) + 4
        if rng.random() < 0.5:  # the blob section's length, after the header
            at += 8 + struct.unpack_from("<Q", b, at)[0]
        old = struct.unpack_from("<Q", b, at)[0]
        new = rng.choice([0, 1, old - 1, old + 1, old * 2, 2**32, 2**63, 2**64 - 1])
        struct.pack_into("<Q", b, at, new % 2**64)
    if rng.random() < 0.5:
        return op + "+digest", _redigest(bytes(b)), True
    return op, bytes(b), bytes(b) == data


def run_case(case: dict) -> str:
    """In the worker: load the file; ``refused`` (InputError), ``loaded`` (and usable),
    or a failure (another exception; a damaged file that loads though not crafted)."""
    import tempfile

    import kernelstream as ks
    import numpy as np
    from kernelstream.errors import InputError, KernelstreamError

    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "m.ksm")
        with open(path, "wb") as fh:
            fh.write(case["data"])
        try:
            learner = ks.load(path)
        except InputError:
            return "refused"
        except BaseException as exc:  # noqa: BLE001 - any other exception is the failure
            print(f"load: {type(exc).__name__}: {exc}"[:300], file=sys.stderr)
            return "error"
    if not case["crafted"]:
        return "accepted-damaged"
    X, y = np.asarray(case["X"]), np.asarray(case["y"])
    try:
        use(learner, X, y)
    except KernelstreamError:
        pass  # a crafted state may be refused on use (a row of another width...)
    except BaseException as exc:  # noqa: BLE001
        print(f"use: {type(exc).__name__}: {exc}"[:300], file=sys.stderr)
        return "error"
    return "loaded"


FAILURES = (*fuzzlib.FAILURES, "accepted-damaged")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--seconds", type=float, default=15.0)
    ap.add_argument("--minutes", type=float, default=None)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--timeout", type=float, default=20.0, help="per-case timeout (a hang)")
    args = ap.parse_args(argv)
    seconds = args.minutes * 60 if args.minutes is not None else args.seconds
    rng = random.Random(args.seed)
    files = models()
    counts: dict = {name: {} for name in files}
    failures = []
    pool = fuzzlib.Pool(timeout=args.timeout)
    deadline, start, i = fuzzlib.Deadline(seconds), time.monotonic(), 0
    names = sorted(files)
    while deadline:
        name = names[i % len(names)]
        i += 1
        data, X, y = files[name]
        what, bad, crafted = mutate(data, rng)
        case = {"kind": "model", "data": bad, "crafted": crafted, "X": X.tolist(), "y": y.tolist()}
        verdict = pool.run(case)
        counts[name][verdict] = counts[name].get(verdict, 0) + 1
        if verdict in FAILURES:
            failures.append(f"{name} {what} -> {verdict}")
    pool.close()
    print(fuzzlib.report(counts, failures, time.monotonic() - start, "model file fuzzer"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
