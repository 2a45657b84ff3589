"""Workers and helpers shared by the projection-paper entries (Zhang and Simon,
sec. 6 and App. E). Every worker is a module-level function taking one dict
(picklable) and returning plain lists, so that ``ctx.map`` can run them anywhere.

Error metric: ``log10`` of the mean over repetitions of the exact squared L2(rho_X) error
(quadrature against the design density, :func:`kernelstream.datasets.projection_examples.l2_error`),
instead of the paper's 1,000-point Monte Carlo. Times are process CPU seconds.
"""

from __future__ import annotations

import time

import numpy as np


def checkpoints(lo: float, hi: float, per_decade: int = 2) -> list:
    """Integer checkpoints ``10^lo .. 10^hi``, ``per_decade`` per decade (log-spaced)."""
    k = int(round((hi - lo) * per_decade))
    return sorted({int(round(10**e)) for e in np.linspace(lo, hi, k + 1)})


def _kernel(name):
    from ..kernels import Kernel

    return Kernel.from_spec(name)


def projection_curve(task: dict) -> dict:
    """Online projection estimator on one stream: errors, CPU seconds and p at the checkpoints.

    task: ``example``, ``seed``, ``checkpoints``, optional ``overrides`` (OnlineProjection
    parameters), ``noise_sd``, ``error`` (False: timing only)."""
    from ..datasets.projection_examples import EXAMPLES, l2_error

    ex = EXAMPLES[task["example"]]
    cps = list(task["checkpoints"])
    X, y = ex.sample(cps[-1], seed=task["seed"], noise_sd=task.get("noise_sd"))
    model = ex.make_projection(**task.get("overrides", {}))
    errs, secs, dims = [], [], []
    cpu, lo = 0.0, 0
    for n in cps:
        t0 = time.process_time()
        model.learn_many(X[lo:n], y[lo:n])
        cpu += time.process_time() - t0
        lo = n
        secs.append(cpu)
        dims.append(model.dim)
        errs.append(l2_error(model.predict_many, ex) if task.get("error", True) else float("nan"))
    return {"n": cps, "err": errs, "seconds": secs, "dim": dims}


def sgd_curve(task: dict) -> dict:
    """Averaged kernel SGD (App. E.1, eqs. (87)-(88)) with the paper's kernel and step on one stream."""
    from ..datasets.projection_examples import EXAMPLES, l2_error
    from ..learners import AveragedKernelSGD

    ex = EXAMPLES[task["example"]]
    cps = list(task["checkpoints"])
    X, y = ex.sample(cps[-1], seed=task["seed"], noise_sd=task.get("noise_sd"))
    gamma0 = task.get("gamma0", ex.sgd_gamma0)
    assert gamma0 is not None, f"example {task['example']} has no SGD step size"
    model = AveragedKernelSGD(_kernel(ex.sgd_kernel), gamma0=float(gamma0), zeta=0.5)
    errs, secs = [], []
    cpu, lo = 0.0, 0
    for n in cps:
        t0 = time.process_time()
        model.learn_many(X[lo:n], y[lo:n])
        cpu += time.process_time() - t0
        lo = n
        secs.append(cpu)
        errs.append(
            l2_error(model.predict_many, ex, nodes=1000)
            if task.get("error", True)
            else float("nan")
        )
    return {"n": cps, "err": errs, "seconds": secs}


def krr_curve(task: dict) -> dict:
    """Kernel ridge regression refitted at each checkpoint, ``lambda_n = lambda0 n^exponent``
    (eq. (86)). With ``center=True`` the mean of y is fitted separately
    (intercept; used for the additive model, whose kernel has no constant)."""
    from ..datasets.projection_examples import EXAMPLES, l2_error
    from ..reference.online_projection import krr_fit

    ex = EXAMPLES[task["example"]]
    cps = list(task["checkpoints"])
    X, y = ex.sample(cps[-1], seed=task["seed"], noise_sd=task.get("noise_sd"))
    kernel = _kernel(task.get("kernel", ex.sgd_kernel))
    lam0 = task.get("lambda0", ex.krr_lambda0)
    expo = task.get("exponent", ex.krr_exponent)
    errs, secs = [], []
    for n in cps:
        t0 = time.process_time()
        mu = float(np.mean(y[:n])) if task.get("center") else 0.0
        pred = krr_fit(kernel, X[:n], y[:n] - mu, lam0 * n**expo)
        secs.append(time.process_time() - t0)
        errs.append(l2_error(lambda Z, pred=pred, mu=mu: pred(Z) + mu, ex, nodes=1000))
    return {"n": cps, "err": errs, "seconds": secs}


def slope(ns, values, lo=None, hi=None) -> float:
    """Least-squares slope of ``log10 values`` against ``log10 n`` over ``lo <= n <= hi``."""
    ns = np.asarray(ns, float)
    v = np.asarray(values, float)
    keep = np.ones_like(ns, bool)
    if lo is not None:
        keep &= ns >= lo
    if hi is not None:
        keep &= ns <= hi
    return float(np.polyfit(np.log10(ns[keep]), np.log10(v[keep]), 1)[0])


def mean_curve(results: list) -> tuple:
    """(n, mean error over repetitions, std of log10 error) of a list of curve outputs."""
    n = np.asarray(results[0]["n"])
    E = np.array([r["err"] for r in results])
    return n, E.mean(axis=0), np.log10(E).std(axis=0)


def plot_error_curves(panels: list, title: str):
    """panels: list of (axis title, reference slope, [(label, n, mean_err)])."""
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(panels), figsize=(5.5 * len(panels), 4.2), squeeze=False)
    for ax, (name, ref, curves) in zip(axes[0], panels):
        for label, n, e in curves:
            ax.plot(np.log10(n), np.log10(e), marker="o", ms=3, label=label)
        # reference line through the first curve's first point
        _, n0, e0 = curves[0]
        x = np.log10(np.asarray(n0, float))
        ax.plot(x, np.log10(e0[0]) + ref * (x - x[0]), "k--", lw=1, label=f"slope {ref:.3g}")
        ax.set_xlabel("log10 n")
        ax.set_ylabel("log10 mean squared L2 error")
        ax.set_title(name)
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=8)
    fig.suptitle(title)
    fig.tight_layout()
    return fig
