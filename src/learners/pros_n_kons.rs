//! PROS-N-KONS, CON-KONS and B-KONS: the kernel online Newton step in a Nystrom
//! embedding grown by KORS. Calandriello, Lazaric, Valko (2017), *Efficient
//! second-order online kernel learning with adaptive embedding*, sec. 3
//! (update rules, Figure 1) and sec. 5 (CON-KONS, B-KONS). Figure 1 resets one round
//! late and never computes `phi_t` in a reset round; the text and proofs (App. B) fix
//! both, see docs/choices.md, "PROS-N-KONS".
//!
//! One round on `x_t`:
//! * KORS (`src/samplers/kors.rs`, regulariser `gamma`) decides `z_t`; it sees only `x_t`;
//! * a reset happens when `z_t = 1` (`reset_timing = SameRound`, text and proofs) or
//!   when `z_{t-1} = 1` (`NextRound`, Figure 1 literally, with the dictionary update
//!   deferred to that round);
//! * at a reset the accepted point is offered to the nested-Cholesky embedding
//!   (`src/features/nested_cholesky.rs`, rank `r <= j`), then
//!   - `Restart` (PROS-N-KONS): `w = 0`, `A = alpha I_r`, the previous gradient is
//!     dropped, `y_hat = 0`;
//!   - `Continue` (CON-KONS, sec. 5; docs/choices.md): in Cholesky coordinates the
//!     transport map is `R = [I; 0]`, so `w <- [w; 0]` and
//!     `A <- R (A - alpha I) R^T + alpha I = blockdiag(A, alpha)`; `Literal` mode sets
//!     `w_t` to the mapped `w_{t-1}` and predicts `clip(phi_t^T w_t, -C, C)`; `Step`
//!     mode maps `g` too and takes the normal step and projection;
//! * otherwise the ONS step (paper eq. in sec. 3, with the step multiplier `eta`, default 1,
//!   the box's otherwise unused `eta_t`; docs/choices.md, "Curvature"):
//!   `v_t = w_{t-1} - eta A_{t-1}^{-1} g_{t-1}`,
//!   `w_t = v_t - h(phi_t^T v_t) / (phi_t^T A_{t-1}^{-1} phi_t) A_{t-1}^{-1} phi_t`,
//!   `h(z) = sign(z) max(|z| - C, 0)` (oblique projection: `y_hat = clip(phi_t^T v_t, -C, C)`);
//! * `y_hat_t = phi_t^T w_t`, `g_t = l'(y_hat_t) phi_t`,
//!   `A_t = A_{t-1} + (sigma/2) g_t g_t^T` by Sherman-Morrison on the packed inverse.
//!
//! Cost: with `b = A_{t-1}^{-1} g_t = l' u` (`u = A_{t-1}^{-1} phi_t`, already needed by
//! the projection) and `A_t^{-1} g_t = b / (1 + (sigma/2) g^T b)`, a round is one
//! packed mat-vec and one packed rank-one update on `A^{-1}`, one triangular solve
//! for `phi_t`, and the KORS step: `O(j d + j^2)`.
//!
//! B-KONS (`budget = Some(J)`): once the dictionary holds `J` points KORS is no
//! longer called (docs/choices.md, "B-KONS"), so there are no more resets.

use super::online_learner::OnlineLearner;
use crate::error::Result;
use crate::features::nested_cholesky::{NestedCholesky, DEFAULT_PIVOT_TOL};
use crate::kernels::Kernel;
use crate::linalg::blas::{axpy, dot};
use crate::linalg::packed;
use crate::samplers::{Kors, KorsWeights};
use serde::{Deserialize, Serialize};

crate::names! {
    /// What a dictionary growth does.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
    pub enum OnGrowth as "on_growth" {
        /// PROS-N-KONS: `w = 0`, `A = alpha I` at every dictionary growth.
        Restart = "restart",
        /// CON-KONS: transport `w` and `A` to the new embedding.
        Continue = "continue",
    }
}

crate::names! {
    /// The round of a reset after a growth.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
    pub enum ResetTiming as "reset_timing" {
        /// Reset in the round whose point KORS accepts (paper text and proofs; default).
        SameRound = "same_round",
        /// Reset one round later (the paper's Figure 1 read literally).
        NextRound = "next_round",
    }
}

crate::names! {
    /// The CON-KONS transport mode.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
    pub enum Transport as "transport" {
        /// CON-KONS mode (a): `w_t` is the mapped `w_{t-1}`; no Newton step, no projection.
        Literal = "literal",
        /// CON-KONS mode (b): `g` is mapped too, then the normal step and projection.
        Step = "step",
    }
}

crate::params! {
    /// The parameters of [`ProsNKons`] (defaults: those of the Python class `ProsNKons`).
    /// `kernel` has no default in Python (`required`); `Default` puts a unit Gaussian there.
    #[derive(Copy)]
    pub struct ProsNKonsParams {
        /// The kernel.
        kernel: Kernel = Kernel::Gaussian { sigma: 1.0 } => "kernel", crate::params::object("a kernel"), required;
        /// Initial regularisation `A_0 = alpha I`.
        alpha: f64 = 1.0 => "float", crate::params::SCALE;
        /// KORS regularisation `gamma`.
        gamma: f64 = 1.0 => "float", crate::samplers::kors::MU;
        /// KORS accuracy `eps`.
        eps: f64 = 0.5 => "float", crate::params::between(0.0, 1.0).open_lo();
        /// KORS oversampling `beta`.
        beta: f64 = 1.0 => "float", crate::samplers::kors::BETA;
        /// Bound `C` of the predictions (the projection step).
        c as "C": f64 = 1.0 => "float", crate::params::SCALE;
        /// `None`: the loss's default ([`crate::learners::losses::Loss::default_curvature`]).
        curvature: Option<f64> = None => "float", crate::params::SCALE.or_none();
        /// Newton step multiplier: `v = w - eta A^{-1} g` (1 is the paper's step).
        eta: f64 = 1.0 => "float", crate::params::SCALE;
        use crate::learners::losses::loss_row;
        /// Restart (PROS-N-KONS) or transport (CON-KONS) at a dictionary growth.
        on_growth: OnGrowth = OnGrowth::Restart => "str", OnGrowth::DOMAIN;
        /// Cap on the KORS dictionary (None: none).
        budget: Option<usize> = None => "int", crate::params::at_least(1.0).or_none();
        /// The round of a reset after a growth.
        reset_timing: ResetTiming = ResetTiming::SameRound => "str", ResetTiming::DOMAIN;
        /// CON-KONS transport mode.
        transport: Transport = Transport::Literal => "str", Transport::DOMAIN;
        /// KORS weight convention: `Sqrt` (`S = diag(1/sqrt(p))`, KORS as defined; default) or
        /// `Inverse` (`1/p`, App. A's "adds (t, 1/p)" read literally; docs/choices.md, "KORS weights").
        kors_weights: KorsWeights = KorsWeights::Sqrt => "str", KorsWeights::DOMAIN;
        /// Seed of KORS.
        seed: u64 = 0 => "int", crate::params::WHOLE;
    }
}

impl ProsNKonsParams {
    fn relations(&self) -> Result<()> {
        Ok(())
    }
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ProsNKons {
    params: ProsNKonsParams,
    /// `sigma` of `A_t = A_{t-1} + (sigma/2) g g^T`.
    sigma: f64,
    kors: Kors,
    n_seen: u64,
    n_resets: u64,
    state: Option<State>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
struct State {
    emb: NestedCholesky,
    /// For each embedding pivot, its index in the KORS dictionary.
    pivot_index: Vec<usize>,
    /// NextRound: the point accepted last round (and its dictionary index), waiting for its reset.
    pending: Option<(Vec<f64>, usize)>,
    w: Vec<f64>,
    /// Packed upper triangle of `A^{-1}` (order `r`).
    ainv: Vec<f64>,
    /// `A_{t-1}^{-1} g_{t-1}` (the pending Newton step); all zeros when there is none.
    step: Vec<f64>,
    #[serde(skip)]
    krow: Vec<f64>,
    #[serde(skip)]
    phi: Vec<f64>,
    #[serde(skip)]
    u: Vec<f64>,
}

/// What the prediction half of a round computed (consumed by the learning half).
struct RoundOut {
    y_hat: f64,
    /// `phi_t` and `u = A_{t-1}^{-1} phi_t` are in the state scratch when true.
    has_phi: bool,
}

#[inline]
fn h_clip(z: f64, c: f64) -> f64 {
    // h(z) = sign(z) max(|z| - C, 0).
    z.signum() * (z.abs() - c).max(0.0)
}

impl ProsNKons {
    pub fn new(p: &ProsNKonsParams) -> Result<Self> {
        p.validate()?;
        let p = *p;
        let sigma = match p.curvature {
            Some(s) => s,
            None => p.loss.default_curvature(p.c),
        };
        let kors = Kors::new(p.kernel, p.gamma, p.eps, p.beta, p.kors_weights, p.seed)?;
        Ok(ProsNKons { params: p, sigma, kors, n_seen: 0, n_resets: 0, state: None })
    }

    pub fn params(&self) -> &ProsNKonsParams {
        &self.params
    }
    /// The curvature `sigma` in use.
    pub fn curvature(&self) -> f64 {
        self.sigma
    }
    /// The KORS sampler (dictionary, weights, probabilities).
    pub fn kors(&self) -> &Kors {
        &self.kors
    }
    /// Number of KORS points `j`.
    pub fn dictionary_size(&self) -> usize {
        self.kors.size()
    }
    /// Number of resets (dictionary growths seen by the learner).
    pub fn n_resets(&self) -> u64 {
        self.n_resets
    }
    /// The nested-Cholesky embedding (None before the first round).
    pub fn embedding(&self) -> Option<&NestedCholesky> {
        self.state.as_ref().map(|s| &s.emb)
    }
    /// `phi(x)` in the current embedding (empty before the first pivot).
    pub fn embed(&self, x: &[f64]) -> Vec<f64> {
        match &self.state {
            Some(st) => st.emb.embed(x),
            None => Vec::new(),
        }
    }
    /// `w_t`.
    pub fn weights(&self) -> Vec<f64> {
        self.state.as_ref().map_or_else(Vec::new, |s| s.w.clone())
    }
    /// `v_{t+1} = w_t - eta A_t^{-1} g_t`, the point the next round projects.
    pub fn newton_point(&self) -> Vec<f64> {
        let eta = self.params.eta;
        self.state.as_ref().map_or_else(Vec::new, |s| {
            s.w.iter().zip(&s.step).map(|(w, st)| w - eta * st).collect()
        })
    }
    /// `A_t^{-1}` as a dense row-major `r x r` matrix.
    pub fn ainv_dense(&self) -> Vec<f64> {
        self.state.as_ref().map_or_else(Vec::new, |s| packed::to_dense(&s.ainv, s.w.len()))
    }
    fn budget_reached(&self) -> bool {
        matches!(self.params.budget, Some(b) if self.kors.size() >= b)
    }

    fn new_state(&self, d: usize) -> State {
        State {
            emb: NestedCholesky::new(self.params.kernel, d, DEFAULT_PIVOT_TOL),
            pivot_index: Vec::new(),
            pending: None,
            w: Vec::new(),
            ainv: Vec::new(),
            step: Vec::new(),
            krow: Vec::new(),
            phi: Vec::new(),
            u: Vec::new(),
        }
    }

    /// The prediction half of a round: KORS, reset or ONS step and projection.
    fn round_predict(&mut self, x: &[f64]) -> Result<RoundOut> {
        if self.state.is_none() {
            self.state = Some(self.new_state(x.len()));
        }
        let budget_reached = self.budget_reached();
        let p = self.params;
        let st = super::batch::built(&mut self.state, "PROS-N-KONS")?;
        let m = self.kors.size();
        // 1. KORS on x_t (only x_t: the dictionary does not depend on the labels).
        st.krow.resize(m, 0.0);
        let accepted = if budget_reached {
            false
        } else {
            self.kors.kernel_row_into(x, &mut st.krow[..m]);
            self.kors.step_with_row(x, &st.krow[..m])?.added
        };
        // 2. Which point (if any) triggers a reset this round.
        let reset_point: Option<(Vec<f64>, usize)> = match p.reset_timing {
            ResetTiming::SameRound => accepted.then(|| (x.to_vec(), m)),
            ResetTiming::NextRound => {
                let prev = st.pending.take();
                if accepted {
                    st.pending = Some((x.to_vec(), m));
                }
                prev
            }
        };
        let r_old = st.emb.rank();
        let mut fresh_dims = false;
        if let Some((pt, idx)) = &reset_point {
            self.n_resets += 1;
            if st.emb.push(pt) {
                st.pivot_index.push(*idx);
                fresh_dims = true;
            }
        }
        let r = st.emb.rank();
        // 3. phi_t in the (possibly new) embedding.
        st.phi.resize(r, 0.0);
        st.u.resize(r, 0.0);
        if r == 0 {
            // No dictionary yet: predict 0, no update (docs/choices.md, "Reset rounds").
            return Ok(RoundOut { y_hat: 0.0, has_phi: false });
        }
        if budget_reached || reset_point.is_some() {
            st.emb.embed_into(x, &mut st.phi);
        } else {
            for (k, &idx) in st.pivot_index.iter().enumerate() {
                st.phi[k] = st.krow[idx];
            }
            st.emb.solve_in_place(&mut st.phi);
        }
        let alpha = p.alpha;
        let c = p.c;
        if reset_point.is_some() {
            let restart = p.on_growth == OnGrowth::Restart || r_old == 0;
            if restart {
                // The RESTART: w = 0, A = alpha I_r, previous gradient dropped; y_hat = 0.
                st.w = vec![0.0; r];
                st.ainv = packed::scaled_identity(r, 1.0 / alpha);
                st.step = vec![0.0; r];
                packed::symv(&st.ainv, &st.phi, &mut st.u);
                return Ok(RoundOut { y_hat: 0.0, has_phi: true });
            }
            // CON-KONS transport in Cholesky coordinates: R = [I; 0].
            if fresh_dims {
                st.w.push(0.0);
                st.step.push(0.0);
                // A_new^{-1} = blockdiag(A_old^{-1}, 1/alpha): append a packed column.
                st.ainv.extend(std::iter::repeat_n(0.0, r_old));
                st.ainv.push(1.0 / alpha);
            }
            packed::symv(&st.ainv, &st.phi, &mut st.u);
            if p.transport == Transport::Literal {
                // w_t = R w_{t-1}: no Newton step with g_{t-1}, no projection.
                st.step.iter_mut().for_each(|s| *s = 0.0);
                let y = dot(&st.phi, &st.w).clamp(-c, c);
                return Ok(RoundOut { y_hat: y, has_phi: true });
            }
        } else {
            packed::symv(&st.ainv, &st.phi, &mut st.u);
        }
        // 4. ONS step v = w - eta A^{-1} g_{t-1}, then the oblique projection onto |phi^T w| <= C.
        for (w, s) in st.w.iter_mut().zip(st.step.iter_mut()) {
            *w -= p.eta * *s;
            *s = 0.0;
        }
        let s = dot(&st.phi, &st.w);
        let q = dot(&st.phi, &st.u);
        let y_hat = if s.abs() > c && q > 0.0 {
            // Guard: q = 0 only if phi = 0, then s = 0 too (no 0/0).
            axpy(-h_clip(s, c) / q, &st.u, &mut st.w);
            // phi^T w = s - h(s) = clip(s, -C, C) exactly (not up to rounding: a hinge
            // loss at C = 1 sits on its kink there, so the subgradient must not depend
            // on the last bit of a dot product).
            s.clamp(-c, c)
        } else {
            s
        };
        Ok(RoundOut { y_hat, has_phi: true })
    }

    /// The learning half: `g = l'(y_hat) phi`, Sherman-Morrison on `A^{-1}`.
    /// The update of a round of sample weight `w` (docs/choices.md, "Sample weights"):
    /// the loss `w l`, so the gradient `w g` with `g = l' phi`, and the curvature of `w`
    /// copies of the loss, `A_t = A_{t-1} + w (sigma/2) g g^T` (as the AWV family's
    /// `w phi phi^T`); `w = 1` is the plain round, bit for bit.
    fn round_learn(&mut self, out: &RoundOut, y: f64, w: f64) {
        self.n_seen += 1;
        if !out.has_phi {
            return;
        }
        let sigma = self.sigma;
        let lp = self.params.loss.deriv(out.y_hat, y);
        let Some(st) = self.state.as_mut() else { return };
        if lp == 0.0 {
            return;
        }
        // b = A_{t-1}^{-1} g = l' u ; g^T b = l'^2 q.
        let q = dot(&st.phi, &st.u).max(0.0);
        let den = 1.0 + 0.5 * sigma * w * lp * lp * q;
        for ui in st.u.iter_mut() {
            *ui *= lp;
        }
        // A_t^{-1} = A_{t-1}^{-1} - w (sigma/2) b b^T / (1 + w (sigma/2) g^T b).
        packed::syr(&mut st.ainv, 0.5 * sigma * w / den, &st.u);
        // A_t^{-1} (w g_t) = w b / (1 + w (sigma/2) g^T b): next round's Newton step.
        for (s, b) in st.step.iter_mut().zip(&st.u) {
            *s = w * b / den;
        }
    }
}

impl OnlineLearner for ProsNKons {
    fn input_dim(&self) -> Option<usize> {
        self.state.as_ref().map(|s| s.emb.input_dim())
    }

    fn check_row(&self, x: &[f64], y: Option<f64>) -> Result<()> {
        self.params.kernel.check_point(x)?;
        match y {
            Some(y) => self.params.loss.check_label(y),
            None => Ok(()),
        }
    }

    /// The prediction this round would make (pure): a copy of the learner plays the
    /// round, KORS's draw included, so a following `learn` predicts the same.
    fn predict(&self, x: &[f64]) -> Result<f64> {
        let mut copy = self.clone();
        Ok(copy.round_predict(x)?.y_hat)
    }

    fn predict_learn(&mut self, x: &[f64], y: f64) -> Result<f64> {
        let out = self.round_predict(x)?;
        self.round_learn(&out, y, 1.0);
        Ok(out.y_hat)
    }

    /// The round's dictionary step (KORS) as for any row, then the weighted update.
    fn predict_learn_weighted(&mut self, x: &[f64], y: f64, w: f64) -> Result<f64> {
        let out = self.round_predict(x)?;
        self.round_learn(&out, y, w);
        Ok(out.y_hat)
    }

    fn supports_weights(&self) -> bool {
        true
    }

    fn n_seen(&self) -> u64 {
        self.n_seen
    }

    /// Embedding rank `r` (<= dictionary size).
    fn dim(&self) -> usize {
        self.state.as_ref().map_or(0, |s| s.emb.rank())
    }
}

// The format version of a pickled ProsNKons: bump it when a serialised field changes.
crate::state::state_version!(ProsNKons, 4);

impl crate::state::ValidState for ProsNKons {
    fn validate(&self) -> Result<()> {
        use crate::state::*;
        self.kors.validate()?;
        ensure(self.kors.n_seen() <= self.n_seen && self.n_resets <= self.n_seen, || {
            "the counters disagree".into()
        })?;
        let Some(st) = &self.state else {
            return ensure(self.kors.size() == 0 && self.n_seen == 0, || {
                "a dictionary without an embedding".into()
            });
        };
        st.emb.validate()?;
        if let Some(d) = self.kors.input_dim() {
            same("input dimension", &st.emb.input_dim(), &d)?;
        }
        let r = st.emb.rank();
        let m = self.kors.size();
        if let Some(b) = self.params.budget {
            at_most("dictionary size", m, b)?;
        }
        len_is("pivot indices", st.pivot_index.len(), r)?;
        ensure(st.pivot_index.iter().all(|&i| i < m), || {
            "a pivot index is not in the dictionary".into()
        })?;
        if let Some((pt, idx)) = &st.pending {
            len_is("the pending point", pt.len(), st.emb.input_dim())?;
            finite("the pending point", pt)?;
            ensure(*idx < m, || "the pending point is not in the dictionary".into())?;
        }
        let k = st.w.len();
        ensure(k == r || (k == 0 && st.ainv.is_empty()), || format!("{k} weights for rank {r}"))?;
        len_is("step", st.step.len(), k)?;
        len_is("A^-1 (packed)", st.ainv.len(), k * (k + 1) / 2)?;
        finite("weights", &st.w)?;
        finite("step", &st.step)?;
        finite("A^-1", &st.ainv)
    }
    fn check_config(&self, fresh: &Self) -> Result<()> {
        use crate::state::same;
        same("parameters", &self.params, &fresh.params)?;
        same("curvature", &self.sigma, &fresh.sigma)?;
        self.kors.check_config(&fresh.kors)?;
        if let Some(st) = &self.state {
            same("kernel", &st.emb.kernel(), &self.params.kernel)?;
        }
        Ok(())
    }
}

impl crate::state::StateParams for ProsNKons {
    fn state_params(&self) -> Vec<(&'static str, crate::params::Value)> {
        crate::state::all_params(&self.params)
    }
}
