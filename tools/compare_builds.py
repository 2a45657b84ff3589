"""AutoKernel's ``progressive_predict`` in two builds of kernelstream, run alternately.

Each build is a Python interpreter with its own kernelstream installed (for example a
virtual environment holding an older commit). For every regression dataset of the
AutoKernel benchmark (``tools/bench_autokernel.py``: rows with a missing value dropped,
shuffled with seed 0, at most ``--max-rows``; ``friedmanD``: the Friedman-like stream of
``datasets.synthetic.friedman_stream`` at ``d = D``, seed 0), the two builds run the same AutoKernel
in turns (A B A B ...), each run in a fresh process; the script reports rounds per
second of each (CPU time of the process, best run, and wall-clock time, best run),
their ratio, and the largest relative difference between the two builds' predictions.

    KERNELSTREAM_DATA=... python tools/compare_builds.py --base /path/to/old/python \\
        --new /path/to/new/python [--threads 1] [--repeats 2] [--max-rows 10000] \\
        [--params JSON] [--new-params JSON]

Not a test: timings depend on the machine and its load.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

REGRESSION = ["airfoil", "concrete", "cpusmall", "cadata", "naval", "parkinson", "bias", "casp"]

WORKER = r"""
import json, sys, time
import numpy as np
import kernelstream as ks
from kernelstream import datasets
name, max_rows, threads, out = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
kwargs = json.loads(sys.argv[5])
if name.startswith("friedman"):
    X, y = datasets.synthetic.friedman_stream(max_rows, d=int(name[len("friedman"):]), seed=0)
else:
    X, y = datasets.load(name)
    X, y, _ = datasets.drop_missing(X, y)
    X, y = datasets.shuffle(X, y, seed=0)
X, y = np.ascontiguousarray(X[:max_rows]), np.ascontiguousarray(y[:max_rows])
m = ks.AutoKernel(threads=threads, **kwargs)
c0, w0 = time.process_time(), time.perf_counter()
p = m.progressive_predict(X, y)
c1, w1 = time.process_time(), time.perf_counter()
np.save(out, p)
print(json.dumps({"n": len(y), "d": X.shape[1], "cpu": c1 - c0, "wall": w1 - w0}))
"""


def run(python: str, name: str, args, out: Path) -> dict:
    params = json.loads(args.params)
    if python == args.new:
        params.update(json.loads(args.new_params))
    cmd = [python, "-c", WORKER, name, str(args.max_rows), str(args.threads), str(out)]
    cmd.append(json.dumps(params))
    res = subprocess.run(cmd, capture_output=True, text=True, timeout=args.timeout)
    if res.returncode != 0:
        raise SystemExit(f"{python} failed on {name}: {res.stderr.strip().splitlines()[-1:]}")
    return json.loads(res.stdout.strip().splitlines()[-1])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--base", required=True, help="Python interpreter of the base build")
    ap.add_argument("--new", required=True, help="Python interpreter of the new build")
    ap.add_argument("--datasets", nargs="*", default=REGRESSION)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument("--max-rows", type=int, default=10_000)
    ap.add_argument("--params", default="{}", help="AutoKernel parameters as JSON")
    ap.add_argument(
        "--new-params",
        default="{}",
        help="parameters of the new build only, as JSON (over --params): those the base "
        "build does not know, e.g. to run the base build's expert grid",
    )
    ap.add_argument("--timeout", type=float, default=1800.0)
    args = ap.parse_args(argv)
    import numpy as np

    print(
        f"{'dataset':<10} {'n':>6} {'d':>3} {'base r/s cpu':>13} {'new r/s cpu':>12} "
        f"{'ratio':>6} {'base r/s wall':>14} {'new r/s wall':>13} {'ratio':>6} {'max rel diff':>12}"
    )
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.datasets:
            best = {"base": [float("inf"), float("inf")], "new": [float("inf"), float("inf")]}
            n = d = 0
            for _ in range(args.repeats):
                for which, py in (("base", args.base), ("new", args.new)):
                    t = run(py, name, args, Path(tmp) / f"{which}.npy")
                    n, d = t["n"], t["d"]
                    best[which] = [min(best[which][0], t["cpu"]), min(best[which][1], t["wall"])]
            pa, pb = np.load(Path(tmp) / "base.npy"), np.load(Path(tmp) / "new.npy")
            rel = float(np.max(np.abs(pa - pb) / np.maximum(np.abs(pa), np.abs(pb)).clip(1e-300)))
            (bc, bw), (nc, nw) = best["base"], best["new"]
            print(
                f"{name:<10} {n:>6} {d:>3} {n / bc:>13.0f} {n / nc:>12.0f} {bc / nc:>6.2f} "
                f"{n / bw:>14.0f} {n / nw:>13.0f} {bw / nw:>6.2f} {rel:>12.2e}",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
