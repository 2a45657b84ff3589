"""Per-round time against t for each learner (which learners grow, and how fast).

A drifting stream in 5 dimensions (the inputs' centre moves with t, so a kernel
dictionary keeps meeting new regions) is fed in blocks; for each block the script
prints the time per round and the learner's dimension. Learners with a fixed
representation (TaylorAWV, RFFAWV, MultiKernelAWV, Raker, OMKLGF, FOGD, NOGD) stay
flat; NystromAWV and ProsNKons grow with the dictionary (about the effective
dimension), unless capped (``max_dictionary``, ``budget``); KernelAWV and
OnlineProjection grow with t by design (KernelAWV O(t^2) per round).

    python tools/bench_growth.py --n 40000 --block 5000
"""

from __future__ import annotations

import argparse
import time

import kernelstream as ks
import numpy as np
from kernelstream.kernels import Gaussian, Laplacian


def learners():
    return {
        "TaylorAWV(degree=2)": lambda: ks.TaylorAWV(sigma=2.0, degree=2),
        "RFFAWV(100)": lambda: ks.RFFAWV(Gaussian(1.0), n_features=100, seed=0),
        "MultiKernelAWV(3x50)": lambda: ks.MultiKernelAWV(
            [Gaussian(0.5), Gaussian(2.0), Laplacian(1.0)], n_features=50, seed=0
        ),
        "Raker(3x50)": lambda: ks.Raker([Gaussian(0.5), Gaussian(2.0)], n_features=50, seed=0),
        "FOGD(200)": lambda: ks.FOGD(Gaussian(1.0), n_features=200, seed=0),
        "NOGD(100)": lambda: ks.NOGD(Gaussian(1.0), budget=100),
        "NystromAWV": lambda: ks.NystromAWV(Gaussian(1.0), seed=0),
        "NystromAWV(max_dictionary=100)": lambda: ks.NystromAWV(
            Gaussian(1.0), seed=0, max_dictionary=100
        ),
        "ProsNKons": lambda: ks.ProsNKons(Gaussian(1.0), gamma=1.0, seed=0),
        "B-KONS(budget=100)": lambda: ks.ProsNKons(Gaussian(1.0), gamma=1.0, budget=100, seed=0),
        "KernelAWV": lambda: ks.KernelAWV(Gaussian(1.0)),
    }


def drifting(n, d=5, seed=0):
    rng = np.random.default_rng(seed)
    t = np.arange(n)[:, None]
    X = rng.normal(size=(n, d)) + 3.0 * np.sin(t / 2000.0 + np.arange(d))
    y = np.sin(X[:, 0]) + 0.1 * rng.normal(size=n)
    return X, y


def main(argv=None):
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--n", type=int, default=20000)
    ap.add_argument("--block", type=int, default=4000)
    ap.add_argument("--only", default=None, help="substring of the learner names to run")
    args = ap.parse_args(argv)
    X, y = drifting(args.n)
    starts = list(range(0, args.n, args.block))
    print(
        f"{'learner':32s} "
        + " ".join(f"t<={s + args.block:>7d}" for s in starts)
        + "   (us/round, dim)"
    )
    for name, make in learners().items():
        if args.only and args.only not in name:
            continue
        m = make()
        cells = []
        for s in starts:
            e = min(args.n, s + args.block)
            if name == "KernelAWV" and e > 20000:
                cells.append(f"{'cap':>9s}")
                continue
            t0 = time.perf_counter()
            m.progressive_predict(X[s:e], y[s:e])
            us = (time.perf_counter() - t0) / (e - s) * 1e6
            cells.append(f"{us:6.0f}/{m.dim:<4d}")
        print(f"{name:32s} " + " ".join(f"{c:>9s}" for c in cells), flush=True)


if __name__ == "__main__":
    main()
