"""The AR(4) stream of the VAW2 paper (Rokhlin & Gurtovaya 2025), eq. (32).

``x_t = 0.5 x_{t-4} - 0.3 x_{t-3} + 0.2 x_{t-2} + 0.1 x_{t-1} + eps_t``, ``eps_t ~ N(0, 1)``
i.i.d., ``x_k = 0`` for ``k = -3..0``; the task is to predict ``y_t = x_{t+1}`` from
``x_t`` (``t = 1..n``, so ``x_1..x_{n+1}`` are generated). The input is the scalar
``x_t`` (d = 1), the reading that reproduces the paper's MSE level (Table 2);
``lags > 1`` gives ``(x_t, x_{t-1}, ..., x_{t-lags+1})`` instead.
The noise comes from the library's generator ``kernelstream._core.Rng(seed)``.
Values are raw: apply the paper's normalisation (eqs. 33-34) yourself.
"""

from __future__ import annotations

import numpy as np

from .. import _core
from .._validation import integer
from .._validation import seed as check_seed

AR4_COEFFICIENTS = (0.5, -0.3, 0.2, 0.1)  # nu_0 .. nu_3 of eq. (32): lags 4, 3, 2, 1


def ar4(n: int = 5000, seed: int = 0, lags: int = 1, noise_std: float = 1.0):
    """Generate the AR(4) stream of eq. (32).

    Parameters
    ----------
    n : int, default 5000
        Number of rounds ``T``.
    seed : int, default 0
        Seed of the noise (``kernelstream._core.Rng``).
    lags : int, default 1
        Number of past values in each input row (the paper: 1).
    noise_std : float, default 1.0

    Returns
    -------
    X : ndarray of shape (n, lags)
        ``X[t-1] = (x_t, ..., x_{t-lags+1})`` (values before ``x_1`` are 0).
    y : ndarray of shape (n,)
        ``y[t-1] = x_{t+1}``.

    Examples
    --------
    >>> from kernelstream.datasets.ar4 import ar4
    >>> X, y = ar4(n=100, seed=1)
    >>> X.shape, y.shape, bool((X[1:, 0] == y[:-1]).all())
    ((100, 1), (100,), True)
    """
    n = integer("n", n, 1)
    lags = integer("lags", lags, 1)
    rng = _core.Rng(check_seed(seed))
    nu0, nu1, nu2, nu3 = AR4_COEFFICIENTS
    # x[k + 3] holds x_k, k = -3 .. n + 1.
    x = np.zeros(n + 5)
    for t in range(1, n + 2):
        i = t + 3
        x[i] = (
            nu0 * x[i - 4]
            + nu1 * x[i - 3]
            + nu2 * x[i - 2]
            + nu3 * x[i - 1]
            + noise_std * rng.normal()
        )
    series = x[4:]  # x_1 .. x_{n+1}
    X = np.zeros((n, lags))
    for lag in range(lags):
        # column `lag` holds x_{t - lag}
        X[lag:, lag] = series[: n - lag] if lag < n else []
    y = series[1 : n + 1].copy()
    return X, y


__all__ = ["ar4", "AR4_COEFFICIENTS"]
