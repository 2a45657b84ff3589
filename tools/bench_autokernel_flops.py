"""AutoKernel's arithmetic rate against the single-core OpenBLAS dgemm rate, in one run.

For each regression dataset of the AutoKernel benchmark (as ``tools/compare_builds.py``:
rows with a missing value dropped, shuffled with seed 0, at most ``--max-rows``),
``AutoKernel(threads=1, **params)`` runs ``progressive_predict``; its rate counts the
nominal ``3 D^2`` flops of an AWV round for every expert of ``D`` features or dictionary
points (a symmetric mat-vec and a rank-one update; the dictionary experts' solve and
factor update are counted the same) over the rounds after the warm-up, and nothing for
the warm-up, the kernel rows, the features and the rule (so the rate is a lower bound
of the arithmetic done). NumPy's ``a @ b`` on ``1024 x 1024`` matrices, held to one BLAS
thread, gives the dgemm rate (best of three). Both in CPU time of the process. With
``--base-rate`` (rounds per second of another build on the same data, from
``compare_builds.py``), each line also prints the fraction of dgemm that twice that rate
would need with the same arithmetic.

    KERNELSTREAM_DATA=... python tools/bench_autokernel_flops.py \\
        [--params JSON] [--max-rows 10000] [--base-rate cadata=15968 ...]

Not a test: rates depend on the machine and its load.
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np

REGRESSION = ["airfoil", "concrete", "cpusmall", "cadata", "naval", "parkinson", "bias", "casp"]
#: The expert grid and rule of the stationary defaults before the drift experts.
PREVIOUS_GRID = {
    "discounts": [],
    "linear": False,
    "share": 0.0,
    "restarts": False,
    "loss_window": 0,
    "fogd_widths": [],
    "laplace_widths": [],
}


def dgemm_rate() -> float:
    from threadpoolctl import threadpool_limits

    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((1024, 1024)), rng.standard_normal((1024, 1024))
    best = float("inf")
    with threadpool_limits(limits=1, user_api="blas"):
        for _ in range(3):
            c0 = time.process_time()
            a @ b
            best = min(best, time.process_time() - c0)
    return 2.0 * 1024**3 / best / 1e9


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--datasets", nargs="*", default=REGRESSION)
    ap.add_argument("--params", default=json.dumps(PREVIOUS_GRID), help="AutoKernel parameters")
    ap.add_argument("--max-rows", type=int, default=10_000)
    ap.add_argument("--base-rate", nargs="*", default=[], help="name=rounds/s of another build")
    args = ap.parse_args(argv)
    import kernelstream as ks
    from kernelstream import datasets

    base = {k: float(v) for k, v in (s.split("=", 1) for s in args.base_rate)}
    params = json.loads(args.params)
    for name in args.datasets:
        X, y = datasets.load(name)
        X, y, _ = datasets.drop_missing(X, y)
        X, y = datasets.shuffle(X, y, seed=0)
        X, y = np.ascontiguousarray(X[: args.max_rows]), np.ascontiguousarray(y[: args.max_rows])
        m = ks.AutoKernel(threads=1, **params)
        c0 = time.process_time()
        m.progressive_predict(X, y)
        secs = time.process_time() - c0
        dims = [
            int(e["features"].split("-")[-1]) if "nystrom" in e["features"] else None
            for e in m.experts
        ]
        # Feature experts report no size in their label: the learner's total dimension
        # less the dictionary experts' is shared equally by them.
        n_feat = sum(d is None for d in dims)
        rest = (m.dim - sum(d for d in dims if d)) / max(n_feat, 1)
        per_round = sum(3.0 * (d if d else rest) ** 2 for d in dims)
        rounds = len(y) - m.get_params()["warmup"]
        gflops = per_round * rounds / secs / 1e9
        dg = dgemm_rate()
        line = (
            f"{name}: {len(y) / secs:.0f} rounds/s, {per_round / 1e6:.2f} MFlop per round, "
            f"{gflops:.1f} GFlop/s, dgemm {dg:.1f} GFlop/s, ratio {gflops / dg:.2f}"
        )
        if name in base:
            # twice the other build's rate with the same flops per round
            need = 2.0 * base[name] * per_round * rounds / len(y) / 1e9
            line += f"; 2x {base[name]:.0f} rounds/s needs {need:.1f} GFlop/s = {need / dg:.2f} of dgemm"
        print(line, flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
