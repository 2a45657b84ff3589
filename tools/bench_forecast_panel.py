"""forecast_panel locally and on a local Dask cluster (a scheduler and 2 workers, started
here): identical forecasts, rows per second, and peak memory per worker.

    python tools/bench_forecast_panel.py --series 10000 --points 500 [--horizon 1]
        [--learner autokernel|taylor]

The synthetic panel: each series is a trend, a season of 12 and AR(1) noise with its own
seeded level, slope and amplitude. Rows per second count the input rows (series x
points); the peak memory is each worker process's maximum resident set (``VmHWM``),
before the run (an idle worker) and after it.

``--learner`` is the Forecaster's ``learner`` (``docs/forecasting.md``, "Many series"):
``autokernel`` (the default, ``learner=None``) or ``taylor``, ``TaylorAWV(degree=2,
sigma=10.0)`` (fixed Taylor features of a Gaussian kernel, constant time per round: the
cheaper learner of ``docs/which-learner.md``; ``sigma`` at the scale of these series'
lags).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

import numpy as np


def panel(n_series: int, points: int, seed: int = 0):
    import pandas as pd

    rng = np.random.default_rng(seed)
    t = np.arange(points)
    ys = []
    for _ in range(n_series):
        a, b, c = rng.normal(10, 3), rng.normal(0, 0.02), rng.uniform(0, 3)
        e = np.zeros(points)
        for i in range(1, points):
            e[i] = 0.6 * e[i - 1] + rng.normal()
        ys.append(a + b * t + c * np.sin(2 * np.pi * t / 12) + e)
    return pd.DataFrame(
        {
            "unique_id": np.repeat([f"s{i:05d}" for i in range(n_series)], points),
            "ds": np.tile(t, n_series),
            "y": np.concatenate(ys),
        }
    )


@contextlib.contextmanager
def local_cluster(n_workers: int = 2, timeout: float = 240):
    """The address of a ``dask scheduler`` and ``n_workers`` single-thread ``dask worker``
    processes on 127.0.0.1, each in its own session, ended with its group afterwards."""
    exe = shutil.which("dask", path=os.path.dirname(sys.executable)) or shutil.which("dask")
    if exe is None:
        raise SystemExit(
            "the `dask` command is not installed: pip install 'kernelstream[parallel]'"
        )
    tmp = tempfile.mkdtemp(prefix="ks-dask-")
    procs = []

    def start(args, name):
        log = open(os.path.join(tmp, f"{name}.log"), "wb")  # noqa: SIM115
        procs.append((subprocess.Popen([exe, *args], stdout=log, stderr=subprocess.STDOUT,
                                       cwd=tmp, start_new_session=True), log))  # fmt: skip

    try:
        sched = os.path.join(tmp, "scheduler.json")
        start(["scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
               "--scheduler-file", sched, "--idle-timeout", "900"], "scheduler")  # fmt: skip
        deadline, address = time.monotonic() + timeout, None
        while address is None:
            if procs[0][0].poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("the Dask scheduler did not start")
            try:
                with open(sched) as fh:
                    address = json.load(fh)["address"]
            except (OSError, ValueError, KeyError):
                time.sleep(0.2)
        for i in range(n_workers):
            start(["worker", address, "--name", f"w{i + 1}", "--host", "127.0.0.1",
                   "--nthreads", "1", "--no-nanny", "--no-dashboard", "--death-timeout", "60",
                   "--local-directory", os.path.join(tmp, f"w{i + 1}")], f"w{i + 1}")  # fmt: skip
        from distributed import Client

        with Client(address, timeout=timeout) as client:
            client.wait_for_workers(n_workers, timeout=timeout)
        yield address
    finally:
        for proc, log in reversed(procs):
            if proc.poll() is None:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGTERM)
                try:
                    proc.wait(15)
                except subprocess.TimeoutExpired:
                    with contextlib.suppress(ProcessLookupError):
                        os.killpg(proc.pid, signal.SIGKILL)
                    proc.wait(15)
            log.close()
        shutil.rmtree(tmp, ignore_errors=True)


#: ``--learner`` names: the Forecaster's ``learner`` argument
LEARNERS = {
    "autokernel": lambda ks: None,
    "taylor": lambda ks: ks.TaylorAWV(degree=2, sigma=10.0),
}


def _peak_rss_mb() -> float:
    """This process's peak resident set, in MB: ``VmHWM`` of ``/proc/self/status`` (the
    peak of this process image; ``ru_maxrss`` would carry over the parent's peak across
    the fork and exec that started a worker), else ``ru_maxrss``."""
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024.0  # kB
    except OSError:
        pass
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0  # KiB on Linux


def relative_mse(frame, out, start: int = 100) -> tuple:
    """The horizon-1 forecasts' MSE over the origins ``ds >= start`` divided by the last
    value's, per series: ``(mean, median)`` over the series."""
    import pandas as pd

    f = out[out.h == 1].merge(frame, on=["unique_id", "ds"])
    prev = frame.assign(ds=frame.ds + 1).rename(columns={"y": "last"})
    f = f.merge(prev, on=["unique_id", "ds"])
    f = f[f.ds >= start]
    r = f.assign(e=(f.forecast - f.y) ** 2, n=(f["last"] - f.y) ** 2).groupby("unique_id")
    ratio = r.e.mean() / r.n.mean()
    return float(ratio.mean()), float(pd.Series(ratio).median())


def main(argv=None) -> int:
    import kernelstream as ks

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--series", type=int, default=10_000)
    ap.add_argument("--points", type=int, default=500)
    ap.add_argument("--horizon", type=int, default=1)
    ap.add_argument("--learner", choices=sorted(LEARNERS), default="autokernel")
    ap.add_argument("--no-local", action="store_true", help="skip the local run (and the check)")
    args = ap.parse_args(argv)
    frame = panel(args.series, args.points)
    rows = len(frame)
    params = dict(horizon=args.horizon, learner=LEARNERS[args.learner](ks))
    print(f"panel: {args.series} series x {args.points} points = {rows} rows, "
          f"horizon {args.horizon}, learner {args.learner}", flush=True)  # fmt: skip
    local = None
    if not args.no_local:
        t0, c0 = time.perf_counter(), time.process_time()
        local = ks.forecast_panel(frame, **params)
        dt, cpu = time.perf_counter() - t0, time.process_time() - c0
        print(f"local (1 process): {dt:.1f} s ({cpu:.1f} s CPU), {rows / dt:.0f} rows/s, "
              f"peak RSS {_peak_rss_mb():.0f} MB", flush=True)  # fmt: skip
    with local_cluster(2) as address:
        from distributed import Client

        with Client(address) as client:
            idle, cpu0 = client.run(_peak_rss_mb), client.run(time.process_time)
            t0 = time.perf_counter()
            dask = ks.forecast_panel(frame, executor="dask", scheduler=client, **params)
            dt = time.perf_counter() - t0
            peaks, cpu1 = client.run(_peak_rss_mb), client.run(time.process_time)
        print(f"dask (2 workers x 1 thread): {dt:.1f} s, {rows / dt:.0f} rows/s", flush=True)
        for w, mb in sorted(peaks.items()):
            print(f"  worker {w}: {cpu1[w] - cpu0[w]:.1f} s CPU, peak RSS {mb:.0f} MB "
                  f"(idle before the run: {idle[w]:.0f} MB)")  # fmt: skip
    m, med = relative_mse(frame, dask)
    print(f"h=1 MSE / the last value's (ds >= 100, per series): mean {m:.3f}, median {med:.3f}")
    if local is not None:
        import pandas as pd

        pd.testing.assert_frame_equal(local, dask, check_exact=True)
        print(f"identical: {len(local)} forecast rows, local == dask bit for bit")
    return 0


if __name__ == "__main__":
    sys.exit(main())
