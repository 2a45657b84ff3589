"""The weights of a mixture over time, as stacked areas (like opera's ``plot``)."""

from __future__ import annotations

import numpy as np


def plot_weights(weights, labels=None, ax=None, title=None):
    """Stacked weights ``(n_rounds, n_experts)`` against rounds; returns the figure.

    Rows that are all NaN (AutoKernel's warm-up) are left out. Signed weights (the
    ``"vaw"`` rule) are drawn as lines instead of areas.

    Needs matplotlib (the ``plots`` extra); without it, a ``ModuleNotFoundError`` says so.
    """
    from .._optional import require

    matplotlib = require("matplotlib", "plotting")
    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    W = np.asarray(weights, dtype=float)
    rounds = np.arange(1, W.shape[0] + 1)
    keep = ~np.all(np.isnan(W), axis=1)
    W, rounds = W[keep], rounds[keep]
    if ax is None:
        fig, ax = plt.subplots(figsize=(8, 4))
    else:
        fig = ax.figure
    labels = list(labels) if labels is not None else [f"expert {j}" for j in range(W.shape[1])]
    colors = plt.cm.tab20(np.arange(W.shape[1]) % 20) if W.shape[1] > 10 else None
    if W.size and np.nanmin(W) >= 0:
        ax.stackplot(rounds, W.T, labels=labels, colors=colors)
        ax.set_ylim(0, 1)
    else:
        for j in range(W.shape[1]):
            ax.plot(rounds, W[:, j], label=labels[j], color=None if colors is None else colors[j])
    ax.set_xlabel("rounds")
    ax.set_ylabel("weight")
    if title:
        ax.set_title(title)
    if W.shape[1] <= 12:
        ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.0, 1.0))
        fig.subplots_adjust(right=0.65)
    return fig


__all__ = ["plot_weights"]
