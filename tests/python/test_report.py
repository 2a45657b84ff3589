"""The reproduction report counts the paper's text as stated apart from labelled variants."""

from __future__ import annotations

from kernelstream.experiments.registry import Row
from kernelstream.experiments.report import match_counts, row_matches, verdict, write_report


def _row(ours, paper, metric="avg_sq_loss", variant=None, **extra):
    return Row("d", "L", metric, ours, paper=paper, extra=extra, variant=variant).to_json()


def test_rows_without_variant_are_as_stated_and_variants_count_apart():
    rows = [
        _row(1.0, 1.0),
        _row(2.0, 1.0),
        _row(1.1, 1.0, variant="calibrated"),
        _row(1.0, 1.0, variant="authors' code"),
        _row(5.0, 1.0, variant="authors' code"),
        _row(1.0, None),  # no paper number: not compared
    ]
    assert "variant" not in rows[0] and rows[2]["variant"] == "calibrated"
    assert match_counts(rows) == {
        "as stated": (1, 2),
        "calibrated": (1, 1),
        "authors' code": (1, 2),
    }
    text = verdict({"rows": rows, "notes": []})
    assert "1/2 as stated" in text and "1/1 calibrated" in text and "1/2 authors' code" in text


def test_only_as_stated_rows_keep_the_plain_summary():
    rows = [_row(1.0, 1.0), _row(2.0, 1.0)]
    assert verdict({"rows": rows, "notes": []}) == "1/2 numbers within 15%"


def test_dictionary_sizes_within_20_percent_and_not_comparable_rows_are_not_counted():
    assert row_matches(_row(23.9, 20.0, metric="n_sv"))
    assert not row_matches(_row(24.1, 20.0, metric="n_sv"))
    assert not row_matches(_row(23.9, 20.0))  # a loss: 15%
    note = "not comparable (training split only)"
    r = _row(100.0, 1.0, match_note=note)
    assert row_matches(r) is None and match_counts([r]) == {"as stated": (0, 0)}


def test_report_shows_the_match_note(tmp_path):
    note = "not comparable (training split only)"
    payload = {
        "entry": "x",
        "paper": "P, 2017",
        "seconds": 1.0,
        "paper_seconds": None,
        "settings": {},
        "rows": [_row(100.0, 1.0, match_note=note), _row(1.0, 1.0, variant="calibrated")],
        "figures": [],
        "notes": [],
    }
    path = tmp_path / "R.md"
    write_report([payload], path, tmp_path)
    text = path.read_text()
    assert f"| {note} |" in text
    assert "0/0 as stated; 1/1 calibrated" in text
