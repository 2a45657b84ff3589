//! Online projection estimator: Zhang and Simon, "An Online Projection Estimator for
//! Nonparametric Regression in Reproducing Kernel Hilbert Spaces", Algorithm 2 with the
//! recursions of Appendix C, eqs. (19)-(22) and (74), and the additive model of
//! sec. 5 / Appendix D (eqs. (82)-(83)); the choices the paper leaves open (trigger, warm-up,
//! prefix columns) are in docs/choices.md, "Projection".
//!
//! The estimate after n samples is ordinary least squares of Y on the p active columns of
//! the design ([`crate::bases::Design`]): `theta = Phi r`, `Phi = (Psi^T Psi)^{-1}`, `r = Psi^T Y`.
//! * Row step (new sample), eq. (19)/(22): `v = Phi u`, `s = 1 + u^T v`,
//!   `Phi <- Phi - v v^T / s`, `theta <- theta + (v / s) (y - u^T theta)` (Sherman-Morrison).
//! * Column step (schedule, a `while` loop, several columns at once), eq. (21)/(74) in block form:
//!   `B = Psi^T W`, `C = W^T W`, `Q = Phi B`, `S = C - B^T Q` (Schur complement),
//!   `Phi <- [[Phi + Q S^-1 Q^T, -Q S^-1], [-S^-1 Q^T, S^-1]]`, `z = W^T Y - B^T theta`,
//!   `theta <- [theta - Q S^-1 z ; S^-1 z]`.
//! * Schedule: the N-th unit switches on at `t_N = floor(c N^kappa)`, `kappa = (2 alpha + d) / d`
//!   (`2 alpha + 1` for the additive model); prefix columns are always on.
//! * Exact warm-up (docs/choices.md, "Warm-up"): while the stored Gram matrix `G = Psi^T Psi` is
//!   singular (or its Cholesky pivots fall below `tol` relative to its diagonal) there is no
//!   `Phi`; we keep `G` and `r`, predict with the minimum-norm least-squares solution, and set
//!   `Phi = G^-1` the first round `G` is well conditioned.
//! * Schur-complement guard (not in the paper): if a pivot of `S` is below `tol` times the
//!   diagonal of `C` (the new columns are numerically in the span of the old ones on the
//!   sample), the columns are still switched on, as scheduled, and the learner goes back to the
//!   exact warm-up until `G` is well conditioned again.
//! * Drift guard against Sherman-Morrison round-off (not in the paper): with `refresh = true`,
//!   at each addition step `Phi` is recomputed as `G^-1` from the stored Gram matrix (Cholesky)
//!   and `theta = Phi r`.
//!
//! Files: the recursions on the stored design (`recursion.rs`), the state's format and
//! invariants (`state.rs`).

use super::batch::Rows;
use super::online_learner::OnlineLearner;
use crate::bases::design::{check_domain, Scratch};
use crate::bases::{Basis1D, BasisKind, Design};
use crate::error::Result;
use crate::linalg::blas::dot;
use crate::linalg::packed;
use serde::{Deserialize, Serialize};

mod recursion;
mod state;

use recursion::State;

/// Construction parameters of [`OnlineProjection`].
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct ProjectionConfig {
    pub basis: Basis1D,
    /// Smoothness index: eigenvalues decay like `j^(-2 alpha / d)`; sets `kappa`.
    pub alpha: f64,
    /// Schedule constant `c` in `t_N = floor(c N^kappa)`.
    pub c: f64,
    /// Always-on polynomial prefix: `None`, or the degree `m` (intercept + `P~_1..P~_m` per coordinate).
    pub prefix_degree: Option<u32>,
    /// Additive model (sec. 5, Appendix D): one new function per coordinate per unit.
    pub additive: bool,
    /// `N` counts sin/cos pairs (trig basis) instead of single functions.
    pub pairs: bool,
    /// Refresh `Phi = G^-1` from the stored Gram matrix at each addition step.
    pub refresh: bool,
    /// Relative pivot tolerance of the warm-up and Schur-complement guards: `Phi` is formed
    /// (from `G` or from `S`) only if every Cholesky pivot is at least `tol` times its diagonal
    /// entry, which keeps the propagated round-off near `eps / tol`.
    pub tol: f64,
}

/// The domain of the smoothness index `alpha` (the row and [`ProjectionConfig::check`]).
pub const ALPHA: crate::params::Constraint = crate::params::SCALE;
/// The domain of the schedule constant `c`.
pub const C: crate::params::Constraint = crate::params::SCALE;
/// The domain of the pivot tolerance `tol`: (0, 1).
pub const TOL: crate::params::Constraint = crate::params::between(0.0, 1.0).open_lo().open_hi();

crate::names! {
    /// What `N` counts (the parameter `count`).
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub enum Count as "count" {
        /// Single functions.
        Function = "function",
        /// sin/cos pairs (trig basis).
        Pair = "pair",
    }
}

impl ProjectionConfig {
    /// The checks of a configuration built by hand ([`OnlineProjection::with_config`]):
    /// the values against the parameters' domains ([`ALPHA`], [`C`], [`TOL`]; the basis
    /// parameters were checked by [`Basis1D::from_spec`]), then [`Self::check_design`].
    fn check(&self) -> Result<()> {
        use crate::params::Checked;
        self.alpha.check_in("alpha", &ALPHA)?;
        self.c.check_in("c", &C)?;
        self.tol.check_in("tol", &TOL)?;
        self.check_design()
    }

    /// The checks no single value's domain states: the basis / count / prefix
    /// combination, for d = 1 now.
    fn check_design(&self) -> Result<()> {
        if !self.additive || self.pairs {
            Design::new(1, self.basis, self.additive, self.pairs, self.prefix_degree)?;
        }
        Ok(())
    }
}

crate::params! {
    /// The parameters of [`OnlineProjection`] (defaults: those of the Python class
    /// `OnlineProjection`, whose `prefix` also takes the names "constant", "linear",
    /// "quadratic" for the degrees 0, 1, 2).
    pub struct OnlineProjectionParams {
        /// The one-dimensional eigen-basis.
        basis: String = "trig".into() => "str", BasisKind::DOMAIN;
        /// Smoothness index: eigenvalues decay like `j^(-2 alpha / d)`; sets `kappa`.
        alpha: f64 = 2.0 => "float", ALPHA;
        /// Schedule constant `c` in `t_N = floor(c N^kappa)`.
        c: f64 = 1.0 => "float", C;
        /// Always-on polynomial prefix: None, or its degree.
        prefix: Option<u32> = None => "object", crate::params::between(0.0, 10.0).or_none().note("the Python class also takes 'constant', 'linear', 'quadratic'");
        /// Additive model (sec. 5, Appendix D).
        additive: bool = false => "bool", crate::params::flag();
        /// What `N` counts: single functions or sin/cos pairs (trig basis).
        count: String = "function".into() => "str", Count::DOMAIN;
        /// Trig basis: cosine before sine in each pair.
        cos_first: bool = false => "bool", crate::params::flag();
        use crate::bases::hermite::hermite_rows;
        /// Refresh `Phi = G^-1` from the stored Gram matrix at each addition step.
        refresh: bool = true => "bool", crate::params::flag();
        /// Relative pivot tolerance of the warm-up and Schur-complement guards.
        tol: f64 = 1e-6 => "float", TOL;
    }
}

impl OnlineProjectionParams {
    fn relations(&self) -> Result<()> {
        self.config()?.check_design()
    }

    /// The resolved configuration (the basis built from its name and parameters).
    pub fn config(&self) -> Result<ProjectionConfig> {
        let basis = Basis1D::from_spec(&self.basis, self.cos_first, self.a, self.eps)?;
        let pairs = Count::from_name(&self.count)? == Count::Pair;
        Ok(ProjectionConfig {
            basis,
            alpha: self.alpha,
            c: self.c,
            prefix_degree: self.prefix,
            additive: self.additive,
            pairs,
            refresh: self.refresh,
            tol: self.tol,
        })
    }
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct OnlineProjection {
    cfg: ProjectionConfig,
    state: Option<State>,
}

/// `t_N = floor(c N^kappa)`; the factor `1 + 1e-12` keeps values that are exact integers
/// (e.g. `0.2 * 10^5`) from being floored one below by rounding.
pub fn switch_on_index(c: f64, kappa: f64, n_unit: usize) -> f64 {
    (c * (n_unit as f64).powf(kappa) * (1.0 + 1e-12)).floor()
}

/// Most columns switched on before any data, and while the columns outnumber the
/// samples: a smaller `c` makes the schedule outrun the data (the warm-up, an
/// eigen-solve per round, never ends).
pub const MAX_START_COLUMNS: usize = 600;

impl OnlineProjection {
    fn kappa(&self, d: usize) -> f64 {
        if self.cfg.additive {
            2.0 * self.cfg.alpha + 1.0
        } else {
            (2.0 * self.cfg.alpha + d as f64) / d as f64
        }
    }

    /// Columns one unit of the schedule switches on.
    fn columns_per_unit(&self, d: usize) -> f64 {
        let pairs = if self.cfg.pairs { 2.0 } else { 1.0 };
        pairs * if self.cfg.additive { d as f64 } else { 1.0 }
    }

    /// Refuses, before a call that runs rounds `lo..=hi` starts, a schedule that would
    /// outrun the data at one of them (more columns than `max(MAX_START_COLUMNS, n)` at
    /// round `n`), instead of at that round, after seconds of work. The bound `p(n)` of
    /// [`Self::columns_after`] is nondecreasing, so on `n <= MAX_START_COLUMNS` it is
    /// largest at the last such round; beyond, `p(n) - n` is concave (`kappa > 1`) up to
    /// the floor, with its peak where `(per / kappa) c^(-1/kappa) (n + 1)^(1/kappa - 1) = 1`.
    fn check_schedule(&self, d: usize, lo: u64, hi: u64) -> Result<()> {
        let m = MAX_START_COLUMNS as f64;
        let (lo, hi) = (lo as f64, hi as f64);
        let mut rounds = Vec::with_capacity(3);
        if lo <= m {
            rounds.push(hi.min(m));
        }
        if hi > m {
            let k = self.kappa(d);
            let base = self.columns_per_unit(d) / (k * self.cfg.c.powf(1.0 / k));
            let peak = base.powf(k / (k - 1.0)) - 1.0;
            let (a, b) = (lo.max(m), hi);
            let peak = if peak.is_finite() { peak.clamp(a, b) } else { b };
            rounds.extend([peak.floor().max(a), peak.ceil().min(b)]);
        }
        for n in rounds {
            let p = self.columns_after(d, n)?;
            if p > m.max(n) {
                return crate::param_err!(
                    "c = {:.6e} would switch on about {p:.3e} columns by round {n:.0}, more than \
                     the samples (the warm-up would never end): raise c (the schedule is \
                     t_N = floor(c N^kappa))",
                    self.cfg.c
                );
            }
        }
        Ok(())
    }

    /// The design of this configuration on `d`-dimensional inputs.
    fn design(&self, d: usize) -> Result<Design> {
        let c = &self.cfg;
        Design::new(d, c.basis, c.additive, c.pairs, c.prefix_degree)
    }

    /// Upper bound on the columns active after `n` rounds (prefix + units x columns per unit).
    fn columns_after(&self, d: usize, n: f64) -> Result<f64> {
        let design = self.design(d)?;
        let per = self.columns_per_unit(d);
        // floor(c N^kappa) <= n  =>  N <= ((n + 1) / c)^(1 / kappa).
        let units = ((n + 1.0) / self.cfg.c).powf(1.0 / self.kappa(d)).floor() + 1.0;
        Ok(design.n_columns() as f64 + units * per)
    }

    /// Refuses (before any change) a schedule that switches on more columns than allowed
    /// at the start, or more than the memory ceiling holds after `n` rounds.
    fn check_growth(&self, d: usize, n: u64) -> Result<()> {
        let p0 = self.columns_after(d, 0.0)?;
        if p0 > MAX_START_COLUMNS as f64 {
            return crate::param_err!(
                "c = {:.6e} switches on about {p0:.3e} columns before any data (at most {MAX_START_COLUMNS}): \
                 raise c (the schedule is t_N = floor(c N^kappa))",
                self.cfg.c
            );
        }
        let p = self.columns_after(d, n as f64)?;
        if p > (MAX_START_COLUMNS as f64).max(n as f64) {
            return crate::param_err!(
                "c = {:.6e} switches on about {p:.3e} columns by round {n}, more than the samples \
                 (the warm-up would never end): raise c (the schedule is t_N = floor(c N^kappa))",
                self.cfg.c
            );
        }
        // G and Phi (packed) plus the stored data; a tensor-product order (d > 1, not
        // additive) also keeps a frontier of about d candidate multi-indices of d
        // entries per column switched on (bases/tensor.rs).
        let frontier =
            if self.cfg.additive || d == 1 { 0.0 } else { p * d as f64 * (d as f64 / 2.0 + 8.0) };
        let doubles = p * (p + 1.0) + (n as f64) * (d as f64 + 1.0) + frontier;
        let need = if doubles < 1e30 { Some(doubles as u128) } else { None };
        crate::limits::check_doubles(
            &format!("OnlineProjection with about {p:.3e} columns after {n} rounds"),
            need,
        )
    }

    pub fn new(p: &OnlineProjectionParams) -> Result<Self> {
        p.validate()?;
        Ok(OnlineProjection { cfg: p.config()?, state: None })
    }

    /// The learner for a resolved configuration (checked as [`OnlineProjectionParams::validate`] does).
    pub fn with_config(cfg: ProjectionConfig) -> Result<Self> {
        cfg.check()?;
        Ok(OnlineProjection { cfg, state: None })
    }

    pub fn config(&self) -> &ProjectionConfig {
        &self.cfg
    }

    fn make_state(&self, d: usize) -> Result<State> {
        let design = self.design(d)?;
        let kappa = self.kappa(d);
        let p = design.n_columns();
        let mut st = State {
            design,
            kappa,
            n: 0,
            n_units: 0,
            xs: Vec::new(),
            ys: Vec::new(),
            gram: vec![0.0; packed::packed_len(p)],
            r: vec![0.0; p],
            phi: Vec::new(),
            theta: vec![0.0; p],
            ready: p == 0,
            n_inits: 0,
            n_refresh: 0,
            n_guard: 0,
            scratch: Scratch::default(),
            u: Vec::new(),
            v: Vec::new(),
        };
        // Units with t_N = 0 are active before any data (c < 1).
        st.add_scheduled(&self.cfg)?;
        Ok(st)
    }

    fn state_mut(&mut self, d: usize) -> Result<&mut State> {
        if self.state.is_none() {
            self.state = Some(self.make_state(d)?);
        }
        super::batch::built(&mut self.state, "projection")
    }

    /// Coefficients `theta` of the active columns (empty before the first round).
    pub fn coefficients(&self) -> Vec<f64> {
        self.state.as_ref().map_or_else(Vec::new, |s| s.theta.clone())
    }

    /// Descriptions of the active columns, in order.
    pub fn active_basis(&self) -> Vec<String> {
        match &self.state {
            Some(s) => s.design.columns().iter().map(|c| c.describe(s.design.basis())).collect(),
            None => Vec::new(),
        }
    }

    /// Scheduled units switched on (`N`; prefix columns excluded).
    pub fn n_units(&self) -> usize {
        self.state.as_ref().map_or(0, |s| s.n_units)
    }

    /// Number of always-on prefix columns.
    pub fn n_prefix(&self) -> usize {
        self.state.as_ref().map_or(0, |s| s.design.n_prefix())
    }

    /// Is `Phi` available (warm-up over)?
    pub fn is_ready(&self) -> bool {
        self.state.as_ref().is_some_and(|s| s.ready)
    }

    /// (warm-up initialisations, drift refreshes, Schur-guard fallbacks).
    pub fn counters(&self) -> (u64, u64, u64) {
        self.state.as_ref().map_or((0, 0, 0), |s| (s.n_inits, s.n_refresh, s.n_guard))
    }

    /// Design matrix (row-major `n x p`) of the active columns at the rows of `x` (`d` columns).
    pub fn basis_matrix(&self, x: &[f64], d: usize) -> Result<Vec<f64>> {
        let st = match &self.state {
            Some(s) => s,
            None => return Ok(Vec::new()),
        };
        if d != st.design.input_dim() {
            return crate::input_err!(
                "rows have {d} features, the learner has {}",
                st.design.input_dim()
            );
        }
        let p = st.design.n_columns();
        let mut out = vec![0.0; x.len() / d * p];
        let mut scratch = Scratch::default();
        for (row, o) in x.chunks_exact(d).zip(out.chunks_exact_mut(p.max(1))) {
            check_domain(st.design.basis(), row)?;
            st.design.eval_into(row, &mut scratch, o);
        }
        Ok(out)
    }

    /// Dense row-major `Phi` (`p x p`; empty during the warm-up).
    pub fn phi_dense(&self) -> Vec<f64> {
        match &self.state {
            Some(s) if s.ready => packed::to_dense(&s.phi, s.theta.len()),
            _ => Vec::new(),
        }
    }

    /// Dense row-major stored Gram matrix `G = Psi^T Psi`.
    pub fn gram_dense(&self) -> Vec<f64> {
        match &self.state {
            Some(s) => packed::to_dense(&s.gram, s.theta.len()),
            None => Vec::new(),
        }
    }
}

impl OnlineLearner for OnlineProjection {
    fn input_dim(&self) -> Option<usize> {
        self.state.as_ref().map(|s| s.design.input_dim())
    }

    fn check_input_dim(&self, d: usize) -> Result<()> {
        Design::new(d, self.cfg.basis, self.cfg.additive, self.cfg.pairs, self.cfg.prefix_degree)?;
        self.check_growth(d, 1)
    }

    fn check_capacity(&self, n_new: usize, _d: usize) -> Result<()> {
        match &self.state {
            Some(st) => self.check_growth(st.design.input_dim(), st.n.saturating_add(n_new as u64)),
            None => Ok(()),
        }
    }

    fn check_row(&self, x: &[f64], _y: Option<f64>) -> Result<()> {
        check_domain(&self.cfg.basis, x)
    }

    /// The default loop, after refusing a schedule that would outrun the data within
    /// this call (before any change, instead of at that round).
    fn run_rows(&mut self, rows: Rows<'_>, out: Option<&mut Vec<f64>>) -> Result<()> {
        let (t, n) = (self.n_seen(), rows.y.len() as u64);
        self.check_schedule(rows.d, t + 1, t + n)?;
        super::batch::each_round(self, rows, out)
    }

    fn predict(&self, x: &[f64]) -> Result<f64> {
        match &self.state {
            Some(st) => {
                let mut u = vec![0.0; st.p()];
                let mut scratch = Scratch::default();
                st.design.eval_into(x, &mut scratch, &mut u);
                Ok(dot(&u, &st.theta))
            }
            None => {
                self.check_input_dim(x.len())?;
                // Before any data the estimate is 0 (theta = 0 on the columns active at n = 0).
                Ok(0.0)
            }
        }
    }

    fn predict_learn(&mut self, x: &[f64], y: f64) -> Result<f64> {
        let cfg = self.cfg;
        let st = self.state_mut(x.len())?;
        st.ensure_scratch();
        let p = st.p();
        st.design.eval_into(x, &mut st.scratch, &mut st.u[..p]);
        let pred = dot(&st.u[..p], &st.theta);
        // A round that switches on units may be long: keep a snapshot to restore on Ctrl-C.
        st.n += 1;
        let due = st.unit_due(&cfg);
        st.n -= 1;
        let snapshot = if due { Some(st.clone()) } else { None };
        // First the row, then the scheduled columns (paper's order, so B, C include the new sample).
        st.add_row(x, y, cfg.tol);
        if let Err(e) = st.add_scheduled(&cfg) {
            if let Some(s) = snapshot {
                *st = s;
            }
            return Err(e);
        }
        Ok(pred)
    }

    /// Integer weights as repeated rows (its state keeps rows without weights:
    /// docs/choices.md, "Sample weights").
    fn repeats_weights(&self) -> bool {
        true
    }

    fn n_seen(&self) -> u64 {
        self.state.as_ref().map_or(0, |s| s.n)
    }

    fn dim(&self) -> usize {
        self.state.as_ref().map_or(0, |s| s.p())
    }
}
