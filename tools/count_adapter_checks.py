"""Count scikit-learn's and river's estimator checks passed by the adapters.

Runs every check of ``sklearn.utils.estimator_checks.check_estimator`` and of
``river.checks.yield_checks`` one by one (so a failure does not hide the next) on each
adapter x learner of the test suite's representative sets, and prints one line per
pair: passed/total and the names of the failing checks (sets: tests/python/zoo.py).

    python tools/count_adapter_checks.py            # all pairs
    python tools/count_adapter_checks.py -v         # also the first line of each error
"""

from __future__ import annotations

import argparse
import sys
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "python"))
from zoo import ADAPTER_CLASSIFICATION as CLASSIFICATION  # noqa: E402
from zoo import ADAPTER_REGRESSION as REGRESSION  # noqa: E402


def _sklearn(estimator):
    from sklearn.utils.estimator_checks import check_estimator

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            results = check_estimator(estimator, on_fail=None)
        except Exception as exc:  # the whole run stopped
            return 0, 1, [f"check_estimator: {type(exc).__name__}: {exc}"]
    failed = [
        f"{r['check_name']}: {type(r['exception']).__name__}: {str(r['exception']).splitlines()[0] if str(r['exception']) else ''}"
        for r in results
        if r["status"] == "failed"
    ]
    counted = [r for r in results if r["status"] != "skipped"]
    return len(counted) - len(failed), len(counted), failed


def _river(model):
    from river.checks import yield_checks

    skips = model._unit_test_skips()
    total, failed = 0, []
    for check in yield_checks(model):
        if check.__name__ in skips:
            continue
        total += 1
        try:
            check(model.clone())
        except Exception as exc:
            msg = str(exc).splitlines()[0] if str(exc) else ""
            failed.append(f"{check.__name__}: {type(exc).__name__}: {msg}")
    return total - len(failed), total, failed


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-v", action="store_true", help="print the failing checks' errors")
    args = parser.parse_args(argv)
    from kernelstream.adapters import (
        RiverClassifier,
        RiverRegressor,
        SklearnClassifier,
        SklearnRegressor,
    )

    rows = []
    for peer, run in (("sklearn", _sklearn), ("river", _river)):
        for adapter, learners in (
            (SklearnRegressor if peer == "sklearn" else RiverRegressor, REGRESSION),
            (SklearnClassifier if peer == "sklearn" else RiverClassifier, CLASSIFICATION),
        ):
            for name, (make, scale) in learners.items():
                kwargs = {} if scale is None else {"scale": scale}
                if peer == "river":  # inputs for features first seen after the first row
                    kwargs["max_features"] = 12
                ok, total, failed = run(adapter(make(), **kwargs))
                rows.append((peer, adapter.__name__, name, ok, total))
                print(f"{peer:8s} {adapter.__name__:18s} {name:25s} {ok:3d}/{total:3d} passed")
                for f in failed:
                    print("    " + (f if args.v else f.split(":")[0]))
                sys.stdout.flush()
    fails = sum(t - o for *_, o, t in rows)
    print(
        f"total: {sum(o for *_, o, _t in rows)}/{sum(t for *_, t in rows)} passed, {fails} failed"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
