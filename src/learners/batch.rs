//! Pieces of [`super::OnlineLearner`] implementations that several learners share.

use crate::error::Result;

/// `predict_learn_many` and `learn_batch` of a learner whose batch paths are one
/// `run_rows(x, d, y, out, extra...)` (expanded inside its `impl OnlineLearner`;
/// `out` is `Some` for the predictions, `None` to learn only).
macro_rules! run_rows_batch_paths {
    ($($extra:expr),*) => {
        fn predict_learn_many(
            &mut self,
            x: &[f64],
            d: usize,
            y: &[f64],
            out: &mut Vec<f64>,
        ) -> Result<()> {
            self.run_rows(x, d, y, Some(out) $(, $extra)*)
        }

        fn learn_batch(&mut self, x: &[f64], d: usize, y: &[f64]) -> Result<()> {
            self.run_rows(x, d, y, None $(, $extra)*)
        }
    };
}
pub(crate) use run_rows_batch_paths;

/// Predictions for every row of row-major `x`, one [`super::OnlineLearner::predict`]
/// each, pushed onto `out`; polls Ctrl-C (the default `predict_rows`, and the
/// unbatched path of the learners that batch it).
pub(crate) fn predict_each<L: super::OnlineLearner + ?Sized>(
    learner: &L,
    x: &[f64],
    d: usize,
    out: &mut Vec<f64>,
) -> Result<()> {
    for row in x.chunks_exact(d) {
        crate::interrupt::poll()?;
        out.push(learner.predict(row)?);
    }
    Ok(())
}

/// A learner's lazily built state, which its caller has just built: an internal error
/// naming `learner` if it is missing.
pub(crate) fn built<'a, S>(state: &'a mut Option<S>, learner: &str) -> Result<&'a mut S> {
    state.as_mut().ok_or_else(|| crate::KsError::Internal(format!("{learner} state missing")))
}

/// Resizes a scratch buffer to `n` zeros when its length is not `n` (no work otherwise).
pub(crate) fn sized(buf: &mut Vec<f64>, n: usize) {
    if buf.len() != n {
        *buf = vec![0.0; n];
    }
}
