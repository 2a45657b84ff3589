"""State fuzzer: mutated pickled states of every class, each loaded in a worker subprocess.

Every class of ``fuzzlib.catalog()`` is trained on a few rows and pickled; the core state
bytes are then mutated (bit flips, byte changes, truncations, trailing bytes, edits of
the MessagePack integers, lengths and floats, the params of another configuration),
most with the checksum recomputed so that the decoder and validators see them, and
handed to ``__setstate__`` of a trained object. The contract: the state is refused with a
``KernelstreamError`` and the object is left exactly as it was, or it is accepted and
usable. An abort, a hang, a panic or another exception type is a failure.

    python tools/fuzz_state.py --seconds 15          # the CI run (also in pytest)
    python tools/fuzz_state.py --minutes 10          # the long run
"""

from __future__ import annotations

import math
import os
import random
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fuzzlib  # noqa: E402
from kernelstream.modelfile.statebytes import HEADER, seal  # noqa: E402

INTERESTING_U64 = [0, 1, 2, 3, 7, 255, 2**16, 2**31 - 1, 2**32, 2**40, 2**62, 2**63, 2**64 - 1]
INTERESTING_F64 = [
    float("nan"),
    float("inf"),
    -float("inf"),
    1.7e308,
    -1.7e308,
    5e-324,
    0.0,
    -0.0,
    1e300,
]


#: MessagePack heads of unsigned integers and array lengths, and the bytes that follow.
_WIDTH = {0xCC: 1, 0xCD: 2, 0xCE: 4, 0xCF: 8, 0xDC: 2, 0xDD: 4}


def mutate(core: bytes, rng: random.Random) -> tuple[str, bytes]:
    """A damaged copy of the state ``core``. Most mutations edit the payload and then
    re-seal the checksum (``statebytes.seal``), so that they reach the decoder and the
    validators behind it; the others keep the stored checksum, which must refuse them."""
    b = bytearray(core)
    op = rng.choice(["bitflip", "byte", "truncate", "trailing", "size", "grow", "float", "multi"])
    body = range(HEADER, len(b))
    if op == "bitflip" and b:
        for _ in range(rng.randint(1, 4)):
            i = rng.randrange(len(b) * 8)
            b[i // 8] ^= 1 << (i % 8)
    elif op == "byte" and b:
        b[rng.randrange(len(b))] = rng.randrange(256)
    elif op == "truncate":
        b = b[: rng.randrange(len(b) + 1)]
    elif op == "trailing":
        b += bytes(rng.randrange(256) for _ in range(rng.randint(1, 16)))
    elif op == "size" and any(b[i] in _WIDTH for i in body):
        # An integer or a length (dimensions, counters, sizes) set to another value.
        i = rng.choice([i for i in body if b[i] in _WIDTH])
        w = _WIDTH[b[i]]
        v = int.from_bytes(b[i + 1 : i + 1 + w], "big")
        new = rng.choice(INTERESTING_U64 + [v + 1, max(v - 1, 0), v * 2, v + 2**32])
        b[i + 1 : i + 1 + w] = (new % 2 ** (8 * w)).to_bytes(w, "big")[: len(b) - i - 1]
    elif op == "grow" and any(b[i] < 0x80 for i in body):
        # A small integer (a positive fixint: most dimensions) made a large u64.
        i = rng.choice([i for i in body if b[i] < 0x80])
        new = rng.choice(INTERESTING_U64 + [b[i] + 1, 2 * b[i] + 1])
        b[i : i + 1] = b"\xcf" + struct.pack(">Q", new % 2**64)
    elif op == "float" and any(b[i] == 0xCB for i in body):
        i = rng.choice([i for i in body if b[i] == 0xCB])
        b[i + 1 : i + 9] = struct.pack(">d", rng.choice(INTERESTING_F64))[: len(b) - i - 1]
    else:
        op = "multi"
        for _ in range(rng.randint(2, 6)):
            if b:
                b[rng.randrange(len(b))] = rng.randrange(256)
    if len(b) >= HEADER and rng.random() < 0.9:
        return op + "+sealed", seal(bytes(b))
    return op, bytes(b)


def setup(cat):
    """Each class's trained state; a case mutates its core bytes or swaps in a sibling's params."""
    states = {}
    for name, entry in cat.items():
        X, y = fuzzlib.data(entry)
        obj = entry[0]()
        fuzzlib.train(obj, entry[1], X, y)
        states[name] = obj.__getstate__()
    # Params of another configuration of the same class (a pickle whose params lie).
    by_cls = {}
    for name, entry in cat.items():
        by_cls.setdefault(type(entry[0]()).__name__, []).append(name)

    def make_case(name, rng):
        state = dict(states[name])
        siblings = [s for s in by_cls[type(cat[name][0]()).__name__] if s != name]
        if siblings and rng.random() < 0.05:
            op = "params"
            state["params"] = states[rng.choice(siblings)]["params"]
        elif "core" not in state:  # Conformal: its own numbers (its learner has its own entries)
            key = rng.choice(["alpha_t", "sq", "n", "covered", "scores", "params"])
            value = rng.choice(INTERESTING_F64)
            if key == "scores":
                state[key] = list(state[key]) + [value]
            elif key == "params":
                state[key] = {**state[key], rng.choice(sorted(state[key])): value}
            else:
                state[key] = (
                    int(value) if key in ("n", "covered") and math.isfinite(value) else value
                )
            op = f"conformal {key}"
        else:
            op, state["core"] = mutate(state["core"], rng)
        return {"kind": "state", "name": name, "state": state}, op

    return make_case


def main(argv=None) -> int:
    return fuzzlib.run_fuzzer(argv, __doc__, "state fuzzer", setup)


if __name__ == "__main__":
    sys.exit(main())
