"""Running metrics of the online protocol: ``evaluate.progressive(..., metrics=...)`` and
``kernelstream run --metric``.

Each metric is updated with a chunk of rounds (targets ``y`` and the predictions ``p``
made before them) and read at any checkpoint, in constant memory:

====================  ===============================================================
``"mse"``             mean of ``(y_t - p_t)^2`` (the default for regression)
``"rmse"``            ``sqrt(mse)``
``"mae"``             mean of ``|y_t - p_t|``
``"r2"``              ``1 - SSE / SST``: ``SST`` the squared deviations of the targets
                      so far from their mean (scikit-learn's ``r2_score`` on the rounds
                      so far; NaN while ``SST = 0``)
``"error"``           mean of ``1{sign(p_t) != y_t}``, ``sign(0) = +1`` (the default for
                      classification)
``"accuracy"``        ``1 - error``
``"log_loss"``        mean of ``-log P(y_t)``, with ``P(+1) = sigmoid(p_t)`` for a learner
                      with the logistic loss, else ``P(+1) = (1 + p_t) / 2`` (the
                      least-squares score of a +-1 label), clipped to ``[1e-15, 1 - 1e-15]``
                      as scikit-learn's ``log_loss`` clips
====================  ===============================================================

A river metric object (anything with ``update(y_true, y_pred)`` and ``get()``, such as
``river.metrics.MAE()``) is accepted too: it is updated round by round, with the
predicted label (``+1``/``-1``) for a classification metric that ``requires_labels``,
``P(y = +1)`` and ``y_true == 1`` for the other classification metrics, and the
prediction for a regression metric; its column is named after its class (``"MAE"``).
"""

from __future__ import annotations

import math

import numpy as np

from ..errors import ParameterError

NAMES = ("mse", "rmse", "mae", "r2", "error", "accuracy", "log_loss")
#: the default metric of each task (the protocol's loss)
DEFAULT = {"regression": "mse", "classification": "error"}
_EPS = 1e-15


def _sigmoid(f: np.ndarray) -> np.ndarray:
    # exp of a non-positive argument only: no overflow warning
    e = np.exp(-np.abs(f))
    return np.where(f >= 0, 1.0 / (1.0 + e), e / (1.0 + e))


def probability_of_plus(p: np.ndarray, logistic: bool) -> np.ndarray:
    """``P(y = +1)`` from the scores ``p`` (see the module's table), clipped."""
    q = _sigmoid(p) if logistic else (1.0 + p) / 2.0
    return np.clip(q, _EPS, 1.0 - _EPS)


class _Sums:
    """The sums every named metric is read from (a chunk at a time)."""

    def __init__(self, logistic: bool):
        self.logistic = logistic
        self.n = 0
        self.se = self.ae = self.wrong = self.nll = 0.0
        self.mean = self.m2 = 0.0  # the targets' running mean and squared deviations

    def update(self, y: np.ndarray, p: np.ndarray) -> None:
        k = y.size
        if not k:
            return
        with np.errstate(over="ignore", invalid="ignore"):  # inf/NaN predictions: inf/NaN sums
            r = y - p
            self.se += float(r @ r)
            self.ae += float(np.abs(r).sum())
        self.wrong += float((np.where(p >= 0.0, 1.0, -1.0) != y).sum())
        if np.all((y == 1.0) | (y == -1.0)):
            q = probability_of_plus(p, self.logistic)
            self.nll -= float(np.log(np.where(y > 0, q, 1.0 - q)).sum())
        else:
            self.nll = math.nan  # log loss needs +-1 labels
        # Chan et al.'s combination of the running moments with the chunk's
        cm = float(y.mean())
        cm2 = float(((y - cm) ** 2).sum())
        n = self.n + k
        delta = cm - self.mean
        self.m2 += cm2 + delta * delta * self.n * k / n
        self.mean += delta * k / n
        self.n = n

    def value(self, name: str) -> float:
        n = self.n
        if not n:
            return math.nan
        if name == "mse":
            return self.se / n
        if name == "rmse":
            return math.sqrt(self.se / n)
        if name == "mae":
            return self.ae / n
        if name == "r2":
            return 1.0 - self.se / self.m2 if self.m2 > 0 else math.nan
        if name == "error":
            return self.wrong / n
        if name == "accuracy":
            return 1.0 - self.wrong / n
        return self.nll / n  # log_loss


def _is_river_metric(m) -> bool:
    return callable(getattr(m, "update", None)) and callable(getattr(m, "get", None))


def metric_name(m) -> str:
    """A metric's column name: its name, or a river metric's class name (``"MAE"``)."""
    return m if isinstance(m, str) else type(m).__name__


class Metrics:
    """The metrics of one run: ``update(y, p)`` with each chunk, ``values()`` at each
    checkpoint (a dict, name -> value)."""

    def __init__(self, metrics, task: str, learner=None):
        if metrics is None:
            metrics = [DEFAULT[task]]
        elif isinstance(metrics, str) or _is_river_metric(metrics):
            metrics = [metrics]
        metrics = list(metrics)
        if not metrics:
            raise ParameterError("metrics must name at least one metric")
        for m in metrics:
            if isinstance(m, str) and m not in NAMES:
                raise ParameterError(
                    f"unknown metric {m!r}: one of {', '.join(NAMES)}, or a river metric object"
                )
            if not isinstance(m, str) and not _is_river_metric(m):
                raise ParameterError(
                    f"a metric is a name ({', '.join(NAMES)}) or an object with "
                    f"update(y_true, y_pred) and get(), got {m!r}"
                )
        names = [metric_name(m) for m in metrics]
        if len(set(names)) != len(names):
            raise ParameterError(f"metrics must not repeat, got {names}")
        self.metrics, self.names, self.task = metrics, names, task
        params = learner.get_params() if hasattr(learner, "get_params") else {}
        self.logistic = params.get("loss") == "logistic"
        self._sums = _Sums(self.logistic)

    def update(self, y: np.ndarray, p: np.ndarray) -> None:
        y = np.asarray(y, dtype=np.float64)
        p = np.asarray(p, dtype=np.float64)
        self._sums.update(y, p)
        for m in self.metrics:
            if not isinstance(m, str):
                self._update_river(m, y, p)

    def _update_river(self, m, y, p) -> None:
        if self.task == "regression":
            for yt, pt in zip(y.tolist(), p.tolist()):
                m.update(yt, pt)
        elif getattr(m, "requires_labels", True):
            for yt, pt in zip(y.tolist(), p.tolist()):
                m.update(int(yt), 1 if pt >= 0 else -1)
        else:
            q = probability_of_plus(p, self.logistic)
            for yt, qt in zip(y.tolist(), q.tolist()):
                m.update(yt == 1.0, qt)

    def values(self) -> dict:
        return {
            name: (self._sums.value(m) if isinstance(m, str) else float(m.get()))
            for name, m in zip(self.names, self.metrics)
        }
