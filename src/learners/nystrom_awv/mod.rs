//! NystromAWV: PKAWV on a Nystrom dictionary grown by KORS.
//!
//! PKAWV paper (Jezequel, Gaillard, Rudi 2019), sec. 3.2 (eqs. (4), (7)), Theorem 6 and
//! App. H.1 (Algorithm 2, corrected: docs/choices.md, "Nyström variant"); the
//! fixed-dictionary variant is Cor. 8 ("features known beforehand").
//!
//! alpha-parametrisation of eq. (4) on the span (7): `f = sum_{j in D} alpha_j phi(x_j)`,
//! ```text
//! A_t = K_{t,D}^T K_{t,D} + lam K_{D,D}      (rows s <= t: includes the current point)
//! q_t = K_{t,D}^T (Y_{t-1}, 0)
//! y_hat_t = k_D(x_t)^T A_t^{-1} q_t
//! ```
//! which is AWV on the Nystrom features `K_DD^{-1/2} k_D(x)`; when a point joins `D`
//! the whole past is re-projected (the new column of `A` holds every past row).
//!
//! State: a lower Cholesky factor `L L^T = A_{t-1}` (stored by columns), `q`
//! (kept incrementally: `q += y_t k_D(x_t)`), the cache `K_{t,D}` (one column per
//! dictionary point, needed to border `A` when a point joins), the past inputs and
//! targets. One round on `x_t`:
//! 1. `krow = k_D(x_t)` (`m` kernel evaluations); KORS (PROS-N-KONS paper, App. A)
//!    decides on `x_t`.
//! 2. If `x_t` joins: border `A_{t-1}` with the column of `x_t` over the past rows,
//!    `c = K_{t-1,D}^T a + lam krow`, `dd = a^T a + lam k(x_t, x_t)`
//!    (`a = (k(x_s, x_t))_{s<t}`), i.e. the new factor row `r = L^{-1} c`, pivot
//!    `rho = sqrt(dd - r^T r)` (a direct extension of the factor in place of
//!    Algorithm 2's `cholup` update + hyperbolic downdate); `q` gains `sum_{s<t} y_s a_s`.
//! 3. Prediction by Sherman-Morrison on the factor of `A_{t-1}`: with
//!    `w = L^{-1} krow`, `u = L^{-1} q`: AWV `y_hat = w.u / (1 + w.w)`
//!    (`= krow^T (A_{t-1} + krow krow^T)^{-1} q`), ridge `y_hat = w.u`.
//! 4. After `y_t`: `L <- cholupdate(L, krow)` (`A_t = A_{t-1} + krow krow^T`,
//!    Givens form, cannot fail), `q += y_t krow`, the cache gains the row `krow`.
//!
//! A round without insertion costs `O(m d + m^2)`, independent of `t`; an
//! insertion adds `O(t (d + m))`. Memory `O(m^2 + t (d + m))`.
//!
//! **Repairs** (not in the paper, which only notes that `A` can be ill-conditioned and
//! so uses Cholesky, App. H.1), each counted in [`NystromStats`]:
//! * an insertion whose Schur complement `dd - r^T r` is not above
//!   `INSERT_TOL * dd` (the new column is numerically in the span of the others,
//!   e.g. a repeated point) is refused by the forecaster: KORS keeps it (its own
//!   probabilities are unchanged), the forecaster's subspace does not grow
//!   (it would grow by nothing numerically);
//! * if the factor ever holds a non-finite or non-positive pivot, or a prediction
//!   is not finite, `A` is refactorised from the cached `K_{t,D}` (with a growing
//!   diagonal jitter if needed); a prediction that is still not finite is a
//!   `NumericalError`, never a NaN.
//! * the fixed dictionary's `lam K_DD` is factorised with a jitter if it is singular.
//!
//! **Blocks of rounds** (`progressive_predict`, `learn_many`): KORS's decisions do not
//! depend on the forecaster, so KORS is stepped row by row until it adds a point
//! (or `block_size` rows are gathered); the rows before it run as one block, the
//! inserting row as a single round. For a block of `n` rows `K_B` (no insertion) on
//! `L L^T = A_0`, `x^T A_0^{-1} z = (L^{-1} x).(L^{-1} z)`, so with `W = L^{-1} K_B^T`
//! and `u_0 = L^{-1} q` the matrices `G = W^T W` and `W^T u_0` are the `G` and
//! `P^T b_0` of the linear engine's blocks (PKAWV paper, Algorithm 1 by Woodbury;
//! `crate::awv::block`), whose `n x n` recursion gives the `n` predictions; the factor
//! of `A_0 + K_B^T K_B` is the `R` of the QR decomposition of `[L^T; K_B]`
//! ([`ColCholesky::block_solve_update`]: both in one pass over `L`, matrix-matrix
//! products). Same predictions and state as single rounds up to rounding; a block
//! that is ill-conditioned or yields a non-finite number reruns as single rounds
//! (with their repairs) from the unchanged state. Discounted (`gamma < 1`): each round
//! is two rows of the block on the rescaled `A` (`discount.rs`).
//!
//! `predict` is pure: the KORS decision it uses comes from a copy of the
//! generator, so `predict(x)` followed by `learn(x, y)` makes the same decision.
//!
//! Files by concern: the round and its plan (`round.rs`), dictionary growth
//! (`growth.rs`), the factor and its repairs (`factor.rs`), blocks of rounds
//! (`block.rs`), discounting (`discount.rs`), a dictionary at its cap (`capped.rs`),
//! several outputs (`multi.rs`), kernel rows given by a mixture (`krows.rs`), the
//! state's format and invariants (`state.rs`).

use super::batch::Rows;
use super::online_learner::OnlineLearner;
use crate::awv::check_block_size;
use crate::error::{positive, Result};
use crate::kernels::Kernel;
use crate::linalg::cholesky::ColCholesky;
use crate::samplers::Kors;
use crate::uncertainty::{NoiseLevel, OtherOutputs};
use round::{Plan, Scratch};
use serde::{Deserialize, Serialize};

mod block;
mod capped;
mod discount;
mod factor;
mod growth;
mod krows;
mod multi;
mod round;
mod serve;
mod state;

/// The block size `block_size=None` stands for on a dictionary of `m` points:
/// single rounds below 48 points (the `O(B^3)` recursion would not pay), else
/// blocks of 64 rows, 128 from 400 points (a block costs `(3 B + PANEL) m^2` flops
/// plus `O(B^3)`; measured in `kernelstream bench nystrom-blocked`, docs/choices.md).
pub fn auto_block_size(m: usize) -> usize {
    match m {
        0..48 => 1,
        48..400 => 64,
        _ => 128,
    }
}

/// Counts of the numerical repairs (see the module documentation).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct NystromStats {
    /// Points KORS added and the forecaster took.
    pub insertions: u64,
    /// Points KORS added but the forecaster refused (numerically dependent column).
    pub refused_insertions: u64,
    /// Refactorisations of `A` from the cache after a bad pivot or prediction.
    pub refactorizations: u64,
    /// Diagonal jitters added during a factorisation.
    pub jitters: u64,
}

/// Serialised through [`serve::flushed`]'s copy when rows are pending (the impls below).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(remote = "Self")]
pub struct NystromAwv {
    kernel: Kernel,
    lam: f64,
    ridge: bool,
    /// KORS sampler (None: fixed dictionary).
    kors: Option<Kors>,
    /// Input dimension, fixed by the first round.
    d: Option<usize>,
    /// Dimension of a fixed dictionary's points (0 in KORS mode).
    centers_d: usize,
    /// Forecaster dictionary points, row-major `m x d`.
    centers: Vec<f64>,
    /// 0-based round index of each dictionary point (None for a fixed dictionary).
    center_rounds: Vec<Option<u64>>,
    /// Factor of `A_{t-1}`.
    chol: ColCholesky,
    /// `q = K_{t-1,D}^T Y_{t-1}`.
    q: Vec<f64>,
    /// `K_{t,D}` by columns (KORS mode only).
    kcols: Vec<Vec<f64>>,
    /// Past inputs (KORS mode only), row-major.
    xs: Vec<f64>,
    /// Past targets (KORS mode only).
    ys: Vec<f64>,
    /// KORS at its cap: the repair's checkpoint in place of the three caches above
    /// (`capped.rs`).
    capped: Option<capped::Capped>,
    /// Jitter added to `lam K_DD` of a fixed dictionary.
    fixed_jitter: f64,
    /// Forgetting factor (1: none; `discount.rs`).
    gamma: f64,
    /// The factor of `A_0 = lam K_DD`, dense row-major (`gamma < 1` only).
    refill: Vec<f64>,
    n_seen: u64,
    stats: NystromStats,
    /// Noise level of the progressive residuals (the predictive std), of output 1.
    noise: NoiseLevel,
    /// Those of outputs `2..K` (empty with one output; absent in older states).
    #[serde(default)]
    noise_rest: OtherOutputs,
    /// Rounds per block of `progressive_predict`/`learn_many` (None: automatic from
    /// the dictionary size; 1: single rounds). A run-time setting, not part of the state.
    #[serde(skip)]
    block_size: Option<usize>,
    /// Rounds run inside blocks (diagnostic, not part of the state).
    #[serde(skip)]
    blocked_rounds: u64,
    #[serde(skip)]
    scratch: Scratch,
    /// The input of [`OnlineLearner::predict_keep`] and its plan (its kernel row in
    /// `scratch.krow`).
    #[serde(skip)]
    kept: super::kept::Kept,
    #[serde(skip)]
    kept_plan: Option<Plan>,
    /// Served rounds whose factor update waits (`serve.rs`); `q`, the caches and
    /// the counts already include them.
    #[serde(skip)]
    pending: Box<serve::Pending>,
    /// What the kept served prediction computed (with `kept`).
    #[serde(skip)]
    served: Option<Box<serve::Served>>,
}

impl Serialize for NystromAwv {
    /// The state after the pending rows are flushed (on a copy).
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        let me = self.flushed().map_err(serde::ser::Error::custom)?;
        NystromAwv::serialize(&me, s)
    }
}

impl<'de> Deserialize<'de> for NystromAwv {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        NystromAwv::deserialize(d)
    }
}

/// A fixed dictionary: `m` points of dimension `d`, row-major.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FixedDictionary {
    pub points: Vec<f64>,
    pub d: usize,
}

crate::params! {
    /// The parameters of [`NystromAwv`] (defaults: those of the Python class `NystromAWV`).
    pub struct NystromAwvParams {
        /// The kernel.
        kernel: Option<Kernel> = None => "kernel", crate::params::object("a kernel"), required;
        /// Ridge parameter `lambda`.
        lam: f64 = 1.0 => "float", crate::params::SCALE;
        use crate::samplers::kors::kors_rows;
        /// Online ridge (predict with `A_{t-1}`) instead of AWV.
        ridge: bool = false => "bool", crate::params::flag();
        /// A fixed `(m, d)` dictionary instead of KORS.
        dictionary: Option<FixedDictionary> = None => "object", crate::params::object("a finite (m, d) array").or_none();
        /// Cap on the KORS dictionary size (None: none).
        max_dictionary: Option<usize> = None => "int", crate::params::at_least(1.0).or_none().note("KORS only");
        /// Rounds per block of a whole-stream call (None: automatic); not part of the state.
        block_size: Option<usize> = None => "int", crate::awv::BLOCK_SIZE;
        /// Forgetting factor (1: none).
        gamma: f64 = 1.0 => "float", crate::awv::GAMMA;
    }
}

impl NystromAwvParams {
    fn relations(&self) -> Result<()> {
        if self.dictionary.is_some() && self.max_dictionary.is_some() {
            return crate::param_err!(
                "max_dictionary caps the KORS dictionary; it does not apply to a fixed dictionary"
            );
        }
        Ok(())
    }
}

impl NystromAwv {
    /// NystromAWV with a KORS dictionary, or with `p.dictionary` fixed.
    pub fn new(p: &NystromAwvParams) -> Result<Self> {
        p.validate()?;
        let Some(kernel) = p.kernel else { return crate::param_err!("NystromAWV needs a kernel") };
        let mut learner = match &p.dictionary {
            Some(dict) => Self::with_dictionary(kernel, p.lam, &dict.points, dict.d, p.ridge)?,
            None => {
                let kors = Kors::new(kernel, p.mu, p.eps, p.beta, p.kors_weights, p.seed)?;
                Self::empty(kernel, p.lam, p.ridge, Some(kors))
            }
        };
        learner.set_kors_budget(p.max_dictionary);
        learner.with_block_size(p.block_size)?.with_gamma(p.gamma)
    }

    /// The "features known beforehand" variant (PKAWV paper, Cor. 8): a fixed dictionary
    /// (row-major `m x d`, `m >= 1`), no sampling.
    pub fn with_dictionary(
        kernel: Kernel,
        lam: f64,
        dictionary: &[f64],
        d: usize,
        ridge: bool,
    ) -> Result<Self> {
        positive("lam", lam)?;
        if d == 0 || dictionary.is_empty() || !dictionary.len().is_multiple_of(d) {
            return crate::param_err!("dictionary must be a non-empty (m, d) array");
        }
        if let Some(i) = dictionary.iter().position(|v| !v.is_finite()) {
            return crate::param_err!(
                "dictionary[{}, {}] = {} is not finite",
                i / d,
                i % d,
                dictionary[i]
            );
        }
        let m = dictionary.len() / d;
        // K_DD, the jittered copy and the factor: about 3 m^2 doubles.
        crate::limits::check_doubles(
            &format!("NystromAWV with a fixed dictionary of {m} points"),
            Some(3 * (m as u128) * (m as u128)),
        )?;
        let mut s = Self::empty(kernel, lam, ridge, None);
        s.centers_d = d;
        s.centers = dictionary.to_vec();
        s.center_rounds = vec![None; m];
        s.q = vec![0.0; m];
        // A_0 = lam K_DD, with a growing jitter if K_DD is (numerically) singular.
        let kdd = kernel.gram(dictionary, dictionary, d);
        s.factor_fixed(&kdd)?;
        Ok(s)
    }

    fn empty(kernel: Kernel, lam: f64, ridge: bool, kors: Option<Kors>) -> Self {
        NystromAwv {
            kernel,
            lam,
            ridge,
            kors,
            d: None,
            centers_d: 0,
            centers: Vec::new(),
            center_rounds: Vec::new(),
            chol: ColCholesky::new(),
            q: Vec::new(),
            kcols: Vec::new(),
            xs: Vec::new(),
            ys: Vec::new(),
            capped: None,
            fixed_jitter: 0.0,
            gamma: 1.0,
            refill: Vec::new(),
            n_seen: 0,
            stats: NystromStats::default(),
            noise: NoiseLevel::default(),
            noise_rest: OtherOutputs::default(),
            block_size: None,
            blocked_rounds: 0,
            scratch: Scratch::default(),
            kept: Default::default(),
            kept_plan: None,
            pending: Default::default(),
            served: None,
        }
    }

    /// Sets the block size (`None`: automatic from the dictionary size; `1`: single rounds).
    pub fn with_block_size(mut self, block_size: Option<usize>) -> Result<Self> {
        check_block_size(block_size)?;
        self.block_size = block_size;
        Ok(self)
    }

    /// The block size used on a dictionary of `m` points.
    pub fn block_size(&self, m: usize) -> usize {
        match self.block_size {
            Some(b) => b.min(self.discounted_block_cap()),
            None => self.discounted_auto_block_size(m),
        }
    }

    /// Rounds this object ran inside blocks (a diagnostic, not part of the state).
    pub fn blocked_rounds(&self) -> u64 {
        self.blocked_rounds
    }

    // ---- accessors -------------------------------------------------------
    super::batch::copy_getters!(kernel: Kernel, lam: f64, ridge: bool);
    /// The KORS sampler (None for a fixed dictionary).
    pub fn kors(&self) -> Option<&Kors> {
        self.kors.as_ref()
    }
    /// Caps KORS's dictionary (None: no cap); see [`Kors::set_budget`].
    pub fn set_kors_budget(&mut self, budget: Option<usize>) {
        self.kept.clear();
        if let Some(k) = self.kors.as_mut() {
            k.set_budget(budget);
        }
    }
    pub fn stats(&self) -> &NystromStats {
        &self.stats
    }
    /// Forecaster dictionary size `m`.
    pub fn size(&self) -> usize {
        self.center_rounds.len()
    }
    /// Forecaster dictionary points, row-major `m x d`.
    pub fn centers(&self) -> &[f64] {
        &self.centers
    }
    /// Round index of each forecaster dictionary point (None: given beforehand).
    pub fn center_rounds(&self) -> &[Option<u64>] {
        &self.center_rounds
    }
    /// Jitter added to `K_DD` of a fixed dictionary (0 if none was needed).
    pub fn fixed_jitter(&self) -> f64 {
        self.fixed_jitter
    }
    /// `L` with `L L^T = A_{t-1}` (dense row-major).
    pub fn cholesky_dense(&self) -> Vec<f64> {
        match self.flushed() {
            Ok(me) => me.chol.to_dense(),
            Err(_) => self.chol.to_dense(),
        }
    }
    /// `q = K_{t,D}^T Y_t`.
    pub fn q(&self) -> &[f64] {
        &self.q
    }
    fn t(&self) -> usize {
        self.n_seen as usize
    }

    fn krow_into(&self, x: &[f64], out: &mut Vec<f64>) {
        out.clear();
        out.resize(self.size(), 0.0);
        if self.size() > 0 {
            self.kernel.row_into(x, &self.centers, x.len(), out);
        }
    }
}

impl OnlineLearner for NystromAwv {
    fn input_dim(&self) -> Option<usize> {
        self.d
    }

    fn check_input_dim(&self, d: usize) -> Result<()> {
        if self.centers_d != 0 && d != self.centers_d {
            return crate::input_err!(
                "rows have {d} features but the fixed dictionary has {}-dimensional points",
                self.centers_d
            );
        }
        Ok(())
    }

    fn check_row(&self, x: &[f64], y: Option<f64>) -> Result<()> {
        if y.is_some() {
            self.one_output()?;
        }
        self.kernel.check_point(x)
    }

    /// KORS mode keeps every past round (the input, the target and its kernel row
    /// on the dictionary, to refactorise `A` from): `n_new` more rounds add
    /// `n_new (d + 1 + m)` doubles, `m` the dictionary size at its cap (without a cap,
    /// the present size plus one: KORS's dictionary grows like the effective
    /// dimension, slowly, and its growth within one call is not foreseen). Counted
    /// before the rounds run. A capped dictionary keeps at most its checkpoint's rows
    /// (`capped.rs`).
    fn check_capacity(&self, n_new: usize, d: usize) -> Result<()> {
        let Some(kors) = self.kors.as_ref() else { return Ok(()) };
        let m = self.size() as u128;
        let cap = kors.budget().map_or(m + 1, |b| (b as u128).max(m));
        let t = match self.is_capped() {
            true => capped::checkpoint_rows(cap as usize) as u128, // the checkpoint's rows
            false => (self.t() as u128).saturating_add(n_new as u128),
        };
        let k = self.outputs() as u128;
        let doubles = t
            .checked_mul(d as u128 + k + cap)
            .and_then(|c| c.checked_add(cap * (d as u128 + 3 + k) + 3 * cap * cap));
        crate::limits::check_input_doubles(
            &format!(
                "NystromAWV after {t} rounds (it caches every round's input and kernel row, \
                 {} dictionary points of dimension {d})",
                cap
            ),
            doubles,
        )
    }

    /// A fixed dictionary of `m` points: the points, `K_DD`, its copy and factor.
    fn memory_doubles(&self, d: usize) -> Option<u128> {
        let m = self.size() as u128;
        Some(m * (d as u128 + 4) + 3 * m * m + if self.gamma < 1.0 { m * m } else { 0 })
    }

    fn predict(&self, x: &[f64]) -> Result<f64> {
        self.one_output()?;
        let mut p = [0.0];
        self.predict_into(x, &mut p)?;
        Ok(p[0])
    }

    fn predict_keep(&mut self, x: &[f64]) -> Result<f64> {
        self.one_output()?;
        let mut p = [0.0];
        self.keep(x, &mut p)?;
        Ok(p[0])
    }

    fn noise_std(&self) -> Option<f64> {
        Some(if self.outputs() == 1 { self.noise.variance().sqrt() } else { f64::NAN })
    }

    fn predict_std(&self, x: &[f64]) -> Result<Option<(f64, f64)>> {
        self.one_output()?;
        // As `predict`: after the next round's discount step (on copies of the factor and `q`).
        self.std_plan(x)
    }

    fn learn(&mut self, x: &[f64], y: f64) -> Result<()> {
        self.predict_learn(x, y).map(|_| ())
    }

    fn predict_learn(&mut self, x: &[f64], y: f64) -> Result<f64> {
        self.one_output()?;
        let mut p = [0.0];
        self.round(x, std::slice::from_ref(&y), &mut p)?;
        Ok(p[0])
    }

    /// Blocks between insertions (see the module documentation) over rows already
    /// screened (`y` row-major `n x K`). Polls Ctrl-C between blocks; after an error
    /// the rows before the failing one are learned.
    fn run_rows(&mut self, rows: Rows<'_>, mut out: Option<&mut Vec<f64>>) -> Result<()> {
        let mut sc = std::mem::take(&mut self.scratch);
        let res = self.run_rows_with(rows.x, rows.d, rows.y, &mut out, &mut sc, None);
        self.scratch = sc;
        res
    }

    /// Integer weights as repeated rows (its state keeps rows without weights:
    /// docs/choices.md, "Sample weights").
    fn repeats_weights(&self) -> bool {
        true
    }

    fn n_seen(&self) -> u64 {
        self.n_seen
    }

    fn dim(&self) -> usize {
        self.size()
    }
}

impl NystromAwv {
    /// `K` (1 before the first round).
    fn outputs(&self) -> usize {
        crate::multi::MultiOutput::n_outputs(self).unwrap_or(1)
    }

    /// Refuses the single-output protocol on `K > 1` outputs.
    fn one_output(&self) -> Result<()> {
        match self.outputs() {
            1 => Ok(()),
            k => crate::multi::single_output_err(k),
        }
    }
}
