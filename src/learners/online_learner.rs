//! The learner trait: the Rust side of the learner protocol of the API contract.
//!
//! Every learner of the table in [`crate::learners`] implements [`OnlineLearner`];
//! the learners' modules import it from here, not from the table's file.

use super::batch::{self, Rows};
use crate::error::Result;

/// The online protocol: at round t the learner sees `x_t`, predicts, then sees `y_t`.
///
/// Implementations may assume that inputs passed to `predict`, `learn` and
/// `predict_learn` have been validated by [`crate::stream`] (finite values, the
/// right length, and the learner's own [`OnlineLearner::check_row`]).
pub trait OnlineLearner {
    /// Input dimension `d` once fixed by the first call, `None` before.
    fn input_dim(&self) -> Option<usize>;

    /// Learner-specific validation of one row (domain of the inputs, labels of a
    /// classification loss, ...). Called before any state changes.
    fn check_row(&self, _x: &[f64], _y: Option<f64>) -> Result<()> {
        Ok(())
    }

    /// Learner-specific validation of a batch: can `n_new` more rounds of
    /// `d`-dimensional inputs be learned? (A bounded-memory learner refuses a stream
    /// that would exceed its capacity; a learner whose memory grows with the rounds
    /// counts that growth against the memory ceiling here, before it happens.)
    fn check_capacity(&self, _n_new: usize, _d: usize) -> Result<()> {
        Ok(())
    }

    /// Checks the parameters that depend on the input dimension `d`, before the
    /// first call fixes it (for example the Taylor feature count).
    fn check_input_dim(&self, _d: usize) -> Result<()> {
        Ok(())
    }

    /// The prediction for `x` as the next round (pure: no state change).
    fn predict(&self, x: &[f64]) -> Result<f64>;

    /// The prediction for `x` as the next round, bit for bit [`OnlineLearner::predict`],
    /// keeping what it computed so that a following round on the same `x` (with no
    /// round in between) finishes from it ([`Kept`](super::kept::Kept); the serving path). No change
    /// that any reader, a copy or the serialised state can see. The default keeps
    /// nothing.
    fn predict_keep(&mut self, x: &[f64]) -> Result<f64> {
        self.predict(x)
    }

    /// Reveals `y` for `x` and updates. The default is a full round whose prediction is
    /// dropped; a learner whose update is cheaper without the prediction overrides it.
    fn learn(&mut self, x: &[f64], y: f64) -> Result<()> {
        self.predict_learn(x, y).map(|_| ())
    }

    /// A full round (the fused hot path): the prediction before `y` is revealed, then
    /// the update. Every learner implements it (or [`OnlineLearner::learn`] is recursive).
    fn predict_learn(&mut self, x: &[f64], y: f64) -> Result<f64>;

    /// A full round of sample weight `w` (finite, `w > 0`; docs/choices.md, "Sample
    /// weights"): the prediction before `y` is revealed (the plain round's), then the
    /// update with the round's loss counted `w` times. [`crate::stream`] never passes
    /// `w = 0` (a zero-weight row is not learned) and takes the unweighted path for
    /// streams of unit weights. The default plays `w = 1` as
    /// [`OnlineLearner::predict_learn`] and refuses other weights (an `InputError`
    /// before any state change); every learner of the table overrides it.
    fn predict_learn_weighted(&mut self, x: &[f64], y: f64, w: f64) -> Result<f64> {
        if !self.supports_weights() && w != 1.0 {
            return crate::input_err!(
                "this learner does not support sample weights other than 0 and 1"
            );
        }
        self.predict_learn(x, y)
    }

    /// Whether [`OnlineLearner::predict_learn_weighted`] learns weights other than 0
    /// and 1 ([`crate::stream`] refuses them before any state change otherwise).
    fn supports_weights(&self) -> bool {
        false
    }

    /// A learner without a weighted round of its own (its state keeps every row, or a
    /// warm-up buffer, that would need the weights too) learns an integer weight `w` as
    /// the row repeated `w` times (`w` rounds, counted in `n_seen`), the definition of
    /// an integer weight; [`crate::stream`] refuses other weights before any change.
    fn repeats_weights(&self) -> bool {
        false
    }

    /// A run of full rounds over row-major `x` (`y.len()` rows of length `d`),
    /// pushing each prediction onto `out`: [`OnlineLearner::run_rows`] with `out`.
    fn predict_learn_many(
        &mut self,
        x: &[f64],
        d: usize,
        y: &[f64],
        out: &mut Vec<f64>,
    ) -> Result<()> {
        self.run_rows(Rows { x, d, y }, Some(out))
    }

    /// Learns every row of `x` in order: [`OnlineLearner::run_rows`] without `out`.
    fn learn_batch(&mut self, x: &[f64], d: usize, y: &[f64]) -> Result<()> {
        self.run_rows(Rows { x, d, y }, None)
    }

    /// The batched path of [`OnlineLearner::predict_learn_many`] and
    /// [`OnlineLearner::learn_batch`] (the one a learner overrides): full rounds over
    /// `rows`, each prediction pushed onto `out` when there is one. Stops at a round
    /// boundary with `Interrupted` when [`crate::interrupt::poll`] says so. The default
    /// loops [`OnlineLearner::predict_learn`] (with `out`) or [`OnlineLearner::learn`];
    /// a batched override must give the same results as that loop.
    fn run_rows(&mut self, rows: Rows<'_>, out: Option<&mut Vec<f64>>) -> Result<()> {
        batch::each_round(self, rows, out)
    }

    /// Predictions for every row of row-major `x` as the next round (pure), pushed
    /// onto `out`; polls Ctrl-C. The default loops [`OnlineLearner::predict`]; a
    /// learner may batch it (for example as one matrix-matrix product).
    fn predict_rows(&self, x: &[f64], d: usize, out: &mut Vec<f64>) -> Result<()> {
        batch::predict_each(self, x, d, out)
    }

    /// The prediction for `x` as the next round and its predictive standard deviation
    /// (pure; docs/uncertainty.md). `None`: the learner has none (the default).
    fn predict_std(&self, _x: &[f64]) -> Result<Option<(f64, f64)>> {
        Ok(None)
    }

    /// The noise level `sigma_hat` behind [`OnlineLearner::predict_std`] (the same for
    /// every input: `predict_std / noise_std` is the input-dependent factor,
    /// `sqrt(1 + phi^T A^-1 phi)` for one learner). `None`: no predictive std; NaN:
    /// no estimate yet.
    fn noise_std(&self) -> Option<f64> {
        None
    }

    /// Widens the learner to `d` inputs, more than it was fed before, as an exact
    /// zero-extension (docs/streams.md, "Rows that grow"): afterwards it is the learner
    /// fed every past row extended by zeros. The default refuses with an `InputError`
    /// saying why; a learner for which the zero-extension is exact overrides it.
    /// Unchanged on error.
    fn widen_inputs(&mut self, d: usize) -> Result<()> {
        cannot_widen(self.input_dim().unwrap_or(0), d)
    }

    /// Rounds learned so far.
    fn n_seen(&self) -> u64;

    /// Current dimension of the representation (features, dictionary, basis).
    fn dim(&self) -> usize;

    /// Doubles the learner holds once built for `d`-dimensional inputs, growth with
    /// the rounds aside (`None`: beyond any address space). Each learner checks its
    /// own against the memory ceiling in `check_input_dim`; a mixture sums its experts'.
    fn memory_doubles(&self, _d: usize) -> Option<u128> {
        Some(0)
    }
}

/// The refusal of a widening from `d0` to `d` inputs that would not be exact
/// ([`OnlineLearner::widen_inputs`]).
pub fn cannot_widen<T>(d0: usize, d: usize) -> Result<T> {
    crate::input_err!(
        "input has {d} features but this learner was fed {d0}-dimensional inputs before, and \
         it cannot be widened exactly (its state for {d0} inputs is not that of rows extended \
         by zeros: random features or a scale drawn for {d0} inputs, or a product kernel); \
         pass rows of {d0} values, or reserve inputs from the start with zero columns"
    )
}
