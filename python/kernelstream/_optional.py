"""Optional dependencies: which extra provides a module, and how to say it is missing.

The base install (``pip install kernelstream``) has no matplotlib, tqdm, joblib or Dask;
every command still works without them and says in one line which extra adds what is
missing.
"""

from __future__ import annotations

import importlib

#: module -> the extra of ``pyproject.toml`` that installs it
EXTRAS = {
    "matplotlib": "plots",
    "tqdm": "progress",
    "joblib": "parallel",
    "distributed": "parallel",
    "pyarrow": "stream",
}


def available(module: str) -> bool:
    """Whether ``module`` can be imported (without importing it twice)."""
    try:
        importlib.import_module(module)
    except ImportError:
        return False
    return True


def is_missing(exc: ImportError, module: str) -> bool:
    """Whether ``exc`` says that ``module`` (or one of its submodules) is not installed."""
    name = getattr(exc, "name", None) or ""
    return name == module or name.startswith(module + ".")


def hint(module: str) -> str:
    """``MODULE is not installed (pip install 'kernelstream[EXTRA]' adds it)``."""
    return f"{module} is not installed (pip install 'kernelstream[{EXTRAS[module]}]' adds it)"
