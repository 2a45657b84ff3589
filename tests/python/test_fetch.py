"""Downloading datasets: a local HTTP server on 127.0.0.1 serves a temporary directory
(no test reaches the internet). Checksums, the cache, refusal of damaged or cut-short
downloads, and the LIBSVM / UCI converters on small files in the upstream formats."""

from __future__ import annotations

import bz2
import functools
import gzip
import hashlib
import http.server
import os
import shutil
import subprocess
import sys
import threading
import time
import zipfile

import kernelstream as ks
import numpy as np
import pytest
from kernelstream import datasets
from kernelstream.datasets import FetchError, registry
from kernelstream.datasets.convert import format_number

#: seconds between two bytes of a ``/trickle/`` response
TRICKLE = 0.2


class _Handler(http.server.SimpleHTTPRequestHandler):
    """Serves the directory; counts requests; ``/cut/NAME`` announces the whole file but
    sends only half of it, then closes the connection (an interrupted download)."""

    def do_GET(self):
        self.server.requests.append(self.path)
        if self.path.startswith("/trickle/"):
            # the whole length announced, then one byte every TRICKLE seconds
            data = (self.server.root / self.path[len("/trickle/") :]).read_bytes()
            self.send_response(200)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            try:
                for i in range(len(data)):
                    self.wfile.write(data[i : i + 1])
                    self.wfile.flush()
                    time.sleep(TRICKLE)
            except OSError:  # the client gave up
                pass
            self.close_connection = True
            return
        if self.path.startswith("/silent/"):
            time.sleep(10)  # no status line at all for 10 s
            self.close_connection = True
            return
        if self.path.startswith("/cut/"):
            data = (self.server.root / self.path[len("/cut/") :]).read_bytes()
            self.send_response(200)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data[: len(data) // 2])
            self.wfile.flush()
            self.close_connection = True
            return
        super().do_GET()

    def log_message(self, *args):
        pass


@pytest.fixture
def server(tmp_path):
    root = tmp_path / "served"
    root.mkdir()
    httpd = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(_Handler, directory=str(root))
    )
    httpd.root, httpd.requests = root, []
    # (a short poll: shutdown() waits for the serving loop to look, 0.5 s by default)
    thread = threading.Thread(
        target=httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
    )
    thread.start()
    httpd.url = f"http://127.0.0.1:{httpd.server_address[1]}/"
    yield httpd
    httpd.shutdown()
    httpd.server_close()


def _gz_csv(path, rows, d):
    """A file in the release format, written independently of the converter."""
    lines = [",".join([f"x{i}" for i in range(d)] + ["y"])]
    lines += [",".join(repr(float(v)) for v in row) for row in rows]
    data = ("\n".join(lines) + "\n").encode()
    with open(path, "wb") as raw, gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0) as gz:
        gz.write(data)
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def tiny(server, monkeypatch):
    """A release dataset ``tiny`` (5 x 3) served by ``server`` and registered."""
    rows = np.random.default_rng(0).normal(size=(5, 4))
    sha = _gz_csv(server.root / "tiny.csv.gz", rows, 3)
    ds = registry.Dataset("tiny", 5, 3, "regression", "test", sha256=sha)
    monkeypatch.setitem(registry.DATASETS, "tiny", ds)
    return rows


@pytest.mark.slow
def test_fetch_downloads_checks_and_caches(server, tiny, tmp_path):
    home = tmp_path / "home"
    path = datasets.fetch("tiny", home, base_url=server.url, progress=False)
    assert path == home / "tiny.csv.gz"
    X, y = datasets.load("tiny", home)
    np.testing.assert_array_equal(np.c_[X, y], tiny)
    assert server.requests == ["/tiny.csv.gz"]
    # second call: served from the cache, no request
    assert datasets.fetch("tiny", home, base_url=server.url, progress=False) == path
    assert server.requests == ["/tiny.csv.gz"]
    assert sorted(p.name for p in home.iterdir()) == ["tiny.csv.gz"]


def test_base_url_from_environment(server, tiny, tmp_path, monkeypatch):
    monkeypatch.setenv("KERNELSTREAM_DATA_URL", server.url.rstrip("/"))
    monkeypatch.setenv("KERNELSTREAM_DATA", str(tmp_path / "env-home"))
    path = datasets.fetch("tiny", progress=False)
    assert path == tmp_path / "env-home" / "tiny.csv.gz" and server.requests == ["/tiny.csv.gz"]


def test_corrupted_file_is_refused_and_nothing_kept(server, tiny, tmp_path):
    f = server.root / "tiny.csv.gz"
    data = bytearray(f.read_bytes())
    data[len(data) // 2] ^= 0xFF
    f.write_bytes(bytes(data))
    home = tmp_path / "home"
    with pytest.raises(FetchError, match="sha256|SHA256|hash"):
        datasets.fetch("tiny", home, base_url=server.url, progress=False)
    assert not home.exists() or list(home.iterdir()) == []


def test_interrupted_download_leaves_nothing(server, tiny, tmp_path):
    home = tmp_path / "home"
    with pytest.raises(FetchError):
        datasets.fetch("tiny", home, base_url=server.url + "cut/", progress=False)
    assert server.requests and server.requests[0] == "/cut/tiny.csv.gz"
    assert not home.exists() or list(home.iterdir()) == []


def test_missing_file_on_server_is_a_clear_error(server, tiny, tmp_path):
    (server.root / "tiny.csv.gz").unlink()
    with pytest.raises(FetchError, match="404|Not Found"):
        datasets.fetch("tiny", tmp_path / "home", base_url=server.url, progress=False)


def test_unknown_name_and_load_error_name_the_command(tmp_path):
    import kernelstream as ks

    with pytest.raises(ks.InputError, match="known"):
        datasets.fetch("no-such-set", tmp_path)
    with pytest.raises(FileNotFoundError, match="kernelstream data fetch casp"):
        datasets.load("casp", tmp_path)


def test_number_format_round_trips():
    for v in [0.1, 1e-300, 123456789.125, 3.38e-05, -2.5, 1036.0, -0.0, 2.0**60]:
        assert float(format_number(v)) == v
        assert np.signbit(float(format_number(v))) == np.signbit(v)
    assert format_number(1036.0) == "1036" and format_number(float("nan")) == ""


def _upstream(monkeypatch, name, rows, d, *sources):
    ds = registry.Dataset(name, rows, d, "regression", "test", upstream=sources)
    monkeypatch.setitem(registry.DATASETS, name, ds)


def test_libsvm_bz2_converter(server, tmp_path, monkeypatch):
    # two upstream files (train, test), bz2-compressed LIBSVM text, concatenated in order
    (server.root / "a.bz2").write_bytes(bz2.compress(b"1 1:0.5 3:-2\n-1 2:1e-3\n"))
    (server.root / "a.t.bz2").write_bytes(bz2.compress(b"+1 3:7 # comment\n"))
    _upstream(
        monkeypatch,
        "svm",
        3,
        3,
        registry.Upstream(server.url + "a.bz2", "libsvm", n_features=3),
        registry.Upstream(server.url + "a.t.bz2", "libsvm", n_features=3),
    )
    home = tmp_path / "home"
    path = datasets.fetch("svm", home, progress=False)
    X, y = datasets.load("svm", home)
    np.testing.assert_array_equal(X, [[0.5, 0, -2], [0, 1e-3, 0], [0, 0, 7]])
    np.testing.assert_array_equal(y, [1, -1, 1])
    with gzip.open(path, "rt") as fh:
        assert fh.read() == "x0,x1,x2,y\n0.5,0,-2,1\n0,0.001,0,-1\n0,0,7,1\n"
    assert [p.name for p in home.iterdir()] == ["svm.csv.gz"]  # downloads removed


def test_uci_csv_converters(server, tmp_path, monkeypatch):
    # SUSY-style: gzip CSV, no header, label first
    body = b"1.000000000000000000e+00,8.7e-01,-6.3e-01\n0.0,1.5,2.25\n"
    (server.root / "S.csv.gz").write_bytes(gzip.compress(body))
    _upstream(
        monkeypatch,
        "susy-like",
        2,
        2,
        registry.Upstream(server.url + "S.csv.gz", "csv", header=False, target=0),
    )
    # slice-style: a zip holding a CSV with a header, target last
    with zipfile.ZipFile(server.root / "s.zip", "w") as zf:
        zf.writestr("inner.csv", "patientId,value0,value1,reference\n0,0.25,-0.25,21.8\n1,,1,3\n")
    _upstream(
        monkeypatch,
        "slice-like",
        2,
        3,
        registry.Upstream(server.url + "s.zip", "csv", header=True, member="inner.csv"),
    )
    home = tmp_path / "home"
    datasets.fetch("susy-like", home, progress=False)
    datasets.fetch("slice-like", home, progress=False)
    X, y = datasets.load("susy-like", home)
    np.testing.assert_array_equal(X, [[0.87, -0.63], [1.5, 2.25]])
    np.testing.assert_array_equal(y, [1, 0])
    X, y = datasets.load("slice-like", home)
    np.testing.assert_array_equal(X, [[0, 0.25, -0.25], [1, np.nan, 1]])
    np.testing.assert_array_equal(y, [21.8, 3])


def test_upstream_with_wrong_shape_is_refused(server, tmp_path, monkeypatch):
    (server.root / "short.bz2").write_bytes(bz2.compress(b"1 1:1\n"))
    _upstream(
        monkeypatch,
        "short",
        2,
        1,
        registry.Upstream(server.url + "short.bz2", "libsvm", n_features=1),
    )
    home = tmp_path / "home"
    with pytest.raises(FetchError, match="1 rows upstream, expected 2"):
        datasets.fetch("short", home, progress=False)
    assert list(home.iterdir()) == []


def test_registry_is_consistent():
    for name, ds in registry.DATASETS.items():
        assert ds.name == name and ds.rows > 0 and ds.features > 0
        assert (ds.sha256 is None) != (not ds.upstream)
        if ds.sha256:
            assert len(ds.sha256) == 64 and int(ds.sha256, 16) >= 0
        for src in ds.upstream:
            assert src.url.startswith("https://") and src.kind in ("libsvm", "csv")


@pytest.mark.data
def test_release_files_match_the_registry(data_dir):
    """The registry's sha256 are those of the data directory's files."""
    for ds in registry.DATASETS.values():
        if ds.sha256:
            digest = hashlib.sha256((data_dir / ds.filename).read_bytes()).hexdigest()
            assert digest == ds.sha256, ds.name


@pytest.mark.slow
@pytest.mark.data
def test_cli_fetch_concrete_equals_load_and_tampered_is_refused(data_dir, server, tmp_path):
    """Fetching a release dataset through the command line gives what load() reads; a
    tampered file is refused."""
    shutil.copy(data_dir / "concrete.csv.gz", server.root / "concrete.csv.gz")
    env = dict(
        os.environ, KERNELSTREAM_DATA=str(tmp_path / "empty"), KERNELSTREAM_DATA_URL=server.url
    )
    cmd = [sys.executable, "-m", "kernelstream", "data", "fetch", "concrete", "--no-progress"]
    done = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    X, y = datasets.load("concrete", tmp_path / "empty")
    X0, y0 = datasets.load("concrete", data_dir)
    np.testing.assert_array_equal(X, X0)
    np.testing.assert_array_equal(y, y0)
    # a tampered copy on the server is refused, and nothing is kept
    data = bytearray((data_dir / "concrete.csv.gz").read_bytes())
    data[-20] ^= 0x01
    (server.root / "concrete.csv.gz").write_bytes(bytes(data))
    env["KERNELSTREAM_DATA"] = str(tmp_path / "empty2")
    done = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert lines[-1].startswith("kernelstream: error: ") and "Traceback" not in done.stderr
    assert not (tmp_path / "empty2").exists() or list((tmp_path / "empty2").iterdir()) == []


@pytest.mark.slow
@pytest.mark.data
def test_converter_writes_the_release_format_byte_for_byte(data_dir, tmp_path):
    """Re-writing a release file through the converter gives the same bytes (so the
    upstream sets converted here have exactly the release files' format)."""
    from kernelstream.datasets import convert

    for name in ("concrete", "bias"):
        src = data_dir / f"{name}.csv.gz"
        with gzip.open(src, "rt") as fh:
            d = len(fh.readline().split(",")) - 1
        out = tmp_path / f"{name}.csv.gz"
        convert.write_csv_gz(convert.csv_rows(src, header=True, target=-1), out, d)
        assert out.read_bytes() == src.read_bytes(), name


def test_progress_bar_with_tqdm(server, tiny, tmp_path, capsys):
    pytest.importorskip("tqdm")
    datasets.fetch("tiny", tmp_path / "home", base_url=server.url, progress=True)
    assert (tmp_path / "home" / "tiny.csv.gz").exists()
    assert "%" in capsys.readouterr().err  # tqdm's bar went to stderr


def test_interrupted_upstream_download_leaves_nothing(server, tmp_path, monkeypatch):
    (server.root / "u.bz2").write_bytes(bz2.compress(b"1 1:0.5\n" * 2000))
    _upstream(
        monkeypatch,
        "cut-upstream",
        2000,
        1,
        registry.Upstream(server.url + "cut/u.bz2", "libsvm", n_features=1),
    )
    home = tmp_path / "home"
    with pytest.raises(FetchError):
        datasets.fetch("cut-upstream", home, progress=False)
    assert list(home.iterdir()) == []


# -- deadlines, minimum rate, and what a killed fetch leaves -----------------------


def _entries(home):
    return sorted(p.name for p in home.iterdir()) if home.exists() else []


@pytest.mark.slow
def test_trickling_server_fails_within_the_deadline(server, tiny, tmp_path):
    # (the message is written only once the deadline has passed: no clock in the test)
    home = tmp_path / "home"
    with pytest.raises(FetchError, match="deadline of 0.5 s"):
        datasets.fetch("tiny", home, base_url=server.url + "trickle/", progress=False,
                       deadline=0.5, min_rate=0)  # fmt: skip
    assert _entries(home) == []


@pytest.mark.slow
def test_silent_server_fails_within_the_deadline(server, tiny, tmp_path):
    """The deadline covers the wait for the response too, not only the body."""
    with pytest.raises(FetchError, match="deadline of 0.4 s"):
        datasets.fetch("tiny", tmp_path / "home", base_url=server.url + "silent/",
                       progress=False, deadline=0.4)  # fmt: skip


@pytest.mark.slow
def test_slow_server_fails_at_the_minimum_rate(server, tiny, tmp_path, monkeypatch):
    fetch_module = sys.modules["kernelstream.datasets.fetch"]
    monkeypatch.setattr(fetch_module, "RATE_WINDOW", 0.6)
    with pytest.raises(FetchError, match="minimum rate"):
        datasets.fetch("tiny", tmp_path / "home", base_url=server.url + "trickle/",
                       progress=False, deadline=60, min_rate=100)  # fmt: skip


@pytest.mark.slow
def test_limits_from_the_environment_are_checked(server, tiny, tmp_path, monkeypatch, capsys):
    from kernelstream.cli import main

    monkeypatch.setenv("KERNELSTREAM_FETCH_DEADLINE", "0.5")
    with pytest.raises(FetchError, match="deadline of 0.5 s"):
        datasets.fetch("tiny", tmp_path / "h", base_url=server.url + "trickle/", progress=False)
    for bad in ("abc", "0", "-3", "inf", "nan"):
        monkeypatch.setenv("KERNELSTREAM_FETCH_DEADLINE", bad)
        with pytest.raises(ks.ParameterError, match="KERNELSTREAM_FETCH_DEADLINE"):
            datasets.fetch("tiny", tmp_path / "h", base_url=server.url, progress=False)
        code = main(["data", "fetch", "tiny", "--data-home", str(tmp_path / "h"),
                     "--base-url", server.url])  # fmt: skip
        err = capsys.readouterr().err.strip().splitlines()
        assert code == 2 and len(err) == 1 and "KERNELSTREAM_FETCH_DEADLINE" in err[0]
    assert server.requests == ["/trickle/tiny.csv.gz"]


@pytest.mark.slow
def test_cli_deadline_option(server, tiny, tmp_path, capsys):
    from kernelstream.cli import main

    code = main(["data", "fetch", "tiny", "--data-home", str(tmp_path / "h"), "--base-url",
                 server.url + "trickle/", "--deadline", "0.5", "--min-rate", "0"])  # fmt: skip
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and "deadline of 0.5 s" in err[0]


@pytest.mark.slow
def test_killed_fetch_leftovers_are_ignored_and_cleaned_next_time(server, tiny, tmp_path):
    home = tmp_path / "home"
    child = (
        "import signal; signal.signal(signal.SIGINT, signal.default_int_handler)\n"
        "from kernelstream import datasets; from kernelstream.datasets import registry\n"
        f"registry.DATASETS['tiny'] = registry.Dataset('tiny', 5, 3, 'regression', 'test', "
        f"sha256={registry.DATASETS['tiny'].sha256!r})\n"
        f"datasets.fetch('tiny', {str(home)!r}, base_url={server.url + 'trickle/'!r}, "
        "progress=False, deadline=120, min_rate=0)\n"
    )
    proc = subprocess.Popen([sys.executable, "-c", child])
    try:
        deadline = time.monotonic() + 60
        partial = []
        while time.monotonic() < deadline and not partial:
            time.sleep(0.05)
            partial = list(home.glob(".fetch-*/tiny.csv.gz"))
        assert partial, "the child never started writing"
        proc.kill()
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    left = [p.name for p in home.iterdir()]
    assert len(left) == 1 and left[0].startswith(".fetch-")  # only the working directory
    with pytest.raises(FileNotFoundError):  # a partial file is never read as data
        datasets.load("tiny", home)
    # the next fetch removes it (its process is gone) and leaves only the checked file
    datasets.fetch("tiny", home, base_url=server.url, progress=False)
    assert _entries(home) == ["tiny.csv.gz"]
