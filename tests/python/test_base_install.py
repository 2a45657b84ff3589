"""What a user of the base install (``pip install kernelstream``: numpy alone) meets first:
every README snippet and command runs; every ``reproduce`` entry (``--quick``) runs, or
says in one line which extra it needs and then runs with that extra but without plots,
progress bars or parallel executors; plotting says which extra it needs. Run in
subprocesses where the modules only the extras install cannot be imported
(``baseinstall.py``), not in a separate virtualenv."""

from __future__ import annotations

import importlib.util
import json
import re
import shlex
from pathlib import Path

import numpy as np
import pytest
from baseinstall import blocked_modules, run_base
from kernelstream.datasets import DATASETS
from kernelstream.experiments import entries

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text()


def _blocks(lang: str) -> list:
    return re.findall(rf"^```{lang}\n(.*?)^```", README, re.MULTILINE | re.DOTALL)


@pytest.mark.slow
def test_the_extras_are_blocked_and_plotting_names_its_extra(tmp_path):
    extras = {"matplotlib", "tqdm", "joblib", "dask", "distributed", "sklearn", "river"}
    installed = {m for m in extras if importlib.util.find_spec(m) is not None}
    assert installed <= set(blocked_modules())  # (an extra not installed needs no blocking)
    code = """
import kernelstream as ks
from kernelstream.evaluate import progressive
try:
    import matplotlib
except ModuleNotFoundError:
    pass
else:
    raise SystemExit("matplotlib was importable")
X, y = ks.datasets.synthetic.friedman_stream(n=50, seed=0)
mixture = ks.Mixture([ks.TaylorAWV(), ks.TaylorAWV(sigma=2.0)])
for result in (progressive(ks.TaylorAWV(), X, y), mixture.progressive_trace(X, y)):
    try:
        result.plot()
    except ModuleNotFoundError as exc:
        print(exc)
"""
    done = run_base(["-c", code], tmp_path, timeout=120)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.strip().splitlines()
    assert len(lines) == 2, done.stdout
    for line in lines:
        assert line.startswith("plotting needs matplotlib"), line
        assert "pip install 'kernelstream[plots]'" in line, line


@pytest.mark.slow
@pytest.mark.parametrize("index", range(len(_blocks("python"))))
def test_readme_python_snippet_runs_on_the_base_install(index, tmp_path):
    done = run_base(["-c", _blocks("python")[index]], tmp_path, timeout=300)
    assert done.returncode == 0, done.stderr


def _commands() -> list:
    """The README's ``kernelstream`` command lines that run offline as written (lines with
    ``[optional]`` parts are syntax summaries; ``data fetch`` downloads)."""
    out = []
    for block in _blocks("bash"):
        for line in block.splitlines():
            line = line.split("#", 1)[0].strip()
            if line.startswith("kernelstream ") and "[" not in line and " fetch" not in line:
                out.append(line)
    return out


def _reads_data(line: str) -> bool:
    return "--dataset" in line


@pytest.mark.slow
@pytest.mark.parametrize(
    "line",
    [pytest.param(c, marks=pytest.mark.data) if _reads_data(c) else c for c in _commands()],
)
def test_readme_command_runs_on_the_base_install(line, tmp_path):
    rng = np.random.default_rng(0)
    X = rng.uniform(0, 100, size=(300, 3))
    with open(tmp_path / "data.csv", "w") as fh:  # for `run --csv data.csv --target price ...`
        fh.write("id,rooms,area,age,city,price\n")
        for i, row in enumerate(X):
            city = ("Lyon", "Nantes", "Lille")[i % 3]  # a text column
            fh.write(f"{i}," + ",".join(f"{v:.3f}" for v in row) + f",{city},")
            fh.write(f"{2e5 + 1e3 * row.sum():.2f}\n")
    done = run_base(["-m", "kernelstream", *shlex.split(line)[1:]], tmp_path, timeout=600)
    assert "Traceback" not in done.stderr, done.stderr
    # the base install has no matplotlib (plots) and no scipy (the benchmarks' NumPy
    # references): one line naming the extra
    extra = "plots" if "--plot" in line else "reproduce" if " bench" in line else None
    if extra is not None:
        assert done.returncode == 2, done.stderr
        assert f"kernelstream[{extra}]" in done.stderr and len(done.stderr.splitlines()) == 1
        return
    assert done.returncode == 0, done.stderr


def _needs_data(name):
    return any(name in d.used_by for d in DATASETS.values() if d.origin == "release")


@pytest.mark.slow
@pytest.mark.parametrize(
    "name",
    [pytest.param(n, marks=pytest.mark.data) if _needs_data(n) else n for n in sorted(entries())],
)
def test_reproduce_entry_runs_on_the_base_install(name, tmp_path):
    """On the base install (numpy alone) an entry runs, or stops at once with one line
    naming the extra it needs; with the ``reproduce`` extra alone (no plots, progress bars or
    parallel executors) every entry runs, and says that it skipped its figures."""
    out = tmp_path / "out"
    args = ["-m", "kernelstream", "reproduce", name, "--quick", "--out", str(out)]
    done = run_base(args, tmp_path, timeout=1200)
    if done.returncode != 0:
        assert done.returncode == 2, done.stderr
        err = done.stderr.strip()
        assert err.count("\n") == 0 and "pip install 'kernelstream[" in err, err
        done = run_base(args, tmp_path, timeout=1200, extras=("reproduce",))
    assert done.returncode == 0, done.stderr
    payload = json.loads((out / f"{name}.json").read_text())
    assert payload["rows"] and payload["figures"] == []
    assert f"{name}: figures skipped: matplotlib is not installed" in done.stderr, done.stderr
