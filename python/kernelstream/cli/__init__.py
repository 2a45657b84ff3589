"""Command line: ``kernelstream`` (also ``python -m kernelstream``).

* ``run``: the main job, a progressive run with a progress bar and a results table;
* ``bench``: Rust learners against their NumPy references, per-round times and ratios;
* ``reproduce``: the registry of paper experiments (``--list``, ``NAME``, ``--all``);
* ``data``: the datasets of the papers (``list``, ``fetch NAME...``, ``fetch --all``, ``path``);
* ``forecast``: online multi-horizon forecasts of a CSV column; ``info``: the build.

A user mistake prints one line ``kernelstream: error: ...`` on stderr and exits with
status 2; only a bug in kernelstream prints a traceback. One module a command
(``run``: its learner, stream and table in ``learner``, ``stream``, ``run``); what they
share is in ``common``.
"""

from __future__ import annotations

import sys

from kernelstream.errors import KernelstreamError

from . import bench, data, forecast, reproduce, run
from .common import Parser, UsageError, one_line
from .data import build_text, cmd_data, cmd_info, version_text
from .learner import LEARNERS, SELF_SCALING_LEARNERS, UNIT_CUBE_LEARNERS, build_learner
from .reproduce import cmd_reproduce
from .run import cmd_run

__all__ = [
    "LEARNERS",
    "SELF_SCALING_LEARNERS",
    "UNIT_CUBE_LEARNERS",
    "UsageError",
    "build_learner",
    "build_text",
    "cmd_data",
    "cmd_info",
    "cmd_reproduce",
    "cmd_run",
    "main",
    "make_parser",
    "version_text",
]


def make_parser() -> Parser:
    """The parser of every command (each module adds its own)."""
    p = Parser(prog="kernelstream", description=__doc__.split("\n\n")[0])
    p.add_argument(
        "--version", action=data.Version, help="print the version and exit (the build: info)"
    )
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")
    run.add_parser(sub)
    bench.add_parser(sub)
    reproduce.add_parser(sub)
    data.add_parsers(sub)
    forecast.add_parser(sub)
    return p


class _Terminated(BaseException):
    """SIGTERM, raised in the main thread so that the run unwinds (temporary files of
    ``--save-predictions`` and the atomic writes removed) before the process ends."""


def _on_sigterm(signum, frame):
    raise _Terminated


def _terminate() -> int:
    """Ends the process by SIGTERM's default action (the status a parent expects)."""
    import os
    import signal

    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    os.kill(os.getpid(), signal.SIGTERM)
    return 128 + signal.SIGTERM  # pragma: no cover - not reached


def main(argv=None) -> int:
    import signal
    import threading

    args = make_parser().parse_args(argv)
    previous = None
    if threading.current_thread() is threading.main_thread():
        previous = signal.signal(signal.SIGTERM, _on_sigterm)
    try:
        return _main(args)
    except _Terminated:
        return _terminate()
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)


def _main(args) -> int:
    try:
        return args.func(args)
    except BrokenPipeError:  # the reader went away (`kernelstream ... | head`): stop quietly
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except (KernelstreamError, OSError) as exc:
        # user mistakes (bad input, parameters, files, downloads); a bug keeps its traceback
        print(f"kernelstream: error: {one_line(exc)}", file=sys.stderr)
        return 2
    except ModuleNotFoundError as exc:
        # a command that needs an extra the install lacks (_optional.require names it)
        if "kernelstream[" not in str(exc):
            raise
        print(f"kernelstream: error: {one_line(exc)}", file=sys.stderr)
        return 2
    except MemoryError:
        print("kernelstream: error: out of memory (try a smaller --n or --limit)", file=sys.stderr)
        return 2
