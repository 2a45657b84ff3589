"""Kernel Gram matrices in plain NumPy (independent of the Rust kernels), from the
conventions of the API contract."""

from __future__ import annotations

import numpy as np


def gram(kernel, A, B) -> np.ndarray:
    """``K[i, j] = k(A[i], B[j])`` for a :mod:`kernelstream.kernels` kernel."""
    A = np.atleast_2d(np.asarray(A, dtype=float))
    B = np.atleast_2d(np.asarray(B, dtype=float))
    if kernel.name == "gaussian":
        sq = np.sum((A[:, None, :] - B[None, :, :]) ** 2, axis=-1)
        return np.exp(-sq / (2.0 * kernel.sigma**2))
    if kernel.name == "laplacian":
        l1 = np.sum(np.abs(A[:, None, :] - B[None, :, :]), axis=-1)
        return np.exp(-l1 / kernel.sigma)
    raise ValueError(f"no NumPy reference for kernel {kernel!r}")
