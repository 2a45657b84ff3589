//! Multi-output learning: targets with `K` columns learned together
//! (docs/choices.md, "Multi-output AWV"). A learner of the AWV family shares its
//! matrix between the outputs ([`crate::awv::outputs`]), so `K` outputs cost one
//! mat-vec plus `K` dot products per round.
//!
//! `K` is fixed by the first round (the length of its `y`) and grows only through
//! [`MultiOutput::add_outputs`]. Until the first round `K` is unknown and a
//! prediction has one value (what a single-output learner predicts: 0). The
//! single-output protocol ([`OnlineLearner`]) stays the `K = 1` case: with `K > 1`
//! its `predict` and `check_row` refuse with an `InputError` instead of answering
//! for one column.
//!
//! Targets and predictions of a run of `n` rounds are row-major `n x K`.

pub mod stream;

use crate::error::Result;
use crate::learners::{OnlineLearner, Rows};

/// A learner with `K` outputs sharing one state.
pub trait MultiOutput: OnlineLearner {
    /// `K` once fixed by the first round (or [`MultiOutput::add_outputs`]), `None` before.
    fn n_outputs(&self) -> Option<usize>;

    /// Checks that `k` outputs fit in memory on `d`-dimensional inputs (before `K`
    /// is fixed; nothing changes).
    fn check_outputs(&self, k: usize, d: usize) -> Result<()>;

    /// The `K` predictions for `x` as the next round (pure), pushed onto `out`
    /// (one value, that of [`OnlineLearner::predict`], while `K` is unknown).
    fn predict_multi(&self, x: &[f64], out: &mut Vec<f64>) -> Result<()>;

    /// [`MultiOutput::predict_multi`] keeping its work for a following round on the
    /// same `x` (as [`OnlineLearner::predict_keep`]). The default keeps nothing.
    fn predict_keep_multi(&mut self, x: &[f64], out: &mut Vec<f64>) -> Result<()> {
        self.predict_multi(x, out)
    }

    /// A full round with the `K` targets `y` (validated: `K` values, finite, `K`
    /// equal to [`MultiOutput::n_outputs`] or fixing it), pushing the `K`
    /// predictions made before `y` onto `out`.
    fn predict_learn_multi(&mut self, x: &[f64], y: &[f64], out: &mut Vec<f64>) -> Result<()>;

    /// [`MultiOutput::predict_learn_multi`] of sample weight `w` (finite, `> 0`;
    /// docs/choices.md, "Sample weights"). The default plays `w = 1` and refuses
    /// other weights; a learner with [`MultiOutput::supports_weights_multi`] overrides it.
    fn predict_learn_weighted_multi(
        &mut self,
        x: &[f64],
        y: &[f64],
        w: f64,
        out: &mut Vec<f64>,
    ) -> Result<()> {
        if w != 1.0 {
            return crate::input_err!(
                "this learner does not support sample weights with several outputs"
            );
        }
        self.predict_learn_multi(x, y, out)
    }

    /// Whether [`MultiOutput::predict_learn_weighted_multi`] learns weights other than
    /// 0 and 1.
    fn supports_weights_multi(&self) -> bool {
        false
    }

    /// Full rounds over `rows` (row-major `x`: `n` rows of `d`; `y`: `n x K`), pushing
    /// the `n x K` predictions. The default loops [`MultiOutput::predict_learn_multi`]
    /// (polling Ctrl-C); a learner may batch it (same results as the loop).
    fn predict_learn_many_multi(&mut self, rows: Rows<'_>, out: &mut Vec<f64>) -> Result<()> {
        let Rows { x, d, y } = rows;
        let k = block_outputs(x, d, y);
        for (row, yt) in x.chunks_exact(d).zip(y.chunks_exact(k.max(1))) {
            crate::interrupt::poll()?;
            self.predict_learn_multi(row, yt, out)?;
        }
        Ok(())
    }

    /// [`MultiOutput::predict_multi`] for every row of `x` (pure), `n x K` pushed
    /// onto `out`. The default loops; a learner may batch it.
    fn predict_rows_multi(&self, x: &[f64], d: usize, out: &mut Vec<f64>) -> Result<()> {
        for row in x.chunks_exact(d) {
            crate::interrupt::poll()?;
            self.predict_multi(row, out)?;
        }
        Ok(())
    }

    /// The `K` predictions for `x` as the next round and the predictive standard
    /// deviation of each (pure; docs/uncertainty.md, "Several outputs"), pushed onto
    /// `means` and `stds` (one value each while `K` is unknown); `Ok(false)`, nothing
    /// pushed, for a learner without one per output (the default).
    fn predict_std_multi(
        &self,
        _x: &[f64],
        _means: &mut Vec<f64>,
        _stds: &mut Vec<f64>,
    ) -> Result<bool> {
        Ok(false)
    }

    /// The noise level `sigma_hat_k` of each output pushed onto `out` (one NaN while
    /// `K` is unknown); `false` for a learner without them (the default).
    fn noise_stds_multi(&self, _out: &mut Vec<f64>) -> bool {
        false
    }

    /// Appends `k` outputs whose past targets were all 0 (a class first seen now,
    /// with one-hot targets): afterwards the learner is what it would be had it
    /// learned those columns from the first round. An `InputError` before the
    /// first round (`K` is not fixed yet). Checks the memory first; unchanged on error.
    fn add_outputs(&mut self, k: usize) -> Result<()>;
}

/// The error of the single-output protocol on a learner with `k > 1` outputs.
pub fn single_output_err<T>(k: usize) -> Result<T> {
    crate::input_err!(
        "this learner has {k} outputs (fixed by its first round): pass y with {k} values per \
         round and read {k} predictions per input"
    )
}

/// The error of `add_outputs` before the first round (`K` is not fixed yet).
pub fn before_first_round<T>() -> Result<T> {
    crate::input_err!(
        "add_outputs before the first round: the number of outputs is fixed by the first \
         learn_one (the length of its y); learn first, or pass y with all the outputs"
    )
}

/// The number of outputs `K` of a block of rows: `x` holds `n` rows of `d`, `y` the
/// `n x K` targets (`y`'s length while `n = 0`).
pub fn block_outputs(x: &[f64], d: usize, y: &[f64]) -> usize {
    y.len() / (x.len() / d).max(1)
}
