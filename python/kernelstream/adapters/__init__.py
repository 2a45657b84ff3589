"""Adapters to the scikit-learn estimator API and to river's dict-based online API.

Each pair is imported on first use, so the river adapters work without scikit-learn
installed (and the other way round). See ``docs/adapters.md``.
"""

from __future__ import annotations

__all__ = ["SklearnRegressor", "SklearnClassifier", "RiverRegressor", "RiverClassifier"]

_MODULE = {
    "SklearnRegressor": "sklearn",
    "SklearnClassifier": "sklearn",
    "RiverRegressor": "river",
    "RiverClassifier": "river",
}


def __getattr__(name):
    if name not in _MODULE:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from importlib import import_module

    value = getattr(import_module(f".{_MODULE[name]}", __name__), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(list(globals()) + __all__)
