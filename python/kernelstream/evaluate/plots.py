"""Plots of progressive results: running average loss and cumulative time against rounds."""

from __future__ import annotations

import warnings


def plot_results(results, axes=None, labels=None, title=None):
    """Two panels (loss, seconds) against rounds, log-scaled rounds; returns the figure.

    Needs matplotlib (the ``plots`` extra); without it, a ``ModuleNotFoundError`` says so.
    """
    from .._optional import require

    matplotlib = require("matplotlib", "plotting")

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    if axes is None:
        fig, axes = plt.subplots(1, 2, figsize=(10, 4))
    else:
        fig = axes[0].figure
    labels = labels or [None] * len(results)
    for res, lab in zip(results, labels):
        name = lab or res.learner
        axes[0].plot(res.rounds, res.loss, marker=".", label=name)
        axes[1].plot(res.rounds, res.seconds, marker=".", label=name)
    task = results[0].task if results else "regression"
    axes[0].set_ylabel("average squared loss" if task == "regression" else "average error rate")
    axes[1].set_ylabel("cumulative seconds")
    for ax in axes:
        ax.set_xscale("log")
        ax.set_xlabel("rounds")
        ax.grid(True, alpha=0.3)
    axes[1].set_yscale("log")
    axes[0].legend(fontsize=8)
    if title:
        fig.suptitle(title)
    with warnings.catch_warnings():  # matplotlib's own layout advice is not the user's business
        warnings.simplefilter("ignore", UserWarning)
        fig.tight_layout()
    return fig
