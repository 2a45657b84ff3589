"""Memory and copy speed of ``NystromAWV(max_dictionary=200)`` against the stream's length.

Each length runs in a fresh subprocess: a Friedman-like stream (d = 5, seeded) is fed in
chunks of 10,000 rows through ``progressive_predict``, then the child reports its resident
set size (``VmRSS``, and the peak ``VmHWM``) and times (process CPU time) the next 2,000
rounds of the learner and of a ``copy()`` of it, single rounds through ``predict_one`` + ``learn_one``
(the path a copy that serves a stream takes).

    python tools/bench_nystrom_memory.py                      # 10^4, 10^5, 2x10^5 rounds
    python tools/bench_nystrom_memory.py --rounds 10000 100000 1000000

Prints one line per length: RSS (MiB), the copy's and the original's CPU time of the next
2,000 rounds and their ratio. A capped dictionary keeps no per-round cache once full
(src/learners/nystrom_awv/capped.rs): the RSS is flat in the length and the ratio about 1.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys

_CHILD = r"""
import json, sys, time
import numpy as np
import kernelstream as ks
from kernelstream.datasets.synthetic import friedman1

n, d, seed = int(sys.argv[1]), 5, 0
rng = np.random.default_rng(seed)

def rows(k):
    X = rng.uniform(0, 1, size=(k, d))
    y = friedman1(X) + rng.normal(0, 1, k)
    return X, y

def rss():
    out = {}
    for line in open("/proc/self/status"):
        if line.startswith(("VmRSS", "VmHWM")):
            out[line.split(":")[0]] = int(line.split()[1]) / 1024
    return out

learner = ks.NystromAWV(kernel=ks.kernels.Gaussian(sigma=0.5), max_dictionary=200, seed=0)
left = n
while left:
    k = min(10_000, left)
    X, y = rows(k)
    learner.progressive_predict(X, y)
    left -= k
mem = rss()
X, y = rows(2_000)

def cpu(m):
    t0 = time.process_time()
    for xi, yi in zip(X, y):
        m.predict_one(xi)
        m.learn_one(xi, float(yi))
    return time.process_time() - t0

t0 = time.process_time()
twin = learner.copy()
t_copy = time.process_time() - t0
t_twin = cpu(twin)
t_orig = cpu(learner)
print(json.dumps({"rounds": n, "size": learner.dim, **mem, "copy_s": t_copy,
                  "twin_s": t_twin, "orig_s": t_orig}))
"""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, nargs="+", default=[10_000, 100_000, 200_000])
    args = ap.parse_args()
    print(
        f"{'rounds':>9} {'m':>4} {'RSS MiB':>8} {'peak MiB':>9} {'copy() s':>9} "
        f"{'copy 2k s':>10} {'orig 2k s':>10} {'ratio':>6}"
    )
    for n in args.rounds:
        out = subprocess.run(
            [sys.executable, "-c", _CHILD, str(n)], capture_output=True, text=True, check=True
        )
        r = json.loads(out.stdout.strip().splitlines()[-1])
        print(
            f"{r['rounds']:>9} {r['size']:>4} {r['VmRSS']:>8.1f} {r['VmHWM']:>9.1f} "
            f"{r['copy_s']:>9.4f} {r['twin_s']:>10.3f} {r['orig_s']:>10.3f} "
            f"{r['twin_s'] / r['orig_s']:>6.2f}",
            flush=True,
        )


if __name__ == "__main__":
    main()
