"""``kernelstream bench``: Rust learners against their NumPy references (``--list``,
``CASE...``), per-round times and ratios; ``--compare`` sets the run's ratios beside a
committed baseline's, ``--save-baseline`` writes one (:mod:`kernelstream.bench.baseline`)."""

from __future__ import annotations

import sys

from .common import UsageError, check_outputs


def add_parser(sub) -> None:
    """The ``bench`` subcommand on the CLI's subparsers."""
    b = sub.add_parser("bench", help="time Rust learners against the NumPy references")
    b.add_argument("cases", nargs="*", help="cases to run (default: all; see --list)")
    b.add_argument(
        "--list",
        action="store_true",
        help="list the cases, each with the registered learners it times, and exit",
    )
    b.add_argument("--quick", action="store_true", help="small sizes")
    b.add_argument(
        "--compare",
        nargs="?",
        const="",
        metavar="FILE",
        help="print each ratio of the run over that of a baseline file (default: the "
        "committed baseline of the sizes run, kernelstream/bench/baselines/)",
    )
    b.add_argument(
        "--save-baseline",
        metavar="FILE",
        help="write the run's ratios to this baseline file (JSON) for a later --compare",
    )
    b.set_defaults(func=cmd_bench)


def cmd_bench(args) -> int:
    from kernelstream._optional import require

    # the cases time the core against the NumPy references, which need scipy: say so
    # before any case runs
    require("scipy", "kernelstream bench (its NumPy references)")
    from kernelstream.bench import baseline, cases, learners_timed, run_bench
    from kernelstream.buildinfo import build_info

    if args.list:
        _print_cases(cases(), learners_timed())
        return 0
    check_outputs(("--save-baseline", args.save_baseline))
    base = None
    if args.compare is not None:
        path = args.compare or baseline.committed(args.quick)
        if not args.compare and not path.exists():
            raise UsageError(
                f"no committed baseline of the {'quick' if args.quick else 'full'} sizes "
                f"({path}); name a file: --compare FILE"
            )
        base = baseline.load(path)
        baseline.check_size(base, args.quick)  # before the run, not after

    def progress(i, n, name):
        print(f"[{i + 1}/{n}] {name} ...", file=sys.stderr, flush=True)

    rows = run_bench(args.cases or None, quick=args.quick, printer=_print_flush, progress=progress)
    if base is not None:
        load = " ".join(map(str, base.get("load", []))) or "not recorded"
        print(f"\ncompared with {path} (load average then {load}, now {_load()}; "
              "now/base above 1: the ratio grew)")  # fmt: skip
        for line in baseline.table(baseline.compare(rows, base, args.quick)):
            print(line)
    if args.save_baseline:
        from kernelstream._files import atomic_write

        data = baseline.to_baseline(rows, args.quick, build_info())
        with atomic_write(args.save_baseline, "w") as fh:
            fh.write(baseline.dumps(data))
        print(f"baseline written to {args.save_baseline}")
    return 0


def _print_cases(all_cases, timed) -> None:
    """One case a line with the learners it times, then the registered learners no case
    times (the registry's, ``_core.registry()``)."""
    from kernelstream.learners import _registry

    width = max(map(len, all_cases))
    for name in all_cases:
        print(f"{name:<{width}}  {' '.join(timed[name]) or '-'}".rstrip())
    covered = {n for names in timed.values() for n in names}
    untimed = [n for n in _registry.names() if n not in covered]
    if untimed:
        print(f"kernelstream: note: no case times {', '.join(untimed)}", file=sys.stderr)


def _load() -> str:
    from kernelstream.bench.baseline import load_average

    return " ".join(map(str, load_average())) or "unknown"


def _print_flush(*a):
    print(*a, flush=True)
