"""Imports every experiment module so that they register themselves."""

# One import per entry module (keep alphabetical).
from . import (
    pkawv_fig2,  # noqa: F401
    pkawv_fig3,  # noqa: F401
    pkawv_fig4,  # noqa: F401
    projection_fig1,  # noqa: F401
    projection_fig3,  # noqa: F401
    projection_fig4,  # noqa: F401
    projection_fig5,  # noqa: F401
    pros_n_kons_table1,  # noqa: F401
    pros_n_kons_table2,  # noqa: F401
    taylor_casp,  # noqa: F401
    vaw2_table2,  # noqa: F401
)
