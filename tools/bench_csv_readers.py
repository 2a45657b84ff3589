"""The CSV readers of ``kernelstream.datasets.stream`` (``reader="pyarrow"``,
``"pandas"``, ``"csv"``) on one generated file: seconds (CPU and wall) to stream every
chunk, alternated ``--repeat`` times (ABAB...), the median of each. Not a test; prints a
markdown table and ``uptime``; the faster of pyarrow and pandas is the default
(``_csv.reader_name``).

    python tools/bench_csv_readers.py [--rows 2000000] [--cols 10] [--repeat 3]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import tempfile
import time

import numpy as np
from kernelstream.datasets import stream


def _write(path: str, rows: int, cols: int) -> None:
    rng = np.random.default_rng(0)
    with open(path, "w") as fh:
        fh.write(",".join([f"x{i}" for i in range(cols)] + ["y"]) + "\n")
        for start in range(0, rows, 200_000):
            block = rng.normal(size=(min(200_000, rows - start), cols + 1))
            np.savetxt(fh, block, delimiter=",", fmt="%.6g")


def _time(path: str, reader: str) -> tuple:
    t0, c0 = time.perf_counter(), time.process_time()
    n = sum(y.size for _, y in stream(path, reader=reader))
    return time.perf_counter() - t0, time.process_time() - c0, n


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows", type=int, default=2_000_000)
    ap.add_argument("--cols", type=int, default=10)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--readers", default="pyarrow,pandas")
    args = ap.parse_args()
    readers = args.readers.split(",")
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "big.csv")
        _write(path, args.rows, args.cols)
        size = os.path.getsize(path) / 2**20
        times: dict = {r: [] for r in readers}
        for _ in range(args.repeat):
            for r in readers:
                times[r].append(_time(path, r))
    print(f"{args.rows} rows x {args.cols + 1} columns, {size:.0f} MiB")
    print("| reader | wall s (median) | CPU s (median) | rows |")
    print("|---|---|---|---|")
    for r, ts in times.items():
        wall = float(np.median([t[0] for t in ts]))
        cpu = float(np.median([t[1] for t in ts]))
        print(f"| {r} | {wall:.2f} | {cpu:.2f} | {ts[0][2]} |")
    print(subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip())


if __name__ == "__main__":
    main()
