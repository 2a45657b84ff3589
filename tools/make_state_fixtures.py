"""Writes the state fixtures of a release: for every entry of the test zoo
(``tests/python/zoo.py``: every exported learner, Mixture, AutoKernel and Conformal
included), a small learner saved as a model file (``kernelstream.save``) after a short
stream, and the predictions it must give next.

    python tools/make_state_fixtures.py            # fixtures of this version
    python tools/make_state_fixtures.py --missing  # add zoo entries that have none yet

The files go to ``tests/fixtures/states/<version>/``: ``<entry>.ksm`` and one
``manifest.json`` (the stream after the save, the recorded predictions, the format
version of each component state, and a tolerance per entry).
``tests/python/test_state_fixtures.py`` loads every release's fixtures with the current
code: each must reproduce its predictions, or be refused with an ``InputError`` naming
its format version. (Folders of the development snapshots before 0.1.0 hold pickles.)

The tolerance follows from the conditioning of each prediction: the fixture is
replayed on every instruction-set path of the machine (``KERNELSTREAM_SIMD``; the
FMA paths round differently from the baseline), and the largest difference between
paths, times a safety factor of 1000, is what a change of rounding may move it (at
least 1e-12 relative: bit-for-bit paths are recorded with that floor). Run it on a
machine with AVX-512 so that all three paths are measured.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "tests" / "fixtures" / "states"
N_LEARN = 60  # rounds before the save (past AutoKernel's warmup and OMKL-GF's graph)
N_NEXT = 12  # rounds after it: predict_many, then progressive_predict
SAFETY = 1000.0
FLOOR = 1e-12
PATHS = ("baseline", "avx2", "avx512")


def _stream(entry, n: int, seed: int):
    import numpy as np

    rng = np.random.default_rng(seed)
    lo, hi = entry.domain
    X = rng.uniform(lo, hi, size=(n, entry.d))
    if entry.task == "classification":
        y = np.where(np.sin(3 * X[:, 0]) + 0.3 * rng.standard_normal(n) >= 0, 1.0, -1.0)
    else:
        y = np.sin(3 * X[:, 0]) * np.cos(X[:, -1]) + 0.1 * rng.standard_normal(n)
    return X, y


def _zoo():
    sys.path.insert(0, str(ROOT / "tests" / "python"))
    from zoo import ZOO

    return ZOO


def _replay(blob: bytes, X, y) -> tuple[list, list]:
    """Predictions of a learner loaded from a model file's bytes: ``predict_many(X)``,
    then ``progressive_predict(X, y)``."""
    from kernelstream.modelfile import loads

    learner = loads(blob)
    first = learner.predict_many(X)
    second = learner.progressive_predict(X, y)
    return [float(v) for v in first], [float(v) for v in second]


def _replay_under(path: str, files: dict) -> dict:
    """``{entry: (predict_many, progressive)}`` replayed in a child on the SIMD ``path``."""
    code = (
        "import json, sys\n"
        f"sys.path.insert(0, {str(Path(__file__).parent)!r})\n"
        "from make_state_fixtures import _replay\n"
        "import numpy as np\n"
        "job = json.load(sys.stdin)\n"
        "out = {}\n"
        "for name, (pkl, X, y) in job.items():\n"
        "    out[name] = _replay(open(pkl, 'rb').read(), np.array(X), np.array(y))\n"
        "print(json.dumps(out))\n"
    )
    env = {**os.environ, "KERNELSTREAM_SIMD": path}
    res = subprocess.run(
        [sys.executable, "-c", code],
        input=json.dumps(files),
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
        check=True,
    )
    return json.loads(res.stdout)


def _header(blob: bytes) -> bytes:
    """The JSON header of a model file's bytes (``kernelstream.modelfile.format``)."""
    from kernelstream.modelfile.format import MAGIC

    start = len(MAGIC) + 12
    n = int.from_bytes(blob[len(MAGIC) + 4 : start], "little")
    return blob[start : start + n]


def main(argv=None) -> int:
    import kernelstream as ks
    import numpy as np
    from kernelstream.modelfile import dumps

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--missing", action="store_true", help="only add entries with no fixture")
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args(argv)

    version = ks.__version__
    out = args.out / version
    out.mkdir(parents=True, exist_ok=True)
    manifest_path = out / "manifest.json"
    manifest = json.loads(manifest_path.read_text()) if manifest_path.exists() else {}
    entries = manifest.get("entries", {}) if args.missing else {}
    info = ks.build_info()

    zoo = _zoo()
    todo = {}
    for name in sorted(zoo):
        if name in entries:
            continue
        entry = zoo[name]
        learner = entry.factory()
        X, y = _stream(entry, N_LEARN + N_NEXT, seed=2026)
        learner.learn_many(X[:N_LEARN], y[:N_LEARN])
        blob = dumps(learner)
        path = out / f"{name}.ksm"
        ks.save(learner, path)
        Xn, yn = X[N_LEARN:], y[N_LEARN:]
        first, second = _replay(blob, Xn, yn)
        entries[name] = {
            "file": path.name,
            "class": type(learner).__name__,
            "n_seen": learner.n_seen,
            "encoding": "tagged",
            "components": json.loads(_header(blob))["components"],
            "X": Xn.tolist(),
            "y": yn.tolist(),
            "predict_many": first,
            "progressive_predict": second,
        }
        todo[name] = (str(path), Xn.tolist(), yn.tolist())

    # The spread between instruction-set paths measures each prediction's conditioning.
    spread = dict.fromkeys(todo, 0.0)
    measured = []
    for path in PATHS:
        try:
            got = _replay_under(path, todo)
        except subprocess.CalledProcessError as exc:
            print(f"SIMD path {path}: not measured ({exc.stderr.strip()[-200:]})")
            continue
        measured.append(path)
        for name, (first, second) in got.items():
            e = entries[name]
            diff = np.abs(np.r_[first, second] - np.r_[e["predict_many"], e["progressive_predict"]])
            spread[name] = max(spread[name], float(diff.max()))
    for name in todo:
        e = entries[name]
        scale = 1.0 + float(np.abs(np.r_[e["predict_many"], e["progressive_predict"]]).max())
        e["path_spread"] = spread[name]
        e["atol"] = max(SAFETY * spread[name], FLOOR * scale)

    manifest = {
        "kernelstream_version": version,
        "made_on_simd_path": info["simd_path"],
        "spread_measured_on": measured,
        "numpy_version": np.__version__,
        "entries": dict(sorted(entries.items())),
    }
    tmp = manifest_path.with_suffix(".tmp")
    tmp.write_text(json.dumps(manifest, indent=1) + "\n")
    tmp.replace(manifest_path)
    print(f"{len(todo)} fixtures written to {out} (paths measured: {', '.join(measured)})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
