//! Raker (Shen, Chen, Giannakis 2019, "Random feature-based online multi-kernel
//! learning in environments with unknown dynamics"): online gradient descent
//! experts on random features, exponential weights on top ("OGD-EWA" in the
//! VAW2 paper, sec. 3-4). Form as in the OMKL-GF authors' code, which the VAW2
//! paper ran for its baselines (sec. 4; docs/choices.md, "Raker and OMKL-GF"):
//!
//! features `v_j(x) = [cos(W_j x), sin(W_j x)] / sqrt(m)` (2m per kernel; the
//! code's [sin, cos] order is a permutation, irrelevant for OGD from 0);
//! `theta_j = 0`, `logw_j = 0`; round t (1-based), `eta_t = lr / sqrt(t)`:
//! `y_hat = sum_j softmax(logw)_j f_j`, then every expert takes its OGD step
//! ([`super::ogd_experts`], importance weight 1).

use super::ogd_experts::{check_ogd_params, next_round, ogd_accessors, ogd_protocol, OgdExperts};
use super::online_learner::OnlineLearner;
use crate::aggregation::{renormalise_log_pub, softmax_pub};
use crate::error::Result;
use crate::features::rff::RandomFourier;
use crate::features::FeatureMap;
use crate::kernels::Kernel;
use crate::rng::Rng;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Raker {
    kernels: Vec<Kernel>,
    n_features: usize,
    lr: f64,
    reg: f64,
    seed: u64,
    state: Option<State>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
struct State {
    experts: OgdExperts,
    t: u64,
    #[serde(skip)]
    v: Vec<f64>,
    #[serde(skip)]
    p: Vec<f64>,
}

super::ogd_experts::ogd_params! {
    /// The parameters of [`Raker`] (defaults: those of the Python class `Raker`).
    pub struct RakerParams {
        /// Seed of the frequencies.
        seed: u64 = 0 => "int", ">= 0";
    }
}

impl RakerParams {
    pub fn validate(&self) -> Result<()> {
        check_ogd_params(&self.kernels, self.n_features, self.lr, self.reg)
    }
}

impl Raker {
    pub fn new(p: &RakerParams) -> Result<Self> {
        p.validate()?;
        let (kernels, n_features, lr, reg, seed) =
            (p.kernels.clone(), p.n_features, p.lr, p.reg, p.seed);
        Ok(Raker { kernels, n_features, lr, reg, seed, state: None })
    }

    fn state_mut(&mut self, d: usize) -> Result<&mut State> {
        if self.state.is_none() {
            let mut rng = Rng::new(self.seed);
            let experts = OgdExperts::draw(&self.kernels, d, self.n_features, &mut rng)?;
            self.state = Some(State { experts, t: 0, v: Vec::new(), p: Vec::new() });
        }
        let (r, n) = (2 * self.n_features, self.kernels.len());
        let st = super::batch::built(&mut self.state, "Raker")?;
        super::batch::sized(&mut st.v, r);
        super::batch::sized(&mut st.p, n);
        Ok(st)
    }

    ogd_accessors!();
}

impl OnlineLearner for Raker {
    ogd_protocol!("Raker");

    fn predict(&self, x: &[f64]) -> Result<f64> {
        let st = self.state.as_ref();
        Ok(st.map_or(0.0, |st| st.experts.weighted_sum(0..self.kernels.len(), x).0))
    }

    fn predict_learn(&mut self, x: &[f64], y: f64) -> Result<f64> {
        self.predict_learn_weighted(x, y, 1.0)
    }

    fn supports_weights(&self) -> bool {
        true
    }

    /// Sample weight `w`: the round's objective (loss and regulariser) of every expert,
    /// hence its gradient step and its log-weight's loss, is scaled by `w`, as the
    /// importance weight of [`super::ogd_experts`] scales it (`w = 1`: bit for bit).
    fn predict_learn_weighted(&mut self, x: &[f64], y: f64, w: f64) -> Result<f64> {
        // The first round draws the features: check x against them, else undo the draw.
        if self.state.is_none() {
            self.state_mut(x.len())?;
            crate::features::rff::keep_draw_if_fits(&mut self.state, |s| &s.experts.features, x)?;
        }
        let (lr, reg) = (self.lr, self.reg);
        let st = self.state_mut(x.len())?;
        let eta = next_round(&mut st.t, lr);
        softmax_pub(&st.experts.logw, &mut st.p);
        let mut pred = 0.0;
        for j in 0..st.experts.features.len() {
            pred += st.p[j] * st.experts.step(j, (x, y), (eta, w), reg, &mut st.v);
        }
        renormalise_log_pub(&mut st.experts.logw);
        Ok(pred)
    }
}

// The format version of a pickled Raker: bump it when a serialised field changes.
crate::state::state_version!(Raker, 4);

impl crate::state::ValidState for Raker {
    fn validate(&self) -> Result<()> {
        let Some(st) = &self.state else { return Ok(()) };
        st.experts.validate(self.kernels.len(), self.n_features)
    }
    fn check_config(&self, fresh: &Self) -> Result<()> {
        crate::state::same_fields!(self, fresh; kernels, n_features, lr, reg, seed)
    }
}

crate::state_params!(Raker; kernels, n_features, lr, reg, seed);
