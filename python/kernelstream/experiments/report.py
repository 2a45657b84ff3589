"""``kernelstream reproduce --all --report REPRODUCTION.md``: one document with, for
each paper, every table beside the paper's numbers, the figures (copied under
``docs/figures/`` next to the report), the settings, the notes (choices the paper
left open, data not available here and what was run instead) and the wall-clock
time of each entry beside the paper's. Every number comes from the run."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np

from .._files import write_bytes, write_text

#: relative tolerance under which "ours" counts as matching "paper" (slopes: absolute 0.05;
#: dictionary sizes, metric "n_sv": 20%, the spread the KORS specification allows)
TOLERANCE = 0.15
SLOPE_TOLERANCE = 0.05
SV_TOLERANCE = 0.20
#: label of rows without a ``variant`` key: the paper's text read literally
AS_STATED = "as stated"


def row_variant(row: dict) -> str:
    """The variant a row belongs to (``"calibrated"``, ``"authors' code"``, ...); rows
    without one are the paper's text as stated."""
    return row.get("variant") or (row.get("extra") or {}).get("variant") or AS_STATED


def row_matches(row: dict):
    """True/False if the row has a paper number to compare with, else None (also when the
    row says why it is not comparable, ``extra["match_note"]``)."""
    ours, paper = row.get("ours"), row.get("paper")
    if ours is None or paper is None or (isinstance(ours, float) and math.isnan(ours)):
        return None
    if (row.get("extra") or {}).get("match_note"):
        return None
    if row.get("metric") == "slope":
        return abs(ours - paper) <= SLOPE_TOLERANCE
    if paper == 0:
        return abs(ours) <= 1e-12
    tol = SV_TOLERANCE if row.get("metric") == "n_sv" else TOLERANCE
    return abs(ours - paper) <= tol * abs(paper)


def match_counts(rows: list) -> dict:
    """``{variant: (matches, compared)}`` in order of first appearance, as stated first."""
    counts: dict = {AS_STATED: [0, 0]}
    for r in rows:
        m = row_matches(r)
        if m is None:
            continue
        c = counts.setdefault(row_variant(r), [0, 0])
        c[0] += int(m)
        c[1] += 1
    return {k: tuple(v) for k, v in counts.items() if v[1] or k == AS_STATED}


def verdict(payload: dict) -> str:
    rows = payload["rows"]
    counts = match_counts(rows)
    claims = [n for n in payload["notes"] if n.startswith("claim ")]
    held = sum(1 for n in claims if "': holds" in n or ": holds" in n)
    claim_text = f"{held}/{len(claims)} of the paper's claims hold" if claims else ""
    if not any(n for _, n in counts.values()):
        return claim_text or "no paper numbers"
    if any(r.get("metric") == "slope" for r in rows):
        within = f"within ±{SLOPE_TOLERANCE} (slopes)"
    else:
        within = f"within {int(TOLERANCE * 100)}%"
        if any(r.get("metric") == "n_sv" for r in rows):
            within += f" (#SV {int(SV_TOLERANCE * 100)}%)"
    if len(counts) == 1:
        ok, n = counts[AS_STATED]
        text = f"{ok}/{n} numbers {within}"
    else:
        text = f"numbers {within}: " + "; ".join(f"{ok}/{n} {v}" for v, (ok, n) in counts.items())
    return f"{text}; {claim_text}" if claim_text else text


def _fmt(v, std=None):
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "–"
    s = f"{v:.4g}"
    if std is not None and not (isinstance(std, float) and math.isnan(std)):
        s += f" ± {std:.2g}"
    return s


def _table(rows) -> str:
    with_paper_time = any((r.get("extra") or {}).get("paper_seconds") for r in rows)
    head = "| dataset | learner | metric | ours | paper | match | dim | seconds |"
    sep = "|---|---|---|---|---|---|---|---|"
    if with_paper_time:
        head += " paper's seconds |"
        sep += "---|"
    lines = [head, sep]
    for r in rows:
        m = row_matches(r)
        note = (r.get("extra") or {}).get("match_note")
        mark = note if note else ("–" if m is None else ("yes" if m else "**no**"))
        line = (
            f"| {r['dataset']} | {r['learner']} | {r['metric']} | {_fmt(r.get('ours'), r.get('ours_std'))} | "
            f"{_fmt(r.get('paper'))} | {mark} | {'–' if r.get('dim') is None else r['dim']} | {_fmt(r.get('seconds'))} |"
        )
        if with_paper_time:
            line += f" {_fmt((r.get('extra') or {}).get('paper_seconds'))} |"
        lines.append(line)
    return "\n".join(lines)


def write_report(payloads: list, path: Path, out_dir: Path) -> None:
    path = Path(path)
    fig_dir = path.parent / "docs" / "figures"
    fig_dir.mkdir(parents=True, exist_ok=True)
    by_paper: dict = {}
    for p in payloads:
        by_paper.setdefault(p["paper"], []).append(p)
    # the per-algorithm budget of the run, when every budgeted entry ran with the same one
    budgets = {p["settings"]["time_budget"] for p in payloads if p["settings"].get("time_budget")}
    command = "kernelstream reproduce --all" + (
        f" --time-budget {budgets.pop():g}" if len(budgets) == 1 else ""
    )
    lines = [
        "# Reproduction report",
        "",
        f"Generated by `{command} --report REPRODUCTION.md`; every number below comes "
        'from that run (the JSON files are in the output directory). "match" compares ours with the '
        f"paper's number: within {int(TOLERANCE * 100)}% (slopes: within ±{SLOPE_TOLERANCE}; "
        f"dictionary sizes #SV: within {int(SV_TOLERANCE * 100)}%). Rows of a labelled variant (learner "
        "names ending in the variant in parentheses, e.g. calibrated settings or the authors' code) are "
        f"counted apart from the paper's text {AS_STATED}.",
        "",
        "## Summary",
        "",
        "| paper | entry | matches | our wall clock | paper's time | speed-up |",
        "|---|---|---|---|---|---|",
    ]
    for paper, group in by_paper.items():
        for p in group:
            ps = p.get("paper_seconds")
            if ps:
                paper_time, speed = f"{_fmt(ps)} s", f"{ps / p['seconds']:.0f}x"
            else:
                ratios = [
                    r["extra"]["paper_seconds"] / r["seconds"]
                    for r in p["rows"]
                    if (r.get("extra") or {}).get("paper_seconds") and r.get("seconds")
                ]
                if ratios:
                    paper_time = "per row (see table)"
                    speed = f"median {float(np.median(ratios)):.0f}x per run"
                else:
                    paper_time, speed = "–", "–"
            lines.append(
                f"| {paper.split(',')[0]} | `{p['entry']}` | {verdict(p)} | {p['seconds']:.1f} s | "
                f"{paper_time} | {speed} |"
            )
    for paper, group in by_paper.items():
        lines += ["", f"## {paper}", ""]
        for p in group:
            lines += [
                f"### `{p['entry']}`",
                "",
                f"Wall clock: {p['seconds']:.1f} s"
                + (
                    f"; the paper reports {p['paper_seconds']:.0f} s."
                    if p.get("paper_seconds")
                    else "."
                ),
                "",
            ]
            lines += [_table(p["rows"]), ""]
            for fig in p["figures"]:
                src = Path(fig)
                if not src.is_absolute() and not src.exists():
                    src = Path(out_dir) / src.name
                if src.exists():
                    dst = fig_dir / src.name
                    write_bytes(dst, src.read_bytes())
                    rel = dst.relative_to(path.parent)
                    lines += [f"![{src.stem}]({rel.as_posix()})", ""]
            if p["notes"]:
                lines += ["Notes:", ""] + [f"- {n}" for n in p["notes"]] + [""]
            settings = {k: v for k, v in p["settings"].items()}
            lines += [
                "<details><summary>settings</summary>",
                "",
                "```json",
                json.dumps(settings, indent=1, default=str),
                "```",
                "",
                "</details>",
                "",
            ]
    write_text(path, "\n".join(lines) + "\n")
