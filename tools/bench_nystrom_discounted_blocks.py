"""Discounted NystromAWV (``gamma = 0.99``, fixed dictionary of ``m`` points, ``d = 8``):
the speed of blocks of ``B`` discounted rounds relative to single rounds (``block_size=1``),
CPU time of ``progressive_predict``, the block sizes alternated in each repetition and the
fastest of the repetitions kept (docs/choices.md, "Discounted AWV"). Report the load
(``uptime``) with the figures.

    python tools/bench_nystrom_discounted_blocks.py
    python tools/bench_nystrom_discounted_blocks.py --reps 3 --sizes 200 500
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from kernelstream import NystromAWV
from kernelstream.kernels import Gaussian

BLOCKS = (1, 2, 4, 8, 16, 32, 64, 128)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[100, 200, 500])
    ap.add_argument("--reps", type=int, default=2)
    ap.add_argument("--gamma", type=float, default=0.99)
    ap.add_argument("--rounds", type=int, default=2000)
    args = ap.parse_args()
    rng = np.random.default_rng(0)
    print("m   rounds  us/round(B=1)  speed-up at B = " + ", ".join(map(str, BLOCKS[1:])))
    for m in args.sizes:
        n = args.rounds
        X = rng.uniform(-1, 1, (n, 8))
        y = np.sin(2 * X[:, 0]) + 0.1 * rng.standard_normal(n)
        D = rng.uniform(-1, 1, (m, 8))
        best = {b: np.inf for b in BLOCKS}
        for _ in range(args.reps):
            for b in BLOCKS:
                model = NystromAWV(Gaussian(1.0), dictionary=D, gamma=args.gamma, block_size=b)
                t = time.process_time()
                model.progressive_predict(X, y)
                best[b] = min(best[b], time.process_time() - t)
        ratios = ", ".join(f"{best[1] / best[b]:.2f}x" for b in BLOCKS[1:])
        print(f"{m:<4}{n:<8}{1e6 * best[1] / n:<15.1f}{ratios}")


if __name__ == "__main__":
    main()
