"""Model files: ``kernelstream.save(learner, path)`` and ``kernelstream.load(path)``
(``format.py``: the file; ``values.py``: the readable header and its allow-list;
``objects.py``: the adapters and their helper objects; ``forecasts.py``: the Forecaster,
its helper objects and the checks of the whole), and
the header of the core states they hold (``statebytes.py``)."""

from .format import dumps, load, loads, save

__all__ = ["save", "load", "dumps", "loads"]
