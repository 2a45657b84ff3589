"""Ctrl-C latency of ``progressive_predict`` for each learner of the test zoo.

SIGINT is sent from a timer thread ``--after`` seconds into a long stream; the script
prints the time from the signal to the ``KeyboardInterrupt`` and the rounds completed.
(Timing lives here, not in the tests.) ``--autokernel-warmup W`` times
``AutoKernel(warmup=W)`` alone instead (rows of ``d = 5``, 3 W of them: the signal
lands in its warm-up, whose rounds cost milliseconds at a large ``W``).

    python tools/interrupt_latency.py --after 1.0
    python tools/interrupt_latency.py --after 0.5 --autokernel-warmup 3000
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import threading
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "python"))
from zoo import ZOO  # noqa: E402


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--after", type=float, default=1.0)
    ap.add_argument("--n", type=int, default=2_000_000)
    ap.add_argument("--autokernel-warmup", type=int, default=None)
    args = ap.parse_args(argv)
    worst = 0.0
    for name, m, X, y in _runs(args):
        n = len(y)
        sent = {}

        def fire(sent=sent):
            sent["t"] = time.perf_counter()
            os.kill(os.getpid(), signal.SIGINT)

        timer = threading.Timer(args.after, fire)
        timer.start()
        try:
            m.progressive_predict(X, y)
            print(f"{name:32s} finished before the signal ({n} rounds)")
        except KeyboardInterrupt as exc:
            if "t" not in sent:  # (the run ended before the timer fired)
                continue
            lat = time.perf_counter() - sent["t"]
            worst = max(worst, lat)
            print(
                f"{name:32s} latency {lat * 1e3:8.2f} ms  rounds_completed {exc.rounds_completed}"
            )
        finally:
            timer.cancel()
    print(f"worst latency {worst * 1e3:.2f} ms")


def _runs(args):
    """``(name, learner, X, y)`` of each run: the test zoo's entries, or AutoKernel with
    the warm-up ``--autokernel-warmup``."""
    if args.autokernel_warmup is not None:
        import kernelstream as ks

        w = args.autokernel_warmup
        X = np.random.default_rng(0).uniform(-1, 1, size=(3 * w, 5))
        yield f"AutoKernel(warmup={w})", ks.AutoKernel(warmup=w), X, np.sin(3 * X[:, 0])
        return
    for name, entry in sorted(ZOO.items()):
        n = entry.factory().get_params()["max_size"] if name.startswith("KernelAWV") else args.n
        X = np.random.default_rng(0).uniform(*entry.domain, size=(n, entry.d))
        y = np.sign(X[:, 0] + 0.05) if entry.task == "classification" else np.sin(3 * X[:, 0])
        yield name, entry.factory(), X, y


if __name__ == "__main__":
    main()
