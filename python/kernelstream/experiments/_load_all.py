"""Imports every experiment module so that they register themselves."""
# One import per entry module (keep alphabetical).
from . import taylor_casp  # noqa: F401
