"""Plain NumPy references, written from the papers' definitions (not from the Rust
code). The tests compare every fast learner with its reference, and
``kernelstream bench`` times one against the other."""

from .aggregation import (
    AAReference,
    BOAReference,
    EWAReference,
    MLPolyReference,
    MLProdReference,
    VAWMetaReference,
)
from .fogd import FOGDReference
from .kernel_awv import KernelAWVReference
from .kors import KORSReference
from .multi_kernel_awv import MultiKernelAWVReference, RakerReference
from .nogd import NOGDReference
from .nystrom_awv import NystromAWVReference
from .online_projection import (
    AveragedKernelSGDReference,
    NaiveOnlineProjection,
    ProjectionDesign,
    batch_projection,
    krr_fit,
)
from .pros_n_kons import ProsNKonsReference
from .rff_awv import RFFAWVReference, VAWReference, draw_rff, rff_map
from .taylor_awv import TaylorAWVReference, taylor_kron_features, taylor_monomial_features

__all__ = [
    "AAReference",
    "BOAReference",
    "EWAReference",
    "MLPolyReference",
    "MLProdReference",
    "VAWMetaReference",
    "FOGDReference",
    "KernelAWVReference",
    "KORSReference",
    "MultiKernelAWVReference",
    "RakerReference",
    "NOGDReference",
    "NystromAWVReference",
    "ProsNKonsReference",
    "RFFAWVReference",
    "VAWReference",
    "draw_rff",
    "rff_map",
    "AveragedKernelSGDReference",
    "NaiveOnlineProjection",
    "ProjectionDesign",
    "batch_projection",
    "krr_fit",
    "TaylorAWVReference",
    "taylor_kron_features",
    "taylor_monomial_features",
]
