"""State fuzzer: mutated pickled states of every class, each loaded in a worker subprocess.

Every class of ``fuzzlib.catalog()`` is trained on a few rows and pickled; the core state
bytes are then mutated (bit flips, byte changes, truncations, trailing bytes, edits of
8-byte size and float fields, the params of another configuration) and handed to
``__setstate__`` of a trained object. The contract: the state is refused with a
``KernelstreamError`` and the object is left exactly as it was, or it is accepted and
usable. An abort, a hang, a panic or another exception type is a failure.

    python tools/fuzz_state.py --seconds 15          # the CI run (also in pytest)
    python tools/fuzz_state.py --minutes 10          # the long run
"""

from __future__ import annotations

import argparse
import json
import os
import random
import struct
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fuzzlib  # noqa: E402

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


def mutate(core: bytes, rng: random.Random) -> tuple[str, bytes]:
    b = bytearray(core)
    op = rng.choice(["bitflip", "byte", "truncate", "trailing", "size", "float", "multi"])
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
    elif op == "size" and len(b) >= 8:
        # Prefer positions that hold a small u64 (lengths, dimensions, counters).
        cands = [i for i in range(len(b) - 7) if struct.unpack_from("<Q", b, i)[0] < 100000]
        i = rng.choice(cands) if cands and rng.random() < 0.8 else rng.randrange(len(b) - 7)
        v = struct.unpack_from("<Q", b, i)[0]
        new = rng.choice(INTERESTING_U64 + [v + 1, max(v - 1, 0), v * 2, v + 2**32])
        struct.pack_into("<Q", b, i, new % 2**64)
    elif op == "float" and len(b) >= 8:
        i = rng.randrange(len(b) - 7)
        struct.pack_into("<d", b, i, rng.choice(INTERESTING_F64))
    else:
        for _ in range(rng.randint(2, 6)):
            if b:
                b[rng.randrange(len(b))] = rng.randrange(256)
    return op, bytes(b)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--seconds", type=float, default=15.0)
    ap.add_argument("--minutes", type=float, default=None)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--timeout", type=float, default=10.0, help="per-case timeout (a hang)")
    ap.add_argument("--json", default=None, help="write the counts here")
    args = ap.parse_args(argv)
    seconds = args.minutes * 60 if args.minutes is not None else args.seconds
    rng = random.Random(args.seed)
    cat = fuzzlib.catalog()
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
        state = dict(states[name])
        siblings = [s for s in by_cls[type(cat[name][0]()).__name__] if s != name]
        if siblings and rng.random() < 0.05:
            op = "params"
            state["params"] = states[rng.choice(siblings)]["params"]
        else:
            op, state["core"] = mutate(state["core"], rng)
        verdict = pool.run({"kind": "state", "name": name, "state": state})
        counts[name][verdict] = counts[name].get(verdict, 0) + 1
        if verdict in fuzzlib.FAILURES:
            failures.append(f"{name} {op} -> {verdict}")
    pool.close()
    text = fuzzlib.report(counts, failures, time.monotonic() - start, "state fuzzer")
    print(text)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"counts": counts, "failures": failures}, f, indent=1)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
