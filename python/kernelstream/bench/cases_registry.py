"""The ``kernelstream bench`` case derived from the learner table ``_core.registry()``:
every registered learner, in the table's order, built as the test zoo builds it (its
face's ``_example()``, rows of its ``_example_d`` width in its input box; labels in
{-1, +1} for a classifier; at most its ``max_size`` rows), its ``progressive_predict``
against its own serving loop (``predict_one`` then ``learn_one``, in the ``reference``
column) on the same rows. A learner added to the table is timed here with no line to
add; the other cases time chosen settings against the NumPy references."""

import numpy as np

from .case import BenchCase


def registry(quick):
    from kernelstream.learners import _registry

    n = 1024 if quick else 8192
    out = []
    for name in _registry.names():
        face = _registry.face(name)
        lo, hi = _registry.input_box(name)
        rows = min(n, face._example().get("max_size", n))
        rng = np.random.default_rng(0)
        X = rng.uniform(lo, hi, size=(rows, face._example_d))
        z = np.sin(3 * X[:, 0]) + 0.1 * rng.standard_normal(rows)
        y = np.where(z >= 0, 1.0, -1.0) if _registry.entry(name)["task"] == "classification" else z
        out.append(
            BenchCase(
                label=f"{name} example",
                make_fast=lambda name=name: _registry.example(name),
                make_reference=lambda name=name: _registry.example(name),
                X=X,
                y=y,
                reference_rounds=rows,
            )
        )
    return out
