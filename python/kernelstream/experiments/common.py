"""Helpers shared by experiment entries: data preparation and progressive runs as
picklable tasks."""

from __future__ import annotations

from ..datasets import prepare


def make_learner(spec: dict):
    """Builds a learner from ``{"class": name, "params": {...}}`` (kernels as ``("gaussian", sigma)``)."""
    import kernelstream as ks

    from ..kernels import Kernel

    params = dict(spec.get("params", {}))
    for key in ("kernel",):
        if key in params and isinstance(params[key], (tuple, list)):
            kname, *kp = params[key]
            params[key] = Kernel.from_spec(kname, [float(v) for v in kp])
    return getattr(ks, spec["class"])(**params)


def progressive_task(task: dict) -> dict:
    """A picklable progressive run: ``task`` holds dataset preparation, the learner spec,
    the task type, checkpoints and a time budget. Returns plain arrays."""
    from ..evaluate import progressive

    X, y, _ = prepare(
        task["dataset"],
        task.get("data_home"),
        x_range=tuple(task.get("x_range", (-1.0, 1.0))),
        y_range=None if task.get("y_range") is None else tuple(task["y_range"]),
        classification=task.get("task") == "classification",
        seed=task.get("shuffle_seed"),
        limit=task.get("limit"),
    )
    learner = make_learner(task["learner"])
    res = progressive(
        learner,
        X,
        y,
        task=task.get("task", "regression"),
        checkpoints=task.get("checkpoints"),
        time_budget=task.get("time_budget"),
        progress=False,
    )
    return {
        "label": task.get("label", task["learner"]["class"]),
        "dataset": task["dataset"],
        "rounds": res.rounds.tolist(),
        "loss": res.loss.tolist(),
        "seconds": res.seconds.tolist(),
        "dim": res.dim.tolist(),
        "n_rounds": res.n_rounds,
        "n_total": int(X.shape[0]),
        "stopped_by_budget": res.stopped_by_budget,
        "final_loss": res.final_loss,
    }


def plot_curves(results: list, title: str, task: str = "regression"):
    """Loss and time panels for a list of ``progressive_task`` outputs: the evaluator's own
    plot (:func:`kernelstream.evaluate.plots.plot_results`); returns the figure."""
    from types import SimpleNamespace

    from ..evaluate.plots import plot_results

    curves = [
        SimpleNamespace(
            rounds=r["rounds"], loss=r["loss"], seconds=r["seconds"], learner=r["label"], task=task
        )
        for r in results
    ]
    return plot_results(curves, title=title)
