"""``kernelstream reproduce``: the registry of paper experiments (``--list``, ``NAME``,
``--all``), their tables, figures, JSON and an optional Markdown report."""

from __future__ import annotations

import sys
from pathlib import Path

from .common import UsageError, check_outputs, count, seconds


def add_parser(sub) -> None:
    """The ``reproduce`` subcommand on the CLI's subparsers."""
    e = sub.add_parser("reproduce", help="regenerate a paper table or figure")
    e.add_argument("names", nargs="*", help="experiment names (see --list)")
    e.add_argument("--list", action="store_true", help="list the experiments and exit")
    e.add_argument("--all", action="store_true", help="run every entry")
    e.add_argument("--quick", action="store_true", help="the reduced CI version")
    e.add_argument("--out", default="results", help="output directory (default: results)")
    e.add_argument("--seeds", type=count, help="number of runs (overrides the entry's)")
    e.add_argument("--time-budget", type=seconds, help="per-algorithm time budget in seconds")
    e.add_argument("--data-home", help="data directory (default: $KERNELSTREAM_DATA)")
    e.add_argument("--jobs", type=count, default=1, help="parallel local workers (joblib)")
    e.add_argument(
        "--executor",
        choices=["auto", "serial", "joblib", "dask"],
        default="auto",
        help="how tasks run (default auto: dask with --scheduler, joblib with --jobs > 1)",
    )
    e.add_argument("--scheduler", help="Dask scheduler address for --executor dask")
    e.add_argument(
        "--worker-data",
        choices=["ship", "fetch"],
        default="ship",
        help="how Dask workers get the datasets: ship (default) sends this machine's files, "
        "sha256-checked; fetch makes each worker download them into its own data directory",
    )
    e.add_argument(
        "--report", help="write a Markdown report of the entries run (e.g. REPRODUCTION.md)"
    )
    e.add_argument("--force", action="store_true", help="recompute even if a cached result matches")
    e.set_defaults(func=cmd_reproduce)


def cmd_reproduce(args) -> int:
    from kernelstream.experiments import Context, entries, run_entry

    all_entries = entries()
    if args.list:
        for name, entry in all_entries.items():
            print(f"{name:<22} {entry.description}")
        return 0
    names = list(all_entries) if args.all else args.names
    if not names:
        raise UsageError("name an experiment (see --list) or use --all")
    unknown = [n for n in names if n not in all_entries]
    if unknown:
        raise UsageError(
            f"unknown experiment {', '.join(map(repr, unknown))}; see kernelstream reproduce --list"
        )
    out = Path(args.out)
    if out.exists() and not out.is_dir():
        raise UsageError(f"--out {out} exists and is not a directory")
    check_outputs(("--report", args.report))
    results = []
    for name in names:
        ctx = Context(
            out,
            quick=args.quick,
            seeds=args.seeds,
            time_budget=args.time_budget,
            data_home=args.data_home,
            jobs=args.jobs,
            executor=args.executor,
            scheduler=args.scheduler,
            worker_data=args.worker_data,
        )
        payload = run_entry(name, ctx, force=args.force)
        results.append(payload)
        print(f"\n## {name} ({payload['seconds']:.1f} s)\n{payload['paper']}\n")
        print(payload["_table"])
        for note in payload["notes"]:
            print(f"- {note}")
        for fig in payload["figures"]:
            print(f"figure: {fig}")
        print(f"json: {out / (name + '.json')}")
        if ctx.figures_skipped:
            from kernelstream._optional import hint

            print(f"kernelstream: {name}: figures skipped: " + hint("matplotlib"),
                  file=sys.stderr)  # fmt: skip
    if args.report:
        from kernelstream.experiments.report import write_report

        write_report(results, Path(args.report), out)
        print(f"report written to {args.report}")
    return 0
