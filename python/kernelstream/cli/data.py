"""``kernelstream data`` (the datasets of the papers: ``list``, ``fetch NAME...``,
``fetch --all``, ``path``), ``kernelstream info`` and ``--version``."""

from __future__ import annotations

import argparse

from .common import UsageError, number, seconds


class Version(argparse.Action):
    """``--version``: the version and, when the build reports it, how it was built."""

    def __init__(
        self, option_strings, dest=argparse.SUPPRESS, default=argparse.SUPPRESS, help=None
    ):
        super().__init__(option_strings, dest=dest, default=default, nargs=0, help=help)

    def __call__(self, parser, namespace, values, option_string=None):
        print(version_text())
        parser.exit(0)


def version_text() -> str:
    """``kernelstream X.Y.Z`` (``kernelstream info`` tells how it was built)."""
    import kernelstream as ks

    return f"kernelstream {ks.__version__}"


def build_text() -> str:
    """The version, then ``kernelstream.build_info()`` one item a line, if the build has it."""
    import kernelstream as ks

    lines = [version_text()]
    build_info = getattr(ks, "build_info", None)
    if callable(build_info):
        info = build_info()
        if isinstance(info, dict):
            lines += [f"{k}: {v}" for k, v in info.items() if k != "version"]
        else:
            lines.append(str(info))
    return "\n".join(lines)


def cmd_info(args) -> int:
    print(build_text())
    return 0


def cmd_data(args) -> int:
    from kernelstream import datasets

    home = datasets.data_home(args.data_home)
    if args.data_command == "path":
        print(home)
        return 0
    if args.data_command == "list":
        print(f"data directory: {home}")
        print(f"{'name':<14} {'rows':>9} {'d':>4} {'task':<15} {'source':<9} {'here':<5} used by")
        for ds in datasets.DATASETS.values():
            here = "yes" if (home / ds.filename).exists() else "no"
            print(
                f"{ds.name:<14} {ds.rows:>9} {ds.features:>4} {ds.task:<15} {ds.origin:<9} "
                f"{here:<5} {', '.join(ds.used_by)}"
            )
        return 0
    names = list(datasets.DATASETS) if args.all else args.names
    if not names:
        raise UsageError("name datasets to fetch (see kernelstream data list) or use --all")
    for name in names:
        datasets.registry.get(name)  # every name checked before any download
    for name in names:
        path = datasets.fetch(
            name,
            args.data_home,
            args.base_url,
            force=args.force,
            progress=args.progress,
            deadline=args.deadline,
            min_rate=args.min_rate,
        )
        print(f"{name}: {path}", flush=True)
    return 0


def add_parsers(sub) -> None:
    """The ``info`` and ``data`` subcommands on the CLI's subparsers."""
    i = sub.add_parser("info", help="the version and how this build was made")
    i.set_defaults(func=cmd_info)

    d = sub.add_parser("data", help="list, download or locate the datasets of the papers")
    dsub = d.add_subparsers(dest="data_command", required=True, metavar="ACTION")
    dl = dsub.add_parser("list", help="every dataset: size, task, source, whether it is here")
    dp = dsub.add_parser("path", help="print the data directory")
    df = dsub.add_parser("fetch", help="download datasets (hash-checked) into the data directory")
    df.add_argument("names", nargs="*", help="dataset names (see kernelstream data list)")
    df.add_argument("--all", action="store_true", help="every dataset")
    df.add_argument(
        "--base-url", help="where release files are served (default: $KERNELSTREAM_DATA_URL)"
    )
    df.add_argument("--force", action="store_true", help="download again even if present")
    df.add_argument(
        "--deadline",
        type=seconds,
        help="seconds each download may take in all (default $KERNELSTREAM_FETCH_DEADLINE, else 3600)",
    )
    df.add_argument(
        "--min-rate",
        type=number,
        metavar="BYTES_PER_S",
        help="abandon a download slower than this over 60 s "
        "(default $KERNELSTREAM_FETCH_MIN_RATE, else 1024; 0: no minimum)",
    )
    df.add_argument(
        "--progress",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="progress on stderr: a tqdm bar, else a plain line (default: on a terminal)",
    )
    for q in (dl, dp, df):
        q.add_argument(
            "--data-home",
            help="data directory (default: $KERNELSTREAM_DATA, else the platform cache)",
        )
    d.set_defaults(func=cmd_data)
