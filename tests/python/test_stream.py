"""``kernelstream.datasets.stream``: CSV (three readers), Parquet, LIBSVM and DataFrames
read in chunks, with online one-hot encoding and imputation; ``evaluate.progressive`` on
chunks; ``OnlineScaled``. References are written from the definitions."""

from __future__ import annotations

import os
import subprocess
import sys

import kernelstream as ks
import numpy as np
import pytest
from kernelstream.datasets import stream
from kernelstream.errors import InputError
from kernelstream.evaluate import OnlineScaled, progressive

READERS = ["pyarrow", "pandas", "csv"]


def _have(mod):
    try:
        __import__(mod)
        return True
    except ImportError:
        return False


def _reader_param(r):
    marks = [] if r == "csv" or _have(r) else [pytest.mark.skip(reason=f"{r} not installed")]
    return pytest.param(r, marks=marks)


@pytest.fixture
def table(tmp_path):
    """A CSV with a text column, missing numbers and a missing target."""
    rng = np.random.default_rng(3)
    n = 57
    a = np.round(rng.normal(size=n), 6)
    b = np.round(100 * rng.uniform(size=n), 3)
    town = rng.choice(["x", "y", "z", "w"], size=n)
    y = np.round(1000 + 50 * a + b, 4)
    lines = ["a,town,b,price"]
    miss_a, miss_t, miss_y = {4, 30}, {9}, {12}
    for i in range(n):
        fa = "" if i in miss_a else repr(float(a[i]))
        ft = "" if i in miss_t else str(town[i])
        fy = "" if i in miss_y else repr(float(y[i]))
        lines.append(f"{fa},{ft},{float(b[i])!r},{fy}")
    path = tmp_path / "t.csv"
    path.write_text("\n".join(lines) + "\n")
    return path, dict(a=a, b=b, town=town, y=y, miss_a=miss_a, miss_t=miss_t, miss_y=miss_y)


def _all(s):
    parts = list(s)
    return np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts]), parts


def _one_hot_reference(values, K):
    """The definition: first K-1 distinct values in order of appearance get a column
    each, later ones the last column; None is all zeros."""
    cats, out = {}, np.zeros((len(values), K))
    for i, v in enumerate(values):
        if v is None:
            continue
        if v not in cats and len(cats) < K - 1:
            cats[v] = len(cats)
        out[i, cats.get(v, K - 1)] = 1.0
    return out


@pytest.mark.parametrize("reader", [_reader_param(r) for r in READERS])
@pytest.mark.parametrize("chunk_rows", [1, 7, 1000])
def test_csv_drop_mode_matches_definition(table, reader, chunk_rows):
    path, t = table
    s = stream(path, target="price", chunk_rows=chunk_rows, reader=reader, max_categories=3)
    X, y, parts = _all(s)
    assert all(p[1].size == chunk_rows for p in parts[:-1]) and parts[-1][1].size <= chunk_rows
    bad = t["miss_a"] | t["miss_t"] | t["miss_y"]
    keep = np.array([i not in bad for i in range(t["y"].size)])
    town = [str(v) for v in t["town"][keep]]
    want = np.column_stack([t["a"][keep], _one_hot_reference(town, 3), t["b"][keep]])
    np.testing.assert_array_equal(X, want)
    np.testing.assert_array_equal(y, t["y"][keep])
    assert s.rows_read == t["y"].size and s.rows_dropped == len(bad)
    assert s.feature_names == ["a", "town[0]", "town[1]", "town[2]", "b"]
    assert s.categories == {"town": town_order(town)[:2]}
    own = town_order(town)[:2]
    assert s.values_in_last_category == {"town": sum(v not in own for v in town)}


def town_order(values):
    seen = []
    for v in values:
        if v not in seen:
            seen.append(v)
    return seen


@pytest.mark.parametrize("reader", [_reader_param(r) for r in READERS])
def test_csv_impute_mode_uses_only_earlier_rows(table, reader):
    path, t = table
    s = stream(path, target="price", chunk_rows=5, reader=reader, missing="impute", drop=["town"])
    X, y, _ = _all(s)
    keep = np.array([i not in t["miss_y"] for i in range(t["y"].size)])
    a = t["a"].copy()
    seen = []  # rows kept so far whose a is present
    for i in range(a.size):
        if i in t["miss_a"]:
            a[i] = np.mean(seen) if seen else 0.0
        elif keep[i]:
            seen.append(a[i])
    np.testing.assert_allclose(X[:, 0], a[keep], rtol=1e-12)
    np.testing.assert_array_equal(X[:, 1], t["b"][keep])
    assert s.values_imputed == len(t["miss_a"]) and s.rows_dropped == len(t["miss_y"])


def test_readers_agree_and_last_row_changes_nothing_before(table, tmp_path):
    """No look-ahead: a new last row (a new category, a new value) changes no earlier row."""
    path, _ = table
    readers = [r for r in READERS if r == "csv" or _have(r)]
    ref = None
    for r in readers:
        X, y, _ = _all(stream(path, chunk_rows=8, reader=r, missing="impute"))
        if ref is None:
            ref = (X, y)
        np.testing.assert_array_equal(X, ref[0])
        np.testing.assert_array_equal(y, ref[1])
    other = tmp_path / "other.csv"
    lines = path.read_text().splitlines()
    lines[-1] = "-7.5,v,3.25,42"
    other.write_text("\n".join(lines) + "\n")
    X2, y2, _ = _all(stream(other, chunk_rows=8, missing="impute"))
    np.testing.assert_array_equal(X2[:-1], ref[0][:-1])
    np.testing.assert_array_equal(y2[:-1], ref[1][:-1])


def test_parquet_and_dataframes_give_the_csv_chunks(table, tmp_path):
    pd = pytest.importorskip("pandas")
    path, _ = table
    frame = pd.read_csv(path)
    want_X, want_y, _ = _all(stream(path, chunk_rows=10, missing="impute", reader="csv"))

    def same(got):  # imputed means are sums in another order: equal to rounding
        np.testing.assert_allclose(got[0], want_X, rtol=1e-14, atol=0)
        np.testing.assert_array_equal(got[1], want_y)

    same(_all(stream(frame, target="price", chunk_rows=10, missing="impute")))
    if _have("pyarrow"):
        pq = tmp_path / "t.parquet"
        frame.to_parquet(pq, row_group_size=9)
        same(_all(stream(pq, target="price", chunk_rows=10, missing="impute")))


@pytest.mark.slow
def test_dask_partitions_in_order_give_the_csv_chunks(table):
    pd = pytest.importorskip("pandas")
    dd = pytest.importorskip("dask.dataframe")
    path, _ = table
    want_X, want_y, _ = _all(stream(path, chunk_rows=10, missing="impute", reader="csv"))
    ddf = dd.from_pandas(pd.read_csv(path), npartitions=4)
    got = _all(stream(ddf, target="price", chunk_rows=10, missing="impute"))
    np.testing.assert_allclose(got[0], want_X, rtol=1e-14, atol=0)
    np.testing.assert_array_equal(got[1], want_y)


def test_parquet_without_pyarrow_says_what_to_install(tmp_path):
    p = tmp_path / "x.parquet"
    p.write_bytes(b"PAR1")
    code = (
        "import sys; sys.modules['pyarrow'] = None\n"
        "from kernelstream.datasets import stream\n"
        f"try:\n    stream({str(p)!r})\nexcept ValueError as e:\n    print(e)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert "needs pyarrow" in done.stdout and "kernelstream[stream]" in done.stdout, done


def test_libsvm_chunks_equal_load_libsvm(tmp_path):
    p = tmp_path / "d.svm"
    p.write_text("1 1:0.5 3:2\n-1 2:1.5\n1 1:-1 # comment\n-1 3:4 2:1\n1\n")
    X, y, parts = _all(stream(p, chunk_rows=2))
    want_X, want_y = ks.datasets.load_libsvm(p)
    np.testing.assert_array_equal(X, want_X)
    np.testing.assert_array_equal(y, want_y)
    assert [c[1].size for c in parts] == [2, 2, 1]
    np.testing.assert_array_equal(_all(stream(p, chunk_rows=1, n_features=5))[0][:, :3], want_X)
    wider = tmp_path / "w.svm"
    wider.write_text("1 1:1\n-1 5:2\n")
    with pytest.raises(InputError, match="n_features"):
        list(stream(wider, chunk_rows=1))  # the first chunk fixes the width at 1


def test_csv_errors_are_input_errors(tmp_path):
    cases = {
        "ragged.csv": ("a,b,y\n1,2,3\n4,5\n", "field"),
        "empty.csv": ("", "empty"),
        "header.csv": ("a,b,y\n", "no rows"),
        "twice.csv": ("a,a,y\n1,2,3\n", "twice"),
        "inf.csv": ("a,y\n1," + "9" * 400 + "\n2,3\n", "finite"),
        "text_target.csv": ("a,y\n1,x\n2,z\n", "text"),
    }
    for name, (text, frag) in cases.items():
        p = tmp_path / name
        p.write_text(text)
        for reader in [r for r in READERS if r == "csv" or _have(r)]:
            if name == "ragged.csv" and reader == "pandas":
                continue  # pandas pads a short line with empty fields (documented)
            with pytest.raises(InputError, match=frag):
                list(stream(p, reader=reader))
    ok = tmp_path / "ok.csv"
    ok.write_text("a,y\n1,2\n")
    with pytest.raises(InputError, match="no column 'q'"):
        stream(ok, target="q")
    with pytest.raises(InputError, match="to drop"):
        stream(ok, drop=["q"])
    with pytest.raises(InputError, match="chunk_rows"):
        stream(ok, chunk_rows=0)
    with pytest.raises(FileNotFoundError):
        stream(tmp_path / "nope.csv")


_WIDE = """
import sys, time
from kernelstream.datasets import stream, load_csv
for path in sys.argv[2:]:
    for reader in sys.argv[1].split(","):
        t0 = time.perf_counter()
        try:
            if reader == "load_csv":
                load_csv(path)
            else:
                list(stream(path, reader=reader))
            print("accepted", reader, path)
        except ValueError as exc:
            print("refused", reader, round(time.perf_counter() - t0, 2), str(exc)[:150])
"""


@pytest.mark.slow
def test_a_line_of_three_million_fields_is_refused_quickly(tmp_path):
    """A CSV line with 3 million fields (the header, or a data row) is refused by every
    reader and by load_csv, each within seconds (the header's width is counted before it
    is parsed; a data line is bounded by the reader's block or line length)."""
    wide = ",".join(["1"] * 3_000_000)
    head, row = tmp_path / "head.csv", tmp_path / "row.csv"
    head.write_text(wide + "\n1,2\n")
    row.write_text("a,b,y\n1,2,3\n" + wide + "\n")
    readers = [r for r in READERS if r == "csv" or _have(r)] + ["load_csv"]
    done = subprocess.run(
        [sys.executable, "-c", _WIDE, ",".join(readers), str(head), str(row)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    lines = done.stdout.splitlines()
    assert len(lines) == 2 * len(readers), (done.stdout, done.stderr[-2000:])
    assert all(line.startswith("refused") for line in lines), done.stdout


def test_progressive_on_chunks_equals_progressive_on_arrays(rng):
    X = rng.uniform(-1, 1, size=(700, 3))
    y = np.sin(2 * X[:, 0]) + X[:, 1] * X[:, 2]
    whole = progressive(ks.TaylorAWV(degree=3), X, y, progress=False)
    chunks = [(X[i : i + 97], y[i : i + 97]) for i in range(0, 700, 97)]
    seen = []
    parts = progressive(
        ks.TaylorAWV(degree=3),
        chunks,
        progress=False,
        checkpoints=[10, 100, 700],
        on_chunk=lambda yc, p: seen.append(p),
    )
    np.testing.assert_allclose(np.concatenate(seen), whole.predictions, rtol=1e-10, atol=1e-12)
    assert parts.rounds.tolist() == [10, 100, 700] and parts.predictions.size == 0
    np.testing.assert_allclose(parts.loss[-1], whole.loss[-1], rtol=1e-10)
    # the baseline: the running mean of the past targets (0 first), from the definition
    mean = np.r_[0.0, np.cumsum(y)[:-1] / np.arange(1, 700)]
    want = np.cumsum((mean - y) ** 2) / np.arange(1, 701)
    np.testing.assert_allclose(parts.baseline, want[[9, 99, 699]], rtol=1e-12)
    np.testing.assert_allclose(whole.baseline[-1], want[-1], rtol=1e-12)
    # AutoKernel consumes chunks the same way
    auto = progressive(ks.AutoKernel(warmup=50), chunks, progress=False)
    assert auto.n_rounds == 700 and np.isfinite(auto.loss[-1])


def test_online_scaled_answers_in_target_units_without_look_ahead(rng):
    X = 1e3 * rng.normal(size=(400, 2)) + 5e4
    y = 2.5e5 + 1e4 * np.tanh((X[:, 0] - 5e4) / 1e3)
    a = OnlineScaled(ks.TaylorAWV(degree=3))
    pa = np.concatenate(
        [a.progressive_predict(X[i : i + 64], y[i : i + 64]) for i in range(0, 400, 64)]
    )
    b = OnlineScaled(ks.TaylorAWV(degree=3))
    y2 = y.copy()
    y2[-1] = -9e9  # the last target changes no prediction (not even its own)
    pb = b.progressive_predict(X, y2)
    np.testing.assert_allclose(pa, pb, rtol=1e-9)
    # the predictions are in the target's units: far better than the running mean
    mean = np.r_[0.0, np.cumsum(y)[:-1] / np.arange(1, 400)]
    assert np.mean((pa[200:] - y[200:]) ** 2) < 0.2 * np.mean((mean[200:] - y[200:]) ** 2)
    # row t is mapped back with the targets of rows < t: row 2 uses mean(y0, y1), std of both
    inner = OnlineScaled(ks.TaylorAWV(degree=3))
    p = inner.progressive_predict(X[:3], y[:3])
    assert p[0] == 0.0 and p[1] == y[0]


def test_online_min_max_stays_in_the_box(rng):
    from kernelstream.evaluate.scaled import OnlineMinMax

    X = rng.normal(size=(200, 3)) * [1, 10, 0]
    mm = OnlineMinMax(0.0, 1.0)
    Z = np.concatenate([mm.learn_transform(X[i : i + 33]) for i in range(0, 200, 33)])
    assert Z.min() >= 0.0 and Z.max() <= 1.0 and np.all(Z[:, 2] == 0.5)
    lo = np.minimum.accumulate(X[:, 0])
    hi = np.maximum.accumulate(X[:, 0])
    want = np.where(hi > lo, (X[:, 0] - lo) / np.where(hi > lo, hi - lo, 1), 0.5)
    np.testing.assert_allclose(Z[:, 0], want, rtol=1e-12)


@pytest.mark.slow
def test_stream_memory_does_not_grow():
    """The benchmark of the streaming CLI: 3M rows peak below 200 MB and below 1.1x the
    peak of 300k rows, as CSV and as Parquet (a minute or two; it writes ~270 MB of files)."""
    done = subprocess.run(
        [sys.executable, os.path.join("tools", "bench_stream_memory.py"), "--check"],
        capture_output=True, text=True, timeout=1800,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
