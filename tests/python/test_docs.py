"""The documentation site: the API reference names every public class and function, no page
refers to the project's issue tracker, a page showing a missing image fails the strict
build, and the tutorial's code runs (and prints what the page says)."""

from __future__ import annotations

import doctest
import importlib
import inspect
import re
import subprocess
import sys
from pathlib import Path

import kernelstream as ks
import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"


def _resolve(path: str):
    parts = path.split(".")
    for i in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        for name in parts[i:]:
            obj = getattr(obj, name)
        return obj
    raise ImportError(path)


def _public(module) -> list:
    names = getattr(module, "__all__", None)
    if names is None:
        names = [n for n in vars(module) if not n.startswith("_")]
    return [getattr(module, n) for n in names]


def _api(obj) -> bool:
    return inspect.isclass(obj) or inspect.isfunction(obj) or inspect.isbuiltin(obj)


def _documented() -> set:
    """ids of the objects the reference pages render: each ``::: path`` directive, and a
    module's public members."""
    seen = set()
    for page in sorted((DOCS / "reference").glob("*.md")):
        for path in re.findall(r"^::: *([\w.]+)", page.read_text(), re.MULTILINE):
            obj = _resolve(path)
            seen.add(id(obj))
            if inspect.ismodule(obj):
                seen.update(id(m) for m in _public(obj) if _api(m))
    return seen


@pytest.mark.slow  # imports every documented module (scikit-learn, river, ...)
def test_the_api_reference_lists_every_public_class_and_function():
    documented = _documented()
    missing = []
    for name in ks.__all__:
        obj = getattr(ks, name)
        if inspect.ismodule(obj):
            missing += [
                f"kernelstream.{name}.{getattr(m, '__name__', m)}"
                for m in _public(obj)
                if _api(m) and id(m) not in documented
            ]
        elif _api(obj) and id(obj) not in documented:
            missing.append(f"kernelstream.{name}")
    assert not missing, f"not in docs/reference/: {missing}"


@pytest.mark.slow
def test_every_page_is_in_the_nav_and_none_refers_to_issues():
    config = (ROOT / "mkdocs.yml").read_text()
    for page in DOCS.rglob("*.md"):
        rel = page.relative_to(DOCS).as_posix()
        assert re.search(rf":\s*{re.escape(rel)}\s*$", config, re.MULTILINE), (
            f"{rel} not in the nav"
        )
    for page in [ROOT / "README.md", *DOCS.rglob("*.md")]:
        hits = re.findall(r".{0,40}\bissues?\b.{0,40}", page.read_text(), re.IGNORECASE)
        assert not hits, f"{page.name} refers to issues: {hits}"
    assert "exclude_docs" not in config  # the figures are part of the site


@pytest.mark.slow
def test_the_tutorial_runs():
    """Every ``>>>`` example of docs/tutorial.md runs and prints what the page shows (the
    code fences end an example's expected output)."""
    path = DOCS / "tutorial.md"
    text = re.sub(r"^```.*$", "", path.read_text(), flags=re.MULTILINE)
    test = doctest.DocTestParser().get_doctest(text, {}, "tutorial.md", str(path), 0)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.attempted > 10 and result.failed == 0


def _strict_build(tmp_path: Path, page: str):
    """``mkdocs build --strict`` of the site's own configuration (hooks, validation) on one
    page; returns the finished process."""
    yaml = pytest.importorskip("yaml")
    pytest.importorskip("mkdocs")
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text())
    docs = tmp_path / "docs"
    (docs / "figures").mkdir(parents=True)
    (docs / "figures" / "there.png").write_bytes(
        (DOCS / "figures" / "taylor-casp.png").read_bytes()
    )
    (docs / "index.md").write_text(page)
    config.update(
        docs_dir=str(docs),
        site_dir=str(tmp_path / "site"),
        nav=[{"Home": "index.md"}],
        plugins=["search"],
        hooks=[str(ROOT / h) for h in config.get("hooks", [])],
    )
    cfg = tmp_path / "mkdocs.yml"
    cfg.write_text(yaml.safe_dump(config))
    return subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(cfg)],
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.slow
@pytest.mark.parametrize(
    "page",
    [
        "# A\n\n![a figure](figures/missing.png)\n",
        '# A\n\n<p><img src="figures/missing.png" alt="raw HTML"></p>\n',
    ],
    ids=["markdown", "html"],
)
def test_the_strict_build_fails_on_a_missing_image(tmp_path, page):
    done = _strict_build(tmp_path, page)
    assert done.returncode != 0, done.stderr
    assert "missing.png" in done.stderr, done.stderr


@pytest.mark.slow
def test_the_strict_build_passes_with_the_image(tmp_path):
    done = _strict_build(
        tmp_path, '# A\n\n![a figure](figures/there.png)\n\n<img src="figures/there.png">\n'
    )
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "site" / "figures" / "there.png").exists()
