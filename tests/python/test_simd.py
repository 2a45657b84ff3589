"""Run-time instruction-set choice: ``build_info()`` and the baseline path against
the default one (the FMA paths round once per multiply-add, the baseline twice)."""

import json
import os
import subprocess
import sys

import kernelstream as ks
import numpy as np
import pytest

PATHS = ("baseline", "avx2", "avx512")

_RUN = """
import json, sys
import numpy as np
import kernelstream as ks
rng = np.random.default_rng(7)
X = rng.uniform(-1, 1, size=(400, 4))
y = np.sin(2 * X[:, 0]) + 0.1 * rng.standard_normal(400)
p = ks.TaylorAWV(sigma=1.0, degree=3, lam=1.0).progressive_predict(X, y)
json.dump({"info": ks.build_info(), "p": [float(v).hex() for v in p]}, sys.stdout)
"""


def _run(simd=None):
    env = {k: v for k, v in os.environ.items() if k != "KERNELSTREAM_SIMD"}
    if simd:
        env["KERNELSTREAM_SIMD"] = simd
    out = subprocess.run([sys.executable, "-c", _RUN], env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    res = json.loads(out.stdout)
    return res["info"], np.array([float.fromhex(v) for v in res["p"]])


def test_build_info_describes_a_portable_build():
    info = ks.build_info()
    assert info["version"] == ks.__version__
    assert info["simd_path"] in PATHS and info["simd_detected"] in PATHS
    assert PATHS.index(info["simd_path"]) <= PATHS.index(info["simd_detected"])
    assert set(info["kernels"].values()) == {info["simd_path"]}
    assert {"dot", "axpy", "packed_symv", "packed_syr"} <= set(info["kernels"])
    # Nothing above baseline x86-64 outside the dispatched kernels.
    assert not {"avx", "avx2", "fma", "avx512f"} & set(info["target_features"])
    assert info["profile"] in ("release", "debug") and info["rustc"].startswith("rustc")


@pytest.mark.slow
def test_baseline_path_matches_the_default_within_rounding():
    base_info, base = _run("baseline")
    info, fast = _run()
    assert base_info["simd_path"] == "baseline"
    assert base_info["simd_requested"] == "baseline"
    assert info["simd_path"] == info["simd_detected"]
    # Error bound of T Sherman-Morrison rounds in dimension r: each round perturbs
    # A^{-1} by O(r eps) relative to ||A^{-1}||, amplified by kappa(A_t) <=
    # lam_max(A_T) / lam; the prediction v^T A^{-1} b / (1 + delta) moves by at most
    # that times ||v_t|| ||b_{t-1}|| / lam (both paths err by this much: factor 2).
    rng = np.random.default_rng(7)
    X = rng.uniform(-1, 1, size=(400, 4))
    y = np.sin(2 * X[:, 0]) + 0.1 * rng.standard_normal(400)
    m = ks.TaylorAWV(sigma=1.0, degree=3, lam=1.0)
    V = np.array([m.features(x) for x in X])
    T, r = V.shape
    lam = 1.0
    kappa = np.linalg.eigvalsh(lam * np.eye(r) + V.T @ V)[-1] / lam
    b_prev = np.vstack([np.zeros(r), np.cumsum(y[:, None] * V, axis=0)[:-1]])
    tol = 2 * T * r * np.finfo(float).eps * kappa * np.linalg.norm(V, axis=1) / lam
    tol *= np.linalg.norm(b_prev, axis=1)
    assert np.all(np.abs(fast - base) <= tol)
    assert np.all(np.isfinite(base))


@pytest.mark.slow
def test_unknown_simd_request_warns_and_runs_the_detected_path():
    env = dict(os.environ, KERNELSTREAM_SIMD="avx1024")
    code = "import kernelstream as ks; print(ks.build_info()['simd_path'])"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert out.returncode == 0
    assert out.stdout.strip() == ks.build_info()["simd_detected"]
    assert "KERNELSTREAM_SIMD" in out.stderr
