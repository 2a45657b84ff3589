"""``kernelstream bench`` in two builds of kernelstream, run alternately.

Each build is a Python interpreter with its own kernelstream installed (for example a
virtual environment holding an older commit). Every bench case that both builds list
runs in a fresh process of each build in turns (A B A B ..., the same rows: the cases
draw their streams from fixed seeds); per row (case and setting) the best Rust time per
round of each build is kept (the time ``kernelstream bench`` prints in its ``rust us/rd``
column: best of three fresh learners, the NumPy references not run), in CPU time of the
process (on a loaded machine wall-clock time mostly counts other processes; for a
case on two threads it is their total work) and in wall-clock time; the rate ratio
new/old (old time / new time: above 1, the new build is faster) is printed as a
Markdown table, with the load before and after.

    python tools/compare_bench.py --base /path/to/old/python --new /path/to/new/python \\
        [--repeats 2] [--quick] [CASE ...]

Not a test: timings depend on the machine and its load.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

WORKER = r"""
import json, sys, time
try:
    from kernelstream import bench
except ImportError:  # a build before kernelstream.bench
    from kernelstream import benchcases as bench

def best_of_three(case):
    # the bench runner's measure (best of three fresh learners over the stream after the
    # warm-up), in CPU time of the process as well as in wall-clock time
    cpu = wall = float("inf")
    for _ in range(3):
        m = case.make_fast()
        if case.warmup:
            m.learn_many(case.X[: case.warmup], case.y[: case.warmup])
        c0, w0 = time.process_time(), time.perf_counter()
        m.progressive_predict(case.X[case.warmup :], case.y[case.warmup :])
        cpu, wall = min(cpu, time.process_time() - c0), min(wall, time.perf_counter() - w0)
    n = case.X.shape[0] - case.warmup
    return cpu / n, wall / n, m.dim

rows = []
for case in bench.cases()[sys.argv[1]](sys.argv[2] == "1"):
    row = {"case": sys.argv[1], "label": case.label}
    if case.serve:  # progressive_predict and the serving loop, alternately, CPU time
        time_serve = getattr(bench, "time_serve", None) or bench._time_serve
        fast, row["dim"], serve = time_serve(case)
        rows.append({**row, "cpu_us": fast * 1e6, "wall_us": float("nan")})
        rows.append({**row, "label": case.label + " (serving loop)", "cpu_us": serve * 1e6,
                     "wall_us": float("nan")})
    else:
        cpu, wall, row["dim"] = best_of_three(case)
        rows.append({**row, "cpu_us": cpu * 1e6, "wall_us": wall * 1e6})
print(json.dumps(rows))
"""


def list_cases(python: str) -> list:
    code = (
        "try:\n    from kernelstream.bench import cases\n"
        "except ImportError:\n    from kernelstream.benchcases import cases\n"
        "print('\\n'.join(cases()))"
    )
    out = subprocess.run([python, "-c", code], capture_output=True, text=True, check=True)
    return out.stdout.split()


def run(python: str, case: str, quick: bool, timeout: float) -> list:
    res = subprocess.run(
        [python, "-c", WORKER, case, "1" if quick else "0"],
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    if res.returncode != 0:
        raise SystemExit(f"{python} failed on {case}: {res.stderr.strip().splitlines()[-1:]}")
    return json.loads(res.stdout.strip().splitlines()[-1])


def load() -> str:
    return " ".join(f"{v:.2f}" for v in os.getloadavg())


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--base", required=True, help="Python interpreter of the old build")
    ap.add_argument("--new", required=True, help="Python interpreter of the new build")
    ap.add_argument("cases", nargs="*", help="cases (default: every case both builds list)")
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument("--quick", action="store_true", help="the cases' small sizes")
    ap.add_argument("--timeout", type=float, default=1800.0)
    args = ap.parse_args(argv)

    common = [c for c in list_cases(args.new) if c in set(list_cases(args.base))]
    cases = args.cases or common
    unknown = [c for c in cases if c not in common]
    if unknown:
        raise SystemExit(f"not a case of both builds: {', '.join(unknown)}")
    print(f"load before: {load()}", flush=True)
    best: dict = {}  # (case, label) -> {"dim", "cpu": [old, new], "wall": [old, new]}
    for rep in range(args.repeats):
        for case in cases:
            for side, python in enumerate((args.base, args.new)):
                for row in run(python, case, args.quick, args.timeout):
                    inf = [float("inf"), float("inf")]
                    e = best.setdefault(
                        (row["case"], row["label"]), {"dim": row["dim"], "cpu": inf, "wall": inf[:]}
                    )
                    e["cpu"] = e["cpu"][:]
                    for key in ("cpu", "wall"):
                        value = row[f"{key}_us"]
                        if value == value:  # not NaN
                            e[key][side] = min(e[key][side], value)
            print(f"repeat {rep + 1}: {case} done (load {load()})", file=sys.stderr, flush=True)
    print(f"load after: {load()}")
    print()
    print("| case | setting | dim | old CPU us/rd | new CPU us/rd | new/old rate (CPU) | (wall) |")
    print("|---|---|---:|---:|---:|---:|---:|")

    def ratio(pair):
        return f"{pair[0] / pair[1]:.2f}" if max(pair) < float("inf") else "-"

    for (case, label), e in best.items():
        old, new = e["cpu"]
        print(
            f"| {case} | {label} | {e['dim']} | {old:.2f} | {new:.2f} | {ratio(e['cpu'])} "
            f"| {ratio(e['wall'])} |"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
