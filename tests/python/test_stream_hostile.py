"""Files and frames that once broke the readers: each is read like the others or refused
with one InputError naming the file (and line, column or partition), never a pandas,
Arrow, lzma or Unicode error."""

from __future__ import annotations

import gzip
import importlib.util
import lzma
import subprocess
import sys

import kernelstream as ks
import numpy as np
import pytest
from kernelstream.datasets import stream
from kernelstream.errors import InputError


def _has(module: str) -> bool:
    return importlib.util.find_spec(module) is not None


# The readers this install has (the csv module always; pyarrow and pandas when installed).
READERS = [r for r in ("pyarrow", "pandas", "csv") if r == "csv" or _has(r)]
TEXT = b"a,b\n1,2\n3,4\n5,6\n"


def _rows(path, **kw):
    return [(X.tolist(), y.tolist()) for X, y in stream(path, **kw)]


@pytest.mark.parametrize("reader", READERS)
def test_a_csv_xz_reads_like_the_plain_file(tmp_path, reader):
    plain, xz = tmp_path / "t.csv", tmp_path / "t.csv.xz"
    plain.write_bytes(TEXT)
    xz.write_bytes(lzma.compress(TEXT))
    assert (
        _rows(xz, reader=reader)
        == _rows(plain, reader=reader)
        == [([[1.0], [3.0], [5.0]], [2.0, 4.0, 6.0])]
    )


@pytest.mark.parametrize("reader", READERS)
def test_a_byte_order_mark_and_spaces_around_names_are_read(tmp_path, reader):
    path = tmp_path / "bom.csv"
    path.write_bytes(b"\xef\xbb\xbf a , b \n1,2\n3,4\n")
    s = stream(path, target="b", reader=reader)
    assert s.columns == ["a", "b"]
    assert _rows(path, target="b", reader=reader) == [([[1.0], [3.0]], [2.0, 4.0])]


@pytest.mark.parametrize("reader", READERS)
@pytest.mark.parametrize("suffix", [".gz", ".xz"])
def test_a_truncated_compressed_file_is_an_input_error(tmp_path, reader, suffix):
    body = b"a,b\n" + b"1,2\n" * 20000
    packed = gzip.compress(body) if suffix == ".gz" else lzma.compress(body)
    path = tmp_path / f"t.csv{suffix}"
    path.write_bytes(packed[: len(packed) // 2])
    with pytest.raises(InputError, match="t.csv"):  # before (csv module): bare EOFError
        _rows(path, reader=reader)


@pytest.mark.parametrize("reader", READERS)
@pytest.mark.parametrize("content", [b"a,b\n1,2\n", "damaged"], ids=["misnamed", "damaged"])
def test_a_damaged_or_misnamed_xz_is_an_input_error(tmp_path, reader, content):
    if content == "damaged":
        raw = bytearray(lzma.compress(b"a,b\n" + b"1,2\n" * 100))
        raw[30] ^= 0xFF
        content = bytes(raw)
    path = tmp_path / "t.csv.xz"
    path.write_bytes(content)
    with pytest.raises(InputError, match=r"t\.csv\.xz is not a readable \.xz file"):
        stream(path, reader=reader)  # before: lzma.LZMAError


@pytest.mark.slow
def test_the_cli_reports_a_damaged_xz_in_one_line(tmp_path):
    path = tmp_path / "t.csv.xz"
    path.write_bytes(b"a,b\n1,2\n")
    done = subprocess.run(
        [sys.executable, "-m", "kernelstream.cli", "run", "--csv", str(path)],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 2
    assert done.stderr.startswith("kernelstream: error: ") and done.stderr.count("\n") == 1


def test_the_pandas_reader_refuses_a_long_line_before_parsing(tmp_path):
    pytest.importorskip("pandas")
    path = tmp_path / "long.csv"
    with open(path, "wb") as fh:  # one field of 8 MiB: pandas read it as a row before
        fh.write(b"a,b,c\n1,2,3\n" + b"x" * (8 << 20) + b"\n4,5,6\n")
    with pytest.raises(InputError, match=r"long\.csv:3: a line longer than"):
        _rows(path, reader="pandas")


def test_a_file_replaced_after_its_header_was_read_is_refused(tmp_path):
    pytest.importorskip("pyarrow")  # the default reader when it is installed
    path = tmp_path / "t.csv"
    path.write_bytes(TEXT)
    s = stream(path, reader="pyarrow")
    path.write_bytes(b"p,q,r\n1,2,3\n")
    with pytest.raises(InputError, match=r"t\.csv"):  # the pass opened before: width
        list(s)
    with pytest.raises(InputError, match="changed since its header was read"):
        list(s)  # a new pass reads the file again (before: KeyError)


def test_integer_and_multiindex_column_labels_are_read():
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame(np.arange(60.0).reshape(20, 3))
    s = stream(frame)
    assert s.columns == ["0", "1", "2"] and s.target == "2"
    X, y = next(iter(s))  # before: KeyError: '0'
    assert X.tolist() == frame[[0, 1]].to_numpy().tolist() and y.tolist() == frame[2].tolist()
    assert next(iter(stream(frame, target=0)))[1].tolist() == frame[0].tolist()
    multi = frame.copy()
    multi.columns = pd.MultiIndex.from_tuples([("x", "a"), ("x", "b"), ("price", "")])
    s = stream(multi)
    assert s.columns == ["x_a", "x_b", "price"] and s.target == "price"
    assert next(iter(s))[0].tolist() == X.tolist()
    assert stream(multi, target=("x", "a")).target == "x_a"
    clash = frame.copy()
    clash.columns = pd.MultiIndex.from_tuples([("x", "a"), ("x_a", ""), ("y", "")])
    with pytest.raises(InputError, match="two columns of the same name 'x_a'"):
        stream(clash)


def _dask_frame(second):
    pd = pytest.importorskip("pandas")
    dd = pytest.importorskip("dask.dataframe")
    import dask

    first = pd.DataFrame({"x": np.arange(5.0), "y": np.arange(5.0)})
    parts = [dask.delayed(lambda: first)(), dask.delayed(lambda: second)()]
    return dd.from_delayed(parts, meta=first, verify_meta=False)


def test_a_dask_partition_that_changes_type_or_loses_a_column_is_named():
    pd = pytest.importorskip("pandas")
    text = _dask_frame(pd.DataFrame({"x": list("uvwxy"), "y": np.arange(5.0)}))
    with pytest.raises(InputError, match=r"partition 1 of 2: column 'x'"):
        list(stream(text))
    lost = _dask_frame(pd.DataFrame({"y": np.arange(5.0)}))
    with pytest.raises(InputError, match=r"partition 1 of 2 has no column 'x'"):
        list(stream(lost))


def test_a_non_ascii_byte_in_libsvm_names_file_and_line(tmp_path):
    path = tmp_path / "t.svm"
    path.write_bytes(b"1 1:0.5\n-1 1:0.25\n1 2:\xe9\n")
    with pytest.raises(InputError, match=r"t\.svm:3: .*0xe9"):  # before: UnicodeDecodeError
        list(stream(path))


@pytest.mark.parametrize("index", [10**12, 5 * 10**7])
def test_a_libsvm_index_too_wide_for_the_ceiling_is_refused_before_allocating(tmp_path, index):
    path = tmp_path / "t.svm"
    path.write_text(f"1 1:0.5\n-1 {index}:1\n")
    before = ks.get_memory_limit()
    ks.set_memory_limit(256 << 20)  # 2 rows x 5e7 doubles: 763 MiB
    try:
        with pytest.raises(InputError, match=rf"2 rows x {index} columns.*memory ceiling"):
            list(stream(path))  # before: MemoryError, or 800 MB allocated
    finally:
        ks.set_memory_limit(before)


def test_max_categories_beyond_the_ceiling_is_refused_naming_it(tmp_path):
    path = tmp_path / "t.csv"
    # 40 categories, each repeated (a column of all-distinct values is left out as an id)
    path.write_text("a,c,y\n" + "".join(f"{i},k{i % 40},{i}\n" for i in range(200)))
    before = ks.get_memory_limit()
    ks.set_memory_limit(64 << 20)
    try:
        with pytest.raises(InputError, match=r"max_categories=200000.*memory ceiling"):
            list(stream(path, max_categories=200_000))
    finally:
        ks.set_memory_limit(before)
    assert next(iter(stream(path, max_categories=20)))[0].shape == (200, 21)


def _parquet(path, table):
    pq = pytest.importorskip("pyarrow.parquet")
    pq.write_table(table, path)
    return path


def test_parquet_nested_and_duplicate_columns_are_named(tmp_path):
    pa = pytest.importorskip("pyarrow")
    nested = _parquet(tmp_path / "n.parquet", pa.table(
        {"a": [[1, 2], [3]], "s": [{"u": 1}, {"u": 2}], "b": [1.0, 2.0], "y": [1.0, 2.0]}
    ))  # fmt: skip
    with pytest.raises(InputError, match=r"column 'a' holds list"):
        list(stream(nested))
    with pytest.raises(InputError, match=r"column 's' holds struct"):
        list(stream(nested, drop=["a"]))
    assert next(iter(stream(nested, drop=["a", "s"])))[0].tolist() == [[1.0], [2.0]]
    arrays = [pa.array([1.0, 2.0])] * 3
    dup = _parquet(tmp_path / "d.parquet", pa.Table.from_arrays(arrays, names=["a", "a", "y"]))
    with pytest.raises(InputError, match="two columns are named 'a'"):
        stream(dup)


def test_impute_on_values_near_the_largest_double_gives_their_finite_mean(tmp_path):
    path = tmp_path / "big.csv"
    rows = [(1.5e308 if i % 3 else None, i) for i in range(30)]
    path.write_text("a,y\n" + "".join(f"{'' if a is None else a},{y}\n" for a, y in rows))
    X = np.concatenate([X for X, _ in stream(path, missing="impute", chunk_rows=7)])
    # rows 0, 3, 6, ... are missing: 0 first, then the mean of the values before: 1.5e308
    assert np.isfinite(X).all()
    assert X[0, 0] == 0.0 and np.all(X[1:, 0] == 1.5e308)


def test_impute_means_are_unchanged_for_ordinary_values(tmp_path):
    path = tmp_path / "t.csv"
    vals = [0.1, None, 0.7, 0.2, None, 1e-3, None]
    path.write_text("a,y\n" + "".join(f"{'' if v is None else v},1\n" for v in vals))
    X = np.concatenate([X for X, _ in stream(path, missing="impute", chunk_rows=3)])
    seen, want = [], []
    for v in vals:
        want.append(v if v is not None else (sum(seen) / len(seen) if seen else 0.0))
        if v is not None:
            seen.append(v)
    np.testing.assert_allclose(X[:, 0], want, rtol=1e-15)
