//! Progressive runs that record a mixture's expert predictions and weights ([`Trace`]).

use super::Trace;
use crate::error::Result;
use crate::learners::{OnlineLearner, Rows};

/// A learner whose progressive run can record, every round, its experts'
/// predictions and weights: [`super::Mixture`] and [`super::AutoKernel`].
pub trait Traced: OnlineLearner {
    /// Validated progressive run over `n` rows of `d` inputs (`x` row-major) and their
    /// targets `y`, recording every round in `trace` ([`Traced::trace_rows`]).
    fn progressive_trace(
        &mut self,
        x: &[f64],
        n: usize,
        d: usize,
        y: &[f64],
        trace: &mut Trace,
    ) -> Result<()> {
        crate::stream::validate(self, x, n, d, Some(y))?;
        self.trace_rows(Rows { x, d, y }, trace)
    }

    /// [`Traced::progressive_trace`] of validated rows. On Ctrl-C it stops at a round
    /// boundary: `trace` then holds exactly the completed rounds, which are in the state.
    fn trace_rows(&mut self, rows: Rows<'_>, trace: &mut Trace) -> Result<()>;
}
