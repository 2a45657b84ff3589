//! KORS: Kernel Online Row Sampling (approximate ridge leverage scores).
//!
//! Calandriello, Lazaric, Valko (2017), *Efficient second-order online kernel
//! learning with adaptive embedding* (PROS-N-KONS paper), App. A, Algorithm 1 and
//! Eq. (6); used by PKAWV (Jezequel, Gaillard, Rudi 2019, sec. 3.2, Prop. 5) and by
//! PROS-N-KONS (sec. 3).
//!
//! State: the dictionary `D` (points, round indices, inclusion probabilities
//! `p_j`, weights `w_j`) and `Minv = (W K_DD W + mu I)^{-1}`, `W = diag(w)`.
//!
//! One step on `x_t`, with `kS = (w_j k(x_j, x_t))_{j in D}`:
//! * residual `res = k(x_t, x_t) - kS^T Minv kS` (>= 0 up to rounding: the
//!   regularised residual of `x_t` against the weighted dictionary);
//! * Eq. (6) on the temporary dictionary `D u {(t, 1)}` reduces to the closed
//!   form `tau_t = (1 + eps) res / (res + mu)` (by the Schur complement of the bordered
//!   matrix; checked against the temporary-dictionary formula in the tests);
//! * `p_t = min(beta tau_t, 1)` (clipped at 0), `z_t = 1{u_t < p_t}`;
//! * on `z_t = 1`, add `(t, w_t)` with `w_t = 1/sqrt(p_t)` (`Sqrt`, KORS as
//!   defined: `S = diag(1/sqrt(p))`) or `w_t = 1/p_t` (`Inverse`, the 2019
//!   PKAWV paper's code, App. H.2; docs/choices.md, "KORS weights"), and grow `Minv`
//!   by the bordered inverse with new column `w_t kS`, diagonal `w_t^2 k_tt + mu`,
//!   whose Schur complement is `s = w_t^2 res + mu >= mu` (so the update never divides
//!   by a small number: every eigenvalue of `W K W + mu I` is >= mu).
//!
//! Cost per step: `m` kernel evaluations and one packed symmetric mat-vec,
//! `O(m d + m^2)`; an insertion adds one packed rank-one update, `O(m^2)`.
//!
//! **Random draws:** every step consumes exactly one `Rng::uniform()` draw `u`,
//! whatever `p_t` (also when `p_t` is 0 or 1), and adds the point iff `u < p_t`.
//! A NumPy reference that calls `kernelstream._core.Rng(seed).uniform()` once per
//! step reproduces the dictionary exactly.
//!
//! Round indices are 0-based: the first point ever passed to `step` has index 0.

use crate::error::{KsError, Result};
use crate::kernels::Kernel;
use crate::linalg::blas::dot;
use crate::linalg::packed;
use crate::rng::Rng;
use serde::{Deserialize, Serialize};

crate::names! {
    /// Weight convention of the dictionary.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
    pub enum KorsWeights as "kors_weights" {
        /// `w_j = 1 / sqrt(p_j)`: KORS as defined (`S = diag(1/sqrt(p))`).
        Sqrt = "sqrt",
        /// `w_j = 1 / p_j`: the 2019 PKAWV paper's code.
        Inverse = "inverse",
    }
}

impl KorsWeights {
    /// The weight of a point accepted with probability `p > 0`.
    #[inline]
    pub fn weight(&self, p: f64) -> f64 {
        match self {
            KorsWeights::Sqrt => 1.0 / p.sqrt(),
            KorsWeights::Inverse => 1.0 / p,
        }
    }
}

/// The domain of the regularisation `mu` (as NystromAWV's `mu`, PROS-N-KONS's `gamma`).
pub const MU: crate::params::Constraint = crate::params::SCALE;
/// The domain of the oversampling `beta`.
pub const BETA: crate::params::Constraint = crate::params::SCALE;

crate::params::shared_rows! {
    /// The rows of KORS's parameters (the sampler's own struct, [`KorsParams`], and
    /// NystromAWV's).
    kors_rows {
        /// KORS regularisation `mu`.
        mu: f64 = 1.0 => "float", crate::samplers::kors::MU;
        /// KORS accuracy `eps`.
        eps: f64 = 0.5 => "float", crate::params::NON_NEGATIVE;
        /// KORS oversampling `beta`.
        beta: f64 = 1.0 => "float", crate::samplers::kors::BETA;
        /// KORS weights of the kept points.
        kors_weights: crate::samplers::KorsWeights = crate::samplers::KorsWeights::Sqrt
            => "str", crate::samplers::KorsWeights::DOMAIN;
        /// Seed of KORS.
        seed: u64 = 0 => "int", crate::params::WHOLE;
    }
}

crate::params! {
    /// The parameters of [`Kors`]: their one check ([`Kors::new`] runs it).
    #[derive(Copy)]
    pub struct KorsParams {
        use crate::samplers::kors::kors_rows;
    }
}

impl KorsParams {
    fn relations(&self) -> Result<()> {
        Ok(())
    }
}

/// What one step decided (or would decide).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct KorsStep {
    /// Whether `x_t` joined the dictionary.
    pub added: bool,
    /// Inclusion probability `p_t = min(beta tau_t, 1)`.
    pub prob: f64,
    /// `res = k_tt - kS^T (W K W + mu I)^{-1} kS`, clipped at 0.
    pub residual: f64,
    /// The uniform draw `u_t` that decided `added = u_t < p_t`.
    pub draw: f64,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Kors {
    kernel: Kernel,
    mu: f64,
    eps: f64,
    beta: f64,
    weights_kind: KorsWeights,
    seed: u64,
    rng: Rng,
    /// Input dimension, fixed by the first step.
    d: Option<usize>,
    /// Dictionary points, row-major `m x d`.
    points: Vec<f64>,
    /// 0-based round index of each dictionary point.
    indices: Vec<u64>,
    /// Inclusion probability `p_j` of each dictionary point.
    probs: Vec<f64>,
    /// Weight `w_j` of each dictionary point.
    weights: Vec<f64>,
    /// Packed upper triangle (by columns) of `(W K_DD W + mu I)^{-1}`.
    minv: Vec<f64>,
    /// Steps taken so far.
    n_seen: u64,
    /// Largest dictionary size (None: unbounded). At the budget, steps still
    /// compute `p_t` and consume their draw but add nothing (B-KONS, benches).
    #[serde(default)]
    budget: Option<usize>,
    /// Scratch (no allocation per step).
    #[serde(skip)]
    ks: Vec<f64>,
    #[serde(skip)]
    h: Vec<f64>,
    #[serde(skip)]
    krow: Vec<f64>,
}

impl Kors {
    /// KORS with regularisation `mu > 0`, accuracy `eps >= 0`, oversampling `beta > 0`.
    pub fn new(
        kernel: Kernel,
        mu: f64,
        eps: f64,
        beta: f64,
        weights: KorsWeights,
        seed: u64,
    ) -> Result<Self> {
        KorsParams { mu, eps, beta, kors_weights: weights, seed }.validate()?;
        Ok(Kors {
            kernel,
            mu,
            eps,
            beta,
            weights_kind: weights,
            seed,
            rng: Rng::new(seed),
            d: None,
            points: Vec::new(),
            indices: Vec::new(),
            probs: Vec::new(),
            weights: Vec::new(),
            minv: Vec::new(),
            n_seen: 0,
            budget: None,
            ks: Vec::new(),
            h: Vec::new(),
            krow: Vec::new(),
        })
    }

    // ---- accessors -------------------------------------------------------
    pub fn kernel(&self) -> Kernel {
        self.kernel
    }
    pub fn mu(&self) -> f64 {
        self.mu
    }
    pub fn eps(&self) -> f64 {
        self.eps
    }
    pub fn beta(&self) -> f64 {
        self.beta
    }
    pub fn weights_kind(&self) -> KorsWeights {
        self.weights_kind
    }
    pub fn seed(&self) -> u64 {
        self.seed
    }
    /// Input dimension `d` (None before the first step).
    pub fn input_dim(&self) -> Option<usize> {
        self.d
    }
    /// Dictionary size `m`.
    pub fn size(&self) -> usize {
        self.indices.len()
    }
    /// Dictionary points, row-major `m x d`.
    pub fn points(&self) -> &[f64] {
        &self.points
    }
    /// 0-based round index of each dictionary point.
    pub fn indices(&self) -> &[u64] {
        &self.indices
    }
    /// Inclusion probability of each dictionary point.
    pub fn probabilities(&self) -> &[f64] {
        &self.probs
    }
    /// Weight `w_j` of each dictionary point.
    pub fn weights(&self) -> &[f64] {
        &self.weights
    }
    /// Steps taken so far.
    pub fn n_seen(&self) -> u64 {
        self.n_seen
    }
    /// `(W K_DD W + mu I)^{-1}` as a dense row-major `m x m` matrix.
    pub fn minv_dense(&self) -> Vec<f64> {
        packed::to_dense(&self.minv, self.size())
    }

    /// Caps the dictionary at `budget` points (None: no cap). Steps at the cap still
    /// compute `p_t` and consume one draw, but never add.
    pub fn set_budget(&mut self, budget: Option<usize>) {
        self.budget = budget;
    }
    pub fn budget(&self) -> Option<usize> {
        self.budget
    }
    fn full(&self) -> bool {
        self.budget.is_some_and(|b| self.size() >= b)
    }

    /// Checks a point before any state change: length (once `d` is fixed) and finiteness.
    pub fn check_point(&self, x: &[f64]) -> Result<()> {
        if x.is_empty() {
            return crate::input_err!("x is empty: a point needs at least one feature");
        }
        if let Some(d) = self.d {
            if x.len() != d {
                return crate::input_err!(
                    "x has {} features but KORS was fed {d}-dimensional points before",
                    x.len()
                );
            }
        }
        if let Some(i) = x.iter().position(|v| !v.is_finite()) {
            return crate::input_err!("x[{i}] = {} is not finite", x[i]);
        }
        Ok(())
    }

    /// Unweighted kernel row `(k(x, x_j))_{j in D}` into `out` (`out.len() == size()`).
    pub fn kernel_row_into(&self, x: &[f64], out: &mut [f64]) {
        let d = x.len();
        if self.size() > 0 {
            self.kernel.row_into(x, &self.points, d, out);
        }
    }

    /// `(p_t, res)` for `x` given its unweighted kernel row `krow` against the dictionary.
    fn prob_from_row(&self, x: &[f64], krow: &[f64], ks: &mut [f64], h: &mut [f64]) -> (f64, f64) {
        let m = self.size();
        for j in 0..m {
            ks[j] = self.weights[j] * krow[j];
        }
        let ktt = self.kernel.diag(x);
        let quad = if m > 0 {
            packed::symv(&self.minv, &ks[..m], &mut h[..m]);
            dot(&ks[..m], &h[..m])
        } else {
            0.0
        };
        // res >= 0 in exact arithmetic (posterior variance of a GP with noise mu).
        let res = (ktt - quad).max(0.0);
        // Closed form of Eq. (6) on the temporary dictionary D u {(t, 1)}.
        let tau = (1.0 + self.eps) * res / (res + self.mu);
        let p = (self.beta * tau).clamp(0.0, 1.0);
        (p, res)
    }

    /// Inclusion probability `p_t` that a step on `x` would use (pure).
    pub fn probability(&self, x: &[f64]) -> Result<f64> {
        self.check_point(x)?;
        let m = self.size();
        let mut krow = vec![0.0; m];
        self.kernel_row_into(x, &mut krow);
        let (mut ks, mut h) = (vec![0.0; m], vec![0.0; m]);
        Ok(self.prob_from_row(x, &krow, &mut ks, &mut h).0)
    }

    /// What `step(x)` would do next, without changing anything (the draw comes
    /// from a copy of the generator, so a following `step(x)` decides the same).
    pub fn peek(&self, x: &[f64]) -> Result<KorsStep> {
        self.check_point(x)?;
        let m = self.size();
        let mut krow = vec![0.0; m];
        self.kernel_row_into(x, &mut krow);
        self.peek_with_row(x, &krow)
    }

    /// [`Kors::peek`] given the unweighted kernel row of `x` against the dictionary.
    pub fn peek_with_row(&self, x: &[f64], krow: &[f64]) -> Result<KorsStep> {
        self.check_row_len(krow)?;
        let m = self.size();
        let (mut ks, mut h) = (vec![0.0; m], vec![0.0; m]);
        let (p, res) = self.prob_from_row(x, krow, &mut ks, &mut h);
        let draw = self.rng.clone().uniform();
        Ok(KorsStep { added: draw < p && !self.full(), prob: p, residual: res, draw })
    }

    fn check_row_len(&self, krow: &[f64]) -> Result<()> {
        if krow.len() != self.size() {
            return Err(KsError::Input(format!(
                "kernel row has {} entries but the KORS dictionary holds {}",
                krow.len(),
                self.size()
            )));
        }
        Ok(())
    }

    /// A step at the cap, for a caller that needs only whether `x` was added: checks `x`
    /// and consumes the step's draw as [`Self::step_full`] does (the same generator
    /// state after it), without `p_t`'s `O(m^2)` (nothing can be added whatever it is).
    /// `None` (nothing done) below the cap.
    pub fn step_at_cap(&mut self, x: &[f64]) -> Option<Result<bool>> {
        if !self.full() {
            return None;
        }
        if let Err(e) = self.check_point(x) {
            return Some(Err(e));
        }
        self.rng.uniform();
        if self.d.is_none() {
            self.d = Some(x.len());
        }
        self.n_seen += 1;
        Some(Ok(false))
    }

    /// Whether the dictionary is at its cap (no step adds a point).
    pub fn is_full(&self) -> bool {
        self.full()
    }

    /// One KORS step on `x`: draws `z_t ~ Bernoulli(p_t)` and adds `x` if `z_t = 1`.
    /// Returns whether `x` was added.
    pub fn step(&mut self, x: &[f64]) -> Result<bool> {
        self.step_full(x).map(|s| s.added)
    }

    /// One step, returning the probability, residual and draw as well.
    pub fn step_full(&mut self, x: &[f64]) -> Result<KorsStep> {
        self.check_point(x)?;
        let mut krow = std::mem::take(&mut self.krow);
        krow.resize(self.size(), 0.0);
        self.kernel_row_into(x, &mut krow);
        let out = self.step_with_row_unchecked(x, &krow);
        self.krow = krow;
        Ok(out)
    }

    /// One step given the unweighted kernel row `krow = (k(x, x_j))_{j in D}`
    /// (a caller that needs the row anyway, like NystromAWV, saves `m` kernel
    /// evaluations).
    pub fn step_with_row(&mut self, x: &[f64], krow: &[f64]) -> Result<KorsStep> {
        self.check_point(x)?;
        self.check_row_len(krow)?;
        Ok(self.step_with_row_unchecked(x, krow))
    }

    fn step_with_row_unchecked(&mut self, x: &[f64], krow: &[f64]) -> KorsStep {
        let m = self.size();
        let mut ks = std::mem::take(&mut self.ks);
        let mut h = std::mem::take(&mut self.h);
        ks.resize(m + 1, 0.0);
        h.resize(m + 1, 0.0);
        let (p, res) = self.prob_from_row(x, krow, &mut ks, &mut h);
        // Exactly one uniform draw per step (see the module header).
        let draw = self.rng.uniform();
        let added = draw < p && !self.full();
        if added {
            // prob_from_row left kS in ks[..m] and Minv kS in h[..m].
            self.insert(x, p, res, &ks[..m], &mut h[..m]);
        }
        if self.d.is_none() {
            self.d = Some(x.len());
        }
        self.n_seen += 1;
        self.ks = ks;
        self.h = h;
        KorsStep { added, prob: p, residual: res, draw }
    }

    /// Adds `x` with probability `p` (residual `res`) to the dictionary and grows
    /// `Minv` by the bordered inverse. `ks = W k_D(x)`, `g = Minv ks` on entry.
    fn insert(&mut self, x: &[f64], p: f64, res: f64, _ks: &[f64], g: &mut [f64]) {
        let m = self.size();
        let w = self.weights_kind.weight(p);
        // New column c = w ks, diagonal w^2 k_tt + mu; h = Minv c = w g;
        // Schur complement s = w^2 k_tt + mu - c^T Minv c = w^2 res + mu >= mu.
        let s = w * w * res + self.mu;
        for gi in g.iter_mut() {
            *gi *= w;
        }
        // [[Minv + h h^T / s, -h / s], [-h^T / s, 1 / s]].
        packed::syr(&mut self.minv, -1.0 / s, g);
        self.minv.reserve(m + 1);
        for &hi in g.iter() {
            self.minv.push(-hi / s);
        }
        self.minv.push(1.0 / s);
        self.points.extend_from_slice(x);
        self.indices.push(self.n_seen);
        self.probs.push(p);
        self.weights.push(w);
    }
}

// The format version of a pickled Kors: bump it when a serialised field changes.
crate::state::state_version!(Kors, 4);

impl crate::state::ValidState for Kors {
    fn validate(&self) -> Result<()> {
        use crate::state::*;
        let m = self.indices.len();
        len_is("probabilities", self.probs.len(), m)?;
        len_is("weights", self.weights.len(), m)?;
        len_is(
            "(W K W + mu I)^-1",
            self.minv.len(),
            m.checked_mul(m + 1).map_or(usize::MAX, |v| v / 2),
        )?;
        match self.d {
            Some(d) => {
                ensure(d >= 1, || "the input dimension is 0".into())?;
                len_is("dictionary points", self.points.len(), product("points", m, d)?)?;
            }
            None => ensure(m == 0 && self.points.is_empty(), || {
                "a dictionary without an input dimension".into()
            })?,
        }
        ensure(m as u64 <= self.n_seen, || "more dictionary points than steps".into())?;
        // Round indices are exposed as int64.
        ensure(self.n_seen <= i64::MAX as u64, || "the step counter is out of range".into())?;
        ensure(self.indices.windows(2).all(|w| w[0] < w[1]), || {
            "dictionary indices are not increasing".into()
        })?;
        ensure(self.indices.last().is_none_or(|&i| i < self.n_seen), || {
            "a dictionary index is not a past step".into()
        })?;
        if let Some(b) = self.budget {
            at_most("dictionary size", m, b)?;
        }
        finite("dictionary points", &self.points)?;
        finite("(W K W + mu I)^-1", &self.minv)?;
        ensure(self.probs.iter().all(|p| *p > 0.0 && *p <= 1.0), || {
            "an inclusion probability is outside (0, 1]".into()
        })?;
        ensure(self.weights.iter().all(|w| w.is_finite() && *w > 0.0), || {
            "a dictionary weight is not a finite number > 0".into()
        })
    }
    fn check_config(&self, fresh: &Self) -> Result<()> {
        use crate::state::same;
        same("kernel", &self.kernel, &fresh.kernel)?;
        same("mu", &self.mu, &fresh.mu)?;
        same("eps", &self.eps, &fresh.eps)?;
        same("beta", &self.beta, &fresh.beta)?;
        same("weights", &self.weights_kind, &fresh.weights_kind)?;
        same("seed", &self.seed, &fresh.seed)?;
        same("budget", &self.budget, &fresh.budget)
    }
}
