"""``kernelstream forecast``: mistakes are one line ``kernelstream: error: ...`` with exit
status 2, found before the work, in the file's own column names."""

from __future__ import annotations

import numpy as np
import pytest

pd = pytest.importorskip("pandas")


def _run(capsys, *argv):
    from kernelstream.cli import main

    capsys.readouterr()
    code = main(["forecast", *argv])
    return code, capsys.readouterr()


def _one_line_error(code, out, text):
    err = out.err.strip()
    assert code == 2 and err.count("\n") == 0 and err.startswith("kernelstream: error:"), err
    assert text in err, err


@pytest.fixture
def csv(tmp_path):
    path = tmp_path / "s.csv"
    t = np.arange(60)
    pd.DataFrame(
        {"month": pd.date_range("2000-01-01", periods=60, freq="MS"), "v": 5 + np.sin(t / 2),
         "ds": t * 2.0}
    ).to_csv(path, index=False)  # fmt: skip
    return path


def test_a_figure_format_matplotlib_cannot_write_fails_before_the_work(capsys, csv, tmp_path):
    pytest.importorskip("matplotlib")
    out = tmp_path / "o.csv"
    code, res = _run(capsys, "--csv", str(csv), "--target", "v", "--horizon", "1",
                     "--out", str(out), "--plot", str(tmp_path / "f.txt"))  # fmt: skip
    _one_line_error(code, res, "cannot write .txt")
    assert not out.exists()  # nothing was forecast


def test_errors_name_the_files_columns(capsys, tmp_path):
    path = tmp_path / "r.csv"
    pd.DataFrame({"when": [0, 1, 1, 2], "level": [1.0, 2.0, 3.0, 4.0]}).to_csv(path, index=False)
    code, res = _run(capsys, "--csv", str(path), "--target", "level", "--time", "when",
                     "--horizon", "1")  # fmt: skip
    _one_line_error(code, res, "the stamps of 'when' repeat")


def test_a_missing_value_inside_the_series_is_located(capsys, tmp_path):
    path = tmp_path / "g.csv"
    y = np.sin(np.arange(40.0))
    y[25] = np.nan
    pd.DataFrame({"t": np.arange(100, 140), "y": y}).to_csv(path, index=False)
    code, res = _run(capsys, "--csv", str(path), "--target", "y", "--time", "t", "--horizon", "1")
    _one_line_error(code, res, "missing at 125 and observed after it")


def test_the_same_column_twice_is_an_error(capsys, csv):
    code, res = _run(capsys, "--csv", str(csv), "--target", "v", "--time", "v", "--horizon", "1")
    _one_line_error(code, res, "different columns")


def test_a_target_named_like_the_generated_columns(capsys, csv, tmp_path):
    out = tmp_path / "o.csv"
    code, _ = _run(capsys, "--csv", str(csv), "--target", "ds", "--horizon", "2", "--out", str(out))
    assert code == 0
    res = pd.read_csv(out)
    assert res.tail(2).ds.tolist() == [60, 61]  # the row counter, not the column "ds"
    assert np.all(res.forecast.between(-10, 130))  # the target's units (0..118)
