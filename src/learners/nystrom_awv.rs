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

use super::{OnlineLearner, Rows};
use crate::awv::check_block_size;
use crate::error::{positive, KsError, Result};
use crate::kernels::Kernel;
use crate::linalg::blas::{axpy, dot};
use crate::linalg::cholesky::{self, ColCholesky};
use crate::linalg::gemm::{gemm, View};
use crate::samplers::{Kors, KorsWeights};
use crate::uncertainty::{noise_discount, NoiseLevel};
use serde::{Deserialize, Serialize};

mod capped;
mod discount;
use discount::Stepped;

/// Relative threshold on the Schur complement below which an insertion is refused.
const INSERT_TOL: f64 = 1e-10;

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

#[derive(Clone, Debug, Serialize, Deserialize)]
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
    /// Noise level of the progressive residuals (the predictive std; one output).
    noise: NoiseLevel,
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
    kept: super::Kept,
    #[serde(skip)]
    kept_plan: Option<Plan>,
}

/// What a prediction decided and computed: KORS's decision, the bordering if
/// the point joins, the prediction.
#[derive(Clone, Debug)]
struct Plan {
    added: bool,
    ext: Option<Extension>,
    pred: Vec<f64>,
    /// `delta = w.w = krow^T A_{t-1}^{-1} krow` (the predictive variance's leverage).
    delta: f64,
    /// The factor and `q` after the round's discount step (`gamma < 1`), which the
    /// plan was computed on.
    stepped: Option<Box<Stepped>>,
}

#[derive(Clone, Debug, Default)]
struct Scratch {
    krow: Vec<f64>,
    w: Vec<f64>,
    u: Vec<f64>,
    blk: Box<BlockScratch>,
}

/// Scratch of the blocked rounds (a copy starts empty).
#[derive(Debug, Default)]
struct BlockScratch {
    /// Kernel rows of the block, row-major `n x m`.
    krows: Vec<f64>,
    /// `[K_B^T | q]`, row-major `m x (n + 1)`, solved in place into `[W | u_0]`.
    rhs: Vec<f64>,
    /// `W^T [W | u_0]`: `G` then `pb` (column-major `n x (n + 1)`).
    gp: Vec<f64>,
    u: Vec<f64>,
    mm: Vec<f64>,
    deltas: Vec<f64>,
    preds: Vec<f64>,
    chol: cholesky::BlockScratch,
    /// The factor after the block, swapped in when the block is accepted.
    next: ColCholesky,
    /// A discounted block's `2 n` rows and their targets (`discount.rs`).
    drows: Vec<f64>,
    dy: Vec<f64>,
}

impl Clone for BlockScratch {
    fn clone(&self) -> Self {
        BlockScratch::default()
    }
}

/// The bordering of `A_{t-1}` by a candidate point.
#[derive(Clone, Debug)]
struct Extension {
    /// `a = (k(x_s, x_t))_{s<t}`.
    a: Vec<f64>,
    /// `r = L^{-1} c`.
    r: Vec<f64>,
    rho: f64,
    /// `sum_{s<t} y_s a_s`, the new row of `q` (one value per output).
    q_new: Vec<f64>,
    kappa: f64,
    /// The new row of the refill factor (`gamma < 1` only).
    refill_row: Vec<f64>,
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
        /// KORS regularisation `mu`.
        mu: f64 = 1.0 => "float", crate::params::SCALE;
        /// KORS accuracy `eps`.
        eps: f64 = 0.5 => "float", crate::params::NON_NEGATIVE;
        /// KORS oversampling `beta`.
        beta: f64 = 1.0 => "float", crate::params::SCALE;
        /// KORS weights of the kept points.
        kors_weights: KorsWeights = KorsWeights::Sqrt => "str", crate::params::one_of(&["sqrt", "inverse"]);
        /// Seed of KORS.
        seed: u64 = 0 => "int", crate::params::WHOLE;
        /// Online ridge (predict with `A_{t-1}`) instead of AWV.
        ridge: bool = false => "bool", crate::params::flag();
        /// A fixed `(m, d)` dictionary instead of KORS.
        dictionary: Option<FixedDictionary> = None => "object", crate::params::object("a finite (m, d) array").or_none();
        /// Cap on the KORS dictionary size (None: none).
        max_dictionary: Option<usize> = None => "int", crate::params::at_least(1.0).or_none().note("KORS only");
        /// Rounds per block of a whole-stream call (None: automatic); not part of the state.
        block_size: Option<usize> = None => "int", crate::params::between(1.0, crate::awv::MAX_BLOCK_SIZE as f64).or_none();
        /// Forgetting factor (1: none).
        gamma: f64 = 1.0 => "float", crate::params::DISCOUNT;
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
        let mut jitter = 0.0;
        loop {
            let a: Vec<f64> = (0..m * m)
                .map(|i| lam * (kdd[i] + if i / m == i % m { jitter } else { 0.0 }))
                .collect();
            match ColCholesky::factor(&a, m) {
                Ok(l) => {
                    s.chol = l;
                    break;
                }
                Err(_) if jitter < 1e-2 => {
                    jitter = if jitter == 0.0 { 1e-12 } else { jitter * 10.0 };
                    s.stats.jitters += 1;
                }
                Err(j) => {
                    return Err(KsError::Numerical(format!(
                        "lam K_DD of the fixed dictionary is not positive definite (pivot {j}) even with a jitter {jitter}"
                    )))
                }
            }
        }
        s.fixed_jitter = jitter;
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
            block_size: None,
            blocked_rounds: 0,
            scratch: Scratch::default(),
            kept: Default::default(),
            kept_plan: None,
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
        self.chol.to_dense()
    }
    /// `q = K_{t,D}^T Y_t`.
    pub fn q(&self) -> &[f64] {
        &self.q
    }
    /// `alpha = A_t^{-1} q_t` after the last round (two triangular solves).
    pub fn alpha(&self) -> Vec<f64> {
        let m = self.size();
        let mut u = self.q.clone();
        self.chol.forward_solve(&mut u);
        // Backward solve L^T alpha = u.
        let l = self.chol.to_dense();
        let mut a = u;
        for k in (0..m).rev() {
            let s: f64 = (k + 1..m).map(|i| l[i * m + k] * a[i]).sum();
            a[k] = (a[k] - s) / l[k * m + k];
        }
        a
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

    /// The bordering of `A_{t-1}` by `x` over the past rows, or None if refused;
    /// `k` outputs (`q` gains `sum_{s<t} y_s a_s` for each).
    /// `st`: the stepped factor to border (None: the state's).
    fn extension(
        &self,
        x: &[f64],
        krow: &[f64],
        k: usize,
        st: Option<&Stepped>,
    ) -> Option<Extension> {
        let t = self.t();
        let d = x.len();
        let mut a = vec![0.0; t];
        if t > 0 {
            self.kernel.row_into(x, &self.xs[..t * d], d, &mut a);
        }
        let kappa = self.kernel.diag(x);
        let (mut r, dd, ya, refill_row) = if self.gamma < 1.0 {
            // Discounted (after the round's discount step; discount.rs).
            let b = self.discounted_border(&a, krow, kappa)?;
            (b.c, b.dd, b.wa, b.refill_row)
        } else {
            // c = K_{t-1,D}^T a + lam krow; dd = a^T a + lam k(x, x).
            let r = self
                .kcols
                .iter()
                .zip(krow)
                .map(|(col, &kj)| dot(&col[..t], &a) + self.lam * kj)
                .collect();
            (r, dot(&a, &a) + self.lam * kappa, Vec::new(), Vec::new())
        };
        let ya = if self.gamma < 1.0 { &ya } else { &a };
        st.map_or(&self.chol, |s| &s.chol).forward_solve(&mut r);
        let schur = dd - dot(&r, &r);
        if !schur.is_finite() || schur <= INSERT_TOL * dd {
            return None;
        }
        let q_new = if k == 1 {
            vec![dot(&self.ys[..t], ya)]
        } else {
            let col = |c: usize| self.ys.iter().skip(c).step_by(k).take(t).copied();
            (0..k).map(|c| dot(&col(c).collect::<Vec<_>>(), ya)).collect()
        };
        Some(Extension { a, r, rho: schur.sqrt(), q_new, kappa, refill_row })
    }

    /// `w = L^{-1} krow`, `u_j = L^{-1} q_j` for the `K = out.len()` columns of `q`
    /// (`u` holds them by columns), all bordered by `ext` if given, into scratch;
    /// writes the `K` predictions into `out`; `stepped`: the stepped factor and `q` to
    /// use (None: the state's).
    #[allow(clippy::too_many_arguments)]
    fn predict_with(
        &self,
        stepped: Option<&Stepped>,
        krow: &[f64],
        ext: Option<&Extension>,
        w: &mut Vec<f64>,
        u: &mut Vec<f64>,
        out: &mut [f64],
    ) {
        let (m, k) = (self.size(), out.len());
        let (chol, q) = stepped.map_or((&self.chol, &self.q[..]), |s| (&s.chol, &s.q[..]));
        w.clear();
        w.extend_from_slice(&krow[..m]);
        // Column stride of u: room for the bordered entry.
        let st = m + usize::from(ext.is_some());
        u.clear();
        if k == 1 {
            u.extend_from_slice(q);
        } else {
            u.resize(st * k, 0.0);
            for (j, qj) in q.chunks_exact(k).enumerate() {
                for (c, &v) in qj.iter().enumerate() {
                    u[c * st + j] = v;
                }
            }
        }
        if k == 1 {
            chol.forward_solve2(w, u);
        } else {
            chol.forward_solve_many(w, u, st, k);
        }
        if let Some(e) = ext {
            w.push((e.kappa - dot(&e.r, &w[..m])) / e.rho);
            if k == 1 {
                u.push((e.q_new[0] - dot(&e.r, &u[..m])) / e.rho);
            } else {
                for (uc, qn) in u.chunks_exact_mut(st).zip(&e.q_new) {
                    uc[m] = (qn - dot(&e.r, &uc[..m])) / e.rho;
                }
            }
        }
        if w.is_empty() {
            out.fill(0.0); // empty dictionary: predict 0 (as the paper's code, App. H.2)
            return;
        }
        let ww = if self.ridge { 0.0 } else { dot(w, w) };
        for (o, uc) in out.iter_mut().zip(u.chunks_exact(st.max(1))) {
            let wu = dot(w, uc);
            *o = if self.ridge { wu } else { wu / (1.0 + ww) };
        }
    }

    /// The plan of a round on `x` with `k` outputs (pure; KORS is peeked at, not
    /// stepped), the kernel row of `x` left in `krow`; `stepped`: the factor and `q`
    /// after the round's discount step ([`Self::stepped`]; None: the state's), kept
    /// in the plan.
    fn plan_with(
        &self,
        x: &[f64],
        krow: &mut Vec<f64>,
        scratch: &mut Scratch,
        k: usize,
        stepped: Option<Box<Stepped>>,
    ) -> Result<Plan> {
        self.krow_into(x, krow);
        let mut added = false;
        let mut ext = None;
        if let Some(kors) = self.kors.as_ref().filter(|k| !k.is_full()) {
            let step = if kors.size() == self.size() {
                kors.peek_with_row(x, krow)?
            } else {
                kors.peek(x)?
            };
            added = step.added;
            if step.added {
                ext = self.extension(x, krow, k, stepped.as_deref());
            }
        }
        let mut pred = vec![0.0; k];
        let (w, u) = (&mut scratch.w, &mut scratch.u);
        self.predict_with(stepped.as_deref(), krow, ext.as_ref(), w, u, &mut pred);
        let delta = dot(&scratch.w, &scratch.w);
        Ok(Plan { added, ext, pred, delta, stepped })
    }

    /// Refactorises `A_{t-1} = K^T K + lam K_DD` from the cache (with a jitter if needed);
    /// `stepped`: the discount step of round `t` was applied (`gamma < 1`).
    fn refactorize(&mut self, stepped: bool) -> Result<()> {
        let m = self.size();
        let t = self.t();
        if self.kors.is_none() {
            return Err(KsError::Numerical(
                "NystromAWV (fixed dictionary): the Cholesky factor of A lost positive definiteness; \
                 no cached kernel matrix to refactorise from"
                    .into(),
            ));
        }
        let a = if let Some(a) = self.capped_a() {
            a
        } else if self.gamma < 1.0 {
            self.discounted_a(self.n_seen + u64::from(stepped))
        } else {
            let kdd = self.kernel.gram(&self.centers, &self.centers, self.d.unwrap_or(1).max(1));
            let mut a = vec![0.0; m * m];
            for i in 0..m {
                for j in 0..=i {
                    let v =
                        dot(&self.kcols[i][..t], &self.kcols[j][..t]) + self.lam * kdd[i * m + j];
                    a[i * m + j] = v;
                    a[j * m + i] = v;
                }
            }
            a
        };
        self.stats.refactorizations += 1;
        let mut jitter = 0.0;
        loop {
            let aj: Vec<f64> =
                (0..m * m).map(|i| a[i] + if i / m == i % m { jitter } else { 0.0 }).collect();
            match ColCholesky::factor(&aj, m) {
                Ok(l) => {
                    self.chol = l;
                    return Ok(());
                }
                Err(_) if jitter < 1e-2 * self.lam => {
                    jitter = if jitter == 0.0 { 1e-12 * self.lam } else { jitter * 10.0 };
                    self.stats.jitters += 1;
                }
                Err(j) => {
                    return Err(KsError::Numerical(format!(
                        "NystromAWV: A = K^T K + lam K_DD is not positive definite (pivot {j}) even after \
                         refactorising from the cache with a jitter {jitter}"
                    )))
                }
            }
        }
    }

    /// One full round (the fused hot path) with the `K = y.len()` targets `y`, the
    /// predictions made before them written into `out`.
    fn round(&mut self, x: &[f64], y: &[f64], out: &mut [f64]) -> Result<()> {
        let mut scratch = std::mem::take(&mut self.scratch);
        let res = self.round_with(x, y, &mut scratch, out);
        self.scratch = scratch;
        res
    }

    fn round_with(
        &mut self,
        x: &[f64],
        y: &[f64],
        sc: &mut Scratch,
        out: &mut [f64],
    ) -> Result<()> {
        // A kept plan for x at this round has its kernel row in sc.krow.
        let plan = self.kept_plan.take().filter(|_| self.kept.take(x, self.n_seen));
        let mut krow = std::mem::take(&mut sc.krow);
        if plan.is_none() {
            self.krow_into(x, &mut krow);
        }
        // 1. KORS on x_t (before the prediction: x_t may join the dictionary).
        let added = self.kors_step(x, &krow);
        sc.krow = krow;
        let added = added?;
        // KORS's step decides as its peek did (the same generator state).
        let plan = plan.filter(|p| p.added == added && p.pred.len() == y.len());
        self.forecaster_round(x, y, added, plan, sc, out)
    }

    /// Forgets the kept prediction and its plan.
    fn forget_kept(&mut self) {
        self.kept.clear();
        self.kept_plan = None;
    }

    /// [`OnlineLearner::predict_keep`] of the `K = out.len()` outputs: the plan of
    /// `x`, kept with its kernel row.
    fn keep(&mut self, x: &[f64], out: &mut [f64]) -> Result<()> {
        self.forget_kept();
        let mut sc = std::mem::take(&mut self.scratch);
        let mut krow = std::mem::take(&mut sc.krow);
        let plan = self.plan_with(x, &mut krow, &mut sc, out.len(), self.stepped());
        sc.krow = krow;
        self.scratch = sc;
        let plan = plan?;
        if !plan.pred.iter().all(|p| p.is_finite()) {
            return self.predict_into(x, out);
        }
        out.copy_from_slice(&plan.pred);
        self.kept_plan = Some(plan);
        self.kept.set(x, self.n_seen);
        Ok(())
    }

    /// The `K = out.len()` predictions for `x` as the next round (pure).
    fn predict_into(&self, x: &[f64], out: &mut [f64]) -> Result<()> {
        if self.gamma < 1.0 {
            return self.discounted_predict(x, out);
        }
        let mut krow = Vec::new();
        let p = self.plan_with(x, &mut krow, &mut Scratch::default(), out.len(), None)?;
        out.copy_from_slice(&p.pred);
        if out.iter().all(|p| p.is_finite()) {
            Ok(())
        } else {
            // The learning round would repair the factor; do the same on a copy.
            let mut copy = self.clone();
            copy.round(x, &vec![0.0; out.len()], out)
        }
    }

    /// KORS's step on `x` (`krow = k_D(x)`): whether `x` joins KORS's dictionary
    /// (false for a fixed dictionary).
    fn kors_step(&mut self, x: &[f64], krow: &[f64]) -> Result<bool> {
        let same_size = self.center_rounds.len();
        match self.kors.as_mut() {
            None => Ok(false),
            Some(kors) if kors.is_full() => kors.step_at_cap(x).unwrap_or(Ok(false)),
            Some(kors) => {
                let step = if kors.size() == same_size {
                    kors.step_with_row(x, krow)?
                } else {
                    kors.step_full(x)?
                };
                Ok(step.added)
            }
        }
    }

    /// The forecaster's part of a round (steps 2-5) after KORS decided `kors_added`,
    /// with `sc.krow = k_D(x)` and the `K = y.len()` targets `y`; `planned`: the
    /// discount step, bordering and predictions steps 2-3 give, already computed
    /// ([`Self::plan_with`]). The predictions are written into `out`.
    fn forecaster_round(
        &mut self,
        x: &[f64],
        y: &[f64],
        kors_added: bool,
        planned: Option<Plan>,
        sc: &mut Scratch,
        out: &mut [f64],
    ) -> Result<()> {
        let k = y.len();
        // Discounted: A <- gamma A + refill, q <- gamma q before the prediction (or
        // the plan's copies, the same numbers).
        match planned.as_ref().map(|p| p.stepped.is_some()) {
            Some(true) => {}
            _ => self.discount_step(),
        }
        let mut krow = std::mem::take(&mut sc.krow);
        let (ext, mut delta) = match planned {
            Some(p) => {
                if let Some(st) = p.stepped {
                    (self.chol, self.q) = (st.chol, st.q);
                }
                out.copy_from_slice(&p.pred);
                (p.ext, p.delta)
            }
            None => {
                let ext = if kors_added { self.extension(x, &krow, k, None) } else { None };
                // 2-3. Prediction.
                self.predict_with(None, &krow, ext.as_ref(), &mut sc.w, &mut sc.u, out);
                (ext, dot(&sc.w, &sc.w))
            }
        };
        // 4. Apply the insertion.
        if kors_added {
            match ext {
                Some(e) => {
                    self.chol.extend(&e.r, e.rho);
                    if self.gamma < 1.0 {
                        self.grow_refill(&e.refill_row);
                    }
                    self.q.extend_from_slice(&e.q_new);
                    self.kcols.push(e.a);
                    self.centers.extend_from_slice(x);
                    self.center_rounds.push(Some(self.n_seen));
                    krow.push(e.kappa);
                    self.stats.insertions += 1;
                }
                None => self.stats.refused_insertions += 1,
            }
        }
        if !out.iter().all(|p| p.is_finite()) {
            // Repair: refactorise from the cache and predict again (with the same decisions).
            self.refactorize(true)?;
            let m = self.size();
            self.predict_with(None, &krow[..m], None, &mut sc.w, &mut sc.u, out);
            delta = dot(&sc.w, &sc.w);
            if !out.iter().all(|p| p.is_finite()) {
                return Err(KsError::Numerical(
                    "NystromAWV: the prediction is not finite even after refactorising A".into(),
                ));
            }
        }
        // 5. A_t = A_{t-1} + krow krow^T, q_t = q_{t-1} + krow y^T, caches.
        let mut xup = std::mem::take(&mut sc.u);
        xup.clear();
        xup.extend_from_slice(&krow);
        self.chol.rank_one_update(&mut xup);
        sc.u = xup;
        add_to_q(&mut self.q, &krow, y);
        self.cache_round(x, &krow, y);
        if self.d.is_none() {
            self.d = Some(x.len());
        }
        if let ([yt], [pt]) = (y, &*out) {
            self.noise.observe(noise_discount(self.gamma), *yt, *pt, delta);
        }
        self.n_seen += 1;
        sc.krow = krow;
        if !self.chol.is_healthy() {
            self.refactorize(false)?;
        }
        self.checkpoint();
        Ok(())
    }
}

/// `q += krow y^T` (`q` is `m x K` row-major; one output: `q += y krow`).
fn add_to_q(q: &mut [f64], krow: &[f64], y: &[f64]) {
    if let [y] = y {
        axpy(*y, krow, q);
        return;
    }
    for (qj, &kj) in q.chunks_exact_mut(y.len()).zip(krow) {
        qj.iter_mut().zip(y).for_each(|(a, yc)| *a += yc * kj);
    }
}

impl NystromAwv {
    /// The prediction and predictive std of the next round (after its discount step).
    fn std_plan(&self, x: &[f64]) -> Result<Option<(f64, f64)>> {
        let mut sc = Scratch::default();
        let mut krow = Vec::new();
        let mut plan = self.plan_with(x, &mut krow, &mut sc, 1, self.stepped())?;
        if !plan.pred.iter().all(|p| p.is_finite()) {
            // As `predict`: the learning round would repair the factor first.
            let mut copy = self.clone();
            copy.discount_step();
            copy.refactorize(true)?;
            plan = copy.plan_with(x, &mut krow, &mut sc, 1, None)?;
        }
        Ok(Some((plan.pred[0], self.noise.std(plan.delta))))
    }

    /// The fixed dictionary (row-major) and the width of a learner on a fixed
    /// dictionary of `d`-dimensional points with the Gaussian kernel: its kernel rows are
    /// `exp(-||x - c_j||^2 / (2 sigma^2))`, which a mixture may compute once for
    /// several such experts ([`Self::predict_learn_many_krows`]).
    pub fn fixed_gaussian(&self, d: usize) -> Option<(&[f64], f64)> {
        match self.kernel {
            Kernel::Gaussian { sigma }
                if self.kors.is_none() && self.size() > 0 && self.centers_d == d =>
            {
                Some((&self.centers, sigma))
            }
            _ => None,
        }
    }

    /// Whether a kept prediction ([`OnlineLearner::predict_keep`]) finishes the next
    /// round on `x` (then the round computes no kernel row).
    pub fn has_kept(&self, x: &[f64]) -> bool {
        self.kept_plan.is_some() && self.kept.matches(x, self.n_seen)
    }

    /// [`OnlineLearner::predict_learn_many`] of a learner on a fixed dictionary of
    /// `m` points with the kernel rows `krows` (row-major `y.len() x m`, row `i` =
    /// `k_D(x_i)` as [`Kernel::row_into`] computes it) given: the same results, bit
    /// for bit. `None` for a KORS dictionary (nothing run).
    pub fn predict_learn_many_krows(
        &mut self,
        x: &[f64],
        d: usize,
        y: &[f64],
        krows: &[f64],
        out: &mut Vec<f64>,
    ) -> Option<Result<()>> {
        if self.kors.is_some() || krows.len() != x.len() / d.max(1) * self.size() {
            return None;
        }
        let mut sc = std::mem::take(&mut self.scratch);
        let res = self.run_rows_with(x, d, y, &mut Some(out), &mut sc, Some(krows));
        self.scratch = sc;
        Some(res)
    }

    /// [`OnlineLearner::predict_keep`] of a learner on a fixed dictionary with the
    /// kernel row `krow = k_D(x)` given: the same prediction and kept work, bit for
    /// bit. `None` for a KORS dictionary (nothing done).
    pub fn predict_keep_krow(&mut self, x: &[f64], krow: &[f64]) -> Option<Result<f64>> {
        if self.kors.is_some() || krow.len() != self.size() || self.gamma < 1.0 {
            return None;
        }
        if let Err(e) = self.one_output() {
            return Some(Err(e));
        }
        self.forget_kept();
        let mut sc = std::mem::take(&mut self.scratch);
        sc.krow.clear();
        sc.krow.extend_from_slice(krow);
        let mut pred = vec![0.0];
        self.predict_with(None, &sc.krow, None, &mut sc.w, &mut sc.u, &mut pred);
        let delta = dot(&sc.w, &sc.w);
        self.scratch = sc;
        let p = pred[0];
        if !p.is_finite() {
            let mut out = [0.0];
            return Some(self.predict_into(x, &mut out).map(|()| out[0]));
        }
        self.kept_plan = Some(Plan { added: false, ext: None, pred, delta, stepped: None });
        self.kept.set(x, self.n_seen);
        Some(Ok(p))
    }

    /// `pre`: the kernel rows of every row (fixed dictionary only).
    fn run_rows_with(
        &mut self,
        x: &[f64],
        d: usize,
        y: &[f64],
        out: &mut Option<&mut Vec<f64>>,
        sc: &mut Scratch,
        pre: Option<&[f64]>,
    ) -> Result<()> {
        let row = |i: usize| &x[i * d..(i + 1) * d];
        let n = x.len() / d;
        let kk = y.len() / n.max(1);
        let yr = |i: usize| &y[i * kk..(i + 1) * kk];
        let mut p = vec![0.0; kk];
        let push = |out: &mut Option<&mut Vec<f64>>, p: &[f64]| {
            if let Some(o) = out.as_deref_mut() {
                o.extend_from_slice(p);
            }
        };
        let mut i = 0;
        while i < n {
            crate::interrupt::poll()?;
            let m = self.size();
            let bmax = self.block_size(m).min(n - i);
            if bmax < 2 || m == 0 {
                self.fix_outputs(kk);
                match pre {
                    Some(pre) => {
                        // A plan kept for this row at this round (predict_keep_krow on
                        // the same kernel row) finishes it: the numbers it would compute.
                        let plan = self
                            .kept_plan
                            .take()
                            .filter(|p| !p.added && p.ext.is_none() && p.pred.len() == kk);
                        let plan = plan.filter(|_| self.kept.take(row(i), self.n_seen));
                        self.kept.clear();
                        sc.krow.clear();
                        sc.krow.extend_from_slice(&pre[i * m..(i + 1) * m]);
                        self.forecaster_round(row(i), yr(i), false, plan, sc, &mut p)?
                    }
                    None => self.round_with(row(i), yr(i), sc, &mut p)?,
                };
                push(out, &p);
                i += 1;
                continue;
            }
            // KORS row by row until it adds a point (that row then runs alone).
            let mut krows = std::mem::take(&mut sc.blk.krows);
            krows.resize(bmax * m, 0.0);
            let (mut k, mut stop) = (0, None);
            while k < bmax {
                let kr = &mut krows[k * m..(k + 1) * m];
                match pre {
                    Some(pre) => kr.copy_from_slice(&pre[(i + k) * m..(i + k + 1) * m]),
                    None => self.kernel.row_into(row(i + k), &self.centers, d, kr),
                }
                match self.kors_step(row(i + k), kr) {
                    Ok(false) => k += 1,
                    other => {
                        stop = Some(other);
                        break;
                    }
                }
            }
            sc.blk.krows = krows;
            self.fix_outputs(kk);
            let res =
                self.block_rounds(&x[i * d..(i + k) * d], d, &y[i * kk..(i + k) * kk], sc, out);
            i += k;
            res?;
            match stop {
                None => {}
                Some(Err(e)) => return Err(e),
                Some(Ok(added)) => {
                    sc.krow.clear();
                    sc.krow.extend_from_slice(&sc.blk.krows[k * m..(k + 1) * m]);
                    self.forecaster_round(row(i), yr(i), added, None, sc, &mut p)?;
                    push(out, &p);
                    i += 1;
                }
            }
        }
        Ok(())
    }

    /// Before the first round, `q` takes the `k` columns of the first targets (it
    /// is 0 then: nothing learned).
    fn fix_outputs(&mut self, k: usize) {
        if self.n_seen == 0 && self.q.len() != self.size() * k {
            self.q = vec![0.0; self.size() * k];
        }
    }

    /// The forecaster's rounds on rows whose KORS steps added nothing, kernel rows in
    /// `sc.blk.krows`: one block, or single rounds if the block is refused.
    fn block_rounds(
        &mut self,
        x: &[f64],
        d: usize,
        y: &[f64],
        sc: &mut Scratch,
        out: &mut Option<&mut Vec<f64>>,
    ) -> Result<()> {
        let (n, m) = (x.len() / d, self.size());
        let k = y.len() / n.max(1);
        if n >= self.min_block_rows() && self.try_block(x, d, y, &mut sc.blk) {
            if let Some(o) = out.as_deref_mut() {
                o.extend_from_slice(&sc.blk.preds[..n * k]);
            }
            return Ok(());
        }
        let mut p = vec![0.0; k];
        for (i, (xi, yi)) in x.chunks_exact(d).zip(y.chunks_exact(k.max(1))).enumerate() {
            sc.krow.clear();
            sc.krow.extend_from_slice(&sc.blk.krows[i * m..(i + 1) * m]);
            self.forecaster_round(xi, yi, false, None, sc, &mut p)?;
            if let Some(o) = out.as_deref_mut() {
                o.extend_from_slice(&p);
            }
        }
        Ok(())
    }

    /// `n >= 2` rounds without insertion as one block (`y` row-major `n x K`;
    /// discounted: [`Self::discounted_rows`]); `false` (state unchanged) when the
    /// recursion is ill-conditioned or a prediction or the new factor is not finite.
    fn try_block(&mut self, x: &[f64], d: usize, y: &[f64], b: &mut BlockScratch) -> bool {
        let (n, m) = (x.len() / d, self.size());
        let k = y.len() / n;
        // The block builds a second factor beside the first: within the memory limit
        // only (else single rounds, which update the factor in place).
        if crate::limits::check_doubles("", Some((m as u128) * (m as u128))).is_err() {
            return false;
        }
        let ok = if self.gamma < 1.0 {
            self.discounted_block(y, k, b)
        } else {
            let krows = std::mem::take(&mut b.krows);
            let ok = self.block_core(&krows[..n * m], y, k, b);
            b.krows = krows;
            ok
        };
        if !ok {
            return false;
        }
        std::mem::swap(&mut self.chol, &mut b.next);
        // q_t = gamma q_{t-1} + krow_t y_t^T and the caches, row by row as single rounds.
        for (i, (xi, yi)) in x.chunks_exact(d).zip(y.chunks_exact(k)).enumerate() {
            let krow = &b.krows[i * m..(i + 1) * m];
            if k == 1 {
                self.noise.observe(noise_discount(self.gamma), yi[0], b.preds[i], b.deltas[i]);
            }
            if self.gamma < 1.0 {
                self.q.iter_mut().for_each(|v| *v *= self.gamma);
            }
            add_to_q(&mut self.q, krow, yi);
            self.cache_round(xi, krow, yi);
        }
        if self.d.is_none() {
            self.d = Some(d);
        }
        self.n_seen += n as u64;
        self.blocked_rounds += n as u64;
        self.checkpoint();
        true
    }

    /// The plain rounds on the rows `krows` (row-major `n x m`, targets `y` row-major
    /// `n x K`) from `A_{t-1}`: their predictions and `delta`s into `b.preds`,
    /// `b.deltas`, the factor of `A_{t-1} + K_B^T K_B` into `b.next`; `false` when the
    /// recursion is ill-conditioned or a number is not finite.
    fn block_core(&self, krows: &[f64], y: &[f64], k: usize, b: &mut BlockScratch) -> bool {
        let m = self.size();
        let n = krows.len() / m;
        let c = n + k;
        // [W | U_0] = L^{-1} [K_B^T | Q] and the factor of A_0 + K_B^T K_B, one pass over L.
        b.rhs.clear();
        b.rhs.resize(m * c, 0.0);
        for (j, r) in b.rhs.chunks_exact_mut(c).enumerate() {
            for (i, v) in r[..n].iter_mut().enumerate() {
                *v = krows[i * m + j];
            }
            r[n..].copy_from_slice(&self.q[j * k..(j + 1) * k]);
        }
        self.chol.block_solve_update(&mut b.rhs, c, krows, n, &mut b.chol, Some(&mut b.next));
        // G = W^T W (G_lk = k_l^T A_0^{-1} k_k) and pb = W^T U_0 (= k_k^T A_0^{-1} q_j).
        b.gp.clear();
        b.gp.resize(n * c, 0.0);
        let wt = View { rows: n, cols: m, off: 0, rs: 1, cs: c };
        let wu = View { rows: m, cols: c, off: 0, rs: c, cs: 1 };
        gemm(1.0, &b.rhs, wt, &b.rhs, wu, 0.0, &mut b.gp, View::col_major(n, c, 0, n));
        b.preds.clear();
        b.preds.resize(n * k, 0.0);
        b.deltas.clear();
        b.deltas.resize(n, 0.0);
        let (g, pb) = b.gp.split_at(n * n);
        let ok = crate::awv::block_recursion_multi(
            g,
            pb,
            y,
            k,
            self.ridge,
            &mut b.preds,
            &mut b.deltas,
            &mut b.u,
            &mut b.mm,
        );
        ok && b.preds.iter().all(|p| p.is_finite()) && b.next.is_healthy()
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

/// `K` outputs share the factor of `A`; `q` and the past targets have `K` columns
/// (docs/choices.md, "Multi-output AWV").
impl crate::multi::MultiOutput for NystromAwv {
    /// From the past targets (KORS mode) or `q` (fixed dictionary); None before
    /// the first round.
    fn n_outputs(&self) -> Option<usize> {
        if self.n_seen == 0 {
            return None;
        }
        match self.kors {
            Some(_) if self.is_capped() => self.capped.as_ref().map(|c| c.outputs),
            Some(_) => self.ys.len().checked_div(self.t()),
            None => self.q.len().checked_div(self.size()),
        }
    }

    fn check_outputs(&self, k: usize, d: usize) -> Result<()> {
        crate::awv::outputs::check_outputs(k)?;
        let m = self.size() as u128;
        crate::limits::check_input_doubles(
            &format!("NystromAWV with {k} outputs on {d}-dimensional inputs"),
            Some(m * (d as u128 + 3 + k as u128) + 3 * m * m),
        )
    }

    fn predict_multi(&self, x: &[f64], out: &mut Vec<f64>) -> Result<()> {
        let s = out.len();
        out.resize(s + self.outputs(), 0.0);
        let r = self.predict_into(x, &mut out[s..]);
        if r.is_err() {
            out.truncate(s);
        }
        r
    }

    fn predict_keep_multi(&mut self, x: &[f64], out: &mut Vec<f64>) -> Result<()> {
        let s = out.len();
        out.resize(s + self.outputs(), 0.0);
        let r = self.keep(x, &mut out[s..]);
        if r.is_err() {
            out.truncate(s);
        }
        r
    }

    fn predict_learn_multi(&mut self, x: &[f64], y: &[f64], out: &mut Vec<f64>) -> Result<()> {
        if self.n_outputs().is_some_and(|k| k != y.len()) {
            return crate::multi::single_output_err(self.outputs());
        }
        let q0 = (self.n_seen == 0).then(|| self.q.clone());
        self.fix_outputs(y.len());
        let s = out.len();
        out.resize(s + y.len(), 0.0);
        let r = self.round(x, y, &mut out[s..]);
        if r.is_err() {
            out.truncate(s);
            if let (Some(q0), 0) = (q0, self.n_seen) {
                self.q = q0;
            }
        }
        r
    }

    fn predict_learn_many_multi(&mut self, rows: Rows<'_>, out: &mut Vec<f64>) -> Result<()> {
        // A first round that fails leaves `q` as it was (one output, all 0).
        let q0 = (self.n_seen == 0).then(|| self.q.clone());
        let r = self.run_rows(rows, Some(out));
        if let (Some(q0), 0) = (q0, self.n_seen) {
            self.q = q0;
        }
        r
    }

    /// `q` and the past targets gain `k` zero columns: a column of targets that
    /// were all 0 has `q_j = K_{t,D}^T 0 = 0`, through insertions too
    /// (`sum_s 0 a_s = 0`).
    fn add_outputs(&mut self, k: usize) -> Result<()> {
        let Some(k0) = self.n_outputs() else { return crate::multi::before_first_round() };
        let (t, m) = (self.t() as u128, self.size() as u128);
        crate::awv::outputs::check_added(k0, k, |total| {
            (format!("NystromAWV with {total} outputs"), Some((t + m) * total as u128))
        })?;
        let widen = |v: &[f64]| crate::awv::outputs::widen_columns(v, k0, k);
        self.q = widen(&self.q);
        self.ys = widen(&self.ys);
        if let Some(c) = self.capped.as_mut() {
            c.outputs += k;
        }
        self.forget_kept();
        Ok(())
    }
}

// The format version of a pickled NystromAwv: bump it when a serialised field changes.
crate::state::state_version!(NystromAwv, 8);

impl crate::state::ValidState for NystromAwv {
    fn validate(&self) -> Result<()> {
        use crate::state::*;
        self.noise.validate()?;
        let m = self.center_rounds.len();
        let t = usize::try_from(self.n_seen).map_err(|_| KsError::Input("bad n_seen".into()))?;
        ensure(self.n_seen <= i64::MAX as u64, || "the round counter is out of range".into())?;
        if let Some(d) = self.d {
            ensure(d >= 1, || "the input dimension is 0".into())?;
            ensure(self.centers_d == 0 || self.centers_d == d, || {
                "the dictionary and the inputs have different dimensions".into()
            })?;
        } else {
            ensure(t == 0, || "rounds without an input dimension".into())?;
        }
        self.chol.validate()?;
        len_is("factor order", self.chol.dim(), m)?;
        let k = crate::multi::MultiOutput::n_outputs(self).unwrap_or(1);
        ensure((1..=crate::awv::outputs::MAX_OUTPUTS).contains(&k), || format!("{k} outputs"))?;
        len_is("q", self.q.len(), product("q", m, k)?)?;
        self.validate_discount()?;
        finite("q", &self.q)?;
        finite("dictionary", &self.centers)?;
        ensure(self.fixed_jitter.is_finite() && self.fixed_jitter >= 0.0, || "bad jitter".into())?;
        match &self.kors {
            None => {
                ensure(self.centers_d >= 1, || "a fixed dictionary without a dimension".into())?;
                len_is(
                    "dictionary",
                    self.centers.len(),
                    product("dictionary", m, self.centers_d)?,
                )?;
                ensure(self.center_rounds.iter().all(|r| r.is_none()), || {
                    "a fixed dictionary point has a round index".into()
                })?;
                ensure(
                    self.kcols.is_empty()
                        && self.xs.is_empty()
                        && self.ys.is_empty()
                        && self.capped.is_none(),
                    || "a fixed-dictionary learner holds a data cache".into(),
                )
            }
            Some(kors) => {
                kors.validate()?;
                same("KORS steps", &kors.n_seen(), &self.n_seen)?;
                same("KORS input dimension", &kors.input_dim(), &self.d)?;
                at_most("dictionary size", m, kors.size())?;
                ensure(self.centers_d == 0, || "a KORS learner with a fixed dimension".into())?;
                let d = self.d.unwrap_or(0);
                len_is("dictionary", self.centers.len(), product("dictionary", m, d)?)?;
                ensure(
                    self.center_rounds.iter().all(|r| r.is_some_and(|r| r < self.n_seen)),
                    || "a dictionary point without a past round".into(),
                )?;
                // At most one insertion a round, in order (the refill pointer replays them).
                ensure(self.center_rounds.windows(2).all(|w| w[0] < w[1]), || {
                    "dictionary rounds not increasing".into()
                })?;
                if self.is_capped() {
                    return self.validate_capped(k);
                }
                len_is("past inputs", self.xs.len(), product("past inputs", t, d)?)?;
                len_is("past targets", self.ys.len(), product("past targets", t, k)?)?;
                len_is("kernel columns", self.kcols.len(), m)?;
                for c in &self.kcols {
                    len_is("a kernel column", c.len(), t)?;
                    finite("a kernel column", c)?;
                }
                finite("past inputs", &self.xs)?;
                finite("past targets", &self.ys)
            }
        }
    }
    fn check_config(&self, fresh: &Self) -> Result<()> {
        crate::state::same_fields!(self, fresh; kernel, lam, ridge, centers_d, gamma)?;
        if self.kors.is_none() {
            crate::state::same_fields!(self, fresh; centers: "dictionary", fixed_jitter: "jitter")?;
        }
        self.kors.check_config(&fresh.kors)
    }
    fn adopt_settings(&mut self, fresh: &Self) {
        self.block_size = fresh.block_size;
    }
}

crate::state_params!(NystromAwv; kernel, lam, ridge, gamma);
