"""Data loading, the LIBSVM reader and the papers' preprocessing."""

from __future__ import annotations

import gzip

import kernelstream as ks
import numpy as np
import pytest
from kernelstream import datasets


def test_load_shared_csv(data_dir):
    X, y = datasets.load("airfoil", data_dir)
    assert X.shape == (1503, 5) and y.shape == (1503,)
    # first row of the UCI file: 800 Hz, 0 deg, 0.3048 m, 71.3 m/s, 0.00266337 m -> 126.201 dB
    with gzip.open(data_dir / "airfoil.csv.gz", "rt") as fh:
        fh.readline()
        first = [float(v) for v in fh.readline().strip().split(",")]
    np.testing.assert_array_equal(np.r_[X[0], y[0]], first)


def test_load_uses_environment_variable(data_dir, monkeypatch):
    monkeypatch.setenv("KERNELSTREAM_DATA", str(data_dir))
    X, y = datasets.load("concrete")
    assert X.shape == (1030, 8)


@pytest.mark.slow
def test_missing_values_are_nan_and_droppable(data_dir):
    X, y = datasets.load("bias", data_dir)
    # The facts come from the file itself, read independently of the loader: empty fields.
    with gzip.open(data_dir / "bias.csv.gz", "rt") as fh:
        header = fh.readline().strip().split(",")
        rows = [line.rstrip("\n").split(",") for line in fh]
    incomplete = sum(any(v == "" for v in row) for row in rows)
    assert incomplete > 0 and X.shape == (len(rows), len(header) - 1)
    assert np.isnan(X).sum() + np.isnan(y).sum() == sum(v == "" for row in rows for v in row)
    Xc, yc, dropped = datasets.drop_missing(X, y)
    assert dropped == incomplete and Xc.shape[0] == len(rows) - incomplete
    assert not np.isnan(Xc).any() and not np.isnan(yc).any()


def test_impute_mean_fills_each_column_with_its_mean(data_dir):
    X, y = datasets.load("bias", data_dir)
    Xi, yi, n = datasets.impute_mean(X, y)
    assert n == np.isnan(X).sum() + np.isnan(y).sum() > 0
    assert not np.isnan(Xi).any() and not np.isnan(yi).any()
    for col, filled in [(X[:, j], Xi[:, j]) for j in range(X.shape[1])] + [(y, yi)]:
        seen = ~np.isnan(col)
        np.testing.assert_array_equal(filled[seen], col[seen])
        # two summation orders of n terms differ by at most n eps mean(|x|)
        tol = seen.sum() * np.finfo(float).eps * np.mean(np.abs(col[seen]))
        np.testing.assert_allclose(filled[~seen], np.mean(col[seen]), rtol=0, atol=tol)
    with pytest.raises(ks.InputError):
        datasets.impute_mean(np.array([[np.nan], [np.nan]]), np.array([1.0, 2.0]))


def test_missing_dataset_names_the_path(tmp_path):
    with pytest.raises(FileNotFoundError) as info:
        datasets.load("no-such-dataset", tmp_path)
    assert str(tmp_path / "no-such-dataset.csv.gz") in str(info.value)


def test_libsvm_reader(tmp_path):
    path = tmp_path / "small.svm"
    path.write_text("+1 1:0.5 3:-2\n-1 2:1e-3 # comment\n\n1 4:7\n")
    X, y = datasets.load_libsvm(path)
    np.testing.assert_array_equal(y, [1, -1, 1])
    np.testing.assert_array_equal(X, [[0.5, 0, -2, 0], [0, 1e-3, 0, 0], [0, 0, 0, 7]])
    X6, _ = datasets.load_libsvm(path, n_features=6)
    assert X6.shape == (3, 6)
    bad = tmp_path / "bad.svm"
    bad.write_text("1 0:3\n")
    with pytest.raises(ks.InputError):
        datasets.load_libsvm(bad)


def test_scale_minmax_and_row_norm(rng):
    X = rng.normal(size=(50, 3)) * [1, 10, 100]
    X[:, 2] = 4.0  # constant column
    y = rng.normal(size=50)
    Xs, ys = datasets.scale(X, y, x_range=(-1, 1), y_range=(0, 1))
    np.testing.assert_allclose(Xs[:, :2].min(axis=0), -1)
    np.testing.assert_allclose(Xs[:, :2].max(axis=0), 1)
    assert np.all(Xs[:, 2] == 0.0)
    assert ys.min() == 0 and ys.max() == 1
    Xn, _ = datasets.scale(X, None, x_range=(0, 1), row_norm=True)
    assert np.max(np.linalg.norm(Xn, axis=1)) == pytest.approx(1.0)


def test_shuffle_is_seeded(rng):
    X = np.arange(20.0).reshape(10, 2)
    y = np.arange(10.0)
    a = datasets.shuffle(X, y, 3)
    b = datasets.shuffle(X, y, 3)
    np.testing.assert_array_equal(a[0], b[0])
    np.testing.assert_array_equal(a[0][:, 0] / 2, a[1])
    assert not np.array_equal(a[1], datasets.shuffle(X, y, 4)[1])
    assert sorted(a[1]) == list(y)


def test_synthetic_default_stream_is_seeded():
    X1, y1 = datasets.synthetic.friedman_stream(500, seed=1)
    X2, y2 = datasets.synthetic.friedman_stream(500, seed=1)
    np.testing.assert_array_equal(y1, y2)
    assert X1.shape == (500, 5) and np.all(np.abs(X1) <= 1)


def test_load_csv_refuses_bad_files_with_input_error(tmp_path):
    ok = tmp_path / "ok.csv"
    ok.write_text("a,b,y\n1,2,3\n4,5,6\n")
    X, y = datasets.load_csv(ok, target=0)
    np.testing.assert_array_equal(y, [1, 4])
    np.testing.assert_array_equal(X, [[2, 3], [5, 6]])
    for target in (5, -4, "nope"):
        with pytest.raises(ks.InputError):
            datasets.load_csv(ok, target=target)
    bad = {
        "ragged.csv": "a,b,y\n1,2,3\n4,5\n",
        "text.csv": "a,b,y\n1,x,3\n",
        "huge.csv": "a,y\n1," + "9" * 400 + "\n",
        "inf.csv": "a,y\n1,1e999\n",
        "empty.csv": "",
        "header.csv": "a,y\n",
    }
    for name, text in bad.items():
        (tmp_path / name).write_text(text)
        with pytest.raises(ks.InputError):
            datasets.load_csv(tmp_path / name)
    with pytest.raises(ks.InputError):
        datasets.load_csv(tmp_path)
    (tmp_path / "bin.csv").write_bytes(bytes(range(256)) * 4)
    with pytest.raises(ks.InputError):
        datasets.load_csv(tmp_path / "bin.csv")
