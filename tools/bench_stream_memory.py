"""Peak memory of ``kernelstream run --csv`` against the file's length.

Writes a regression table of ROWS rows (and one of ROWS/10 rows) as CSV and as Parquet in
a temporary directory, runs the CLI on each in a fresh subprocess, and prints the peak
resident set size of each run (``ru_maxrss`` of the finished child, ``RUSAGE_CHILDREN``
of a process that runs one child only) and its wall time. CSV is read by pyarrow when it
is installed (else pandas).

    python tools/bench_stream_memory.py                  # 3,000,000 and 300,000 rows
    python tools/bench_stream_memory.py --check          # as the slow test does

``--check`` exits 1 unless every peak is below 200 MB and below 1.1 times the peak of the
same format at a tenth of the rows.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np

_CHILD = r"""
import resource, subprocess, sys, time
t0 = time.perf_counter()
done = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
dt = time.perf_counter() - t0
peak_kb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
print(done.returncode, peak_kb, dt, done.stderr.strip().replace("\n", " | ")[-300:])
"""


def write_files(folder: str, rows: int, d: int = 5, seed: int = 0) -> dict:
    """``{"csv": path, "parquet": path (if pyarrow)}`` with ``rows`` rows, written in blocks."""
    rng = np.random.default_rng(seed)
    csv = os.path.join(folder, f"t{rows}.csv")
    names = [f"x{i}" for i in range(d)] + ["y"]
    block = 100_000
    with open(csv, "w") as fh:
        fh.write(",".join(names) + "\n")
        for start in range(0, rows, block):
            k = min(block, rows - start)
            X = rng.uniform(0, 100, size=(k, d))
            y = 1e5 + 1e3 * np.sin(X[:, 0] / 10) + 10 * X[:, 1]
            np.savetxt(fh, np.c_[X, y], delimiter=",", fmt="%.6g")
    out = {"csv": csv}
    try:
        import pyarrow.csv as pacsv
        import pyarrow.parquet as pq
    except ImportError:
        return out
    pqt = os.path.join(folder, f"t{rows}.parquet")
    reader = pacsv.open_csv(csv)
    with pq.ParquetWriter(pqt, reader.schema) as w:
        for rb in reader:
            w.write_batch(rb, row_group_size=65536)
    out["parquet"] = pqt
    return out


def peak_of(cmd: list) -> tuple:
    done = subprocess.run(
        [sys.executable, "-c", _CHILD, *cmd], capture_output=True, text=True, timeout=3600
    )
    code, kb, secs, err = done.stdout.split(" ", 3)
    return int(code), int(kb) / 1024, float(secs), err.strip()


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--rows", type=int, default=3_000_000)
    p.add_argument("--learner", default="taylor-awv")
    p.add_argument("--extra", default="--degree 2", help="more run options")
    p.add_argument("--check", action="store_true")
    args = p.parse_args(argv)
    cli = [sys.executable, "-m", "kernelstream", "run", "--learner", args.learner,
           *args.extra.split(), "--no-progress"]  # fmt: skip
    rows = {}
    with tempfile.TemporaryDirectory() as folder:
        for n in (args.rows // 10, args.rows):
            files = write_files(folder, n)
            for fmt, path in files.items():
                size = os.path.getsize(path) / 2**20
                code, mb, secs, err = peak_of([*cli, "--csv", path])
                if code != 0:
                    print(f"{fmt} {n}: exit {code}: {err}")
                    return 1
                rows[(fmt, n)] = (mb, secs, size)
    print(f"load: {os.getloadavg()[0]:.2f} (1 min)  learner: {args.learner} {args.extra}")
    print(f"{'format':<8} {'rows':>10} {'file MB':>8} {'peak RSS MB':>12} {'x small':>8} {'s':>7}")
    ok = True
    for (fmt, n), (mb, secs, size) in rows.items():
        small = rows[(fmt, args.rows // 10)][0]
        ratio = mb / small
        print(f"{fmt:<8} {n:>10} {size:>8.1f} {mb:>12.1f} {ratio:>8.3f} {secs:>7.1f}")
        ok &= mb < 200 and ratio < 1.1
    if args.check and not ok:
        print("FAILED: a peak is above 200 MB or 1.1x the small file's")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
