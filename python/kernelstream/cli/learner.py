"""The learner of ``kernelstream run``: the ``--learner`` names (read from the registry),
the learner built from the options, or the one a model file holds (``--resume``)."""

from __future__ import annotations

import inspect

from kernelstream.errors import KernelstreamError
from kernelstream.learners import _registry

from .common import UsageError, one_line, parse_value

#: CLI names of the learners (``--learner NAME``) and their classes in ``kernelstream``:
#: every learner the core registers (``_core.registry()``), AutoKernel first (the default).
LEARNERS = {
    _registry.cli_name(n): n for n in sorted(_registry.names(), key=lambda n: n != "AutoKernel")
}

#: Learners that scale their data themselves (``--scale auto`` leaves their data raw).
SELF_SCALING_LEARNERS = {c for c, n in LEARNERS.items() if _registry.face(n)._scales_itself}

#: Learners whose basis lives on [0, 1]^d: their inputs are scaled to [0, 1] instead of [-1, 1].
UNIT_CUBE_LEARNERS = {c for c, n in LEARNERS.items() if _registry.input_box(n) == (0.0, 1.0)}


def build_learner(name: str, args) -> object:
    import kernelstream as ks
    from kernelstream import kernels

    if name not in LEARNERS:
        raise UsageError(f"unknown learner {name!r}; choose from: {', '.join(LEARNERS)}")
    cls = getattr(ks, LEARNERS[name], None)
    if cls is None:
        raise UsageError(f"learner {name!r} ({LEARNERS[name]}) is not available in this build")
    accepted = inspect.signature(cls.__init__).parameters
    params: dict = {}
    if "experts" in accepted:
        params["experts"] = _mixture_experts(args)
    if "kernels" in accepted:
        # multi-kernel learners: the VAW2 paper's 76-kernel grid unless --param overrides
        params["kernels"] = kernels.vaw2_grid()
    kernel = _kernel_option(name, args, accepted)
    if "kernel" in accepted:
        params["kernel"] = kernel
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
            raise UsageError(f"--param expects key=value, got {item!r}")
        key, value = item.split("=", 1)
        if key not in accepted:
            raise UsageError(
                f"{LEARNERS[name]} has no parameter {key!r}; it takes {', '.join(list(accepted)[1:])}"
            )
        params[key] = parse_value(value)
    return cls(**params)


def _kernel_option(name: str, args, accepted) -> object:
    """The kernel named by ``--kernel`` (width ``--sigma``); refused when the name is
    unknown, or names another kernel than the fixed one of a learner that takes none."""
    from kernelstream import kernels

    try:
        kernel = kernels.Kernel.from_spec(args.kernel, [args.sigma])
    except KernelstreamError as exc:
        if "experts" in accepted:  # the mixture's experts take a width
            raise UsageError(f"--kernel {args.kernel}: {one_line(exc)}") from None
        try:  # a kernel without a width (e.g. min)
            kernel = kernels.Kernel.from_spec(args.kernel, [])
        except KernelstreamError:
            raise UsageError(f"--kernel {args.kernel}: {one_line(exc)}") from None
    takes = "kernel" in accepted or "experts" in accepted
    if not takes and args.kernel != "gaussian":
        raise UsageError(f"--kernel {args.kernel}: {name} takes no --kernel")
    return kernel


def _mixture_experts(args) -> list:
    """``--learner mixture``: random-feature AWV experts (``--kernel``) of widths
    ``--sigma`` x (1/4, 1/2, 1, 2, 4), 100 cos-sin pairs each, ridge ``--lam``."""
    import kernelstream as ks
    from kernelstream import kernels

    lam = 1.0 if args.lam is None else args.lam
    seed = 0 if args.seed is None else args.seed
    return [
        ks.RFFAWV(
            kernels.Kernel.from_spec(args.kernel, [args.sigma * c]),
            n_features=100,
            lam=lam,
            seed=seed + j,
        )
        for j, c in enumerate((0.25, 0.5, 1.0, 2.0, 4.0))
    ]


def resume(path: str, args):
    """The learner saved by ``--save-model`` at ``path`` (a model file,
    ``kernelstream.load``: no code runs on reading); a :class:`UsageError` if the file is
    unreadable, damaged, not a model file, holds something else than a learner, or a
    learner other than an explicit ``--learner``."""
    from kernelstream.learners.base import Learner
    from kernelstream.modelfile import load

    try:
        learner = load(path)
    except OSError as exc:
        raise UsageError(f"--resume {path}: cannot read it ({exc.strerror or exc})") from None
    except KernelstreamError as exc:
        raise UsageError(
            f"--resume {path}: not a model file saved by --save-model ({exc})"
        ) from None
    if not isinstance(learner, Learner):
        raise UsageError(
            f"--resume {path}: holds a {type(learner).__name__}, not a learner saved by --save-model"
        )
    name = _registry.cli_name(type(learner).__name__)
    if args.learner is not None and args.learner != name:
        raise UsageError(
            f"--resume {path} holds a {name} learner, but --learner {args.learner} was given "
            "(leave out --learner to continue the saved one)"
        )
    args.learner = name
    return learner
