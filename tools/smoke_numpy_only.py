"""The installed package with numpy alone: every learner of the test zoo imports, learns,
predicts and pickles, and what needs an extra says which (run by ``.ci/run`` in a fresh
virtualenv holding only the wheel and numpy).

    python tools/smoke_numpy_only.py                # asserts pandas, scipy, pooch, psutil absent
    python tools/smoke_numpy_only.py --with-extras  # the same learners, extras allowed
"""

from __future__ import annotations

import importlib.util
import pickle
import sys
from pathlib import Path

OPTIONAL = ("pandas", "scipy", "pooch", "psutil")


def main(argv: list[str]) -> int:
    bare = "--with-extras" not in argv
    if bare:
        present = [m for m in OPTIONAL if importlib.util.find_spec(m) is not None]
        assert not present, f"not a numpy-only environment: {present} installed"

    import kernelstream as ks
    import kernelstream.leverage as leverage
    import numpy as np

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "python"))
    from zoo import ZOO

    for name, entry in ZOO.items():
        rng = np.random.default_rng(0)
        lo, hi = entry.domain
        X = rng.uniform(lo, hi, size=(80, entry.d))
        y = np.sin(3 * X[:, 0])
        if entry.task == "classification":
            y = np.where(y >= 0, 1.0, -1.0)
        learner = entry.factory()
        p = learner.progressive_predict(X[:60], y[:60])
        learner.learn_many(X[60:70], y[60:70])
        q = learner.predict_many(X[70:])
        again = pickle.loads(pickle.dumps(learner))
        assert np.all(np.isfinite(p)) and np.all(np.isfinite(q)), name
        np.testing.assert_array_equal(again.predict_many(X[70:]), q, err_msg=name)
        assert learner.n_seen == 70, name

    if bare:
        for call, extra in [
            (lambda: ks.datasets.load_csv("missing.csv"), "data"),
            (lambda: leverage.scores_from_factor(np.eye(2), np.ones(2), 1.0), "reproduce"),
        ]:
            try:
                call()
            except ImportError as exc:
                assert f"kernelstream[{extra}]" in str(exc), str(exc)
            else:
                raise AssertionError(f"no ImportError naming the extra {extra!r}")
    mods = sorted(m for m in OPTIONAL if m in sys.modules)
    print(
        f"kernelstream {ks.__version__}: {len(ZOO)} zoo learners learn, predict and pickle "
        f"with numpy {np.__version__}" + (f" (also imported: {mods})" if mods else " alone")
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
