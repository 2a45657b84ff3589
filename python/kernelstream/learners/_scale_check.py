"""The scale check behind :class:`~kernelstream.ScaleWarning`: once per learner, on the
first rows of its stream.

The learners' defaults assume inputs at distances of order the kernel width ``sigma``
and targets of order one (``docs/adapters.md``, "Scale"). On the first ``N_ROWS`` rows a
learner learns (re-checked after each learning call until that many were seen, so a
shorter stream is checked too), it warns if

- **inputs**: the median distance between two of those rows (pairs at distance 0 left
  out) exceeds ``FAR`` times the largest kernel width: a Gaussian kernel is then below
  ``exp(-FAR^2 / 2) = 4e-6`` between typical rows, so each new row looks unlike every
  past one and the prediction falls to 0;
- **inputs, Taylor basis** (TaylorAWV): the median row norm exceeds ``FAR sigma``: the
  features carry the factor ``exp(-||x||^2 / (2 sigma^2))`` (below ``4e-6`` there, 0 in
  float64 beyond ``39 sigma``), so the predictions vanish;
- **targets** (regression): their root mean square exceeds ``TARGET_MAX = 100``, two
  orders of magnitude above the unit scale of the defaults (gradient steps in units of
  ``y``, PROS-N-KONS' clipping at ``C = 1``, the AWV forecasters' missing intercept).

Learners without a kernel width (the kernels on ``[0, 1]``, OnlineProjection) and
AutoKernel (which takes its scale from the stream) are not checked. Cost: one
``N_ROWS x N_ROWS`` Gram matrix, once.
"""

from __future__ import annotations

import numpy as np

N_ROWS = 32
FAR = 5.0
TARGET_MAX = 100.0


def _median_distance(X: np.ndarray) -> float:
    """Median of the nonzero pairwise distances between the rows of ``X`` (0 if none)."""
    # (inputs near float64's limit: inf/NaN distances, which the check reads as far
    # apart, not an internal RuntimeWarning for the user)
    with np.errstate(over="ignore", invalid="ignore"):
        Z = X - X.mean(axis=0)  # centred first: the Gram identity then loses little to rounding
        sq = np.einsum("ij,ij->i", Z, Z)
        D2 = sq[:, None] + sq[None, :] - 2.0 * (Z @ Z.T)
        d = np.sqrt(np.maximum(D2[np.triu_indices(X.shape[0], 1)], 0.0))
    d = np.where(np.isnan(d), np.inf, d)
    d = d[d > 0]
    return float(np.median(d)) if d.size else 0.0


def scale_problems(X, y, widths, taylor: bool, regression: bool) -> list:
    """What is wrong with the scale of the rows ``X`` (n, d) and targets ``y`` for a learner
    with kernel widths ``widths``: a list of short sentences, empty if nothing."""
    out = []
    sigma = max(widths)
    if X.shape[0] >= 2:
        m = _median_distance(X)
        if m > FAR * sigma:
            out.append(
                f"the median distance between its first rows is {m:.3g}, more than "
                f"{FAR:g} times the kernel width (sigma = {sigma:g})"
            )
    if taylor:
        with np.errstate(over="ignore", invalid="ignore"):
            r = float(np.median(np.linalg.norm(X, axis=1)))
        if r > FAR * sigma:
            out.append(
                f"the median norm of its first rows is {r:.3g}, more than {FAR:g} sigma "
                f"(sigma = {sigma:g}), where the Taylor features vanish"
            )
    if regression and y.size:
        rms = float(np.sqrt(np.mean(y * y)))
        if rms > TARGET_MAX:
            out.append(
                f"its first targets have root mean square {rms:.3g}, while the defaults "
                "assume targets of order one"
            )
    return out


def advice(name: str, problems: list) -> str:
    """The warning's text: what was seen, and what to do."""
    return (
        f"{name}: " + "; ".join(problems) + ". Its predictions will be poor at this scale. "
        "Scale the data online: wrap the learner in kernelstream.adapters "
        "(SklearnRegressor/RiverRegressor and the classifiers scale by default, scale=True), "
        "use kernelstream.AutoKernel (it takes its scale from the stream), or standardize "
        "the targets and set sigma to the distances between your rows "
        "(docs/adapters.md, 'Scale')."
    )
