"""Command line: ``kernelstream`` (also ``python -m kernelstream``).

* ``run``: the main job, a progressive run with a progress bar and a results table;
* ``bench``: Rust learners against their NumPy references, per-round times and ratios;
* ``reproduce``: the registry of paper experiments (``--list``, ``NAME``, ``--all``).
"""

from __future__ import annotations

import argparse
import inspect
import sys
from pathlib import Path

#: CLI names of the learners (``--learner NAME``) and their classes in ``kernelstream``.
LEARNERS = {
    "taylor-awv": "TaylorAWV",
    "kernel-awv": "KernelAWV",
    "nystrom-awv": "NystromAWV",
    "pros-n-kons": "ProsNKons",
    "fogd": "FOGD",
    "nogd": "NOGD",
    "rff-awv": "RFFAWV",
    "multi-kernel-awv": "MultiKernelAWV",
    "raker": "Raker",
    "omkl-gf": "OMKLGF",
    "online-projection": "OnlineProjection",
    "averaged-sgd": "AveragedKernelSGD",
}

#: Learners whose basis lives on [0, 1]^d: their inputs are scaled to [0, 1] instead of [-1, 1].
UNIT_CUBE_LEARNERS = {"online-projection", "averaged-sgd"}


def _parse_value(text: str):
    low = text.lower()
    if low in ("true", "false"):
        return low == "true"
    if low == "none":
        return None
    for cast in (int, float):
        try:
            return cast(text)
        except ValueError:
            pass
    return text


def build_learner(name: str, args) -> object:
    import kernelstream as ks
    from kernelstream import kernels

    if name not in LEARNERS:
        raise SystemExit(f"unknown learner {name!r}; choose from: {', '.join(LEARNERS)}")
    cls = getattr(ks, LEARNERS[name], None)
    if cls is None:
        raise SystemExit(f"learner {name!r} ({LEARNERS[name]}) is not available in this build")
    accepted = inspect.signature(cls.__init__).parameters
    params: dict = {}
    if "kernels" in accepted:
        # multi-kernel learners: the VAW2 paper's 76-kernel grid unless --param overrides
        params["kernels"] = kernels.vaw2_grid()
    if "kernel" in accepted:
        params["kernel"] = kernels.Kernel.from_spec(args.kernel, [args.sigma])
    elif "sigma" in accepted:
        params["sigma"] = args.sigma
    for key in ("degree", "lam", "seed"):
        value = getattr(args, key)
        if value is not None and key in accepted:
            params[key] = value
    if args.ridge and "ridge" in accepted:
        params["ridge"] = True
    for item in args.param or []:
        if "=" not in item:
            raise SystemExit(f"--param expects key=value, got {item!r}")
        key, value = item.split("=", 1)
        if key not in accepted:
            raise SystemExit(
                f"{LEARNERS[name]} has no parameter {key!r}; it takes {', '.join(list(accepted)[1:])}"
            )
        params[key] = _parse_value(value)
    return cls(**params)


def _x_range(args):
    if args.x_range is not None:
        return tuple(args.x_range)
    return (0.0, 1.0) if args.learner in UNIT_CUBE_LEARNERS else (-1.0, 1.0)


def _load_stream(args):
    import numpy as np

    from kernelstream import datasets

    if args.dataset and args.csv:
        raise SystemExit("give either --dataset or --csv, not both")
    if args.dataset or args.csv:
        if args.dataset:
            X, y = datasets.load(args.dataset, args.data_home)
            source = f"dataset {args.dataset}"
        else:
            X, y = datasets.load_csv(args.csv, args.target)
            source = f"{args.csv}"
        X, y, dropped = datasets.drop_missing(X, y)
        if dropped:
            print(f"dropped {dropped} rows with missing values", file=sys.stderr)
        task = args.task
        if task == "auto":
            task = (
                "classification"
                if set(np.unique(y)) <= {-1.0, 1.0, 0.0} and len(np.unique(y)) == 2
                else "regression"
            )
        if task == "classification":
            y = np.where(y == y.max(), 1.0, -1.0)
            if not args.no_scale:
                X, _ = datasets.scale(X, None, x_range=_x_range(args))
        elif not args.no_scale:
            X, y = datasets.scale(X, y, x_range=_x_range(args), y_range=(-1, 1))
        if args.shuffle is not None:
            X, y = datasets.shuffle(X, y, args.shuffle)
    else:
        X, y = datasets.synthetic.friedman_stream(n=args.n, d=5, seed=args.shuffle or 0)
        lo, hi = _x_range(args)
        X = lo + (hi - lo) * (X + 1.0) / 2.0
        source = (
            f"built-in synthetic stream (Friedman #1, n={args.n}, d=5, x in [{lo:g}, {hi:g}]^5)"
        )
        task = "regression" if args.task == "auto" else args.task
    if args.limit:
        X, y = X[: args.limit], y[: args.limit]
    return X, y, task, source


def cmd_run(args) -> int:
    import pickle

    from kernelstream.evaluate import progressive

    X, y, task, source = _load_stream(args)
    if args.resume:
        with open(args.resume, "rb") as fh:
            learner = pickle.load(fh)
        print(f"resumed {learner!r} after {learner.n_seen} rounds from {args.resume}")
    else:
        learner = build_learner(args.learner, args)
    print(f"{learner!r} on {source}: {X.shape[0]} rounds, d={X.shape[1]}, task={task}")
    res = progressive(
        learner, X, y, task=task, time_budget=args.time_budget, progress=args.progress
    )
    frame = res.to_frame().drop(columns=["learner"])
    frame["us_per_round"] = 1e6 * frame["seconds"] / frame["rounds"]
    import pandas as pd

    with pd.option_context("display.max_rows", 200, "display.width", 120):
        print(frame.to_string(index=False, float_format=lambda v: f"{v:.6g}"))
    metric = "average squared loss" if task == "regression" else "error rate"
    print(
        f"\n{res.n_rounds} rounds in {res.total_seconds:.3f} s "
        f"({1e6 * res.total_seconds / max(res.n_rounds, 1):.2f} us/round); final {metric} {res.final_loss:.6g}; "
        f"dim {learner.dim}" + (" (stopped by the time budget)" if res.stopped_by_budget else "")
    )
    if args.plot:
        fig = res.plot(label=repr(learner))
        fig.savefig(args.plot, dpi=110, bbox_inches="tight")
        print(f"plot written to {args.plot}")
    if args.save_predictions:
        import numpy as np

        np.savetxt(
            args.save_predictions,
            np.c_[y[: res.n_rounds], res.predictions],
            delimiter=",",
            header="y,prediction",
            comments="",
        )
        print(f"predictions written to {args.save_predictions}")
    if args.save_model:
        with open(args.save_model, "wb") as fh:
            pickle.dump(learner, fh)
        print(f"learner saved to {args.save_model} (continue with --resume)")
    return 0


def cmd_bench(args) -> int:
    from kernelstream.benchcases import run_bench

    run_bench(args.cases or None, quick=args.quick)
    return 0


def cmd_reproduce(args) -> int:
    from kernelstream.experiments import Context, entries, run_entry

    all_entries = entries()
    if args.list:
        for name, entry in all_entries.items():
            print(f"{name:<22} {entry.description}")
        return 0
    names = list(all_entries) if args.all else args.names
    if not names:
        raise SystemExit("name an experiment (see --list) or use --all")
    out = Path(args.out)
    results = []
    for name in names:
        ctx = Context(
            out,
            quick=args.quick,
            seeds=args.seeds,
            time_budget=args.time_budget,
            data_home=args.data_home,
            jobs=args.jobs,
            executor=args.executor,
            scheduler=args.scheduler,
        )
        payload = run_entry(name, ctx, force=args.force)
        results.append(payload)
        print(f"\n## {name} ({payload['seconds']:.1f} s)\n{payload['paper']}\n")
        print(payload["_table"])
        for note in payload["notes"]:
            print(f"- {note}")
        for fig in payload["figures"]:
            print(f"figure: {fig}")
        print(f"json: {out / (name + '.json')}")
    if args.report:
        from kernelstream.experiments.report import write_report

        write_report(results, Path(args.report), out)
        print(f"report written to {args.report}")
    return 0


def make_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="kernelstream", description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="command", required=True)

    r = sub.add_parser(
        "run", help="progressive run of one learner (default: TaylorAWV on a synthetic stream)"
    )
    r.add_argument("--learner", default="taylor-awv", help=f"one of: {', '.join(LEARNERS)}")
    r.add_argument("--dataset", help="dataset name in the data directory (e.g. casp, ijcnn1)")
    r.add_argument("--csv", help="a CSV file with a header")
    r.add_argument("--target", help="target column of --csv (default: last)")
    r.add_argument("--data-home", help="data directory (default: $KERNELSTREAM_DATA)")
    r.add_argument("--task", choices=["auto", "regression", "classification"], default="auto")
    r.add_argument(
        "--no-scale", action="store_true", help="do not min-max scale x and y to [-1, 1]"
    )
    r.add_argument(
        "--x-range",
        type=float,
        nargs=2,
        metavar=("LO", "HI"),
        help="scale inputs to [LO, HI] (default [-1, 1]; [0, 1] for the projection learners)",
    )
    r.add_argument("--shuffle", type=int, help="shuffle the rows with this seed")
    r.add_argument("--limit", type=int, help="use only the first N rows")
    r.add_argument("--n", type=int, default=100000, help="rounds of the built-in synthetic stream")
    r.add_argument(
        "--kernel", default="gaussian", help="kernel name for --sigma (gaussian or laplacian)"
    )
    r.add_argument("--sigma", type=float, default=1.0)
    r.add_argument("--degree", type=int)
    r.add_argument("--lam", type=float)
    r.add_argument("--seed", type=int)
    r.add_argument("--ridge", action="store_true", help="online ridge instead of AWV")
    r.add_argument("--param", "-p", action="append", help="other learner parameter, key=value")
    r.add_argument("--time-budget", type=float, help="stop after this many seconds")
    r.add_argument("--plot", help="write the loss/time plot to this PNG")
    r.add_argument("--save-predictions", help="write y and predictions to this CSV")
    r.add_argument("--save-model", help="pickle the learner here after the run")
    r.add_argument("--resume", help="continue a learner pickled by --save-model")
    r.add_argument(
        "--progress",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="progress bar (default: on a terminal)",
    )
    r.set_defaults(func=cmd_run)

    b = sub.add_parser("bench", help="time Rust learners against the NumPy references")
    b.add_argument("cases", nargs="*", help="cases to run (default: all)")
    b.add_argument("--quick", action="store_true", help="small sizes")
    b.set_defaults(func=cmd_bench)

    e = sub.add_parser("reproduce", help="regenerate a paper table or figure")
    e.add_argument("names", nargs="*", help="experiment names (see --list)")
    e.add_argument("--list", action="store_true")
    e.add_argument("--all", action="store_true", help="run every entry")
    e.add_argument("--quick", action="store_true", help="the reduced CI version")
    e.add_argument("--out", default="results", help="output directory (default: results)")
    e.add_argument("--seeds", type=int, help="number of runs (overrides the entry's)")
    e.add_argument("--time-budget", type=float, help="per-algorithm time budget in seconds")
    e.add_argument("--data-home", help="data directory (default: $KERNELSTREAM_DATA)")
    e.add_argument("--jobs", type=int, default=1, help="parallel local workers (joblib)")
    e.add_argument("--executor", choices=["auto", "serial", "joblib", "dask"], default="auto")
    e.add_argument("--scheduler", help="Dask scheduler address for --executor dask")
    e.add_argument(
        "--report", help="write a Markdown report of the entries run (e.g. REPRODUCTION.md)"
    )
    e.add_argument("--force", action="store_true", help="recompute even if a cached result matches")
    e.set_defaults(func=cmd_reproduce)
    return p


def main(argv=None) -> int:
    args = make_parser().parse_args(argv)
    from kernelstream.errors import KernelstreamError

    try:
        return args.func(args)
    except (KernelstreamError, FileNotFoundError) as exc:
        print(f"kernelstream: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
