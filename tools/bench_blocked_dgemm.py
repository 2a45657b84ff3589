"""Blocked TaylorAWV rounds against the single-core OpenBLAS dgemm rate, in one run.

TaylorAWV(degree=4) on d = 10 inputs (r = C(14, 4) = 1001 features, ``block_size=None``:
blocks of 64 rounds) runs ``progressive_predict`` on a uniform stream after 64 rounds
of warm-up; its rate counts the nominal ``3 r^2`` flops of a round (a symmetric mat-vec
and a rank-one update). NumPy's ``a @ b`` on ``1024 x 1024`` matrices, held to one BLAS
thread by ``threadpoolctl``, gives the dgemm rate (best of three products). The two
alternate ``--repeats`` times and both are timed in CPU time of the process (on a
shared machine wall-clock time mostly counts other processes); each line prints both
rates and their ratio.

    python tools/bench_blocked_dgemm.py [--rows 3000] [--repeats 3]

Not a test: rates depend on the machine and its load.
"""

from __future__ import annotations

import argparse
import time

import numpy as np


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=3000)
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args(argv)
    import kernelstream as ks

    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        raise SystemExit(
            "needs threadpoolctl (comes with scikit-learn) to hold dgemm to one thread"
        ) from None

    rng = np.random.default_rng(0)
    n, d, warm = args.rows, 10, 64
    X = rng.uniform(-1, 1, (n, d))
    y = np.sin(2 * X[:, 0]) + 0.1 * rng.standard_normal(n)
    a, b = rng.standard_normal((1024, 1024)), rng.standard_normal((1024, 1024))
    with threadpool_limits(limits=1, user_api="blas"):
        for rep in range(args.repeats):
            m = ks.TaylorAWV(sigma=1.0, degree=4)
            m.learn_many(X[:warm], y[:warm])
            r = m.dim
            c0 = time.process_time()
            m.progressive_predict(X[warm:], y[warm:])
            awv = 3.0 * r * r * (n - warm) / (time.process_time() - c0) / 1e9
            best = float("inf")
            for _ in range(3):
                c0 = time.process_time()
                a @ b
                best = min(best, time.process_time() - c0)
            dgemm = 2.0 * 1024**3 / best / 1e9
            print(
                f"run {rep + 1}: blocked TaylorAWV r={r} {awv:.1f} GFlop/s, "
                f"dgemm (1 thread) {dgemm:.1f} GFlop/s, ratio {awv / dgemm:.2f}",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
