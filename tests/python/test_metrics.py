"""Metrics and memory figures: ``evaluate.progressive(..., metrics=...)`` against the
definitions (scikit-learn's metrics on the same predictions, river's metric objects),
and the ``memory_mb`` column without psutil."""

from __future__ import annotations

import math
import sys

import kernelstream as ks
import numpy as np
import pytest
from kernelstream.evaluate import progressive
from kernelstream.evaluate.metrics import NAMES

skm = pytest.importorskip("sklearn.metrics")


def _regression(n=600, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, (n, 3))
    return X, np.sin(3 * X[:, 0]) + X[:, 1] + 0.1 * rng.normal(size=n)


def test_regression_metrics_equal_their_definitions():
    X, y = _regression()
    res = progressive(ks.TaylorAWV(degree=3), X, y, metrics=["mse", "rmse", "mae", "r2"],
                      checkpoints=[50, 300, 600], progress=False)  # fmt: skip
    p = res.predictions
    for i, t in enumerate(res.rounds):
        yt, pt = y[:t], p[:t]
        assert res.metrics["mse"][i] == pytest.approx(skm.mean_squared_error(yt, pt), rel=1e-12)
        assert res.metrics["rmse"][i] == pytest.approx(math.sqrt(skm.mean_squared_error(yt, pt)))
        assert res.metrics["mae"][i] == pytest.approx(skm.mean_absolute_error(yt, pt), rel=1e-12)
        assert res.metrics["r2"][i] == pytest.approx(skm.r2_score(yt, pt), rel=1e-10)
    np.testing.assert_allclose(res.metrics["mse"], res.loss, rtol=1e-14)  # the loss
    frame = res.to_frame()
    assert {"mse", "rmse", "mae", "r2"} <= set(frame.columns)


def test_classification_metrics_and_defaults():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(500, 2))
    y = np.where(X[:, 0] + 0.3 * rng.normal(size=500) > 0, 1.0, -1.0)
    learner = ks.TaylorAWV(degree=2)
    res = progressive(learner, X, y, metrics=["error", "accuracy", "log_loss"], progress=False)
    p = res.predictions
    label = np.where(p >= 0, 1.0, -1.0)
    assert res.metrics["error"][-1] == pytest.approx(np.mean(label != y))
    assert res.metrics["accuracy"][-1] == pytest.approx(skm.accuracy_score(y, label))
    q = np.clip((1 + p) / 2, 1e-15, 1 - 1e-15)  # P(+1) of a least-squares score
    assert res.metrics["log_loss"][-1] == pytest.approx(
        skm.log_loss(y, q, labels=[-1.0, 1.0]), rel=1e-9
    )
    default = progressive(ks.TaylorAWV(degree=2), X, y, task="classification", progress=False)
    assert list(default.metrics) == ["error"]
    assert list(progressive(ks.TaylorAWV(), X, X[:, 0], progress=False).metrics) == ["mse"]
    with pytest.raises(ks.ParameterError, match="unknown metric"):
        progressive(ks.TaylorAWV(), X, y, metrics=["f1"])
    assert set(NAMES) == {"mse", "rmse", "mae", "r2", "error", "accuracy", "log_loss"}


def test_river_metric_objects():
    metrics = pytest.importorskip("river.metrics")
    X, y = _regression(300)
    mae = metrics.MAE()
    res = progressive(ks.TaylorAWV(degree=3), X, y, metrics=["mae", mae], progress=False)
    assert res.metrics["MAE"][-1] == pytest.approx(mae.get(), rel=1e-12)
    assert res.metrics["mae"][-1] == pytest.approx(mae.get(), rel=1e-12)


def test_memory_mb_without_psutil(monkeypatch):
    # Before: NaN in every row when psutil is not installed.
    monkeypatch.setitem(sys.modules, "psutil", None)
    X, y = _regression(200)
    res = progressive(ks.TaylorAWV(), X, y, checkpoints=[100, 200], progress=False)
    assert np.all(np.isfinite(res.memory_mb)) and np.all(res.memory_mb > 1.0)


@pytest.mark.slow
def test_data_path_needs_no_pooch(monkeypatch, tmp_path):
    # Before: "pooch is not installed" from `kernelstream data path`.
    import subprocess

    pooch = pytest.importorskip("pooch")
    from kernelstream.datasets.loaders import user_cache_dir

    for xdg in ("", str(tmp_path)):
        monkeypatch.setenv("XDG_CACHE_HOME", xdg)
        assert user_cache_dir("kernelstream") == pooch.os_cache("kernelstream")
    code = (
        "import sys; sys.modules['pooch'] = None\n"
        "from kernelstream.cli import main; sys.exit(main(['data', 'path']))"
    )
    env = {k: v for k, v in __import__("os").environ.items() if k != "KERNELSTREAM_DATA"}
    env["XDG_CACHE_HOME"] = str(tmp_path)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == str(tmp_path / "kernelstream")


def test_no_internal_runtime_warning_reaches_the_user():
    # Before: numpy's "invalid value encountered in divide" from Conformal before the
    # learner had a noise estimate, and "overflow encountered in matmul" from the scale
    # check on inputs near float64's limit.
    import warnings

    X, y = _regression(50)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        c = ks.Conformal(ks.TaylorAWV())
        c.predict_interval(X[:3])
        c.learn_many(X, y)
        big = ks.KernelAWV(__import__("kernelstream.kernels", fromlist=["G"]).Gaussian(1.0))
        with pytest.warns(ks.ScaleWarning):
            big.learn_many(np.full((4, 2), 1e300) * np.arange(1, 5)[:, None], np.zeros(4))
