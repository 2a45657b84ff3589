"""Every case of ``kernelstream bench`` by name, in the order it runs them: ``case(quick)
-> list[BenchCase]``. A new case is a function in one of the ``cases_*`` modules and a
line here; a new learner needs none: ``registry`` (:mod:`.cases_registry`) times every
learner of ``_core.registry()``."""

from __future__ import annotations

from typing import Callable

from . import cases_awv, cases_kernel, cases_mixture, cases_other, cases_registry

CASES: dict[str, Callable] = {
    "taylor-awv": cases_awv.taylor,
    "taylor-blocked": cases_awv.taylor_blocked,
    "kernel-awv": cases_kernel.kernel_awv,
    "nystrom-awv": cases_kernel.nystrom_awv,
    "nystrom-blocked": cases_awv.nystrom_blocked,
    "nystrom-discounted-blocked": cases_awv.nystrom_discounted_blocked,
    "multi-output": cases_awv.multi_output,
    "kors": cases_kernel.kors,
    "rff-awv": cases_kernel.rff_awv,
    "multi-kernel-awv": cases_kernel.multi_kernel,
    "multi-kernel-blocked": cases_kernel.multi_kernel_blocked,
    "aggregators": cases_kernel.aggregators,
    "pros-n-kons": cases_other.pros_n_kons,
    "fogd-nogd": cases_other.fogd_nogd,
    "projection": cases_other.projection,
    "averaged-sgd": cases_other.averaged_sgd,
    "mixture": cases_mixture.mixture,
    "serve": cases_mixture.serve,
    "autokernel": cases_mixture.autokernel,
    "registry": cases_registry.registry,
}
