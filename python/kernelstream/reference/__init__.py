"""Plain NumPy references, written from the papers' definitions (not from the Rust
code). The tests compare every fast learner with its reference, and
``kernelstream bench`` times one against the other."""
from .online_projection import (
    AveragedKernelSGDReference,
    NaiveOnlineProjection,
    ProjectionDesign,
    batch_projection,
    krr_fit,
)
from .taylor_awv import TaylorAWVReference, taylor_kron_features, taylor_monomial_features

__all__ = [
    "AveragedKernelSGDReference",
    "NaiveOnlineProjection",
    "ProjectionDesign",
    "batch_projection",
    "krr_fit",
    "TaylorAWVReference",
    "taylor_kron_features",
    "taylor_monomial_features",
]
