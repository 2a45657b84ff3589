"""Shared machinery of the fuzzers (``tools/fuzz_state.py``, ``tools/fuzz_params.py``).

Cases run in a worker subprocess (``python tools/fuzzlib.py --worker``) so that an abort
or a hang is a recorded failure, not the end of the run. The parent streams one case per
line (base64 pickle) and reads one verdict per line; a worker that dies is restarted and
the case it died on is recorded as ``abort``, one that does not answer within the per-case
timeout is killed and recorded as ``hang``.

Verdicts: ``ok`` (accepted and usable), ``refused`` (a ``KernelstreamError``: the intended
outcome for bad input), ``panic`` (``PanicException``), ``error`` (any other exception,
i.e. the wrong type), ``nan`` (accepted, then NaN predictions on ordinary data),
``untouched`` (a failed ``__setstate__`` changed the trained object), ``parameter`` (a
damaged state refused as a ``ParameterError``: states are data, an ``InputError``),
``abort``, ``hang``.
"""

from __future__ import annotations

import argparse
import base64
import functools
import json
import os
import pickle
import random
import select
import subprocess
import sys
import time
import traceback

FAILURES = ("panic", "error", "nan", "untouched", "abort", "hang", "parameter")

# --- the catalog: every class, a few configurations each --------------------------


def catalog():
    """``{name: (factory, kind, d, domain, task)}`` for every learner, aggregator and sampler.

    ``task``: ``"r"`` regression, ``"c"`` labels -1/+1, ``"m"`` three outputs (targets
    ``(n, 3)``: the multi-output protocol and state), ``"k"`` class indices 0..d-1 (the
    calibration layer: rows are scores)."""
    import kernelstream as ks
    import numpy as np
    from kernelstream import aggregation as agg
    from kernelstream.calibration import SoftmaxCalibrator
    from kernelstream.kernels import Gaussian, Laplacian
    from kernelstream.learners import _registry as registry
    from kernelstream.samplers import KORS

    fixed = np.random.default_rng(42).uniform(-1.0, 1.0, size=(6, 3))
    L = "learner"
    # Every learner the core registers, as its face's small example (kernelstream's
    # learners/_registry.py), then other configurations, the aggregators and the sampler.
    registered = {
        name: (
            functools.partial(registry.example, name),
            L,
            registry.face(name)._example_d,
            registry.input_box(name),
            "c" if registry.entry(name)["task"] == "classification" else "r",
        )
        for name in registry.names()
    }
    return registered | {
        "TaylorAWV-d3": (lambda: ks.TaylorAWV(sigma=0.8, degree=3, ridge=True), L, 3, (-1, 1), "r"),
        "TaylorAWV-discounted": (lambda: ks.TaylorAWV(degree=2, gamma=0.9), L, 3, (-1, 1), "r"),
        # -- multi-output (three target columns) --
        "TaylorAWV-multi": (lambda: ks.TaylorAWV(degree=2, block_size=4), L, 3, (-1, 1), "m"),
        "RFFAWV-multi-discounted": (
            lambda: ks.RFFAWV(Gaussian(0.7), n_features=8, gamma=0.9, block_size=4, seed=3),
            L,
            3,
            (-1, 1),
            "m",
        ),
        "KernelAWV-multi": (
            lambda: ks.KernelAWV(Gaussian(1.0), ridge=True, max_size=200),
            L,
            3,
            (-1, 1),
            "m",
        ),
        "NystromAWV-multi": (
            lambda: ks.NystromAWV(Gaussian(0.6), block_size=4, seed=2),
            L,
            3,
            (-1, 1),
            "m",
        ),
        "Mixture-multi": (
            lambda: ks.Mixture(
                [ks.TaylorAWV(degree=2), ks.NystromAWV(Gaussian(1.0), seed=1)], rule="boa"
            ),
            L,
            3,
            (-1, 1),
            "m",
        ),
        "NystromAWV-multi-fixed": (
            lambda: ks.NystromAWV(Gaussian(1.0), dictionary=fixed, ridge=True),
            L,
            3,
            (-1, 1),
            "m",
        ),
        "RFFAWV-discounted": (
            lambda: ks.RFFAWV(Gaussian(0.7), n_features=8, gamma=0.95, block_size=4, seed=3),
            L,
            3,
            (-1, 1),
            "r",
        ),
        "NystromAWV-inverse": (
            lambda: ks.NystromAWV(
                Gaussian(1.0), kors_weights="inverse", beta=3.0, ridge=True, seed=1
            ),
            L,
            3,
            (-1, 1),
            "r",
        ),
        "NystromAWV-discounted": (
            lambda: ks.NystromAWV(Gaussian(1.0), dictionary=fixed, gamma=0.9),
            L,
            3,
            (-1, 1),
            "r",
        ),
        "NystromAWV-KORS-discounted": (
            lambda: ks.NystromAWV(Gaussian(0.6), gamma=0.9, block_size=4, seed=2),
            L,
            3,
            (-1, 1),
            "r",
        ),
        "NystromAWV-fixed": (
            lambda: ks.NystromAWV(Gaussian(1.0), dictionary=fixed),
            L,
            3,
            (-1, 1),
            "r",
        ),
        "CON-KONS": (
            lambda: ks.ProsNKons(Gaussian(0.7), gamma=0.05, on_growth="continue", seed=5),
            L,
            3,
            (-1, 1),
            "r",
        ),
        "B-KONS": (
            lambda: ks.ProsNKons(Gaussian(0.7), gamma=0.05, loss="hinge", budget=6, seed=6),
            L,
            3,
            (-1, 1),
            "c",
        ),
        "MultiKernelAWV-boa": (
            lambda: ks.MultiKernelAWV(
                [Gaussian(0.5), Laplacian(2.0)],
                n_features=8,
                aggregator="boa",
                clip=(-1, 1),
                seed=2,
            ),
            L,
            3,
            (-1, 1),
            "r",
        ),
        "MultiKernelAWV-mlprod": (
            lambda: ks.MultiKernelAWV(
                [Gaussian(0.5), Laplacian(2.0)], n_features=8, aggregator="mlprod", clip=(-1, 1)
            ),
            L,
            3,
            (-1, 1),
            "r",
        ),
        "OnlineProjection-tensor": (
            lambda: ks.OnlineProjection(basis="trig", alpha=1.5, c=0.3, prefix="linear"),
            L,
            2,
            (0, 1),
            "r",
        ),
        "OnlineProjection-gaussian": (
            lambda: ks.OnlineProjection(basis="gaussian", alpha=1.0, c=1.0, a=1.0, eps=0.5),
            L,
            1,
            (-1, 1),
            "r",
        ),
        "Mixture-vaw": (
            lambda: ks.Mixture(
                [ks.TaylorAWV(sigma=0.5, degree=2), ks.NystromAWV(Gaussian(1.0), seed=1)],
                rule="vaw",
                lam=2.0,
            ),
            L,
            3,
            (-1, 1),
            "r",
        ),
        "Mixture-aa": (
            lambda: ks.Mixture(
                [ks.FOGD(Gaussian(0.8), n_features=8, lr=0.3, seed=2), ks.TaylorAWV(degree=2)],
                rule="aa",
                lo=-2.0,
                hi=2.0,
            ),
            L,
            3,
            (-1, 1),
            "r",
        ),
        # warmup 5: the experts exist after the 6 training rows of the state fuzzer.
        "AutoKernel-warmup5": (
            lambda: ks.AutoKernel(warmup=5, widths=(0.5, 2.0), lams=(0.1, 1.0)),
            L,
            3,
            (-1, 1),
            "r",
        ),
        "AutoKernel-relative-ewa": (
            lambda: ks.AutoKernel(
                warmup=5,
                widths=(1.0,),
                discount_widths=(1.0,),
                rule="ewa",
                share=0.02,
                loss_window=3,
            ),  # fmt: skip
            L,
            3,
            (-1, 1),
            "r",
        ),
        "AutoKernel-rff": (
            lambda: ks.AutoKernel(
                warmup=5, widths=(1.0,), features="rff", n_features=8, rule="mlpoly", seed=2
            ),
            L,
            3,
            (-1, 1),
            "r",
        ),
        "VAWMeta": (lambda: agg.VAWMeta(3), "agg", 3, (-1, 1), "r"),
        "EWA": (lambda: agg.EWA(3), "agg", 3, (-1, 1), "r"),
        "AggregatingAlgorithm": (
            lambda: agg.AggregatingAlgorithm(3, lo=-2, hi=2),
            "agg",
            3,
            (-1, 1),
            "r",
        ),
        "BOA": (lambda: agg.BOA(3), "agg", 3, (-1, 1), "r"),
        "MLPoly": (lambda: agg.MLPoly(3), "agg", 3, (-1, 1), "r"),
        "MLProd": (lambda: agg.MLProd(3, gradient=False), "agg", 3, (-1, 1), "r"),
        "MultiKernelAWV-drift": (
            lambda: ks.MultiKernelAWV(
                [Gaussian(0.5), Gaussian(1.5)],
                n_features=6,
                aggregator="mlprod",
                gamma=0.9,
                share=0.05,
                seed=2,
            ),
            L,
            3,
            (-1, 1),
            "r",
        ),
        "EWA-share": (lambda: agg.EWA(3, share=0.05), "agg", 3, (-1, 1), "r"),
        "BOA-share": (lambda: agg.BOA(3, share=0.01), "agg", 3, (-1, 1), "r"),
        "MLPoly-share": (lambda: agg.MLPoly(3, share=0.1), "agg", 3, (-1, 1), "r"),
        "MLProd-share": (lambda: agg.MLProd(3, share=0.02), "agg", 3, (-1, 1), "r"),
        "KORS": (lambda: KORS(Gaussian(0.7), mu=0.1, seed=2), "sampler", 3, (-1, 1), "r"),
        "SoftmaxCalibrator": (lambda: SoftmaxCalibrator(lam=0.5), "calib", 3, (-1, 2), "k"),
        "SoftmaxCalibrator-plain": (
            lambda: SoftmaxCalibrator(lam=0.5, binning=False),
            "calib",
            3,
            (-1, 2),
            "k",
        ),
        # Conformal intervals: a Python object around a learner (its state: the learner's
        # pickle, the adaptive level and the window of scores).
        "Conformal": (
            lambda: ks.Conformal(ks.TaylorAWV(degree=2), window=8),
            "conformal",
            3,
            (-1, 1),
            "r",
        ),
        "Conformal-plain": (
            lambda: ks.Conformal(
                ks.AutoKernel(warmup=5, widths=(1.0,), lams=(0.5,)), alpha=0.3, normalize=False
            ),
            "conformal",
            3,
            (-1, 1),
            "r",
        ),
    }


def data(entry, n=12, seed=0):
    import numpy as np

    _, _, d, (lo, hi), task = entry
    rng = np.random.default_rng(seed)
    X = rng.uniform(lo, hi, size=(n, d))
    if task == "m":
        return X, np.sin(3 * X[:, :1] + np.arange(3)) + 0.1 * rng.normal(size=(n, 3))
    if task == "k":
        return X, rng.integers(0, d, n)
    y = np.sign(X[:, 0] + 0.1) if task == "c" else np.sin(3 * X[:, 0]) + 0.1 * rng.normal(size=n)
    y[y == 0] = 1.0
    return X, y


def train(obj, kind, X, y):
    if kind in ("learner", "conformal"):
        obj.learn_many(X, y)
    elif kind == "agg":
        obj.progressive_predict(X, y)
    elif kind == "calib":
        obj.learn(X, y)
    else:
        obj.step_many(X)


def state_bytes(obj, kind):
    if kind == "conformal":
        return pickle.dumps(obj)
    return bytes(obj._core._state_bytes())


#: Set in a worker: ``beat()`` then tells the parent that the case is still making progress.
_HEARTBEAT = None


def beat():
    """A heartbeat line to the parent (in a worker): the hang timeout restarts, so a case
    whose steps are each slow but finite (a huge legitimate configuration on a loaded
    machine) is not taken for a hang; a step that never returns still is."""
    if _HEARTBEAT is not None:
        _HEARTBEAT.write(".\n")
        _HEARTBEAT.flush()


def exercise(obj, kind, X, y):
    """Uses an object that was accepted; returns True if its outputs are finite."""
    import numpy as np

    finite = True
    if kind == "learner":
        finite &= bool(np.all(np.isfinite(obj.predict_one(X[0]))))
        beat()
        obj.learn_one(X[1], y[1])
        beat()
        finite &= bool(np.all(np.isfinite(obj.progressive_predict(X[2:6], y[2:6]))))
        beat()
        finite &= bool(np.all(np.isfinite(obj.predict_many(X[6:8]))))
        beat()
        obj.get_params()
        blob = pickle.dumps(obj)
        beat()
        pickle.loads(blob).predict_one(X[0])
        beat()
        if y.ndim == 2:  # multi-output: a column added, then learned
            obj.add_outputs(1)
            obj.learn_one(X[-1], np.append(y[-1], 1.0))
            finite &= bool(np.all(np.isfinite(obj.predict_many(X[:2]))))
        if (
            y.ndim == 1 and obj.has_predictive_std
        ):  # NaN is legitimate before a noise estimate exists
            obj.predict_std(X[6:8])
            obj.progressive_predict_std(X[8:10], y[8:10])
    elif kind == "conformal":
        finite &= bool(np.isfinite(obj.predict_one(X[0])))
        lo, hi = obj.predict_interval(X[6:8])
        finite &= not bool(np.any(np.isnan(lo)) or np.any(np.isnan(hi)))
        obj.learn_one(X[1], y[1])
        p, lo, hi = obj.progressive_interval(X[2:6], y[2:6])
        finite &= bool(np.all(np.isfinite(p))) and not bool(np.any(np.isnan(lo - hi)))
        obj.get_params()
        pickle.loads(pickle.dumps(obj)).predict_interval_one(X[0])
    elif kind == "agg":
        finite &= bool(np.isfinite(obj.predict(X[0])))
        obj.update(X[1], y[1])
        finite &= bool(np.all(np.isfinite(obj.progressive_predict(X[2:6], y[2:6]))))
        _ = obj.weights
        pickle.loads(pickle.dumps(obj)).predict(X[0])
    elif kind == "calib":
        finite &= bool(np.all(np.isfinite(obj.predict_proba(X[:2]))))
        finite &= bool(np.all(np.isfinite(obj.progressive_proba(X[2:6], y[2:6]))))
        obj.add_class()
        finite &= bool(np.all(np.isfinite(obj.predict_proba(np.column_stack([X[:2], X[:2, :1]])))))
        pickle.loads(pickle.dumps(obj)).predict_proba(np.column_stack([X[:1], X[:1, :1]]))
    else:
        obj.step(X[0])
        obj.probability(X[1])
        obj.step_many(X[2:6])
        _ = obj.dictionary
        obj.minv()
        pickle.loads(pickle.dumps(obj)).probability(X[0])
    return finite


# --- worker side ---------------------------------------------------------------------


def _classify(exc) -> str:
    from kernelstream.errors import KernelstreamError

    if isinstance(exc, KernelstreamError):
        return "refused"
    if type(exc).__name__ == "PanicException":
        return "panic"
    return "error"


def _kernels(v):
    """``("__kernel__", name, sigma)`` markers (and lists of them) -> kernels."""
    from kernelstream import kernels

    if isinstance(v, tuple) and len(v) == 3 and v[0] == "__kernel__":
        return getattr(kernels, v[1])(v[2])
    if isinstance(v, list):
        return [_kernels(u) for u in v]
    return v


def run_case(case: dict) -> str:
    """Runs one case in this process; returns a verdict (see the module docstring)."""
    if case["kind"] == "beats":  # the harness's own test: `n` steps of `every` seconds
        for _ in range(case["n"]):
            time.sleep(case["every"])
            beat()
        return "ok"
    if case["kind"] == "model":  # tools/fuzz_models.py
        import fuzz_models

        return fuzz_models.run_case(case)
    cat = catalog()
    if case["kind"] == "state":
        entry = cat[case["name"]]
        X, y = data(entry)
        obj = entry[0]()
        train(obj, entry[1], X[:6], y[:6])
        before = state_bytes(obj, entry[1])
        try:
            obj.__setstate__(case["state"])
        except BaseException as exc:  # noqa: BLE001 - classified below
            verdict = _classify(exc)
            if verdict == "refused" and state_bytes(obj, entry[1]) != before:
                return "untouched"
            from kernelstream.errors import ParameterError

            return "parameter" if isinstance(exc, ParameterError) else verdict
        try:
            ok = exercise(obj, entry[1], X, y)
        except BaseException as exc:  # noqa: BLE001
            return _classify(exc)
        return "ok" if ok else "ok"  # corrupted numbers may legitimately give NaN
    # parameters
    import importlib

    mod = importlib.import_module(case["module"])
    cls = getattr(mod, case["cls"])
    kwargs = pickle.loads(case["kwargs"])
    X, y = case["X"], case["y"]
    if case.get("width") is not None:
        entry = (None, None, case["width"], case["domain"], case["task"])
        X, y = data(entry, n=8 if case["width"] > 1000 else 12)
    try:
        kwargs = {k: _kernels(v) for k, v in kwargs.items()}
        obj = cls(**kwargs)
    except BaseException as exc:  # noqa: BLE001
        return _classify(exc)
    beat()
    try:
        ok = exercise(obj, case["objkind"], X, y)
    except BaseException as exc:  # noqa: BLE001
        return _classify(exc)
    return "ok" if ok else "nan"


def worker_main():
    import resource

    limit = int(os.environ.get("FUZZ_RLIMIT_AS", str(6 << 30)))
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    catalog()  # imports everything before the first case (not timed)
    out = sys.stdout
    global _HEARTBEAT
    _HEARTBEAT = out
    out.write("ready\n")
    out.flush()
    for line in sys.stdin:
        case = pickle.loads(base64.b64decode(line))
        try:
            verdict = run_case(case)
        except BaseException:  # noqa: BLE001 - a bug of the harness itself
            traceback.print_exc()
            verdict = "error"
        out.write(verdict + "\n")
        out.flush()


# --- parent side ---------------------------------------------------------------------


class Pool:
    """One worker subprocess, restarted after an abort or a hang."""

    def __init__(self, timeout: float = 10.0):
        self.timeout = timeout
        self.proc = None

    def _start(self):
        env = dict(os.environ)
        env.setdefault("KERNELSTREAM_MEMORY_LIMIT", str(1 << 30))
        # Unbuffered pipes: `select` then sees every line the worker wrote that has not
        # been read (a buffered reader could hold the answer behind a heartbeat).
        self.proc = subprocess.Popen(
            [sys.executable, os.path.abspath(__file__), "--worker"],
            bufsize=0,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env,
        )
        # Start-up (imports) is not part of any case's time.
        ready, _, _ = select.select([self.proc.stdout], [], [], 300)
        if not ready or self.proc.stdout.readline().strip() != b"ready":
            raise RuntimeError("the fuzz worker did not start")

    def run(self, case: dict) -> str:
        if self.proc is None or self.proc.poll() is not None:
            self._start()
        line = base64.b64encode(pickle.dumps(case)) + b"\n"
        try:
            self.proc.stdin.write(line)
            self.proc.stdin.flush()
        except BrokenPipeError:
            self.close()
            return "abort"
        # A wide input legitimately takes longer (O(d) per feature): a hang is 10 s
        # per 200,000 columns, and per 5 million frequencies a random-feature learner
        # draws (``doubles``: a step that draws, pickles or checks them all), beyond the
        # base timeout, without a heartbeat (`beat`) between two steps of the case.
        # (at most 30 times more: a configuration above the memory ceiling is refused fast)
        timeout = self.timeout * (
            1.0 + (case.get("width") or 0) / 2e5 + min((case.get("doubles") or 0) / 5e6, 30.0)
        )
        while True:
            ready, _, _ = select.select([self.proc.stdout], [], [], timeout)
            if not ready:
                self.close()
                return "hang"
            answer = self.proc.stdout.readline().decode().strip()
            if answer != ".":
                break
        if not answer:
            self.close()
            return "abort"
        return answer

    def close(self):
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait()
            self.proc = None


def report(counts: dict, failures: list, seconds: float, label: str) -> str:
    lines = [f"{label}: {sum(sum(v.values()) for v in counts.values())} cases in {seconds:.0f} s"]
    for name in sorted(counts):
        c = counts[name]
        bad = sum(c.get(f, 0) for f in FAILURES)
        lines.append(
            f"  {name:28s} cases {sum(c.values()):6d}  failures {bad:4d}  "
            + " ".join(f"{k}={v}" for k, v in sorted(c.items()))
        )
    for f in failures[:20]:
        lines.append(f"  FAIL {f}")
    return "\n".join(lines)


class Deadline:
    def __init__(self, seconds: float):
        self.end = time.monotonic() + seconds

    def __bool__(self):
        return time.monotonic() < self.end


def run_fuzzer(argv, doc: str, label: str, setup) -> int:
    """The command line and the loop of a fuzzer: ``setup(catalog())`` returns
    ``make_case(name, rng) -> (case, what)``; the classes take turns until the time is up,
    each case runs in the worker, and the report counts the verdicts (exit 1 on a failure)."""
    ap = argparse.ArgumentParser(
        description=doc, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--seconds", type=float, default=15.0)
    ap.add_argument("--minutes", type=float, default=None)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--timeout", type=float, default=10.0, help="per-case timeout (a hang)")
    ap.add_argument("--json", default=None, help="write the counts here")
    args = ap.parse_args(argv)
    seconds = args.minutes * 60 if args.minutes is not None else args.seconds
    rng = random.Random(args.seed)
    cat = catalog()
    make_case = setup(cat)
    counts: dict = {name: {} for name in cat}
    failures = []
    pool = Pool(timeout=args.timeout)
    deadline = Deadline(seconds)
    start = time.monotonic()
    names = sorted(cat)
    i = 0
    while deadline:
        name = names[i % len(names)]
        i += 1
        case, what = make_case(name, rng)
        verdict = pool.run(case)
        counts[name][verdict] = counts[name].get(verdict, 0) + 1
        if verdict in FAILURES:
            failures.append(f"{name} {what} -> {verdict}")
    pool.close()
    print(report(counts, failures, time.monotonic() - start, label))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"counts": counts, "failures": failures}, f, indent=1)
    return 1 if failures else 0


if __name__ == "__main__" and "--worker" in sys.argv:
    worker_main()
