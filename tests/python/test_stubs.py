"""The shipped ``_core.pyi`` is generated from the compiled module and kept current."""

import importlib.util
from pathlib import Path

import pytest

TOOL = Path(__file__).resolve().parents[2] / "tools" / "gen_stubs.py"


@pytest.mark.slow
def test_stub_is_current():
    spec = importlib.util.spec_from_file_location("gen_stubs", TOOL)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    assert mod.main(["--check"]) == 0, (
        "python/kernelstream/_core.pyi is stale: run python tools/gen_stubs.py"
    )
