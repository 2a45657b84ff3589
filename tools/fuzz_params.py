"""Parameter fuzzer: every public constructor with random extreme values, in a worker subprocess.

Each case replaces one to three constructor arguments of a class of
``fuzzlib.catalog()`` by a value drawn from the parameter's declared constraint
(``_core.registry()``'s ``constraint``, through ``_declared.samples``: its bounds, the
numbers just outside them, NaN, infinities, names that are not options, None, a value
of the wrong type) or, half the time, an extreme value of its declared kind (integers up
to 2^63, floats from 5e-324 to 1.7e308, kernels with such a width; a class the core does
not register: of its default's type) and, if the object is built, runs a short ordinary
stream through it. Half of the learner cases also
change the input width (1 to 10^6 columns: the memory a first row implies is counted
against the ceiling) and, for the classes with ``threads``, the thread count (0 to
1024, and beyond). The contract: a ``ParameterError`` (or
another ``KernelstreamError``), or a usable object whose predictions on ordinary data
are finite. An abort, a hang, a panic, another exception type or NaN predictions is a
failure.

    python tools/fuzz_params.py --seconds 15
    python tools/fuzz_params.py --minutes 10
"""

from __future__ import annotations

import inspect
import os
import pickle
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fuzzlib  # noqa: E402
from kernelstream.learners import _declared  # noqa: E402

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


# Input widths (the worker draws the rows: a 10^6-wide block is not sent down the pipe).
WIDTHS = [1, 2, 5, 30, 1000, 10**4, 10**5, 10**6]
THREADS = [0, 1, 2, 3, 4, 16, 64, 1024, 1025, 2**40]


def extreme(name, default, spec, rng):
    """A value for the parameter ``name``: half the time one drawn from its declared
    constraint (``spec``: its entry in the core's table; None for an object the core
    does not register), else an extreme value of its declared kind or its default's
    type."""
    from kernelstream.kernels import Kernel

    if spec is not None and rng.random() < 0.5:
        valid, invalid = _declared.samples(spec)
        if valid or invalid:
            return rng.choice(valid + invalid)
    kind = None if spec is None else spec["kind"]
    if isinstance(default, bool):
        return not default
    if isinstance(default, int) or (default is None and kind == "int"):
        return rng.choice(INTS)
    if isinstance(default, float) or (default is None and kind == "float"):
        return rng.choice(FLOATS)
    # Kernels are built in the worker (their own checks are part of the case).
    if isinstance(default, Kernel) or kind == "kernel":
        return ("__kernel__", rng.choice(["Gaussian", "Laplacian"]), rng.choice(FLOATS))
    if kind == "kernels":
        return [
            ("__kernel__", rng.choice(["Gaussian", "Laplacian"]), rng.choice(FLOATS))
            for _ in range(rng.randint(1, 3))
        ]
    if kind == "seq" and isinstance(default, tuple):  # a sequence of numbers
        return [rng.choice(FLOATS) for _ in range(rng.randint(0, 3))]
    return default


def setup(cat):
    """Each class's parameters and data; a case replaces one to three parameters."""
    specs = {}
    for name, entry in cat.items():
        obj = entry[0]()
        X, y = fuzzlib.data(entry)
        specs[name] = (type(obj), obj.get_params(), entry[1], X, y, entry[3:5])

    def declared(cls) -> dict:
        core = getattr(cls, "_core_class", None)
        return {s["name"]: s for s in _declared.specs(getattr(core, "__name__", ""))}

    def make_case(name, rng):
        cls, params, objkind, X, y, (domain, task) = specs[name]
        sig = inspect.signature(cls.__init__)
        keys = [k for k in sig.parameters if k != "self" and k in params]
        kwargs = dict(params)
        chosen = rng.sample(keys, min(len(keys), rng.randint(1, 3)))
        for k in chosen:
            kwargs[k] = extreme(k, params[k], declared(cls).get(k), rng)
        if "threads" in keys and rng.random() < 0.5:
            kwargs["threads"] = rng.choice(THREADS)
            chosen.append("threads")
        width = None
        if objkind == "learner" and rng.random() < 0.5:
            width = rng.choice(WIDTHS)
        case = {
            "kind": "params",
            "module": cls.__module__,
            "cls": cls.__name__,
            "kwargs": pickle.dumps(kwargs),
            "objkind": objkind,
            "X": X if width is None else None,
            "y": y if width is None else None,
            "width": width,
            # frequencies a random-feature learner draws for this width (its slow steps)
            "doubles": width * n if width and type(n := kwargs.get("n_features")) is int else 0,
            "domain": domain,
            "task": task,
        }
        what = {k: kwargs[k] for k in chosen}
        if width is not None:
            what["input width"] = width
        return case, what

    return make_case


def main(argv=None) -> int:
    return fuzzlib.run_fuzzer(argv, __doc__, "parameter fuzzer", setup)


if __name__ == "__main__":
    sys.exit(main())
