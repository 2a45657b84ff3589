"""Recovery of AutoKernel after local abrupt changes, over several seeds: river
``FriedmanDrift("lea")`` (only a region of input space changes at each change point)
for several stream seeds and change positions. For each change point ``c`` it prints
the largest ratio of AutoKernel's rolling error (window 500) to that of an
``AutoKernel()`` started fresh at ``c``, over the windows ending 2,000 or more rounds
after ``c`` (the criterion of docs/autokernel-benchmark.md, "Changing streams"), and the
same statistic for fresh AutoKernels started ``k`` rounds after ``c`` (the criterion's
noise floor: a learner that restarts ``k`` rounds late). Not a test; prints a markdown
table and the mean and largest value of each column.

    python tools/bench_autokernel_recovery.py [--seeds 0 1 2 3 4] [--late 100 250]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import kernelstream as ks
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_autokernel_drift import friedman_drift, rolling  # noqa: E402

#: Change positions: the benchmark's and two others (the last change at most 15,000,
#: so that every segment has 5,000 rounds).
POSITIONS = ((5000, 10000, 15000), (4000, 9000, 15000), (3000, 8000, 13000))
FROM = 1501  # windows [c + j, c + j + 500) ending at c + 2000 or later


def ratios(X, y, changes, p, late, **params):
    """Per change point: the max ratio of ``p``'s rolling error to a fresh learner's,
    then the same for fresh learners started ``k`` rounds late (``k`` in ``late``)."""
    e, out = (p - y) ** 2, []
    for i, c in enumerate(changes):
        end = changes[i + 1] if i + 1 < len(changes) else len(y)
        fresh = ks.AutoKernel(**params).progressive_predict(X[c:end], y[c:end])
        r_f = rolling((fresh - y[c:end]) ** 2)[FROM:]
        row = [np.max(rolling(e[c:end])[FROM:] / r_f)]
        for k in late:
            lk = ks.AutoKernel(**params).progressive_predict(X[c + k : end], y[c + k : end])
            row.append(np.max(rolling((lk - y[c + k : end]) ** 2)[FROM - k :] / r_f))
        out.append(row)
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seeds", type=int, nargs="+", default=[42, 1, 2, 3, 4])
    ap.add_argument("--late", type=int, nargs="*", default=[100, 250])
    ap.add_argument("--positions", type=int, default=len(POSITIONS), help="how many")
    args = ap.parse_args(argv)
    head = ["AutoKernel"] + [f"fresh at c+{k}" for k in args.late]
    print("| seed | positions | MSE | changes, promotions | c | " + " | ".join(head) + " |")
    print("|---" * (5 + len(head)) + "|")
    rows = []
    for pos in POSITIONS[: args.positions]:
        for seed in args.seeds:
            X, y = friedman_drift("lea", pos, seed=seed)
            ak = ks.AutoKernel()
            p = ak.progressive_predict(X, y)
            ev = ak.restart_events
            for c, r in zip(pos, ratios(X, y, pos, p, args.late)):
                rows.append(r)
                print(
                    f"| {seed} | {pos} | {np.mean((p - y) ** 2):.4g} | {ev['changes']}, "
                    f"{ev['promotions']} | {c} | " + " | ".join(f"{v:.3f}" for v in r) + " |",
                    flush=True,
                )
    a = np.array(rows)
    print("| mean | | | | | " + " | ".join(f"{v:.3f}" for v in a.mean(0)) + " |")
    print("| max | | | | | " + " | ".join(f"{v:.3f}" for v in a.max(0)) + " |")
    print("| share > 1.2 | | | | | " + " | ".join(f"{v:.2f}" for v in (a > 1.2).mean(0)) + " |")


if __name__ == "__main__":
    main()
