"""Optional dependencies: which extra provides a module, and how to say it is missing.

The base install (``pip install kernelstream``) needs numpy only: the learners, kernels
and aggregators import, learn and predict with it alone. pandas and pooch (datasets,
result tables), scipy and psutil (references, exact leverage scores, the reproduction
entries), matplotlib, tqdm, joblib and Dask come with extras; what needs one imports it
through :func:`require`, which says in one line which extra adds it.
"""

from __future__ import annotations

import importlib

#: module -> the extra of ``pyproject.toml`` that installs it
EXTRAS = {
    "pandas": "data",
    "pooch": "data",
    "requests": "data",
    "scipy": "reproduce",
    "psutil": "reproduce",
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


def require(module: str, what: str | None = None):
    """``importlib.import_module(module)``, or a ``ModuleNotFoundError`` (its ``name`` the
    top-level package) that says which extra installs it, and ``what`` needs it if given
    (``module`` or its top-level package must be a key of :data:`EXTRAS`)."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        top = module.split(".")[0]
        if not is_missing(exc, top):
            raise
        message = hint(top) if what is None else f"{what} needs {top}: {hint(top)}"
        raise ModuleNotFoundError(message, name=top) from None
