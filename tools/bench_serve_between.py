"""What Python work between a served round's two calls costs AutoKernel's round.

A served round is ``predict_one(x)`` then ``learn_one(x, y)``; an adapter runs Python
between and around them (its dict's vector, the calibrator, the kept rows). This times,
in alternating chunks of 256 rounds on one Friedman-like stream (d = 10, the rows of
``kernelstream bench serve``), process CPU time, the fastest chunk of each:

- ``served``: ``AutoKernel(threads=1)``'s ``predict_one`` + ``learn_one`` on array rows;
- ``between``: the same with a river adapter's round between the two calls, on a learner
  that does no arithmetic (``RiverRegressor`` around a stand-in: its Python only);
- ``python``: that adapter round alone.

``between - served - python`` is what the Python in between costs the learner's own
calls: the served round reads its experts' matrices (several MiB for AutoKernel, see
docs/performance.md, "What a served round costs beyond progressive_predict"), and the
interpreter's work in between evicts part of them from the caches.

    python tools/bench_serve_between.py [--rounds 6000] [--repeat 1]
"""

from __future__ import annotations

import argparse
import time

import numpy as np


class _NoArithmetic:
    """A learner face with no work: the adapter's Python runs, nothing else."""

    n_outputs = None

    def __init__(self):
        self.n_seen, self.input_dim = 0, None

    def predict_one(self, x):
        return 0.0

    def learn_one(self, x, y, w=1.0):
        self.n_seen += 1
        self.input_dim = x.shape[0]

    def get_params(self):
        return {}


def _run(rounds: int, chunk: int = 256) -> dict:
    from kernelstream import AutoKernel
    from kernelstream.adapters import RiverRegressor
    from kernelstream.datasets.synthetic import friedman_stream

    warm = 200
    X, y = friedman_stream(warm + rounds, d=10, seed=0)
    X = np.ascontiguousarray(X)
    dicts = [{f"x{j}": float(v) for j, v in enumerate(x)} for x in X]
    a, b = AutoKernel(threads=1), AutoKernel(threads=1)
    for m in (a, b):
        m.learn_many(X[:warm], y[:warm])
    adapter = RiverRegressor(AutoKernel(threads=1))
    adapter.learner = _NoArithmetic()  # (the adapter's Python, no learner's work)
    times: dict = {"served": [], "between": [], "python": []}
    for s in range(warm, warm + rounds - chunk + 1, chunk):
        t0 = time.process_time()
        for i in range(s, s + chunk):
            a.predict_one(X[i])
            a.learn_one(X[i], y[i])
        t1 = time.process_time()
        for i in range(s, s + chunk):
            b.predict_one(X[i])
            adapter.predict_one(dicts[i])
            adapter.learn_one(dicts[i], 1.0)
            b.learn_one(X[i], y[i])
        t2 = time.process_time()
        for i in range(s, s + chunk):
            adapter.predict_one(dicts[i])
            adapter.learn_one(dicts[i], 1.0)
        t3 = time.process_time()
        for key, t in zip(times, (t1 - t0, t2 - t1, t3 - t2)):
            times[key].append(t / chunk * 1e6)
    return {k: min(v) for k, v in times.items()}


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rounds", type=int, default=6000, help="served rounds after the warm-up")
    p.add_argument("--repeat", type=int, default=1, help="runs (each prints a line)")
    args = p.parse_args(argv)
    if args.rounds < 256:
        p.error("--rounds must be at least 256 (one chunk)")
    for _ in range(args.repeat):
        t = _run(args.rounds)
        extra = t["between"] - t["served"] - t["python"]
        print(
            f"served {t['served']:.1f} us  between {t['between']:.1f} us  "
            f"python {t['python']:.1f} us  extra {extra:.1f} us a round"
        )


if __name__ == "__main__":
    main()
