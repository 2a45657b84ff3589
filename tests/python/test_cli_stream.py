"""``kernelstream run --csv``: answers in the target's units, online scaling without
look-ahead, text columns, missing values, the baseline, the learner list and --version."""

from __future__ import annotations

import re

import numpy as np
import pytest
from kernelstream.cli import LEARNERS, main


def _house_prices(path, n=600, seed=0, last=None):
    """Prices around 250,000 from areas around 200 m^2 and a town (text)."""
    rng = np.random.default_rng(seed)
    area = np.round(rng.uniform(80, 320, n), 1)
    rooms = rng.integers(1, 7, n)
    town = rng.choice(["north", "south", "east"], n)
    bonus = {"north": 30000.0, "south": 0.0, "east": -20000.0}
    price = np.round(
        150000 + 450 * area + 8000 * np.sin(rooms) + [bonus[t] for t in town]
        + rng.normal(0, 3000, n), 2
    )  # fmt: skip
    rows = [f"{a},{r},{t},{p}" for a, r, t, p in zip(area, rooms, town, price)]
    if last is not None:
        rows[-1] = last
    path.write_text("area,rooms,town,price\n" + "\n".join(rows) + "\n")
    return price


def _saved(path):
    data = np.loadtxt(path, delimiter=",", skiprows=1, ndmin=2)
    return data[:, 0], data[:, 1]


def _final(out):
    m = re.search(r"final average squared loss (\S+)", out)
    b = re.search(r"baseline \(the running mean of the past targets\) (\S+);", out)
    return float(m.group(1)), float(b.group(1))


@pytest.mark.slow
@pytest.mark.parametrize("learner", ["auto-kernel", "taylor-awv"])
def test_loss_and_predictions_in_target_units_without_look_ahead(tmp_path, capsys, learner):
    f1, f2 = tmp_path / "a.csv", tmp_path / "b.csv"
    price = _house_prices(f1)
    _house_prices(f2, last="9999,9,west,1")  # a new town, absurd values, in the last row
    p1, p2, p3 = tmp_path / "p1.csv", tmp_path / "p2.csv", tmp_path / "p3.csv"
    args = ["run", "--learner", learner, "--target", "price", "--no-progress"]
    if learner == "taylor-awv":
        args += ["--degree", "2"]
    assert main([*args, "--csv", str(f1), "--save-predictions", str(p1)]) == 0
    out = capsys.readouterr().out
    assert main([*args, "--csv", str(f2), "--save-predictions", str(p2)]) == 0
    assert main([*args, "--csv", str(f1), "--save-predictions", str(p3), "--chunk-rows", "64"]) == 0
    capsys.readouterr()
    y1, pred1 = _saved(p1)
    y2, pred2 = _saved(p2)
    _, pred3 = _saved(p3)
    np.testing.assert_array_equal(y1, price)  # the target as in the file
    np.testing.assert_array_equal(y2[:-1], y1[:-1])
    # changing the last row changes no earlier prediction (to rounding: the run's pieces
    # are timed, and a learner's blocks of rounds follow the pieces; a look-ahead through
    # the absurd last row would move every prediction by far more)
    np.testing.assert_allclose(pred2[:-1], pred1[:-1], rtol=1e-12, atol=0)
    assert pred2[-1] != pred1[-1] or learner == "auto-kernel"
    # nor does reading in other chunks (up to rounding: sums in another order)
    np.testing.assert_allclose(pred3, pred1, rtol=1e-9, atol=1e-6)
    # the loss printed is the saved predictions' squared error, in the target's units
    loss, baseline = _final(out)
    assert loss == pytest.approx(np.mean((pred1 - y1) ** 2), rel=1e-5)
    mean = np.r_[0.0, np.cumsum(y1)[:-1] / np.arange(1, y1.size)]
    assert baseline == pytest.approx(np.mean((mean - y1) ** 2), rel=1e-5)
    # a useful learner in those units: predictions near 250,000, far better than the baseline
    assert 1e5 < np.median(pred1) < 5e5
    assert np.mean((pred1[300:] - y1[300:]) ** 2) < 0.1 * np.mean((mean[300:] - y1[300:]) ** 2)


def test_text_columns_drop_and_missing_values(tmp_path, capsys):
    f = tmp_path / "h.csv"
    _house_prices(f, n=200)
    lines = f.read_text().splitlines()
    lines[5] = ",3,north,200000"  # a missing area
    f.write_text("\n".join(lines) + "\n")
    assert main(["run", "--csv", str(f), "--no-progress", "--learner", "taylor-awv"]) == 0
    cap = capsys.readouterr()
    assert "d=10" in cap.out and "199 rounds" in cap.out
    assert "dropped 1 rows" in cap.err and "'town' one-hot encoded online: 3 categories" in cap.err
    assert main(["run", "--csv", str(f), "--no-progress", "--drop", "town", "--missing",
                 "impute"]) == 0  # fmt: skip
    cap = capsys.readouterr()
    assert "d=2" in cap.out and "200 rounds" in cap.out and "imputed 1 missing" in cap.err


def test_classification_from_labels_or_positive(tmp_path, capsys):
    rng = np.random.default_rng(1)
    X = rng.normal(size=(300, 2))
    lab = np.where(X[:, 0] + X[:, 1] > 0, "yes", "no")
    f = tmp_path / "c.csv"
    f.write_text("a,b,label\n" + "".join(f"{a},{b},{c}\n" for (a, b), c in zip(X, lab)))
    assert main(["run", "--csv", str(f), "--positive", "yes", "--no-progress",
                 "--learner", "taylor-awv"]) == 0  # fmt: skip
    out = capsys.readouterr().out
    assert "task=classification" in out and "baseline (the majority label so far)" in out
    err = float(re.search(r"final error rate (\S+);", out).group(1))
    assert err < 0.2
    f01 = tmp_path / "c01.csv"
    f01.write_text("a,b,y\n" + "".join(f"{a},{b},{int(c == 'yes')}\n" for (a, b), c in zip(X, lab)))
    assert main(["run", "--csv", str(f01), "--no-progress", "--learner", "fogd"]) == 0
    assert "task=classification" in capsys.readouterr().out


def test_version_is_one_short_line_and_info_has_the_build(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["--version"])
    assert exc.value.code == 0
    out = capsys.readouterr().out
    assert out.count("\n") == 1 and len(out) < 40 and out.startswith("kernelstream ")
    assert main(["info"]) == 0
    info = capsys.readouterr().out
    assert info.startswith(out.strip())


def test_learner_list_has_auto_kernel_and_mixture_and_defaults_to_auto_kernel(capsys):
    import kernelstream as ks

    assert {"auto-kernel", "mixture"} <= set(LEARNERS)
    public = {n for n in ks.__all__ if isinstance(getattr(ks, n), type)
              and issubclass(getattr(ks, n), ks.learners.base.Learner)}  # fmt: skip
    assert public - {"Learner"} <= set(LEARNERS.values()), public - set(LEARNERS.values())
    assert main(["run", "--n", "400", "--no-progress"]) == 0
    assert capsys.readouterr().out.startswith("AutoKernel(")


def test_dataset_runs_through_the_stream(capsys, data_dir):
    assert main(["run", "--dataset", "airfoil", "--limit", "300", "--learner", "taylor-awv",
                 "--degree", "2", "--no-progress", "--data-home", str(data_dir)]) == 0  # fmt: skip
    assert "300 rounds" in capsys.readouterr().out


def test_parquet_and_libsvm_files_run(tmp_path, capsys):
    pytest.importorskip("pyarrow")
    pd = pytest.importorskip("pandas")
    f = tmp_path / "h.csv"
    _house_prices(f, n=300)
    pq = tmp_path / "h.parquet"
    pd.read_csv(f).to_parquet(pq, row_group_size=50)
    for path in (f, pq):
        out = tmp_path / f"{path.suffix[1:]}.pred"
        assert main(["run", "--csv", str(path), "--learner", "taylor-awv", "--no-progress",
                     "--save-predictions", str(out)]) == 0  # fmt: skip
        assert "300 rounds" in capsys.readouterr().out
    np.testing.assert_array_equal(
        _saved(tmp_path / "csv.pred")[1], _saved(tmp_path / "parquet.pred")[1]
    )
    svm = tmp_path / "d.svm"
    svm.write_text("".join(f"{(-1) ** i} 1:{i / 10} 3:{(i * 7) % 5}\n" for i in range(120)))
    assert main(["run", "--csv", str(svm), "--learner", "fogd", "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "task=classification" in out and "120 rounds" in out and "d=3" in out


def test_time_budget_stops_a_stream(tmp_path, capsys):
    f = tmp_path / "h.csv"
    _house_prices(f, n=20000)
    assert main(["run", "--csv", str(f), "--learner", "kernel-awv", "--no-progress",
                 "--time-budget", "0.05", "--chunk-rows", "1000"]) == 0  # fmt: skip
    out = capsys.readouterr().out
    assert "stopped by the time budget" in out
    assert int(re.search(r"(\d+) rounds in", out).group(1)) < 20000
