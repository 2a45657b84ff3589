"""Robustness: nothing a user passes in can kill, hang or silently poison the process.

One group of tests per kind of defect: (1) decoded state validated as a whole,
(2) parameters bounded and no panic reachable, (3) Ctrl-C honoured at a round
boundary, (4) overflow-safe numerics, (5) atomic Python-side operations,
(7) honest growth. Anything that could abort runs in a subprocess.
"""

from __future__ import annotations

import os
import pickle
import signal
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import kernelstream as ks
import numpy as np
import pytest
from kernelstream import aggregation as agg
from kernelstream.errors import InputError, InternalError, NumericalError, ParameterError
from kernelstream.kernels import Gaussian
from kernelstream.learners import _registry as registry
from signals import sigint_during
from sizing import rows_for_seconds
from zoo import ZOO

ROOT = Path(__file__).resolve().parents[2]


def _data(entry, n, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(*entry.domain, size=(n, entry.d))
    y = np.sign(X[:, 0] + 0.05) if entry.task == "classification" else np.sin(3 * X[:, 0])
    y[y == 0] = 1.0
    return X, y


def _state(m):
    if not hasattr(m, "_core"):  # Conformal: its own state and its learner's
        st = m.__getstate__()
        own = (st["alpha_t"], [float(v) for v in st["scores"]], st["n"], st["covered"])
        return repr(own).encode() + _state(st["learner"])
    return bytes(m._core._state_bytes())


def _run_python(code: str, timeout: float = 120.0) -> subprocess.CompletedProcess:
    """Runs ``code`` in a fresh interpreter: an abort there is a failed test, not a crash."""
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=str(ROOT),
        env={**os.environ, "KERNELSTREAM_MEMORY_LIMIT": str(1 << 30)},
    )


# --- 1. state validated as a whole ------------------------------------------------


@pytest.mark.slow
def test_size_fields_of_a_state_are_checked_in_a_subprocess():
    """Two states that once aborted the process: a ProsNKons state whose dimension field is corrupted and a
    TaylorAWV whose AWV order r is set to 2^40 aborted on first use. Every 8-byte field that
    holds a small integer is set to 2^40, 2^56 + 12 and 0 in turn: each state must be refused
    (InputError, learner untouched) or be usable."""
    code = """
    import pickle, struct, numpy as np, kernelstream as ks
    from kernelstream.kernels import Gaussian
    from kernelstream.errors import KernelstreamError
    rng = np.random.default_rng(0)
    X = rng.uniform(-1, 1, (40, 3)); y = np.sin(X[:, 0])
    for make in (lambda: ks.ProsNKons(Gaussian(0.7), gamma=0.05, seed=4),
                 lambda: ks.TaylorAWV(degree=2)):
        m = make(); m.learn_many(X, y)
        st = m.__getstate__(); core = st["core"]
        refused = 0
        for i in range(len(core) - 7):
            v = struct.unpack_from("<Q", core, i)[0]
            if not 0 < v < 100000:
                continue
            for new in (2**40, 2**56 + 12, 0):
                b = bytearray(core); struct.pack_into("<Q", b, i, new)
                target = make(); target.learn_many(X[:5], y[:5]); before = bytes(target._core._state_bytes())
                try:
                    target.__setstate__({**st, "core": bytes(b)})
                except KernelstreamError:
                    refused += 1
                    assert bytes(target._core._state_bytes()) == before
                    continue
                target.predict_one(X[0]); target.learn_many(X[:3], y[:3])
        assert refused > 0
    print("OK")
    """
    res = _run_python(code)
    assert res.returncode == 0 and "OK" in res.stdout, res.stderr[-2000:]


def test_trailing_bytes_and_params_that_lie_are_refused():
    X, y = _data(ZOO["TaylorAWV"], 30)
    m = ks.TaylorAWV(degree=2)
    m.learn_many(X, y)
    st = m.__getstate__()
    target = ks.TaylorAWV(degree=2)
    with pytest.raises(InputError, match="corrupt"):
        target.__setstate__({**st, "core": st["core"] + b"\x00"})
    # A pickle whose params say degree=3 over a degree-2 state.
    liar = {**st, "params": {**st["params"], "degree": 3}}
    with pytest.raises(InputError, match="degree"):
        pickle.loads(pickle.dumps(m)).__setstate__(liar)
    # Untouched, and the honest state still loads.
    target.__setstate__(st)
    assert target.n_seen == 30 and target.get_params()["degree"] == 2


@pytest.mark.slow  # a fuzzing campaign in subprocesses (5-8 s loaded); CI runs it
def test_state_fuzzer_finds_no_abort_panic_or_hang():
    """The bounded CI run of ``tools/fuzz_state.py`` (every class, mutated states)."""
    res = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "fuzz_state.py"), "--seconds", "5"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-2000:]


# --- 2. parameters bounded; no panic reachable -------------------------------------


@pytest.mark.parametrize(
    "make",
    [
        lambda: agg.VAWMeta(10**6),
        lambda: agg.EWA(10**12),
        lambda: agg.VAWMeta(2**32),
        lambda: agg.BOA(2**63),
        lambda: ks.MultiKernelAWV([Gaussian(s) for s in range(1, 11)], n_features=20000),
        lambda: ks.KernelAWV(Gaussian(1.0), max_size=10**7),
    ],
    ids=[
        "VAWMeta-1e6",
        "EWA-1e12",
        "VAWMeta-2^32",
        "BOA-2^63",
        "MultiKernelAWV-20000",
        "KernelAWV",
    ],
)
def test_configurations_beyond_the_memory_limit_are_refused(make):
    old = ks.get_memory_limit()
    ks.set_memory_limit(8 << 30)
    try:
        with pytest.raises(ParameterError, match="memory"):
            make()
    finally:
        ks.set_memory_limit(old)


@pytest.mark.parametrize(
    "make",
    [
        lambda: Gaussian(5e-324),
        lambda: ks.KernelAWV(Gaussian(1.0), lam=5e-324),
        lambda: ks.ProsNKons(Gaussian(1.0), C=1e-300),
        lambda: ks.FOGD(Gaussian(1.0), lr=1e300),
        lambda: ks.TaylorAWV(sigma=5e-324),
        lambda: ks.OMKLGF([Gaussian(1.0)], n_samples=2**31),
    ],
    ids=["sigma", "lam", "C", "lr", "taylor-sigma", "omkl-n_samples"],
)
def test_meaningless_tiny_or_huge_values_are_refused(make):
    with pytest.raises(ParameterError):
        make()


def test_online_projection_tiny_c_is_refused_not_hung():
    with pytest.raises(ParameterError):
        ks.OnlineProjection(basis="trig", alpha=1.5, c=1e-300)
    # Within the scale range, but the schedule switches on ~1e5 units before any data.
    m = ks.OnlineProjection(basis="trig", alpha=1.5, c=1e-20)
    with pytest.raises(ParameterError, match="c ="):
        m.learn_one([0.5], 1.0)
    assert m.n_seen == 0 and m.input_dim is None


def test_memory_limit_is_configurable():
    old = ks.get_memory_limit()
    try:
        ks.set_memory_limit(1 << 20)
        with pytest.raises(ParameterError, match="MiB"):
            ks.RFFAWV(Gaussian(1.0), n_features=2000)
        ks.set_memory_limit(1 << 30)
        ks.RFFAWV(Gaussian(1.0), n_features=2000)
        with pytest.raises(ParameterError):
            ks.set_memory_limit(0)
    finally:
        ks.set_memory_limit(old)


def test_a_panic_becomes_internal_error():
    with pytest.raises(InternalError, match="deliberate panic"):
        ks._core._test_panic()
    assert issubclass(InternalError, ks.KernelstreamError)


@pytest.mark.slow  # a fuzzing campaign in subprocesses (5-8 s loaded); CI runs it
def test_parameter_fuzzer_finds_no_abort_panic_or_hang():
    res = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "fuzz_params.py"), "--seconds", "5"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-2000:]


@pytest.mark.slow  # a worker subprocess and 6 s of sleeping steps
def test_the_fuzz_harness_tells_slow_steps_from_a_hang():
    sys.path.insert(0, str(ROOT / "tools"))
    import fuzzlib

    pool = fuzzlib.Pool(timeout=1.0)
    try:
        # eight steps of 0.3 s: longer than the timeout in all, never silent for as long
        assert pool.run({"kind": "beats", "n": 8, "every": 0.3}) == "ok"
        # one silent step of 3 s: a hang, and the next case runs in a fresh worker
        assert pool.run({"kind": "beats", "n": 1, "every": 3.0}) == "hang"
        assert pool.run({"kind": "beats", "n": 1, "every": 0.0}) == "ok"
    finally:
        pool.close()


# --- 3. Ctrl-C at a round boundary -------------------------------------------------


def _interrupt_after(seconds: float):
    t = threading.Timer(seconds, lambda: os.kill(os.getpid(), signal.SIGINT))
    t.start()
    return t


def _long_stream(entry, name, work_seconds=0.5, seed=1):
    """A stream long enough to keep the learner busy for ``work_seconds``, sized by time:
    :func:`sizing.rows_for_seconds` measures how the cost grows with the stream (it is
    quadratic for AveragedKernelSGD, whose rounds cost O(t))."""
    cap = 3_000_000
    if name.startswith("KernelAWV"):
        cap = entry.factory().get_params()["max_size"]
        if cap < 2000:
            pytest.skip(f"max_size = {cap}: too few rounds to interrupt (KernelAWV-ridge is)")
    n = rows_for_seconds(
        lambda n: entry.factory().progressive_predict(*_data(entry, n, seed=seed)),
        work_seconds,
        cap=cap,
    )
    return _data(entry, min(max(n, min(2000, cap)), cap), seed=seed)


def _check_sigint(name):
    """SIGINT sent while ``progressive_predict`` runs stops it at a round boundary.

    A loaded machine can hold the main thread back long enough for the signal to land
    in Python code just before or after the Rust loop (a plain ``KeyboardInterrupt``
    without ``rounds_completed``); such an attempt tests nothing, so it is repeated
    with a later signal and a longer stream. The learner must be whole either way."""
    entry = ZOO[name]
    for delay, work in ((0.05, 0.3), (0.3, 2.0), (1.0, 5.0)):
        X, y = _long_stream(entry, name, work_seconds=work)
        n = len(y)
        m = entry.factory()
        stop = sigint_during(lambda: m.progressive_predict(X, y), delay)  # noqa: B023
        if hasattr(stop, "rounds_completed"):
            break
        # Landed outside the Rust loop: the call either did not start or completed.
        assert m.n_seen in (0, n)
    else:
        pytest.fail("SIGINT never landed inside the Rust loop in three attempts")
    k = stop.rounds_completed
    assert 0 <= k < n and m.n_seen == k
    partial = stop.predictions
    assert partial.shape == (k,)
    # The learner equals a fresh one fed exactly the completed rounds.
    fresh = entry.factory()
    if k:
        np.testing.assert_array_equal(fresh.progressive_predict(X[:k], y[:k]), partial)
    assert _state(fresh) == _state(m)


# One configuration per learner class by default (the registered learners, a few in
# another configuration, and NystromAWV's fixed dictionary); every zoo entry with -m slow.
_INSTEAD = {"KernelAWV": "KernelAWV-ridge", "OnlineProjection": "OnlineProjection-tensor"}
_ONE_PER_CLASS = [_INSTEAD.get(n, n) for n in registry.names()] + ["NystromAWV-fixed"]


@pytest.mark.slow
@pytest.mark.skipif(threading.current_thread() is not threading.main_thread(), reason="signals")
@pytest.mark.parametrize("name", _ONE_PER_CLASS)
def test_sigint_during_progressive_predict_stops_at_a_round_boundary(name, sigint):
    _check_sigint(name)


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(set(ZOO) - set(_ONE_PER_CLASS)))
def test_sigint_every_zoo_entry(name, sigint):
    _check_sigint(name)


@pytest.mark.slow
@pytest.mark.skipif(threading.current_thread() is not threading.main_thread(), reason="signals")
def test_sigint_during_learn_many_and_evaluate_progressive_keeps_what_it_had(sigint):
    entry = ZOO["NystromAWV"]
    X, y = _long_stream(entry, "NystromAWV", work_seconds=1.0, seed=2)
    m = entry.factory()
    timer = _interrupt_after(0.2)
    try:
        with pytest.raises(KeyboardInterrupt) as info:
            m.learn_many(X, y)
    finally:
        timer.cancel()
    assert m.n_seen == info.value.rounds_completed < len(y)
    m2 = entry.factory()
    timer = _interrupt_after(0.2)
    try:
        with pytest.raises(KeyboardInterrupt) as info:
            ks.evaluate.progressive(m2, X, y, progress=False)
    finally:
        timer.cancel()
    res = info.value.result
    # (A signal landing between two chunks, in Python code, can lose that chunk's outputs.)
    assert res.interrupted and 0 < res.n_rounds <= m2.n_seen
    assert res.predictions.shape == (res.n_rounds,)


# --- 4. overflow-safe numerics -----------------------------------------------------


@pytest.mark.parametrize(
    "name",
    ["RFFAWV", "MultiKernelAWV", "Raker", "OMKLGF", "FOGD", "TaylorAWV", "NystromAWV", "KernelAWV"],
)
@pytest.mark.parametrize("warm", [False, True])
def test_huge_finite_inputs_never_poison_a_learner(name, warm):
    entry = ZOO[name]
    X, y = _data(entry, 60, seed=3)
    m = entry.factory()
    if warm:
        m.learn_many(X[:20], y[:20])
    before = _state(m)
    big = np.full(entry.d, 1.7e308)
    try:
        m.learn_one(big, 1.0)
    except NumericalError:
        assert _state(m) == before
    p = m.progressive_predict(X[20:], y[20:])
    assert np.all(np.isfinite(p)) and np.all(np.isfinite(m.predict_many(X[:5])))


def test_huge_targets_are_refused_before_any_change():
    m = ZOO["MultiKernelAWV"].factory()
    X, y = _data(ZOO["MultiKernelAWV"], 30)
    m.learn_many(X, y)
    before = _state(m)
    with pytest.raises(NumericalError, match="too large"):
        m.learn_one(X[0], 1e160)
    assert _state(m) == before and np.all(np.isfinite(m._core.weights))
    n = ks.NystromAWV(Gaussian(1.0), kors_weights="inverse", beta=3.0, ridge=True, seed=1)
    n.learn_many(X, y)
    before = _state(n)
    with pytest.raises(NumericalError):
        n.learn_one(X[0], 1.7e308)
    assert _state(n) == before
    assert np.all(np.isfinite(n.progressive_predict(X, y)))


def test_kernel_call_validates_its_inputs():
    with pytest.raises(InputError, match="NaN or infinity"):
        Gaussian(1.0)([[np.nan, 0.0]], [[0.0, 0.0]])
    with pytest.raises(InputError):
        Gaussian(1.0).gram(np.array([[np.inf]]), np.array([[0.0]]))
    with pytest.raises(InputError):
        Gaussian(1.0).diag(np.array([[np.nan]]))
    assert Gaussian(1.0)([[1.7e308, 0.0]], [[-1.7e308, 0.0]])[0, 0] == 0.0


# --- 5. atomic Python-side operations ----------------------------------------------


def test_failed_setstate_leaves_a_trained_learner_as_it_was():
    X, y = _data(ZOO["NystromAWV"], 50)
    m = ks.NystromAWV(Gaussian(0.8), seed=3)
    m.learn_many(X, y)
    st = m.__getstate__()
    before = _state(m)
    with pytest.raises(InputError):
        m.__setstate__({**st, "core": st["core"][: len(st["core"]) // 2]})
    assert m.n_seen == 50 and _state(m) == before


def test_failed_constructor_call_leaves_nothing_half_set():
    m = ks.TaylorAWV(sigma=1.0, degree=2)
    with pytest.raises(ParameterError):
        m.__init__(sigma=-1.0, degree=2)
    assert m.get_params()["sigma"] == 1.0
    k = ks.samplers.KORS(Gaussian(1.0), mu=1.0)
    with pytest.raises(ParameterError):
        k.__init__(Gaussian(1.0), mu=-1.0)
    assert k.get_params()["mu"] == 1.0


# --- 7. honest growth ----------------------------------------------------------------


@pytest.mark.slow
def test_nystrom_max_dictionary_caps_the_dictionary():
    rng = np.random.default_rng(4)
    t = np.arange(3000)
    X = np.c_[np.sin(t / 50.0) * t / 300.0, rng.normal(size=3000)]  # a drifting stream
    y = np.sin(X[:, 0])
    m = ks.NystromAWV(Gaussian(0.5), seed=0, max_dictionary=15)
    free = ks.NystromAWV(Gaussian(0.5), seed=0)
    m.learn_many(X, y)
    free.learn_many(X, y)
    assert m.dim == 15 < free.dim
    assert m.get_params()["max_dictionary"] == 15
    m2 = pickle.loads(pickle.dumps(m))
    np.testing.assert_array_equal(m2.predict_many(X[:10]), m.predict_many(X[:10]))
    with pytest.raises(ParameterError):
        ks.NystromAWV(Gaussian(0.5), dictionary=X[:5], max_dictionary=3)
    with pytest.raises(ParameterError):
        ks.NystromAWV(Gaussian(0.5), max_dictionary=0)


def test_load_libsvm_refuses_absurd_indices(tmp_path):
    f = tmp_path / "absurd.svm"
    f.write_text("1 1:0.5 4000000000:1.0\n-1 2:0.25\n")
    with pytest.raises(InputError, match="4000000000.*data row 1"):
        ks.datasets.load_libsvm(f)


def test_feature_maps_check_the_input_length():
    X, y = _data(ZOO["TaylorAWV"], 10)
    t = ks.TaylorAWV(degree=2)
    t.learn_many(X, y)
    with pytest.raises(InputError):
        t.features(np.zeros(1))
    f = ks.FOGD(Gaussian(1.0), n_features=5)
    f.learn_many(X, y)
    with pytest.raises(InputError):
        f.features(np.zeros(1))
