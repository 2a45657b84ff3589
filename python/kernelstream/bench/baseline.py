"""Committed results that a ``kernelstream bench`` run compares against (``--compare``).

A baseline holds ratio-type figures only, each a quotient of two times of the same run
on the same machine, so that the machine's speed mostly cancels: ``ratio`` (the NumPy
reference's time per round over the Rust learner's), ``cost_ratio`` (the case's two
sizes of the same work), ``serve_rate_ratio`` (the serving loop over
``progressive_predict``) and ``dgemm_fraction`` (the learner's GFlop/s over the
single-core dgemm rate of the same run). Wall-clock times are kept beside them for
reading, never compared. ``compare`` gives, per case and setting, the current figure
over the baseline's."""

from __future__ import annotations

import json
import math
from pathlib import Path

from kernelstream.errors import InputError

#: The figures a baseline keeps and ``compare`` divides, in the order printed.
FIGURES = ("ratio", "cost_ratio", "serve_rate_ratio", "dgemm_fraction")

#: The baselines committed with the package, by size (``kernelstream bench --compare``).
COMMITTED = Path(__file__).resolve().parent / "baselines"

FORMAT = 1


def figures(row: dict) -> dict:
    """The ratio-type figures of one row of ``run_bench``, each fact once: a case with a
    cost or a serving-rate ratio reports that one (its ``ratio`` is the inverse)."""
    for key in ("cost_ratio", "serve_rate_ratio"):
        if key in row:
            return {key: float(row[key])}
    out = {"ratio": float(row["ratio"])}
    if "gflops" in row and row.get("dgemm_gflops"):
        out["dgemm_fraction"] = float(row["gflops"]) / float(row["dgemm_gflops"])
    return out


def to_baseline(rows: list, quick: bool, build: dict) -> dict:
    """The baseline of a run: its rows' figures (4 significant digits: their run-to-run
    spread is wider), their dimensions and (for reading only) their times per round."""
    return {
        "format": FORMAT,
        "quick": bool(quick),
        "build": {k: build[k] for k in ("version", "simd_path") if k in build},
        "load": load_average(),
        "rows": [
            {
                "case": r["case"],
                "label": r["label"],
                "dim": int(r["dim"]),
                **{k: float(f"{v:.4g}") for k, v in figures(r).items()},
                "rust_us": round(float(r["rust_us"]), 3),
            }
            for r in rows
        ],
    }


def load_average() -> list:
    """The machine's load average (1, 5 and 15 minutes) when a baseline is written: the
    ratios spread more on a loaded machine (docs/performance.md, "Baselines")."""
    import os

    try:
        return [round(v, 2) for v in os.getloadavg()]
    except (AttributeError, OSError):  # not on every platform
        return []


def committed(quick: bool) -> Path:
    """The committed baseline of the quick or full sizes."""
    return COMMITTED / ("quick.json" if quick else "full.json")


def load(path) -> dict:
    """A baseline file; an :class:`~kernelstream.InputError` naming what is wrong with it."""
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise InputError(f"--compare {path}: no such baseline file") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise InputError(f"--compare {path}: not a baseline file ({exc})") from None
    ok = isinstance(data, dict) and data.get("format") == FORMAT
    rows = data.get("rows") if ok else None
    if not (isinstance(rows, list) and all(_valid_row(r) for r in rows)):
        raise InputError(
            f"--compare {path}: not a baseline file of format {FORMAT} (written by "
            "kernelstream bench --save-baseline)"
        )
    return data


def _valid_row(r) -> bool:
    if not (isinstance(r, dict) and isinstance(r.get("case"), str)):
        return False
    if not isinstance(r.get("label"), str) or not isinstance(r.get("dim"), int):
        return False
    values = [r[k] for k in FIGURES if k in r]
    return all(isinstance(v, (int, float)) and math.isfinite(v) and v > 0 for v in values)


def check_size(baseline: dict, quick: bool) -> None:
    """Refuses a baseline of the other sizes (quick or full) than the run's."""
    if bool(baseline.get("quick")) != bool(quick):
        held, run = ("quick", "full") if baseline.get("quick") else ("full", "quick")
        raise InputError(f"the baseline holds the {held} sizes, the run is of the {run} ones")


def compare(rows: list, baseline: dict, quick: bool) -> list:
    """Per row of the current run (``run_bench``'s) and figure: ``{"case", "label",
    "figure", "baseline", "current", "change"}`` with ``change = current / baseline``
    (``None`` when the baseline has no such row or figure, or measured another
    dimension: a different amount of work is not compared)."""
    check_size(baseline, quick)
    base = {(r["case"], r["label"]): r for r in baseline["rows"]}
    out = []
    for row in rows:
        old = base.get((row["case"], row["label"]))
        for key, value in figures(row).items():
            ref = None
            if old is not None and old["dim"] == int(row["dim"]):
                ref = old.get(key)
            out.append(
                {
                    "case": row["case"],
                    "label": row["label"],
                    "figure": key,
                    "baseline": ref,
                    "current": value,
                    "change": None if ref is None else value / ref,
                }
            )
    return out


def table(comparison: list) -> list:
    """The lines ``kernelstream bench --compare`` prints."""
    lines = [f"{'case':<26} {'setting':<40} {'figure':<16} {'baseline':>9} {'now':>9} "
             f"{'now/base':>9}"]  # fmt: skip
    for c in comparison:
        base = "-" if c["baseline"] is None else f"{c['baseline']:.3g}"
        change = "new" if c["change"] is None else f"{c['change']:.2f}"
        lines.append(
            f"{c['case']:<26} {c['label']:<40} {c['figure']:<16} {base:>9} "
            f"{c['current']:>9.3g} {change:>9}"
        )
    return lines


def dumps(data: dict) -> str:
    """A baseline as the committed files hold it: JSON, one row a line."""
    head = "".join(f"  {json.dumps(k)}: {json.dumps(v)},\n" for k, v in data.items() if k != "rows")
    rows = ",\n".join("    " + json.dumps(r) for r in data["rows"])
    return f'{{\n{head}  "rows": [\n{rows}\n  ]\n}}\n'
