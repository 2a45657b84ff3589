"""Model files: ``kernelstream.save(learner, path)`` and ``kernelstream.load(path)``
(``format.py``), and the header of the core states they hold (``statebytes.py``)."""
