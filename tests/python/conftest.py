"""Shared fixtures, and the one mechanism for tests that need the real datasets.

A test that reads the datasets is marked ``@pytest.mark.data`` (using the ``data_dir``
fixture marks it too). When the data directory (``$KERNELSTREAM_DATA``, else the platform
cache that ``kernelstream data fetch`` fills) lacks any of the release files, such a test is skipped with one reason, or fails if
``KERNELSTREAM_REQUIRE_DATA=1`` (CI sets it, so that CI never skips them silently).
"""

import os
import signal

# One BLAS thread: the NumPy references solve many small systems (70 x 70 per round),
# where OpenBLAS's threads only contend with each other and with the Rust core's (a
# reference run took 20x longer with them on a loaded two-core machine). Set before
# NumPy loads BLAS; subprocesses of the tests inherit it.
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402
import pytest  # noqa: E402

try:  # NumPy may have loaded BLAS already (a plugin imported it): limit it now.
    from threadpoolctl import threadpool_limits

    threadpool_limits(1, user_api="blas")
except ImportError:  # pragma: no cover - threadpoolctl comes with scikit-learn
    pass


def _missing_data():
    """``(data directory, [names of missing release datasets])``."""
    from kernelstream.datasets import DATASETS, data_home

    home = data_home()
    wanted = [d for d in DATASETS.values() if d.origin == "release"]
    return home, [d.name for d in wanted if not (home / d.filename).exists()]


def _check_data():
    home, missing = _missing_data()
    if not missing:
        return home
    reason = (
        f"needs the datasets: the data directory {home} lacks {', '.join(missing)} "
        f"(get them with `kernelstream data fetch {' '.join(missing)}`, or set KERNELSTREAM_DATA)"
    )
    if os.environ.get("KERNELSTREAM_REQUIRE_DATA") == "1":
        pytest.fail(f"KERNELSTREAM_REQUIRE_DATA=1 but the test {reason}", pytrace=False)
    pytest.skip(reason)


def pytest_collection_modifyitems(items):
    for item in items:
        if "data_dir" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.data)


def pytest_runtest_setup(item):
    if item.get_closest_marker("data") is not None:
        _check_data()


@pytest.fixture
def rng():
    return np.random.default_rng(12345)


@pytest.fixture
def data_dir():
    """The data directory (the test is skipped, or fails, as above when it is incomplete)."""
    return _check_data()


@pytest.fixture
def sigint():
    """Python's SIGINT handler for the test: a shell that started the suite with
    ``nohup ... &`` hands it SIGINT ignored, and a signal sent then would do nothing."""
    old = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, old)
