"""The API reference and the docs pages render what they mean.

- a list right after a paragraph line (no blank line) renders, in Python-Markdown, as
  part of the paragraph (the uncertainty page's caveats did);
- the home page links the adapters, streams, uncertainty and classification pages;
- the reference has ``evaluate.progressive`` and the five exception classes;
- ``mkdocs build --strict`` of the whole site: no raw ``:meth:``/``:attr:`` roles left
  in the rendered docstrings (slow: builds the site).
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
_ITEM = re.compile(r"^(?:[-*+]|\d+\.) ")


def _lists_glued_to_a_paragraph(text: str) -> list:
    out, fenced, prev = [], False, ""
    for i, line in enumerate(text.splitlines()):
        if line.lstrip().startswith("```"):
            fenced = not fenced
        if (
            not fenced
            and _ITEM.match(line)
            and prev.strip()
            and not (_ITEM.match(prev) or prev.startswith((" ", "\t", "|", "#", "<", ">")))
        ):
            out.append(i + 1)
        prev = "" if fenced else line
    return out


def test_no_list_is_glued_to_the_paragraph_before_it():
    glued = {
        p.name: lines
        for p in sorted(DOCS.rglob("*.md"))
        if (lines := _lists_glued_to_a_paragraph(p.read_text()))
    }
    assert not glued, glued


def test_home_page_links_the_guides():
    home = (DOCS / "index.md").read_text()
    for page in ("adapters.md", "streams.md", "uncertainty.md", "classification.md"):
        assert f"]({page})" in home, page


def test_reference_pages_name_progressive_and_the_exceptions():
    evaluate = (DOCS / "reference" / "evaluate.md").read_text()
    assert "::: kernelstream.evaluate.progressive.progressive" in evaluate
    errors = (DOCS / "reference" / "errors.md").read_text()
    for name in ("KernelstreamError", "InputError", "ParameterError", "NumericalError",
                 "InternalError"):  # fmt: skip
        assert f"`{name}`" in errors, name


@pytest.mark.slow
def test_strict_build_renders_no_raw_roles(tmp_path):
    pytest.importorskip("mkdocstrings")
    site = tmp_path / "site"
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
        cwd=ROOT, capture_output=True, text=True, timeout=900,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    raw = [
        str(p.relative_to(site))
        for p in site.rglob("*.html")
        if re.search(r":(?:meth|attr|class|func|mod):<code>", p.read_text())
    ]
    assert not raw, raw
    page = (site / "reference" / "evaluate" / "index.html").read_text()
    assert 'id="kernelstream.evaluate.progressive.progressive"' in page
