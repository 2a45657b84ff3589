"""Plain NumPy references, written from the papers' definitions (not from the Rust
code). The tests compare every fast learner with its reference, and
``kernelstream bench`` times one against the other."""
from .kernel_awv import KernelAWVReference
from .kors import KORSReference
from .nystrom_awv import NystromAWVReference
from .fogd import FOGDReference
from .nogd import NOGDReference
from .pros_n_kons import ProsNKonsReference

__all__ = [
]
from .taylor_awv import TaylorAWVReference, taylor_kron_features, taylor_monomial_features
from .aggregation import (AAReference, BOAReference, EWAReference, MLPolyReference, MLProdReference,
                          VAWMetaReference)
from .multi_kernel_awv import MultiKernelAWVReference, RakerReference
from .rff_awv import RFFAWVReference, VAWReference, draw_rff, rff_map

__all__ = [
"KernelAWVReference",
    "KORSReference",
    "NystromAWVReference",
    "TaylorAWVReference",
    "taylor_kron_features",
    "taylor_monomial_features",
    "RFFAWVReference",
    "VAWReference",
    "draw_rff",
    "rff_map",
    "MultiKernelAWVReference",
    "RakerReference",
    "VAWMetaReference",
    "EWAReference",
    "AAReference",
    "BOAReference",
    "MLPolyReference",
    "MLProdReference",
"TaylorAWVReference",
    "taylor_kron_features",
    "taylor_monomial_features",
    "FOGDReference",
    "NOGDReference",
    "ProsNKonsReference",

__all__ = [
]
]
