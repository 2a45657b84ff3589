"""The result cache of ``kernelstream reproduce`` serves an entry only when its record
is sound and every output it vouches for still has the recorded checksum: a damaged
output or record, or a record holding a malformed row, is a miss (recomputed, outputs
rewritten), never a traceback."""

from __future__ import annotations

import json

import pytest
from kernelstream._files import write_bytes
from kernelstream.experiments import cache
from kernelstream.experiments.registry import Context, EntryResult, Row, register, run

CALLS = []
PNG = b"\x89PNG\r\n\x1a\n"


@register("cache-probe", paper="a test entry")
def _probe(ctx):
    CALLS.append(1)
    rows = [Row("set", "learner", "mse", 0.25, paper=0.3, dim=4, seconds=0.1)]
    # a figure file as Context.savefig leaves one (matplotlib would only make it slower)
    png = ctx.out / "cache-probe.png"
    write_bytes(png, PNG + bytes(range(200)))
    figures = [str(png)]
    return EntryResult(rows=rows, figures=figures, notes=["n"])


ENTRY = _probe.entry


@pytest.fixture
def out(tmp_path):
    CALLS.clear()
    ctx = _ctx(tmp_path)
    first = run(ENTRY, ctx)
    assert not first.get("_cached") and len(CALLS) == 1
    second = run(ENTRY, ctx)
    assert second.get("_cached") and len(CALLS) == 1
    return tmp_path


def _ctx(out):
    """A context without data files (the cache key hashes the data directory)."""
    return Context(out, data_home=out / "no-data")


def _outputs(out):
    return out / "cache-probe.json", out / "cache-probe.png", out / "cache-probe.md"


def test_truncated_json_and_zeroed_png_are_recomputed_and_rewritten(out):
    js, png, _ = _outputs(out)
    good_png = png.read_bytes()
    js.write_text(js.read_text()[:40])  # a kill mid-write
    png.write_bytes(b"\0" * len(good_png))
    payload = run(ENTRY, _ctx(out))
    assert not payload.get("_cached") and len(CALLS) == 2
    assert json.loads(js.read_text())["entry"] == "cache-probe"
    assert png.read_bytes() == good_png
    assert run(ENTRY, _ctx(out)).get("_cached")  # sound again


@pytest.mark.parametrize("which", [1, 2])
def test_a_missing_or_altered_output_is_a_miss(out, which):
    path = _outputs(out)[which]
    path.unlink()
    assert not run(ENTRY, _ctx(out)).get("_cached") and path.exists()


def _record(out):
    return out / ".cache" / "cache-probe.json"


def _rewrite(out, edit):
    """Applies ``edit`` to the stored payload and re-signs it, so that only the edit
    (not the checksum) can make the record unusable."""
    rec = json.loads(_record(out).read_text())
    edit(rec["payload"])
    rec["payload_sha256"] = cache._value_sum(rec["payload"])
    _record(out).write_text(json.dumps(rec))


@pytest.mark.parametrize(
    "edit",
    [
        lambda p: p["rows"].__setitem__(0, 1),
        lambda p: p["rows"][0].__setitem__("ours", "abc"),
        lambda p: p["rows"][0].pop("dataset"),
        lambda p: p["rows"][0].__setitem__("dim", 2.5),
        lambda p: p.__setitem__("rows", {"a": 1}),
        lambda p: p.__setitem__("figures", [3]),
        lambda p: p.pop("seconds"),
    ],
    ids=["row-not-dict", "ours-text", "no-dataset", "dim-float", "rows-dict", "fig-int", "no-sec"],
)
def test_a_record_with_a_malformed_row_is_a_miss_not_a_traceback(out, edit):
    _rewrite(out, edit)
    payload = run(ENTRY, _ctx(out))
    assert not payload.get("_cached") and len(CALLS) == 2
    assert run(ENTRY, _ctx(out)).get("_cached")


@pytest.mark.parametrize(
    "damage",
    [
        lambda t: t[: len(t) // 2],
        lambda t: "[1, 2]",
        lambda t: "null",
        lambda t: t.replace('"mse"', '"mae"'),  # a changed number or word: checksum
        lambda t: "\udcff",
    ],
    ids=["truncated", "list", "null", "edited", "not-utf8"],
)
def test_a_damaged_record_is_a_miss(out, damage):
    text = _record(out).read_text()
    _record(out).write_bytes(damage(text).encode("utf-8", "surrogateescape"))
    assert not run(ENTRY, _ctx(out)).get("_cached") and len(CALLS) == 2


def test_value_cache_verifies_its_checksum(tmp_path):
    path = tmp_path / "v.json"
    cache.store_value(path, {"a": [1.0, 2.0]}, parts={"k": 1})
    assert cache.load_value(path) == (True, {"a": [1.0, 2.0]})
    path.write_text(path.read_text().replace("2.0", "3.0"))
    assert cache.load_value(path) == (False, None)
    path.write_text(path.read_text()[:10])
    assert cache.load_value(path) == (False, None)
    path.write_text('{"value": 1}')  # an old record without a checksum
    assert cache.load_value(path) == (False, None)


def _load_in_child(out, timeout=30, address_space=None, key=None):
    """``load_cached`` of the probe's record in a subprocess (a read that blocks or grows
    without end must not take the test with it): its result's ``repr``."""
    import subprocess
    import sys

    key = key or json.loads(_record(out).read_text())["key"]
    code = (
        "import resource, sys\n"
        f"if {address_space!r}: resource.setrlimit(resource.RLIMIT_AS, ({address_space!r},) * 2)\n"
        "from kernelstream.experiments import cache\n"
        f"print(repr(cache.load_cached({str(out)!r}, 'cache-probe', {key!r})))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=timeout
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout.strip()


@pytest.mark.slow
def test_a_fifo_in_place_of_an_output_is_a_miss_not_a_hang(out):
    import os

    png = _outputs(out)[1]
    png.unlink()
    os.mkfifo(png)  # nobody writes it: reading it would block forever
    assert _load_in_child(out) == "None"
    # and the run recomputes the entry (replacing the FIFO by the figure)
    png.unlink()
    assert not run(ENTRY, _ctx(out)).get("_cached") and png.read_bytes().startswith(PNG)


@pytest.mark.slow
def test_a_fifo_in_place_of_the_record_is_a_miss(out):
    import os

    key = json.loads(_record(out).read_text())["key"]
    _record(out).unlink()
    os.mkfifo(_record(out))
    assert _load_in_child(out, key=key) == "None"


def _list_file(out, path, digest):
    rec = json.loads(_record(out).read_text())
    rec["files"][str(path)] = digest
    _record(out).write_text(json.dumps(rec))


def test_a_device_listed_by_a_record_is_never_read(out):
    # /dev/zero (through a link inside the output directory, and by its own name)
    link = out / "zero.bin"
    link.symlink_to("/dev/zero")
    _list_file(out, link, "0" * 64)
    _list_file(out, "/dev/zero", "0" * 64)
    # a read of /dev/zero would grow until this address space is exhausted
    assert _load_in_child(out, address_space=3 << 30) == "None"


def test_a_regular_file_outside_the_output_directory_is_refused(out, tmp_path_factory):
    other = tmp_path_factory.mktemp("elsewhere") / "x.txt"
    other.write_text("outside")
    _list_file(out, other, cache._file_sum(other))
    assert cache._file_sum(other) is not None  # a sound file, with its right checksum
    assert (
        cache.load_cached(out, "cache-probe", json.loads(_record(out).read_text())["key"]) is None
    )
    assert not run(ENTRY, _ctx(out)).get("_cached")  # recomputed, the record rewritten
    assert str(other) not in json.loads(_record(out).read_text())["files"]


def test_an_output_larger_than_the_bound_is_a_miss(out, monkeypatch):
    monkeypatch.setattr(cache, "MAX_OUTPUT_BYTES", 100)  # the figure has 208 bytes
    assert not run(ENTRY, _ctx(out)).get("_cached")
