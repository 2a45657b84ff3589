"""``pkawv-fig4``: Figure 4 of Jezequel, Gaillard, Rudi (2019): casp (regression)
and ijcnn1 (classification), running average loss and cumulative time against
rounds for exact KRR, TaylorAWV M = 2, 3, 4 and NystromAWV (KORS), each with a
time budget (see :mod:`.pkawv_common`)."""

from __future__ import annotations

from .pkawv_common import PAPER, run_figure
from .registry import Context, EntryResult, register


@register(
    "pkawv-fig4",
    paper=PAPER,
    description="casp and ijcnn1: average loss and time of KRR, TaylorAWV M=2,3,4, NystromAWV (Fig. 4)",
)
def run(ctx: Context) -> EntryResult:
    return run_figure(
        ctx,
        [("casp", "regression"), ("ijcnn1", "classification")],
        "pkawv-fig4",
        extra_notes=["ijcnn1: the 141691 rows of train + test (the paper: 1.5e5 rows)."],
    )
