"""How the installed extension was built, and which instruction set it runs."""

from __future__ import annotations

from . import _core


def build_info() -> dict:
    """Build and run-time facts of the compiled core.

    Returns
    -------
    dict
        ``version``; ``simd_path``, the instruction-set path the hot kernels (dot,
        axpy, packed symmetric mat-vec and rank-one update, random-feature
        projection and cosines) take in this process (``"baseline"``, ``"avx2"``
        or ``"avx512"``), chosen once from the CPU (``simd_detected``) and lowered by
        the environment variable ``KERNELSTREAM_SIMD`` (``simd_requested``) if set;
        ``kernels``, that path per kernel; ``target_features``, the instruction-set
        extensions the rest of the extension was compiled for (baseline x86-64:
        ``sse``, ``sse2``); ``target``, ``rustc`` and ``profile``.

    Notes
    -----
    The AVX2 and AVX-512 paths use fused multiply-adds, so their results can differ
    from the baseline path in the last bits; within one process the path is fixed
    and results are deterministic.

    Examples
    --------
    >>> import kernelstream
    >>> kernelstream.build_info()["simd_path"] in ("baseline", "avx2", "avx512")
    True
    """
    return dict(_core.build_info())
