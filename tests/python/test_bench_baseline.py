"""``kernelstream bench --compare``: the ratios of a run over a baseline's
(:mod:`kernelstream.bench.baseline`), on fabricated rows and baselines (no timing is
asserted); the committed baseline lists the catalog's cases."""

from __future__ import annotations

import json

import pytest
from kernelstream.bench import CASES, baseline
from kernelstream.errors import InputError


def _row(case, label, dim, **figures):
    return {"case": case, "label": label, "dim": dim, "rust_us": 1.5, "numpy_us": 9.0,
            **figures}  # fmt: skip


def _baseline(rows, quick=True):
    return baseline.to_baseline(rows, quick, {"version": "0.0.0", "simd_path": "avx2"})


def test_change_is_the_current_figure_over_the_baselines():
    base = _baseline([
        _row("a", "x", 10, ratio=4.0),
        _row("a", "y", 10, ratio=2.0, cost_ratio=1.25),
        _row("b", "z", 7, ratio=3.0, gflops=6.0, dgemm_gflops=24.0),
        _row("c", "w", 5, ratio=1.0),
    ])  # fmt: skip
    run = [
        _row("a", "x", 10, ratio=5.0),
        _row("a", "y", 10, ratio=1.0, cost_ratio=1.5),
        _row("b", "z", 7, ratio=3.0, gflops=12.0, dgemm_gflops=16.0),
        _row("c", "w", 6, ratio=1.0),  # another dimension: other work, not compared
        _row("d", "v", 5, ratio=2.0),  # a case the baseline does not have
    ]
    got = {(c["case"], c["label"], c["figure"]): c for c in baseline.compare(run, base, True)}
    assert set(got) == {
        ("a", "x", "ratio"), ("a", "y", "cost_ratio"),
        ("b", "z", "ratio"), ("b", "z", "dgemm_fraction"), ("c", "w", "ratio"),
        ("d", "v", "ratio"),
    }  # fmt: skip
    assert got["a", "x", "ratio"]["change"] == 5.0 / 4.0
    assert got["a", "y", "cost_ratio"]["change"] == 1.5 / 1.25
    assert got["b", "z", "ratio"]["change"] == 1.0
    # dgemm fraction: 12/16 now, 6/24 in the baseline
    assert got["b", "z", "dgemm_fraction"]["baseline"] == 0.25
    assert got["b", "z", "dgemm_fraction"]["change"] == pytest.approx(0.75 / 0.25, rel=1e-15)
    assert got["c", "w", "ratio"]["change"] is None and got["c", "w", "ratio"]["baseline"] is None
    assert got["d", "v", "ratio"]["change"] is None
    lines = baseline.table(list(got.values()))
    assert len(lines) == 1 + len(got)
    assert any(ln.split()[-1] == "1.25" and ln.split()[0] == "a" for ln in lines[1:])
    assert sum(ln.split()[-1] == "new" for ln in lines[1:]) == 2


def test_a_baseline_keeps_each_ratio_once_and_no_time_is_compared():
    data = _baseline([
        _row("a", "x", 3, ratio=2.5, serve_rate_ratio=0.4),  # ratio: 1 / serve_rate_ratio
        _row("b", "y", 3, ratio=2.0),
    ])  # fmt: skip
    assert [set(r) - {"case", "label", "dim", "rust_us"} for r in data["rows"]] == [
        {"serve_rate_ratio"},
        {"ratio"},
    ]
    run = [_row("a", "x", 3, ratio=2.0, serve_rate_ratio=0.5), _row("b", "y", 3, ratio=1.0)]
    compared = [(c["figure"], c["change"]) for c in baseline.compare(run, data, True)]
    assert compared == [("serve_rate_ratio", 0.5 / 0.4), ("ratio", 0.5)]  # no time compared


def test_other_sizes_are_refused():
    data = _baseline([_row("a", "x", 3, ratio=2.0)], quick=True)
    with pytest.raises(InputError, match="quick sizes, the run is of the full"):
        baseline.compare([_row("a", "x", 3, ratio=2.0)], data, quick=False)


def test_a_saved_baseline_loads_back(tmp_path):
    data = _baseline([_row("a", "x", 3, ratio=2.0), _row("b", "y", 4, cost_ratio=1.1)])
    path = tmp_path / "b.json"
    path.write_text(baseline.dumps(data))
    assert baseline.load(path) == json.loads(json.dumps(data))
    lines = path.read_text().splitlines()
    assert [ln.strip() for ln in lines if '"case"' in ln] == [
        json.dumps(r) + "," for r in data["rows"][:-1]
    ] + [json.dumps(data["rows"][-1])]  # one row a line


@pytest.mark.parametrize(
    "text, message",
    [
        ("{", "not a baseline file"),
        ("[]", "not a baseline file of format 1"),
        ('{"format": 2, "rows": []}', "of format 1"),
        ('{"format": 1, "rows": [{"case": "a", "label": "x", "dim": 3, "ratio": -1}]}',
         "of format 1"),
        ('{"format": 1, "rows": [{"case": "a", "label": "x", "dim": 3, "ratio": NaN}]}',
         "of format 1"),
        ('{"format": 1, "rows": [{"case": "a", "dim": 3}]}', "of format 1"),
    ],
)  # fmt: skip
def test_a_damaged_baseline_is_refused(tmp_path, text, message):
    path = tmp_path / "b.json"
    path.write_text(text)
    with pytest.raises(InputError, match=message):
        baseline.load(path)
    with pytest.raises(InputError, match="no such baseline file"):
        baseline.load(tmp_path / "none.json")


def test_the_committed_baseline_holds_every_case_of_the_quick_sizes():
    data = baseline.load(baseline.committed(quick=True))
    assert data["quick"] is True
    held = {(r["case"], r["label"]) for r in data["rows"]}
    current = {(name, c.label) for name, make in CASES.items() for c in make(True)}
    assert current <= held, f"not in the committed baseline: {sorted(current - held)}"
    try:
        import sklearn  # noqa: F401  (the adapter rows of the serve case need it)
    except ImportError:
        return
    # the autokernel case's Vowpal Wabbit rows run only where it is installed
    vw_rows = {key for key in held if key[0] == "autokernel" and "VW" in key[1]}
    assert len(vw_rows) == 4, "the baseline holds the Vowpal Wabbit rows (d = 2, 5, 10, 50)"
    try:
        import vowpalwabbit  # type: ignore[import-not-found]  # noqa: F401

        optional = set()
    except ImportError:
        optional = vw_rows
    assert held - optional == current, f"no longer a case: {sorted(held - optional - current)}"


@pytest.mark.slow
def test_bench_compare_prints_the_change_and_saves_a_baseline(tmp_path, capsys):
    """One quick case through the command: its rows against a fabricated baseline whose
    ratios are 1 (so the change printed is the run's own ratio), then saved and loaded."""
    from kernelstream.cli import main

    labels = [c.label for c in CASES["taylor-blocked"](True)]
    first = tmp_path / "first.json"
    assert main(["bench", "taylor-blocked", "--quick", "--save-baseline", str(first)]) == 0
    saved = baseline.load(first)
    assert [r["label"] for r in saved["rows"]] == labels
    ones = dict(saved, rows=[dict(r, ratio=1.0) for r in saved["rows"]])
    fabricated = tmp_path / "ones.json"
    fabricated.write_text(baseline.dumps(ones))
    capsys.readouterr()
    assert main(["bench", "taylor-blocked", "--quick", "--compare", str(fabricated)]) == 0
    out = capsys.readouterr().out
    table = out.split(f"compared with {fabricated}")[1].splitlines()[2:]
    assert len(table) == 2 * len(labels)  # the ratio and the fraction of dgemm of each
    for line in [ln for ln in table if " ratio " in ln]:  # baseline 1: now/base equals now
        *_, base, now, change = line.split()
        assert base == "1" and float(change) == pytest.approx(float(now), rel=0.01, abs=0.006)
