import os
from pathlib import Path

import numpy as np
import pytest

# Tests read the shared data through KERNELSTREAM_DATA (CI sets it to ../shared/data).
_DEFAULT = Path(__file__).resolve().parents[2].parent / "shared" / "data"
os.environ.setdefault("KERNELSTREAM_DATA", str(_DEFAULT))


@pytest.fixture
def rng():
    return np.random.default_rng(12345)


@pytest.fixture
def data_dir():
    path = Path(os.environ["KERNELSTREAM_DATA"])
    if not (path / "airfoil.csv.gz").exists():
        pytest.fail(f"shared data not found at {path}: set KERNELSTREAM_DATA")
    return path
