"""The adapters' two choices made before any row is learned: whether to scale, and the
order in which ``fit`` streams the rows.

- ``scale="auto"`` (the default) scales unless the learner scales itself
  (``_scales_itself``: :class:`kernelstream.AutoKernel`, whose warm-up fixes its own
  input and target scales; a second standardization in front of it costs accuracy:
  iris 0.640 scaled against 0.960 as it is, ``docs/adapters.md``).
- ``fit(shuffle=True)`` learns the rows in a seeded random order, as scikit-learn's
  online estimators (``SGDClassifier``, ``Perceptron``) shuffle in ``fit``: a file
  sorted by class or target is otherwise learned as a stream that drifts.
"""

from __future__ import annotations

import numbers

import numpy as np

from ..errors import ParameterError


def scales_itself(learner) -> bool:
    """Whether ``learner`` takes its scale from the stream (AutoKernel, or a Mixture or
    Conformal wrapper of such learners)."""
    if getattr(learner, "_scales_itself", False):
        return True
    params = learner.get_params() if hasattr(learner, "get_params") else {}
    inner = params.get("learner")
    if inner is not None and hasattr(inner, "get_params"):
        return scales_itself(inner)
    experts = list(params.get("experts") or ())
    return bool(experts) and all(scales_itself(e) for e in experts)


def resolve_scale(scale, learner) -> bool:
    """``scale`` (``"auto"``, ``True`` or ``False``) as a bool for ``learner``."""
    if isinstance(scale, str) and scale == "auto":
        return not scales_itself(learner)
    if isinstance(scale, (bool, np.bool_)):
        return bool(scale)
    raise ParameterError(f'scale must be "auto", True or False, got {scale!r}')


def stream_order(n: int, shuffle, random_state, learner):
    """The permutation of ``range(n)`` ``fit`` learns the rows in (``None``: as given).

    ``random_state=None`` seeds the order with the learner's own ``seed`` (0 if it has
    none), so that two fits of the same estimator give the same model.
    """
    if not isinstance(shuffle, (bool, np.bool_)):
        raise ParameterError(f"shuffle must be True or False, got {shuffle!r}")
    if not shuffle or n < 2:
        return None
    if random_state is None:
        params = learner.get_params() if hasattr(learner, "get_params") else {}
        seed = params.get("seed", 0)
        random_state = seed if isinstance(seed, numbers.Integral) else 0
    if isinstance(random_state, (np.random.Generator, np.random.RandomState)):
        return random_state.permutation(n)
    if isinstance(random_state, (bool, np.bool_)) or not isinstance(random_state, numbers.Integral):
        raise ParameterError(
            "random_state must be None, an integer or a numpy Generator/RandomState, "
            f"got {random_state!r}"
        )
    return np.random.default_rng(int(random_state)).permutation(n)


#: learners whose defaults, with a classification loss, do not classify (docs/which-learner.md)
_POOR_DEFAULT_CLASSIFIERS = ("ProsNKons",)


def warn_if_poor_classifier(learner, stacklevel: int = 4) -> None:
    """Warn (``UserWarning``) when a classifier adapter wraps a learner whose default
    parameters measured no better than the majority class on raw-data classification
    (``python tools/bench_classify_routes.py``; ``docs/which-learner.md``)."""
    import inspect
    import warnings

    name = type(learner).__name__
    if name not in _POOR_DEFAULT_CLASSIFIERS:
        return
    defaults = {
        k: p.default
        for k, p in inspect.signature(type(learner)).parameters.items()
        if k in ("alpha", "gamma", "eta", "C")
    }
    params = learner.get_params()
    if all(params.get(k) == v for k, v in defaults.items()):  # the defaults measured
        warnings.warn(
            f"{name} as a classifier, with step parameters not tuned for the data, scored "
            "0.20 on digits and 0.39 on wine (majority class 0.10, 0.40; AutoKernel 0.98, "
            "0.99; docs/which-learner.md, 'Classification'): use "
            "SklearnClassifier(AutoKernel()) / RiverClassifier(AutoKernel()) unless you "
            "tuned it",
            UserWarning,
            stacklevel=stacklevel,
        )
