"""The ``kernelstream bench`` cases of Mixture and AutoKernel (against the same experts and
rule in NumPy) and of the serving path (``predict_one`` then ``learn_one`` from Python)."""

import numpy as np

from .case import BenchCase, uniform_stream


class _MixtureReference:
    """A mixture written out in Python: the experts' NumPy references, each asked for its
    prediction, then the rule's NumPy reference (the scheme of ``Mixture``, round by round).
    ``scale``: ``(x_loc, x_scale, y_loc, y_scale)`` applied around it (AutoKernel's)."""

    def __init__(self, experts, rule, scale=None):
        self.experts, self.rule, self.scale = experts, rule, scale
        self._z = None  # the experts' predictions of the round under way

    def _x(self, x):
        return x if self.scale is None else (x - self.scale[0]) / self.scale[1]

    def predict_one(self, x):
        xs = self._x(np.asarray(x, dtype=float))
        self._z = np.array([e.predict_one(xs) for e in self.experts])
        p = self.rule.predict(self._z)
        return p if self.scale is None else self.scale[2] + self.scale[3] * p

    def learn_one(self, x, y):
        xs = self._x(np.asarray(x, dtype=float))
        if self._z is None:  # a round without a prediction (a replayed warm-up row)
            self._z = np.array([e.predict_one(xs) for e in self.experts])
        if self.scale is not None:
            y = (y - self.scale[2]) / self.scale[3]
        for e in self.experts:
            e.learn_one(xs, y)
        self.rule.update(self._z, y)
        self._z = None


class _NystromFixedReplica:
    """PKAWV on a fixed Nystrom dictionary in NumPy (PKAWV paper sec. 3.2): the inverse of
    ``A = lam K_DD + sum_s k_D(x_s) k_D(x_s)^T`` kept by Sherman-Morrison, ``O(m^2)`` a round."""

    def __init__(self, sigma, lam, dictionary):
        self.D, self.s2 = np.asarray(dictionary, dtype=float), 2.0 * sigma * sigma
        sq = ((self.D[:, None, :] - self.D[None, :, :]) ** 2).sum(-1)
        self.Ainv = np.linalg.pinv(lam * np.exp(-sq / self.s2))
        self.q = np.zeros(len(self.D))

    def _k(self, x):
        return np.exp(-((self.D - x) ** 2).sum(1) / self.s2)

    def predict_one(self, x):
        k = self._k(x)
        w = self.Ainv @ k
        return float(w @ self.q / (1.0 + k @ w))

    def learn_one(self, x, y):
        k = self._k(x)
        w = self.Ainv @ k
        self.Ainv -= np.outer(w, w) / (1.0 + k @ w)
        self.q += y * k


def mixture(quick):
    """Mixture (experts and rule in Rust, blocks of rows) against the same experts and rule
    as NumPy references in a Python loop; AutoKernel with the stationary grid (d = 5:
    twelve Taylor and four Nystrom experts, BOA) after its warm-up against the NumPy
    replica of its fitted mixture."""
    from kernelstream import AutoKernel, Mixture, TaylorAWV
    from kernelstream.reference import BOAReference, TaylorAWVReference

    n = 2000 if quick else 20000
    X, y = uniform_stream(n, 5, seed=4)
    sigmas = (0.5, 1.0, 2.0, 4.0)

    def taylor_ref(sigma, degree, lam):
        return TaylorAWVReference(
            sigma=sigma, degree=degree, lam=lam, features="monomial", solver="sherman-morrison"
        )

    # The stationary grid (no drift experts, restarts or relative regrets): the
    # replica has Taylor and Nystrom experts under BOA only.
    grid = dict(discounts=(), linear=False, share=0.0, loss_window=0, restarts=False)
    grid.update(fogd_widths=(), laplace_widths=(), warm_neighbour=False, warm_widths=())

    def autokernel():
        return AutoKernel(**grid)

    def autokernel_replica():
        # The fitted experts and scale of an AutoKernel that has seen the warm-up; the
        # bench runner then replays the warm-up rows through the replica (learn_one),
        # as AutoKernel replays them through its experts.
        ak = autokernel()
        warm = ak.get_params()["warmup"]
        ak.learn_many(X[:warm], y[:warm])
        sc = ak.scale
        dictionary = (X[:warm] - sc["x_loc"]) / sc["x_scale"]
        experts = [
            taylor_ref(e["sigma"], int(e["features"].split("-")[1]), e["lam"])
            if e["features"].startswith("taylor")
            else _NystromFixedReplica(e["sigma"], e["lam"], dictionary)
            for e in ak.experts
        ]
        ref = _MixtureReference(
            experts,
            BOAReference(len(experts)),
            scale=(sc["x_loc"], sc["x_scale"], sc["y_loc"], sc["y_scale"]),
        )
        return ref

    return [
        BenchCase(
            label="N=4 Taylor M=3 d=5 boa",
            make_fast=lambda: Mixture([TaylorAWV(sigma=s, degree=3) for s in sigmas]),
            make_reference=lambda: _MixtureReference(
                [taylor_ref(s, 3, 1.0) for s in sigmas], BOAReference(len(sigmas))
            ),
            X=X,
            y=y,
            reference_rounds=300,
        ),
        BenchCase(
            label="AutoKernel d=5 (16 experts)",
            make_fast=autokernel,
            make_reference=autokernel_replica,
            X=X,
            y=y,
            reference_rounds=100,
            warmup=autokernel().get_params()["warmup"],
        ),
    ]


def serve(quick):
    """The serving path (a Python loop of ``predict_one`` then ``learn_one``, in the
    ``reference`` column) against ``progressive_predict`` of the same learner on the same
    rows (Friedman #1, d = 10), in alternating chunks; the last column is their rate ratio
    (serving / progressive). TaylorAWV and NystromAWV with single rounds
    (``block_size=1``), RFFAWV and AutoKernel with their defaults (AutoKernel on one
    thread: the times are CPU times)."""
    from kernelstream import RFFAWV, AutoKernel, NystromAWV, TaylorAWV
    from kernelstream.datasets.synthetic import friedman_stream
    from kernelstream.kernels import Gaussian

    n = 3000 if quick else 20000
    X, y = friedman_stream(n, d=10, seed=0)
    X = np.ascontiguousarray(X)
    rounds = n // 2
    warm = AutoKernel().get_params()["warmup"]
    nys_warm = 1000 if quick else 2000

    def case(label, make, warmup=0, reference_rounds=rounds):
        return BenchCase(
            label=label,
            make_fast=make,
            make_reference=make,
            X=X if not warmup else X[: warmup + reference_rounds],
            y=y if not warmup else y[: warmup + reference_rounds],
            reference_rounds=reference_rounds,
            warmup=warmup,
            serve=True,
        )

    return [
        case("TaylorAWV M=3 bs=1", lambda: TaylorAWV(sigma=2.0, degree=3, block_size=1)),
        case("TaylorAWV M=2 bs=1", lambda: TaylorAWV(sigma=2.0, degree=2, block_size=1)),
        case("RFFAWV m=100 cossin", lambda: RFFAWV(Gaussian(2.0), n_features=100, seed=0)),
        case(
            "NystromAWV KORS bs=1",
            lambda: NystromAWV(Gaussian(2.0), seed=0, block_size=1),
            warmup=nys_warm,
            reference_rounds=1000 if quick else 2000,
        ),
        case(
            "AutoKernel(threads=1)",
            lambda: AutoKernel(threads=1),
            warmup=warm,
            reference_rounds=rounds - warm,
        ),
        *_serve_adapters(X, y, rounds),
        *_serve_autokernel_adapters(X, y, rounds - warm, warm),
    ]


def autokernel(quick):
    """``AutoKernel(threads=1).progressive_predict`` (in the ``rust`` column; its rate is
    that of the fastest chunk, after the warm-up) against an online linear baseline's serving loop on the same rows (in the
    ``reference`` column): river's ``StandardScaler | LinearRegression`` (``predict_one``
    then ``learn_one`` on dicts built before timing) and Vowpal Wabbit's linear learner
    (``predict`` then ``learn`` on examples parsed before timing) when importable, on
    Friedman #1 streams at d = 5, 10, 50 and on ``sin(2 x_1)`` at d = 2 (Friedman's
    function needs five inputs). CPU time, chunks alternating (``time_serve``); the wall
    time of each side is printed beside it."""
    from kernelstream import AutoKernel
    from kernelstream.datasets.synthetic import friedman_stream

    n = 2000 if quick else 12000
    cases = []
    for d in (2, 5, 10, 50):
        X, y = uniform_stream(n, d, seed=0) if d < 5 else friedman_stream(n, d=d, seed=0)
        X = np.ascontiguousarray(X)
        timed = dict(X=X, y=y, reference_rounds=n, serve=True, wall=True)
        cases += [
            BenchCase(
                f"d={d} vs {label}", lambda: AutoKernel(threads=1), make, serve_loop=loop, **timed
            )
            for label, make, loop in _linear_baselines(X, y)
        ]
    return cases


def _linear_baselines(X, y):
    """``(label, make, serve_loop)`` of river's and Vowpal Wabbit's online linear
    regressors on the rows of ``X`` (each absent package skipped)."""
    out = []
    try:
        from river import linear_model, preprocessing
    except ImportError:
        pass
    else:
        dicts = [{f"x{j}": float(v) for j, v in enumerate(x)} for x in X]

        def river_loop(model, Xc, yc, start):
            for i, yt in enumerate(yc):
                model.predict_one(dicts[start + i])
                model.learn_one(dicts[start + i], float(yt))

        def river_model():
            return preprocessing.StandardScaler() | linear_model.LinearRegression()

        out.append(("river linear", river_model, river_loop))
    try:
        import vowpalwabbit  # type: ignore[import-not-found,import-untyped,unused-ignore]
    except ImportError:
        pass
    else:
        lines = [" ".join(f"{j}:{v:.17g}" for j, v in enumerate(x)) for x in X]

        def vw_loop(model, Xc, yc, start):
            for i, yt in enumerate(yc):
                ex = model.parse(f"{float(yt):.17g} | {lines[start + i]}")
                model.predict(ex)
                model.learn(ex)
                model.finish_example(ex)

        def vw_model():
            return vowpalwabbit.Workspace("--quiet --normalized")

        out.append(("VW linear", vw_model, vw_loop))
    return out


def _serve_adapters(X, y, rounds):
    """The serving loops of the adapters (defaults: ``scale=True``) around TaylorAWV M=3
    against the learner's own ``progressive_predict``: river's ``predict_one`` then
    ``learn_one`` on dicts (built before timing), scikit-learn's ``predict`` then
    ``partial_fit`` of one-row arrays."""
    from kernelstream import TaylorAWV

    try:
        from kernelstream.adapters import RiverRegressor, SklearnRegressor
    except ImportError:  # scikit-learn absent: no adapter rows
        return []
    dicts = [{f"x{j}": float(v) for j, v in enumerate(x)} for x in X]

    def river_loop(model, Xc, yc, start):
        for i, yt in enumerate(yc):
            model.predict_one(dicts[start + i])
            model.learn_one(dicts[start + i], float(yt))

    def sklearn_loop(model, Xc, yc, start):
        for i in range(len(yc)):
            model.predict(Xc[i : i + 1])
            model.partial_fit(Xc[i : i + 1], yc[i : i + 1])

    def taylor():
        return TaylorAWV(sigma=2.0, degree=3, block_size=1)

    def sklearn_model():  # fitted on one row (predict needs a fitted estimator)
        return SklearnRegressor(taylor()).partial_fit(X[:1], y[:1])

    common = dict(make_fast=taylor, X=X, y=y, reference_rounds=rounds, serve=True)
    return [
        BenchCase(
            label="RiverRegressor(Taylor M=3)",
            make_reference=lambda: RiverRegressor(taylor()),
            serve_loop=river_loop,
            **common,
        ),
        BenchCase(
            label="SklearnRegressor(Taylor M=3)",
            make_reference=sklearn_model,
            serve_loop=sklearn_loop,
            **common,
        ),
    ]


class _ProbaSide:
    """A scikit-learn classifier's ``progressive_predict_proba`` under the name the serving
    rows time (``progressive_predict``)."""

    def __init__(self, estimator):
        self.estimator = estimator

    def progressive_predict(self, X, y):
        return self.estimator.progressive_predict_proba(X, y)

    @property
    def dim(self):
        return self.estimator.learner_.dim


def _serve_autokernel_adapters(X, y, rounds, warm):
    """``AutoKernel(threads=1)`` through the four adapters (their defaults: AutoKernel,
    which scales itself, gets the values as they are) after the same warm-up rows, each
    against the same learner's own whole-stream call on the same rows: regressors
    against ``progressive_predict``; classifiers (three classes, ``y``'s tertiles: one
    output a class for both adapters) against ``SklearnClassifier.progressive_predict_proba``.
    river: ``predict_one`` (regression) or ``predict_proba_one`` (classification) then
    ``learn_one`` on dicts built before timing; scikit-learn: ``predict`` then
    ``partial_fit`` of one-row arrays. The adapters are warmed up by their own per-row
    calls."""
    from kernelstream import AutoKernel

    try:
        from kernelstream.adapters import (
            RiverClassifier,
            RiverRegressor,
            SklearnClassifier,
            SklearnRegressor,
        )
    except ImportError:  # scikit-learn absent: no adapter rows
        return []
    n = warm + rounds
    Xw, yw, Xc, yc = X[:warm], y[:warm], X[warm:n], y[warm:n]
    codes = np.digitize(y[:n], np.quantile(y[:n], [1 / 3, 2 / 3]))
    cw, cc = codes[:warm], codes[warm:n]
    dicts = [{f"x{j}": float(v) for j, v in enumerate(x)} for x in X[:n]]
    dw, dc = dicts[:warm], dicts[warm:]
    labels = [int(c) for c in codes]
    lw, lc = labels[:warm], labels[warm:]

    def ak():
        return AutoKernel(threads=1)

    def warm_learner():
        m = ak()
        m.learn_many(Xw, yw)
        return m

    def warm_river(model, targets):
        for x, t in zip(dw, targets):
            model.learn_one(x, t)
        return model

    def warm_proba():
        est = SklearnClassifier(ak())
        est.progressive_predict_proba(Xw, cw, classes=[0, 1, 2])
        return _ProbaSide(est)

    def river_regression(model, Xs, ys, start):
        for i, yt in enumerate(ys):
            model.predict_one(dc[start + i])
            model.learn_one(dc[start + i], float(yt))

    def river_classification(model, Xs, ys, start):
        for i in range(len(ys)):
            model.predict_proba_one(dc[start + i])
            model.learn_one(dc[start + i], lc[start + i])

    def sklearn_loop(model, Xs, ys, start):
        for i in range(len(ys)):
            model.predict(Xs[i : i + 1])
            model.partial_fit(Xs[i : i + 1], ys[i : i + 1])

    def case(label, make_fast, make_reference, loop, targets):
        return BenchCase(
            label=label,
            make_fast=make_fast,
            make_reference=make_reference,
            X=Xc,
            y=targets,
            reference_rounds=rounds,
            serve=True,
            serve_loop=loop,
        )

    return [
        case(
            "RiverRegressor(AutoKernel)",
            warm_learner,
            lambda: warm_river(RiverRegressor(ak()), [float(t) for t in yw]),
            river_regression,
            yc,
        ),
        case(
            "RiverClassifier(AutoKernel)",
            warm_proba,
            lambda: warm_river(RiverClassifier(ak()), lw),
            river_classification,
            cc,
        ),
        case(
            "SklearnRegressor(AutoKernel)",
            warm_learner,
            lambda: SklearnRegressor(ak()).partial_fit(Xw, yw),
            sklearn_loop,
            yc,
        ),
        case(
            "SklearnClassifier(AutoKernel)",
            warm_proba,
            lambda: SklearnClassifier(ak()).partial_fit(Xw, cw, classes=[0, 1, 2]),
            sklearn_loop,
            cc,
        ),
    ]
