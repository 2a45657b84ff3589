"""How far AutoKernel's two paths through a stream are apart (docs/autokernel.md).

The same rows through ``progressive_predict`` (blocks of rows), a ``predict_one`` /
``learn_one`` loop (single rounds) and ``progressive_predict_std`` (single rounds with
the std); printed: the largest difference of the predictions from the first, relative
to ``max |y|``, for stationary and drifting synthetic streams.

    python tools/autokernel_paths.py            # the streams of the docs
    python tools/autokernel_paths.py --n 1500   # shorter
"""

from __future__ import annotations

import argparse

import kernelstream as ks
import numpy as np


def stream(kind: str, n: int, d: int, seed: int):
    """``stationary``: a fixed smooth target; ``drift``: its phase and amplitude move and
    the level jumps at the middle; ``switch``: the target changes sign every n/4 rows."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, (n, d))
    t = np.arange(n) / n
    if kind == "stationary":
        f = np.sin(3 * X[:, 0]) + X[:, 1] * X[:, -1]
    elif kind == "drift":
        f = np.sin(3 * X[:, 0] + 6 * t) * (1 + 3 * t) + 3 * (t > 0.5)
    else:
        f = np.sin(3 * X[:, 0]) * np.where((4 * t).astype(int) % 2, -1.0, 1.0)
    return X, f + 0.05 * rng.standard_normal(n)


def gaps(X, y, **params):
    """``(loop, std)``: max |difference| from ``progressive_predict``, over ``max |y|``."""
    p = ks.AutoKernel(**params).progressive_predict(X, y)
    m = ks.AutoKernel(**params)
    loop = np.empty(len(y))
    for i, (x, t) in enumerate(zip(X, y)):
        loop[i] = m.predict_one(x)
        m.learn_one(x, t)
    s, _ = ks.AutoKernel(**params).progressive_predict_std(X, y)
    scale = np.abs(y).max()
    return np.abs(loop - p).max() / scale, np.abs(s - p).max() / scale


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=3000, help="rows per stream")
    args = ap.parse_args(argv)
    for kind in ("stationary", "drift", "switch"):
        for d, seed in ((2, 1), (3, 0), (5, 2)):
            X, y = stream(kind, args.n, d, seed)
            loop, std = gaps(X, y)
            print(
                f"{kind:10s} d={d} seed={seed}: loop {loop:.1e}, progressive_predict_std {std:.1e}"
            )


if __name__ == "__main__":
    main()
