"""forecast_panel on a real local Dask cluster (a ``dask scheduler`` and two ``dask worker``
processes on 127.0.0.1, started by tools/bench_forecast_panel.py's ``local_cluster``): the
forecasts equal the local run's bit for bit."""

from __future__ import annotations

import importlib.util
import shutil
import sys
from pathlib import Path

import numpy as np
import pytest

pytestmark = pytest.mark.slow

_TOOL = Path(__file__).resolve().parents[2] / "tools" / "bench_forecast_panel.py"


def _bench():
    spec = importlib.util.spec_from_file_location("bench_forecast_panel", _TOOL)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_dask_panel_equals_the_local_panel():
    pytest.importorskip("distributed")
    pd = pytest.importorskip("pandas")
    if shutil.which("dask", path=str(Path(sys.executable).parent)) is None and not shutil.which(
        "dask"
    ):
        pytest.skip("the `dask` command is not installed")
    import kernelstream as ks
    from kernelstream.forecast import panel as P

    bench = _bench()
    frame = bench.panel(n_series=2 * P.CHUNK + 3, points=70, seed=1)  # three tasks
    frame["x"] = np.sin(np.arange(len(frame)) / 7.0)
    future = frame.groupby("unique_id").tail(2).copy()  # exogenous future rows
    future["ds"] += 2
    future["y"] = np.nan
    frame = pd.concat([frame, future], ignore_index=True)
    params = dict(horizon=2, learner=ks.TaylorAWV(degree=2, sigma=30.0))
    local = ks.forecast_panel(frame, **params)
    with bench.local_cluster(2) as address:
        dask = ks.forecast_panel(frame, executor="dask", scheduler=address, **params)
    pd.testing.assert_frame_equal(local, dask, check_exact=True)
    assert local.unique_id.nunique() == 2 * P.CHUNK + 3
    assert (local.ds >= 70).sum() == 2 * (2 * P.CHUNK + 3)  # the future of every series
