"""Damaged states whose checksum was recomputed are refused by the bounds the math puts
on what they store (``src/state/bounds.rs``): one float of the state multiplied by
``2^600`` (an exponent bit set, as a flipped bit does) is an ``InputError``, or else the
loaded learner predicts as a learner could (no ``1e300`` predictions).

Before: the checksum aside, only finiteness was checked, and these damaged states
predicted up to 1e305."""

from __future__ import annotations

import math
import struct

import kernelstream as ks
import numpy as np
import pytest
from kernelstream.errors import InputError
from kernelstream.modelfile.statebytes import HEADER, seal

G = ks.kernels.Gaussian

MAKERS = {
    "KernelAWV": lambda: ks.KernelAWV(G(0.7), lam=0.1),
    "RFFAWV": lambda: ks.RFFAWV(G(0.7), n_features=6, lam=0.1, seed=1),
    "MultiKernelAWV": lambda: ks.MultiKernelAWV([G(0.5), G(2.0)], n_features=4, lam=0.1),
    "Mixture": lambda: ks.Mixture(
        [ks.RFFAWV(G(0.7), n_features=4, lam=0.1), ks.KernelAWV(G(1.5), lam=0.1)]
    ),
}


def _data(n=40):
    rng = np.random.default_rng(5)
    X = rng.uniform(-1, 1, (n, 2))
    return X, np.sin(3 * X[:, 0]) + X[:, 1]


def _floats(core: bytes) -> list[int]:
    """Offsets of the MessagePack float64 values (0xcb and 8 bytes) of the payload."""
    out, i = [], HEADER
    while True:
        i = core.find(b"\xcb", i)
        if i < 0 or i + 9 > len(core):
            return out
        out.append(i)
        i += 1


def _blown_up(core: bytes, at: int) -> bytes:
    (v,) = struct.unpack(">d", core[at + 1 : at + 9])
    try:
        new = math.ldexp(v, 600) if v != 0 and math.isfinite(v) else 1e300
    except OverflowError:
        new = 1e300
    return seal(core[: at + 1] + struct.pack(">d", new) + core[at + 9 :])


@pytest.mark.parametrize("name", sorted(MAKERS))
def test_one_float_blown_up_is_refused_or_harmless(name):
    X, y = _data()
    m = MAKERS[name]()
    m.learn_many(X, y)
    st = m.__getstate__()
    core = bytes(st["core"])
    Q = X[:8] * 0.8
    base = m.predict_many(Q)
    refused = accepted = 0
    for at in _floats(core):
        fresh = MAKERS[name]()
        try:
            fresh.__setstate__({**st, "core": _blown_up(core, at)})
        except InputError:
            refused += 1
            continue
        accepted += 1
        p = fresh.predict_many(Q)
        # A state a learner could have produced on these targets (|y| < 3) predicts
        # within a modest multiple of them; the damage this test does makes 1e170+.
        assert np.all(np.abs(p) < 1e6), (name, at, p)
    assert refused > 0 and refused + accepted == len(_floats(core))
    np.testing.assert_array_equal(m.predict_many(Q), base)


def test_stored_target_mass_bounds_b():
    # b of an AWV engine is multiplied by 4: b^T A^-1 b is then 16 times what the
    # targets allow (their weighted sum of squares, stored beside it).
    X, y = _data()
    m = ks.RFFAWV(G(0.7), n_features=6, lam=0.1, seed=1)
    m.learn_many(X, 3 * y)
    st = m.__getstate__()
    core = bytes(st["core"])
    at = core.index(b"\xa1b") + 2  # the key "b", then the array head (a fixarray)
    assert 0x90 <= core[at] <= 0x9F
    start, n = at + 1, core[at] - 0x90
    assert n == 6  # one value per feature ("cos" features), one output
    blob = bytearray(core)
    for j in range(n):
        i = start + 9 * j
        assert blob[i] == 0xCB
        (v,) = struct.unpack(">d", blob[i + 1 : i + 9])
        blob[i + 1 : i + 9] = struct.pack(">d", 4 * v)
    fresh = ks.RFFAWV(G(0.7), n_features=6, lam=0.1, seed=1)
    with pytest.raises(InputError, match="b\\^T A\\^-1 b"):
        fresh.__setstate__({**st, "core": seal(bytes(blob))})
