//! Online learners. Every learner implements [`OnlineLearner`], the Rust side of
//! the learner protocol of the API contract; [`crate::stream`] runs the online
//! protocol over whole arrays for any of them.

pub mod averaged_sgd;
pub(crate) mod batch;
pub mod feature_awv;
pub mod fogd;
pub mod kept;
pub mod kernel_awv;
pub mod linear_awv;
pub mod losses;
pub mod multi_kernel_awv;
pub mod nogd;
pub mod nystrom_awv;
mod ogd_experts;
pub mod omkl_gf;
pub mod online_projection;
pub mod pros_n_kons;
pub mod raker;
pub mod rff_awv;
pub mod taylor_awv;

pub use averaged_sgd::{AveragedKernelSgd, AveragedKernelSgdParams};
pub use batch::Rows;
pub use feature_awv::{FeatureAwv, LazyFeatureMap};
pub use fogd::{Fogd, FogdParams};
pub use kept::Kept;
pub use kernel_awv::{KernelAwv, KernelAwvParams};
pub use linear_awv::LinearAwvLearner;
pub use losses::Loss;
pub use multi_kernel_awv::{MultiKernelAwv, MultiKernelAwvParams};
pub use nogd::{Nogd, NogdParams};
pub use nystrom_awv::{
    auto_block_size as nystrom_auto_block_size, FixedDictionary, NystromAwv, NystromAwvParams,
    NystromStats,
};
pub use omkl_gf::{OmklGf, OmklGfParams};
pub use online_projection::{OnlineProjection, OnlineProjectionParams, ProjectionConfig};
pub use pros_n_kons::{OnGrowth, ProsNKons, ProsNKonsParams, ResetTiming, Transport};
pub use raker::{Raker, RakerParams};
pub use rff_awv::{RffAwv, RffAwvParams, RffParams};
pub use taylor_awv::{TaylorAwv, TaylorAwvParams, TaylorParams};

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
    /// round in between) finishes from it ([`Kept`]; the serving path). No change
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
