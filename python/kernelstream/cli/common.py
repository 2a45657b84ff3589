"""What every command of the command line shares: the user-error class and its one-line
form, the argument parser, the argparse types of numbers, the check that the files a
command will write can be written."""

from __future__ import annotations

import argparse
import math

from kernelstream.errors import KernelstreamError


class UsageError(KernelstreamError):
    """A mistake in the command line or in what it points to (exit status 2)."""


def one_line(exc: BaseException) -> str:
    """The message of ``exc`` on one line (its type's name if it has none)."""
    text = str(exc) or type(exc).__name__
    return " ".join(text.split())


class Parser(argparse.ArgumentParser):
    """argparse with the one-line error format of the whole CLI."""

    def error(self, message):
        self.exit(2, f"kernelstream: error: {message} (see {self.prog} --help)\n")


def parse_value(text: str):
    """``key=value`` text as a bool, None, int, float or the text itself."""
    low = text.lower()
    if low in ("true", "false"):
        return low == "true"
    if low == "none":
        return None
    for cast in (int, float):
        try:
            return cast(text)
        except ValueError:
            pass
    return text


def count(text: str) -> int:
    """argparse type: a whole number >= 1."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def seed(text: str) -> int:
    """argparse type: a seed, a whole number in [0, 2^64)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if not 0 <= value < 2**64:
        raise argparse.ArgumentTypeError("must be a whole number from 0 to 2^64 - 1")
    return value


def seconds(text: str) -> float:
    """argparse type: a finite number > 0."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, got {text!r}") from None
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"must be a positive number, got {value:.6g}")
    return value


def number(text: str) -> float:
    """argparse type: a finite float."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"must be finite, got {value:.6g}")
    return value


def check_outputs(*flags: tuple[str, str | None]) -> None:
    """Every file a command will write (``(flag, path)``, ``None``: not asked for) can be
    written: checked before the work, not after (:func:`kernelstream._files.check_writable`)."""
    from kernelstream._files import check_writable

    for flag, value in flags:
        if value is not None and not value.strip():
            raise UsageError(f"{flag} needs a file name, got an empty one")
        if value:
            try:
                check_writable(value, flag)
            except OSError as exc:
                raise UsageError(str(exc)) from None


def check_figure(flag: str, path: str | None) -> None:
    """A figure's file name (``--plot``) ends with a format matplotlib writes (or has no
    suffix: PNG), checked before the work, not after it."""
    if not path:
        return
    from pathlib import Path

    suffix = Path(path).suffix.lstrip(".").lower()
    if not suffix:
        return
    from matplotlib.figure import Figure

    formats = Figure().canvas.get_supported_filetypes()
    if suffix not in formats:
        raise UsageError(
            f"{flag} {path}: matplotlib cannot write .{suffix} files; "
            f"use one of {', '.join('.' + f for f in sorted(formats))}"
        )
