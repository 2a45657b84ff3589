"""Plain NumPy references, written from the papers' definitions (not from the Rust code)."""
from .fogd import FOGDReference
from .nogd import NOGDReference

__all__ = ["FOGDReference", "NOGDReference"]
