"""Plain NumPy references, written from the papers' definitions (not from the Rust code).
Used by the tests and by ``kernelstream bench``."""
from .aggregation import (AAReference, BOAReference, EWAReference, MLPolyReference, MLProdReference,
                          VAWMetaReference)
from .multi_kernel_awv import MultiKernelAWVReference, RakerReference
from .rff_awv import RFFAWVReference, VAWReference, draw_rff, rff_map

__all__ = ["RFFAWVReference", "VAWReference", "draw_rff", "rff_map", "MultiKernelAWVReference", "RakerReference",
           "VAWMetaReference", "EWAReference", "AAReference", "BOAReference", "MLPolyReference", "MLProdReference"]
