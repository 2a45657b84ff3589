"""Progress of ``evaluate.progressive`` (and so of ``kernelstream run``) without tqdm or
off a terminal: plain lines between chunks."""

from __future__ import annotations

import sys

import numpy as np
import pytest
from kernelstream import TaylorAWV
from kernelstream.datasets.synthetic import friedman_stream
from kernelstream.evaluate import progressive

PROG = sys.modules["kernelstream.evaluate.progressive"]


@pytest.fixture
def no_tqdm(monkeypatch):
    monkeypatch.setitem(sys.modules, "tqdm", None)
    monkeypatch.setitem(sys.modules, "tqdm.auto", None)
    monkeypatch.setitem(PROG._LINE_SECONDS, False, 0.0)  # every chunk (stderr is no terminal)


def _lines(err: str) -> list[str]:
    return [ln for ln in err.splitlines() if ln.strip()]


def test_plain_lines_without_tqdm(no_tqdm, capsys):
    X, y = friedman_stream(n=3000, seed=1)
    res = progressive(TaylorAWV(degree=2), X, y, progress=True)
    lines = _lines(capsys.readouterr().err)
    assert len(lines) >= 3 and all(ln.startswith("TaylorAWV: ") for ln in lines)
    assert lines[-1].startswith("TaylorAWV: 3,000/3,000 rounds (100%), ")
    assert lines[-1].endswith(" rounds/s")
    done = [int(ln.split()[1].split("/")[0].replace(",", "")) for ln in lines]
    assert done == sorted(done) and res.n_rounds == 3000


def test_chunks_in_a_list_have_a_total_and_an_iterator_has_none(no_tqdm, capsys):
    X, y = friedman_stream(n=1000, seed=2)
    pieces = [(X[:600], y[:600]), (X[600:], y[600:])]
    progressive(TaylorAWV(degree=2), pieces, progress=True)
    assert _lines(capsys.readouterr().err)[-1].startswith("TaylorAWV: 1,000/1,000 rounds")
    progressive(TaylorAWV(degree=2), iter(pieces), progress=True)
    last = _lines(capsys.readouterr().err)[-1]
    assert last.startswith("TaylorAWV: 1,000 rounds, ") and "%" not in last


def test_no_progress_when_asked_or_off_a_terminal(no_tqdm, capsys):
    X, y = friedman_stream(n=500, seed=3)
    a = progressive(TaylorAWV(degree=2), X, y, progress=False)
    b = progressive(TaylorAWV(degree=2), X, y)  # capsys' stderr is no terminal
    assert capsys.readouterr().err == ""
    np.testing.assert_array_equal(a.predictions, b.predictions)
