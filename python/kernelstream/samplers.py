"""Dictionary samplers: KORS (kernel online row sampling).

Calandriello, Lazaric, Valko (2017), *Efficient second-order online kernel learning
with adaptive embedding*, App. A, Algorithm 1 and Eq. (6); used by NystromAWV
(PKAWV paper sec. 3.2) and PROS-N-KONS. The Rust core keeps
``(W K_DD W + mu I)^{-1}`` by bordered inverses and computes the inclusion
probability in closed form ``p_t = min(beta (1 + eps) res / (res + mu), 1)`` with
``res = k(x_t, x_t) - kS^T (W K W + mu I)^{-1} kS`` (Calandriello, Lazaric, Valko 2017, App. A).
Every step consumes exactly one ``Rng(seed).uniform()`` draw ``u`` and adds the
point iff ``u < p_t``.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

from . import _core
from ._validation import as_matrix, as_row, real, text, whole
from ._wrapped import CoreWrapper
from .kernels import as_kernel

#: A KORS dictionary, the ``dictionary`` property of ``KORS``, ``NystromAWV`` and
#: ``ProsNKons``: points ``(m, d)``, 0-based round indices (-1 for points given
#: beforehand), inclusion probabilities and weights (NaN for points given beforehand).
Dictionary = namedtuple("Dictionary", ["points", "indices", "probabilities", "weights"])


class KORS(CoreWrapper):
    """Kernel Online Row Sampling.

    Parameters
    ----------
    kernel : kernelstream.kernels.Kernel
    mu : float, default 1.0
        Ridge regularisation of the leverage scores (gamma in the PROS-N-KONS paper).
    eps : float, default 0.5
        Accuracy: the scores are inflated by ``1 + eps``.
    beta : float, default 1.0
        Oversampling factor.
    weights : {"sqrt", "inverse"}, default "sqrt"
        ``"sqrt"``: weights ``1/sqrt(p)`` (KORS as defined); ``"inverse"``: ``1/p``
        (the 2019 PKAWV paper's code).
    seed : int, default 0

    Examples
    --------
    >>> import numpy as np
    >>> from kernelstream.samplers import KORS
    >>> from kernelstream.kernels import Gaussian
    >>> kors = KORS(Gaussian(1.0), mu=1.0, eps=0.5, beta=1.0, seed=0)
    >>> kors.probability([0.2, -0.1])
    0.75
    >>> added = [kors.step(x) for x in np.random.default_rng(0).uniform(-1, 1, (200, 2))]
    >>> kors.size == sum(added), kors.dictionary.points.shape[1]
    (True, 2)
    """

    def __init__(
        self,
        kernel,
        mu: float = 1.0,
        eps: float = 0.5,
        beta: float = 1.0,
        weights: str = "sqrt",
        seed: int = 0,
    ):
        super().__init__(kernel=kernel, mu=mu, eps=eps, beta=beta, weights=weights, seed=seed)
        self.last_probability: float | None = None

    _core_class = _core.KORS

    def _core_kwargs(self, p: dict) -> dict:
        name, params = as_kernel(p["kernel"]).spec
        return dict(
            kernel_name=name,
            kernel_params=params,
            mu=real("mu", p["mu"]),
            eps=real("eps", p["eps"]),
            beta=real("beta", p["beta"]),
            weights=text("weights", p["weights"]),
            seed=whole("seed", p["seed"]),
        )

    def step(self, x) -> bool:
        """Feeds ``x``: draws ``z ~ Bernoulli(p)`` and adds ``x`` if ``z = 1``; returns ``z``.
        ``last_probability`` holds the ``p`` used."""
        added, p, _res = self._core.step(as_row(x))
        self.last_probability = p
        return bool(added)

    def step_many(self, X) -> np.ndarray:
        """``step`` on each row of ``X``; returns the boolean decisions."""
        return np.asarray(self._core.step_many(as_matrix(X)), dtype=bool)

    def probability(self, x) -> float:
        """Inclusion probability a step on ``x`` would use (no state change)."""
        return float(self._core.probability(as_row(x)))

    @property
    def dictionary(self) -> Dictionary:
        """Points ``(m, d)``, 0-based round indices, inclusion probabilities, weights."""
        return Dictionary(
            np.asarray(self._core.points),
            np.asarray(self._core.indices, dtype=np.int64),
            np.asarray(self._core.probabilities, dtype=float),
            np.asarray(self._core.weights, dtype=float),
        )

    @property
    def size(self) -> int:
        return int(self._core.size)

    @property
    def n_seen(self) -> int:
        return int(self._core.n_seen)

    def minv(self) -> np.ndarray:
        """``(W K_DD W + mu I)^{-1}``."""
        return np.asarray(self._core.minv())

    # pickling: CoreWrapper's envelope (params + core bytes + format version) plus this
    def _extra_state(self):
        return {"last_probability": self.last_probability}

    def _set_extra_state(self, extra) -> None:
        self.last_probability = (extra or {}).get("last_probability")


__all__ = ["KORS", "Dictionary"]
