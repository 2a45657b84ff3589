"""Column kinds and metrics on the command line and ``datasets.stream``: dates become
calendar features, identifiers are left out (each with a note), the category limit says
what it lumped, ``--positive`` on a numeric target is one line, ``--metric``."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest
from kernelstream.datasets import stream

pd = pytest.importorskip("pandas")


def _frame(n=300, seed=0):
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame(
        {
            "id": np.arange(n) + 1000,
            "date": pd.date_range("2021-03-01", periods=n).strftime("%Y-%m-%d"),
            "city": rng.choice([f"c{i}" for i in range(10)], n),
            "x": rng.normal(size=n),
        }
    )
    frame["y"] = 2.0 * frame["x"] + 0.1 * rng.normal(size=n)
    return frame


def _cli(*args):
    cmd = [sys.executable, "-m", "kernelstream", *map(str, args)]
    env = dict(os.environ, PYTHONWARNINGS="ignore")
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120, env=env)


def test_dates_become_calendar_features_and_ids_are_left_out(tmp_path):
    # Before: 'date' one-hot encoded as text (8 columns, 292 of 300 days lumped in the
    # last one) and 'id' a feature.
    frame = _frame()
    path = tmp_path / "t.csv"
    frame.to_csv(path, index=False)
    s = stream(path, target="y")
    X, y = next(iter(s))
    names = s.feature_names
    assert "id" not in names and "date[days]" in names
    assert names[:3] == ["date[days]", "date[month]", "date[weekday]"]
    days = pd.to_datetime(frame["date"])
    epoch = (days - pd.Timestamp("1970-01-01")).dt.days.to_numpy()
    np.testing.assert_array_equal(X[:, 0], epoch)
    np.testing.assert_array_equal(X[:, 1], days.dt.month.to_numpy())
    np.testing.assert_array_equal(X[:, 2], days.dt.day_of_week.to_numpy())
    assert X.shape[1] == s.width == 3 + 8 + 1
    assert any("identifier" in n and "'id'" in n for n in s.notes)
    assert any("calendar" in n and "'date'" in n for n in s.notes)


def test_datetime64_column_of_a_dataframe_is_a_date():
    frame = _frame()
    frame["date"] = pd.to_datetime(frame["date"])
    s = stream(frame, target="y")
    X, _ = next(iter(s))
    assert s.feature_names[:3] == ["date[days]", "date[month]", "date[weekday]"]
    assert X[0, 0] == (pd.Timestamp("2021-03-01") - pd.Timestamp("1970-01-01")).days


@pytest.mark.slow
def test_cli_notes_lumped_categories_and_metrics(tmp_path):
    path = tmp_path / "t.csv"
    _frame().to_csv(path, index=False)
    done = _cli("run", "--csv", path, "--learner", "taylor-awv", "--metric", "mae",
                "--metric", "r2")  # fmt: skip
    assert done.returncode == 0, done.stderr
    err = done.stderr
    assert "'id' looks like an identifier" in err and "date column 'date'" in err
    # the 10-value column with 8 columns: 3 values share the last one, named
    assert "lumps 3 later values" in err and "--max-categories 10" in err
    header = next(line for line in done.stdout.splitlines() if line.lstrip().startswith("rounds"))
    assert header.split()[:5] == ["rounds", "loss", "baseline", "mae", "r2"]
    assert "final mae" in done.stdout and "final r2" in done.stdout


@pytest.mark.slow
def test_cli_positive_label_on_a_numeric_target_is_one_line(tmp_path):
    # Before: a 28-line traceback (ValueError), exit 1.
    path = tmp_path / "n.csv"
    path.write_text("a,b,y\n1,2,3\n2,3,4\n3,1,5\n")
    done = _cli("run", "--csv", path, "--positive", "yes")
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("kernelstream: error: "), done.stderr
    assert "'yes' is not a number" in lines[0]
    done = _cli("run", "--csv", path, "--metric", "nope")
    assert done.returncode == 2 and "invalid choice" in done.stderr
