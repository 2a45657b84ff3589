"""Classification benchmark: AutoKernel (defaults) through ``SklearnClassifier`` (native
multiclass: one score column per class, calibrated probabilities) against river's
classifiers with their defaults, on the same shuffled stream in the same run.

Per set: progressive error (every round), progressive log loss (the probability of the
true class made before its label, clipped at 1e-15, over the rounds whose class had been
seen before, so that no learner is charged for a class nobody has seen), expected
calibration error (top-label confidence, 10 equal-width bins) on sets of 5,000 rows or
more, and seconds. Time: the native adapter's ``fit`` against scikit-learn's
``OneVsRestClassifier`` around the binary adapter as it was before native classes
(``BinaryLearnOnly``: one learner per class on ``-1/+1`` targets, ``learn_many`` only,
no calibration; for two classes scikit-learn fits one), alternated ``--repeat`` times
in ABBA order, the median and range of the per-repeat ratios. Not a test; prints a
markdown table and ``uptime``.

Sets: scikit-learn's digits, wine, iris; river's ImageSegments; the binary sets of the
data directory (``KERNELSTREAM_DATA``: cod-rna, ijcnn1), shuffled (seed 0) and cut to
``--max-rows`` rows. river peers: ``LogisticRegression`` (one-vs-rest for more than two
classes) and ``KNNClassifier`` behind river's ``StandardScaler`` (their documented use),
``HoeffdingTreeClassifier`` and ``ARFClassifier`` on the raw rows; a peer is dropped
from a set when its first 300 rounds project beyond ``--peer-budget`` seconds.

    python tools/bench_classify.py [--sets digits,wine] [--max-rows 10000] [--repeat 6]
    python tools/bench_classify.py --heldout [Agrawal,LED ...] --peers LogisticRegression --repeat 0

``--heldout``: streams never used to choose the calibration's constants (``HELDOUT``:
river's synthetic generators with seed ``--heldout-seed``, river's bundled sets),
shuffled likewise; the last table checks the targets (log loss within 10% of river's
logistic regression or better, ECE at most 0.05 on 5,000 rows or more).
``--binning-off``: also the calibrator without its second stage, on the same scores.
``--autokernel-params``: AutoKernel's parameters (JSON) instead of its defaults.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import time

import kernelstream as ks
import numpy as np
from kernelstream.adapters import SklearnClassifier

BIN_EDGES = np.linspace(0.0, 1.0, 11)
CLIP = 1e-15


def load_sets(names, max_rows, seed=0):
    from sklearn import datasets as skd

    out = {}
    for name in names:
        if name in ("digits", "wine", "iris"):
            X, y = getattr(skd, f"load_{name}")(return_X_y=True)
        elif name == "ImageSegments":
            from river import datasets as rd

            rows = list(rd.ImageSegments())
            keys = sorted(rows[0][0])
            X = np.array([[x[k] for k in keys] for x, _ in rows], dtype=float)
            y = np.array([label for _, label in rows])
        else:
            X, y = ks.datasets.load(name)
            y = (y > 0).astype(int)
        order = np.random.default_rng(seed).permutation(len(y))[: max_rows or None]
        out[name] = (np.asarray(X, dtype=float)[order], y[order])
    return out


#: Held-out streams, never used to choose the calibration's constants: river's
#: synthetic generators with a fixed seed (``--heldout-seed``) and the classification
#: sets river bundles (no download). Name -> (factory(seed), rows).
HELDOUT = {
    "Agrawal": (lambda s: _synth().Agrawal(seed=s), 10_000),
    "SEA": (lambda s: _synth().SEA(seed=s, noise=0.1), 10_000),
    "Hyperplane": (lambda s: _synth().Hyperplane(seed=s, n_features=10), 10_000),
    "Sine": (lambda s: _synth().Sine(seed=s, has_noise=True), 10_000),
    "Mixed": (lambda s: _synth().Mixed(seed=s), 10_000),
    "STAGGER": (lambda s: _synth().STAGGER(seed=s), 10_000),
    "LED (10% noise)": (lambda s: _synth().LED(seed=s, noise_percentage=0.1), 10_000),
    "RandomRBF (4 classes)": (
        lambda s: _synth().RandomRBF(seed_model=s, seed_sample=s, n_classes=4, n_features=10),
        10_000,
    ),
    "Waveform": (lambda s: _synth().Waveform(seed=s), 10_000),
    "RandomTree (3 classes)": (
        lambda s: _synth().RandomTree(seed_tree=s, seed_sample=s, n_classes=3),
        10_000,
    ),
    "Phishing": (lambda s: _river_datasets().Phishing(), None),
    "Bananas": (lambda s: _river_datasets().Bananas(), None),
    "Shuttle": (lambda s: _river_datasets().Shuttle(), 20_000),
}


def _synth():
    from river.datasets import synth

    return synth


def _river_datasets():
    from river import datasets

    return datasets


def load_heldout(names, seed, shuffle_seed=0):
    """``{name: (X, y)}``: the first rows of each held-out stream (numeric and boolean
    features as floats, in sorted key order; labels as they come, two classes as 0/1),
    shuffled (``shuffle_seed``) like the benchmark's own sets."""
    import itertools

    out = {}
    for name in names:
        make, rows = HELDOUT[name]
        data = list(itertools.islice(make(seed), rows))
        keys = sorted(data[0][0], key=str)
        X = np.array([[float(x[k]) for k in keys] for x, _ in data])
        y = np.array([label for _, label in data])
        if len(np.unique(y)) == 2:
            y = (y == np.unique(y)[1]).astype(int)
        order = np.random.default_rng(shuffle_seed).permutation(len(y))
        out[name] = (X[order], y[order])
    return out


def seen_before(y) -> np.ndarray:
    seen, mask = set(), np.zeros(len(y), dtype=bool)
    for t, label in enumerate(y):
        mask[t] = label in seen
        seen.add(label)
    return mask


def ece(conf, correct) -> float:
    total = 0.0
    for lo, hi in zip(BIN_EDGES[:-1], BIN_EDGES[1:]):
        m = (conf > lo) & (conf <= hi) if lo > 0 else (conf >= lo) & (conf <= hi)
        if m.any():
            total += m.mean() * abs(correct[m].mean() - conf[m].mean())
    return float(total)


def summary(pred, p_true, conf, y, seconds):
    mask = seen_before(y)
    correct = pred == y
    return {
        "error": float(1.0 - correct.mean()),
        "log_loss": float(-np.log(np.clip(p_true[mask], CLIP, 1.0)).mean()),
        "ece": ece(conf, correct) if len(y) >= 5000 else None,
        "seconds": seconds,
    }


class _Recording(SklearnClassifier):
    """The adapter, keeping the scores its calibrator was given (for ``--binning-off``)."""

    def _calibration_scores(self, raw):
        self.scores_seen_ = SklearnClassifier._calibration_scores(raw)
        return self.scores_seen_


def run_ours(X, y, binning_off=False, params=None):
    """AutoKernel's summary (its defaults, or ``params``); with ``binning_off`` also the
    summary of the calibrator without its second stage on the same progressive scores
    (``(ours, off)``)."""
    from kernelstream.calibration import SoftmaxCalibrator

    est = _Recording(ks.AutoKernel(**(params or {})), scale=False)
    t0 = time.perf_counter()
    P = est.progressive_predict_proba(X, y, classes=np.unique(y))
    seconds = time.perf_counter() - t0
    codes = np.searchsorted(est.classes_, y)

    def summarise(P, seconds):
        pred = est.classes_[P.argmax(axis=1)]
        return summary(pred, P[np.arange(len(y)), codes], P.max(axis=1), y, seconds)

    ours = summarise(P, seconds)
    if not binning_off:
        return ours
    off = SoftmaxCalibrator(binning=False).progressive_proba(est.scores_seen_, codes)
    return ours, summarise(off, None)


def river_peers(k):
    from river import forest, linear_model, multiclass, neighbors, preprocessing, tree

    lr = linear_model.LogisticRegression()
    return {
        "LogisticRegression" + (" (OvR)" if k > 2 else ""): lambda: (
            preprocessing.StandardScaler()
            | (lr.clone() if k == 2 else multiclass.OneVsRestClassifier(lr.clone()))
        ),
        "KNN": lambda: preprocessing.StandardScaler() | neighbors.KNNClassifier(),
        "HoeffdingTree": tree.HoeffdingTreeClassifier,
        "ARF": lambda: forest.ARFClassifier(seed=0),
    }


def run_river(make, X, y, budget):
    binary = len(np.unique(y)) == 2
    labels = [bool(v) for v in y] if binary else list(y)
    model = make()
    n = len(y)
    pred, p_true, conf = [], np.zeros(n), np.zeros(n)
    t0 = time.perf_counter()
    for t in range(n):
        x = dict(enumerate(X[t]))
        p = model.predict_proba_one(x)
        if p:
            best = max(p, key=p.get)
            pred.append(best)
            conf[t] = p[best]
        else:
            pred.append(None)
        p_true[t] = p.get(labels[t], 0.0) if p else 0.0
        model.learn_one(x, labels[t])
        if t == 299 and (time.perf_counter() - t0) * n / 300 > budget:
            return None
    seconds = time.perf_counter() - t0
    pred = np.array([(int(v) if binary and v is not None else v) for v in pred], dtype=object)
    return summary(pred, p_true, conf, np.asarray(y, dtype=object), seconds)


#: the learners timed native against one-vs-rest (AutoKernel takes its own scale;
#: TaylorAWV, a multi-output learner, gets the adapter's online standardisation)
TIMED = {
    "AutoKernel": lambda: SklearnClassifier(ks.AutoKernel(), scale=False),
    "TaylorAWV": lambda: SklearnClassifier(ks.TaylorAWV(degree=2)),
}


class BinaryLearnOnly(SklearnClassifier):
    """The binary adapter as it was before classes and probabilities: two classes on
    ``-1/+1`` targets, ``learn_many`` only (no progressive scores, no calibration).
    One-vs-rest over it is the baseline of the timing."""

    def _learn(self, X, y, first: bool, sw=None):
        learner = type(self.learner)(**self.learner.get_params())
        scaler = None
        if self.scale:
            from kernelstream.adapters._scaling import OnlineStandardizer

            scaler = OnlineStandardizer(per_dimension=True, keep_unit=True)
            X = scaler.learn_transform(X)
        learner.learn_many(X, np.where(y == self.classes_[1], 1.0, -1.0), sample_weight=sw)
        self.learner_, self.scaler_ = learner, scaler


def _baseline(make):
    est = make()
    return BinaryLearnOnly(est.learner, scale=est.scale)


def time_ratio(X, y, repeat, make):
    """One-vs-rest (scikit-learn's, over :class:`BinaryLearnOnly`) against the native
    adapter's ``fit``, alternated (ABBA: the order flips every repeat): per repeat the
    wall and CPU seconds of each, and the ratios one-vs-rest / native."""
    from sklearn.multiclass import OneVsRestClassifier

    def native():
        make().fit(X, y)

    def ovr():
        OneVsRestClassifier(_baseline(make)).fit(X, y)

    runs: dict = {"native": [], "ovr": [], "native_cpu": [], "ovr_cpu": []}
    for r in range(repeat):
        for key, f in [("native", native), ("ovr", ovr)][:: 1 if r % 2 == 0 else -1]:
            t0, c0 = time.perf_counter(), time.process_time()
            f()
            runs[key].append(time.perf_counter() - t0)
            runs[key + "_cpu"].append(time.process_time() - c0)
    wall = np.array(runs["ovr"]) / np.array(runs["native"])
    cpu = np.array(runs["ovr_cpu"]) / np.array(runs["native_cpu"])
    return {
        "native": float(np.median(runs["native"])),
        "ovr": float(np.median(runs["ovr"])),
        "ratio_median": float(np.median(wall)),
        "ratio_min": float(wall.min()),
        "ratio_max": float(wall.max()),
        "cpu_ratio_median": float(np.median(cpu)),
        "repeat": repeat,
    }


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sets", default="digits,wine,iris,ImageSegments,cod-rna,ijcnn1")
    ap.add_argument("--max-rows", type=int, default=10_000, help="0: every row")
    ap.add_argument(
        "--heldout",
        nargs="?",
        const=",".join(HELDOUT),
        default=None,
        help="the held-out streams instead of --sets (all if no list): "
        + ",".join(HELDOUT).replace("%", "%%"),  # argparse formats help with %
    )
    ap.add_argument("--heldout-seed", type=int, default=7)
    ap.add_argument(
        "--peers", default=None, help="only these river peers (e.g. LogisticRegression)"
    )
    ap.add_argument("--repeat", type=int, default=6)
    ap.add_argument("--peer-budget", type=float, default=300.0)
    ap.add_argument("--timed", default="AutoKernel", help="learners timed: " + ",".join(TIMED))
    ap.add_argument("--time-only", action="store_true", help="only the fit-time ratios")
    ap.add_argument("--json", default=None, help="also write the results here")
    ap.add_argument(
        "--binning-off",
        action="store_true",
        help="also AutoKernel's probabilities without the calibrator's second stage "
        "(the same progressive scores)",
    )
    ap.add_argument(
        "--autokernel-params",
        type=json.loads,
        default=None,
        help="AutoKernel's parameters instead of its defaults, as JSON "
        """(e.g. '{"warm_neighbour_outputs": true}')""",
    )
    args = ap.parse_args(argv)
    results = {}
    if args.heldout:
        sets = load_heldout(args.heldout.split(","), args.heldout_seed)
    else:
        sets = load_sets(args.sets.split(","), args.max_rows)
    for name, (X, y) in sets.items():
        k = len(np.unique(y))
        row: dict = {"rows": len(y), "classes": k}
        if not args.time_only:
            if args.binning_off:
                row["AutoKernel"], row["AutoKernel (binning off)"] = run_ours(
                    X, y, True, args.autokernel_params
                )
            else:
                row["AutoKernel"] = run_ours(X, y, params=args.autokernel_params)
            for peer, make in river_peers(k).items():
                if args.peers is None or peer.split(" ")[0] in args.peers.split(","):
                    row[peer] = run_river(make, X, y, args.peer_budget)
        row["fit_seconds"] = {}
        for learner in args.timed.split(",") if args.repeat else ():
            row["fit_seconds"][learner] = time_ratio(X, y, args.repeat, TIMED[learner])
        results[name] = row
        print(json.dumps({name: row}), flush=True)
    print(table(results))
    print(subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip())
    if args.json:
        with open(args.json + ".tmp", "w") as f:
            json.dump(results, f, indent=1)
        os.replace(args.json + ".tmp", args.json)


def _fmt(v, digits=3):
    return "-" if v is None else f"{v:.{digits}f}"


def table(results) -> str:
    lines = [
        "| set | rows | K | model | error | log loss | ECE | seconds |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for name, row in results.items():
        for model, r in row.items():
            if model in ("rows", "classes", "fit_seconds"):
                continue
            if r is None:
                lines.append(
                    f"| {name} | {row['rows']} | {row['classes']} | {model} | over budget | | | |"
                )
                continue
            lines.append(
                f"| {name} | {row['rows']} | {row['classes']} | {model} | {_fmt(r['error'])} "
                f"| {_fmt(r['log_loss'])} | {_fmt(r['ece'])} | {_fmt(r['seconds'], 1)} |"
            )
    lines += [
        "",
        "| set | rows | K | log loss: AutoKernel / LogisticRegression | ECE | targets |",
        "|---|---|---|---|---|---|",
    ]
    for name, row in results.items():
        lr = next((r for m, r in row.items() if m.startswith("LogisticRegression")), None)
        for model in ("AutoKernel", "AutoKernel (binning off)"):
            ours = row.get(model)
            if ours is None or lr is None:
                continue
            ratio = ours["log_loss"] / lr["log_loss"]
            ok = ratio <= 1.1 and (ours["ece"] is None or ours["ece"] <= 0.05)
            label = name if model == "AutoKernel" else f"{name} (binning off)"
            lines.append(
                f"| {label} | {row['rows']} | {row['classes']} | {ratio:.2f} "
                f"| {_fmt(ours['ece'])} | {'met' if ok else 'MISSED'} |"
            )
    if not any(row["fit_seconds"] for row in results.values()):
        return "\n".join(lines)
    lines += [
        "",
        "| set | learner | native fit (s) | one-vs-rest fit (s) "
        "| one-vs-rest / native: median [min, max] | CPU ratio (median) |",
        "|---|---|---|---|---|---|",
    ]
    for name, row in results.items():
        for learner, f in row["fit_seconds"].items():
            lines.append(
                f"| {name} | {learner} | {f['native']:.2f} | {f['ovr']:.2f} "
                f"| {f['ratio_median']:.2f} [{f['ratio_min']:.2f}, {f['ratio_max']:.2f}] "
                f"| {f['cpu_ratio_median']:.2f} |"
            )
    return "\n".join(lines)


if __name__ == "__main__":
    main()
