"""LIBSVM/SVMlight files as dense ``(X, y)`` chunks."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ..._limits import check_doubles
from ...errors import InputError
from ..loaders import iter_libsvm


def chunks(path: Path, chunk_rows: int, n_features: int | None, state):
    """Dense chunks of ``chunk_rows`` rows. The width is ``n_features``, else the largest
    index of the first chunk (a later, larger index is an error that says to pass
    ``n_features``). ``state`` records ``width`` and ``rows_read``."""
    it = iter_libsvm(path)
    while True:
        rows = []
        for item in it:
            rows.append(item)
            if len(rows) == chunk_rows:
                break
        if not rows:
            return
        if state.width is None:
            top = max((max(e) + 1 for _, e in rows if e), default=0)
            width = n_features if n_features is not None else max(top, 1)
            # the dense chunk is rows x width: refused before it is allocated
            check_doubles(
                f"{path}: a dense chunk of {len(rows)} rows x {width} columns ("
                + ("n_features" if n_features is not None else "the largest feature index")
                + ")",
                len(rows) * width,
                "; is the index right? (fewer rows per chunk: chunk_rows / --chunk-rows)",
            )
            state.width = width
        X = np.zeros((len(rows), state.width))
        y = np.empty(len(rows))
        for r, (label, entries) in enumerate(rows):
            y[r] = label
            for i, v in entries.items():
                if i >= state.width:
                    raise InputError(
                        f"{path}: data row {state.rows_read + r + 1} has feature index {i + 1}, "
                        f"beyond the width {state.width} "
                        + (
                            "given by n_features"
                            if n_features is not None
                            else "of the first chunk; pass n_features (--n-features)"
                        )
                    )
                X[r, i] = v
        state.rows_read += len(rows)
        if not (np.all(np.isfinite(X)) and np.all(np.isfinite(y))):
            raise InputError(
                f"{path}: a value that is not a finite double near data row {state.rows_read}"
            )
        yield X, y
