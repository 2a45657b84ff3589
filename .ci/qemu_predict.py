"""Predictions of a few learners on a fixed stream, as JSON, for .ci/qemu.

``python .ci/qemu_predict.py`` prints them with the SIMD path that ran;
``python .ci/qemu_predict.py --compare A.json B.json`` checks that B (the wheel
under ``qemu-x86_64 -cpu Haswell-v4``: the AVX2 path) predicts exactly what A (this
machine: AVX-512, or AVX2) predicts. Both FMA paths perform the same floating-point
operations in the same order (only the vector width differs) and the rest of the
extension is compiled once for baseline x86-64, so the predictions agree bit for
bit; the baseline path, which rounds differently, is compared with a
conditioning-based tolerance in tests/python/test_simd.py.
"""

import json
import sys

import numpy as np


def predictions() -> dict:
    import kernelstream as ks
    from kernelstream.kernels import Gaussian

    rng = np.random.default_rng(7)
    X = rng.uniform(-1, 1, size=(300, 5))
    y = np.sin(2 * X[:, 0]) + 0.1 * rng.standard_normal(300)
    learners = {
        "taylor": ks.TaylorAWV(sigma=1.0, degree=3),
        "rff": ks.RFFAWV(Gaussian(1.0), n_features=100, seed=3),
        "kernel": ks.KernelAWV(Gaussian(1.0), lam=1.0),
        "pros_n_kons": ks.ProsNKons(Gaussian(1.0), seed=3),
    }
    out = {"build_info": ks.build_info()}
    for name, m in learners.items():
        out[name] = [float(p).hex() for p in m.progressive_predict(X, y)]
    return out


def compare(native: dict, other: dict) -> int:
    print(
        f"native path {native['build_info']['simd_path']}, other {other['build_info']['simd_path']}"
    )
    if other["build_info"]["simd_path"] != "avx2":
        print("expected the avx2 path under Haswell-v4")
        return 1
    bad = 0
    for name in native:
        if name == "build_info":
            continue
        a = np.array([float.fromhex(v) for v in native[name]])
        b = np.array([float.fromhex(v) for v in other[name]])
        same = np.array_equal(a, b)
        print(
            f"{name}: {len(a)} predictions, {'identical' if same else 'DIFFERENT'}"
            f" (max |diff| {np.max(np.abs(a - b)):.3g})"
        )
        bad |= not same
    return int(bad)


if __name__ == "__main__":
    if sys.argv[1:2] == ["--compare"]:
        with open(sys.argv[2]) as f1, open(sys.argv[3]) as f2:
            sys.exit(compare(json.load(f1), json.load(f2)))
    json.dump(predictions(), sys.stdout)
