"""Parameter fuzzer: every public constructor with random extreme values, in a worker subprocess.

Each case replaces one to three constructor arguments of a class of
``fuzzlib.catalog()`` by an extreme value of the argument's type (integers up to
2^63, floats from 5e-324 to 1.7e308, kernels with such a width) and, if the object is
built, runs a short ordinary stream through it. The contract: a ``ParameterError`` (or
another ``KernelstreamError``), or a usable object whose predictions on ordinary data
are finite. An abort, a hang, a panic, another exception type or NaN predictions is a
failure.

    python tools/fuzz_params.py --seconds 15
    python tools/fuzz_params.py --minutes 10
"""

from __future__ import annotations

import argparse
import inspect
import json
import os
import pickle
import random
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fuzzlib  # noqa: E402

INTS = [0, 1, 2, 3, 10, 2**16, 2**20, 10**6, 2**31, 2**32, 10**12, 2**62, 2**63]
FLOATS = [
    5e-324,
    1e-300,
    1e-200,
    1e-100,
    1e-12,
    1e-6,
    0.5,
    1.0,
    3.0,
    1e6,
    1e12,
    1e100,
    1e300,
    1.7e308,
]


def extreme(name, default, rng):
    from kernelstream.kernels import Kernel

    if isinstance(default, bool):
        return not default
    if isinstance(default, int):
        return rng.choice(INTS)
    if isinstance(default, float):
        return rng.choice(FLOATS)
    # Kernels are built in the worker (their own checks are part of the case).
    if isinstance(default, Kernel) or name == "kernel":
        return ("__kernel__", rng.choice(["Gaussian", "Laplacian"]), rng.choice(FLOATS))
    if name == "kernels":
        return [
            ("__kernel__", rng.choice(["Gaussian", "Laplacian"]), rng.choice(FLOATS))
            for _ in range(rng.randint(1, 3))
        ]
    if name.endswith(("widths", "lams")):  # AutoKernel's grids: sequences of extreme floats
        return [rng.choice(FLOATS) for _ in range(rng.randint(0, 3))]
    if default is None and name in ("rank", "budget", "max_dictionary"):
        return rng.choice(INTS)
    return default


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--seconds", type=float, default=15.0)
    ap.add_argument("--minutes", type=float, default=None)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--timeout", type=float, default=10.0)
    ap.add_argument("--json", default=None)
    args = ap.parse_args(argv)
    seconds = args.minutes * 60 if args.minutes is not None else args.seconds
    rng = random.Random(args.seed)
    cat = fuzzlib.catalog()
    specs = {}
    for name, entry in cat.items():
        obj = entry[0]()
        X, y = fuzzlib.data(entry)
        specs[name] = (type(obj), obj.get_params(), entry[1], X, y)
    counts = {name: {} for name in cat}
    failures = []
    pool = fuzzlib.Pool(timeout=args.timeout)
    deadline = fuzzlib.Deadline(seconds)
    start = time.monotonic()
    names = sorted(cat)
    i = 0
    while deadline:
        name = names[i % len(names)]
        i += 1
        cls, params, objkind, X, y = specs[name]
        sig = inspect.signature(cls.__init__)
        keys = [k for k in sig.parameters if k != "self" and k in params]
        kwargs = dict(params)
        chosen = rng.sample(keys, min(len(keys), rng.randint(1, 3)))
        for k in chosen:
            kwargs[k] = extreme(k, params[k], rng)
        case = {
            "kind": "params",
            "module": cls.__module__,
            "cls": cls.__name__,
            "kwargs": pickle.dumps(kwargs),
            "objkind": objkind,
            "X": X,
            "y": y,
        }
        verdict = pool.run(case)
        counts[name][verdict] = counts[name].get(verdict, 0) + 1
        if verdict in fuzzlib.FAILURES:
            shown = {k: kwargs[k] for k in chosen}
            failures.append(f"{name} {shown} -> {verdict}")
    pool.close()
    text = fuzzlib.report(counts, failures, time.monotonic() - start, "parameter fuzzer")
    print(text)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"counts": counts, "failures": failures}, f, indent=1)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
