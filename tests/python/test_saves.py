"""Files the library writes are written atomically: a kill -9 or a full disk during a
save leaves the previous file whole, and output paths are checked before a long run."""

from __future__ import annotations

import errno
import os
import signal
import subprocess
import sys
import textwrap

import kernelstream as ks
import numpy as np
import pytest
from kernelstream import _files, cli


def _old_model(path):
    """A trained learner saved at ``path`` the way ``--save-model`` does; its bytes."""
    m = ks.TaylorAWV(sigma=1.0, degree=2)
    X = np.random.default_rng(0).uniform(-1, 1, size=(50, 5))
    m.learn_many(X, X[:, 0])
    ks.save(m, path)
    return path.read_bytes()


def _leftovers(directory):
    return [p.name for p in directory.iterdir() if _files.PART_MARK in p.name]


@pytest.mark.slow
def test_kill_9_during_save_model_keeps_the_previous_model(tmp_path):
    """The CLI's ``--resume m.ksm --save-model m.ksm`` pattern: the process is killed
    while the new model is being written (the write is slowed down in the child)."""
    model = tmp_path / "m.ksm"
    old = _old_model(model)
    child = textwrap.dedent(
        f"""
        import signal, sys, time
        from kernelstream.modelfile import format
        signal.signal(signal.SIGINT, signal.default_int_handler)
        def slow_write(fh, data):
            fh.write(data[:100])
            fh.flush()
            print("writing", flush=True)
            time.sleep(60)
        format._write = slow_write
        from kernelstream.cli import main
        main(["run", "--n", "300", "--resume", {str(model)!r}, "--save-model", {str(model)!r}])
        """
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", child], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        for line in proc.stdout:
            if line.strip() == "writing":
                break
        else:
            pytest.fail("the child never reached the save: " + proc.stderr.read()[-2000:])
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        proc.stdout.close()
        proc.stderr.close()
    assert proc.returncode == -signal.SIGKILL
    assert model.read_bytes() == old
    assert ks.load(model).n_seen == 50


def test_full_disk_during_save_model_keeps_the_previous_model(tmp_path, monkeypatch, capsys):
    model = tmp_path / "m.ksm"
    old = _old_model(model)

    def write_until_full(fh, data):
        fh.write(data[:1000])
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr("kernelstream.modelfile.format._write", write_until_full)
    code = cli.main(["run", "--n", "300", "--save-model", str(model)])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and "No space left" in err[0]
    assert model.read_bytes() == old
    assert _leftovers(tmp_path) == []


@pytest.mark.slow
def test_save_predictions_and_model_are_complete_files(tmp_path, capsys):
    model, preds = tmp_path / "m.ksm", tmp_path / "p.csv"
    assert cli.main(["run", "--n", "400", "--save-model", str(model),
                     "--save-predictions", str(preds)]) == 0  # fmt: skip
    capsys.readouterr()
    m = ks.load(model)
    assert m.n_seen == 400
    # and the run continues it, with the same --learner or none
    assert cli.main(["run", "--n", "100", "--resume", str(model), "--learner", "auto-kernel",
                     "--save-model", str(model)]) == 0  # fmt: skip
    assert ks.load(model).n_seen == 500
    rows = np.loadtxt(preds, delimiter=",", skiprows=1)
    assert rows.shape == (400, 2) and preds.read_text().startswith("y,prediction\n")
    assert _leftovers(tmp_path) == []
    # permissions are those of an ordinary new file, not mkstemp's 0600
    umask = os.umask(0)
    os.umask(umask)
    assert model.stat().st_mode & 0o777 == 0o666 & ~umask


@pytest.mark.parametrize(
    "flag, target",
    [
        ("--save-model", "a-directory"),
        ("--save-model", "missing-dir/m.pkl"),
        ("--save-predictions", "a-directory"),
        ("--plot", "missing-dir/p.png"),
    ],
)
def test_unwritable_output_fails_before_the_run(tmp_path, monkeypatch, capsys, flag, target):
    (tmp_path / "a-directory").mkdir()
    ran = []
    monkeypatch.setattr(
        "kernelstream.evaluate.progressive", lambda *a, **k: ran.append(1) or pytest.fail("ran")
    )
    code = cli.main(["run", "--n", "300", flag, str(tmp_path / target)])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and not ran
    assert len(err) == 1 and err[0].startswith(f"kernelstream: error: {flag}")


def test_unwritable_report_fails_before_reproduce_runs(tmp_path, capsys):
    code = cli.main(
        ["reproduce", "taylor-casp", "--quick", "--out", str(tmp_path / "o"),
         "--report", str(tmp_path)]
    )  # fmt: skip
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and "--report" in err[0]
    assert not (tmp_path / "o" / "taylor-casp.json").exists()


def test_atomic_write_error_leaves_old_file_and_no_temporary(tmp_path):
    f = tmp_path / "out.json"
    f.write_text("old")
    with pytest.raises(RuntimeError), _files.atomic_write(f, "w") as fh:
        fh.write("new, half")
        raise RuntimeError("boom")
    assert f.read_text() == "old" and _leftovers(tmp_path) == []
    _files.write_text(f, "new")
    assert f.read_text() == "new" and _leftovers(tmp_path) == []


@pytest.mark.slow
def test_figures_are_written_atomically_with_their_format(tmp_path):
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots()
    ax.plot([0, 1], [1, 0])
    _files.save_figure(fig, tmp_path / "f.png", dpi=50)
    _files.save_figure(fig, tmp_path / "f.pdf")
    plt.close(fig)
    assert (tmp_path / "f.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert (tmp_path / "f.pdf").read_bytes()[:5] == b"%PDF-"
    assert _leftovers(tmp_path) == []
