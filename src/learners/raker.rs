//! Raker (Shen, Chen, Giannakis 2019, "Random feature-based online multi-kernel
//! learning in environments with unknown dynamics"): online gradient descent
//! experts on random features, exponential weights on top ("OGD-EWA" in the
//! VAW2 paper, sec. 3-4). Form as in the OMKL-GF authors' code, which the VAW2
//! paper ran for its baselines (sec. 4; docs/choices.md, "Raker and OMKL-GF"):
//!
//! features `v_j(x) = [cos(W_j x), sin(W_j x)] / sqrt(m)` (2m per kernel; the
//! code's [sin, cos] order is a permutation, irrelevant for OGD from 0);
//! `theta_j = 0`, `logw_j = 0`; round t (1-based), `eta_t = lr / sqrt(t)`:
//! `f_j = <theta_j, v_j(x_t)>`, `y_hat = sum_j softmax(logw)_j f_j`,
//! `theta_j -= eta_t (2 (f_j - y_t) v_j + 2 reg theta_j)`,
//! `l_j = (f_j - y_t)^2 + reg ||theta_j||^2` (with the UPDATED theta_j, as the
//! code does), `logw_j -= eta_t l_j`.

use super::OnlineLearner;
use crate::aggregation::{renormalise_log_pub, softmax_pub, weights_or_uniform};
use crate::error::{non_negative, positive, Result};
use crate::features::rff::{RandomFourier, RffVariant, MAX_RFF_FEATURES};
use crate::features::FeatureMap;
use crate::kernels::Kernel;
use crate::linalg::blas::dot;
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
    features: Vec<RandomFourier>,
    theta: Vec<Vec<f64>>,
    logw: Vec<f64>,
    t: u64,
    #[serde(skip)]
    v: Vec<f64>,
    #[serde(skip)]
    p: Vec<f64>,
}

/// Checks shared by the OGD baselines.
pub(crate) fn check_ogd_params(
    kernels: &[Kernel],
    n_features: usize,
    lr: f64,
    reg: f64,
) -> Result<()> {
    if kernels.is_empty() {
        return crate::param_err!("kernels must hold at least one kernel");
    }
    if n_features == 0 || n_features > MAX_RFF_FEATURES {
        return crate::param_err!(
            "n_features must be in [1, {MAX_RFF_FEATURES}], got {n_features}"
        );
    }
    positive("lr", lr)?;
    non_negative("reg", reg)?;
    crate::limits::check_doubles(
        &format!("{} kernels x {n_features} random features", kernels.len()),
        ogd_memory(kernels.len(), n_features, 0),
    )
}

/// Doubles of the OGD baselines on `n` kernels of `m` random features: per kernel
/// the weights `theta` (2m) and the frequencies for `d`-dimensional inputs
/// ([`crate::features::rff::map_doubles`]; 0 while `d` is unknown), plus the
/// round's buffers.
pub(crate) fn ogd_memory(n: usize, m: usize, d: usize) -> Option<u128> {
    let maps = if d > 0 { crate::features::rff::map_doubles(m, d) } else { 0 };
    (n as u128).checked_mul(2 * m as u128 + maps + 4)?.checked_add(2 * m as u128)
}

/// The first row's width against the memory ceiling (the frequencies are drawn then).
pub(crate) fn check_ogd_input_dim(name: &str, n: usize, m: usize, d: usize) -> Result<()> {
    crate::limits::check_input_doubles(
        &format!("{name} with {n} kernels x {m} random features on {d}-dimensional inputs"),
        ogd_memory(n, m, d),
    )
}

/// Draws the cos/sin features of every kernel, in order, from one `Rng`.
pub(crate) fn draw_all(
    kernels: &[Kernel],
    d: usize,
    m: usize,
    rng: &mut Rng,
) -> Result<Vec<RandomFourier>> {
    kernels.iter().map(|k| RandomFourier::draw(k, d, m, RffVariant::CosSin, rng)).collect()
}

impl Raker {
    pub fn new(
        kernels: Vec<Kernel>,
        n_features: usize,
        lr: f64,
        reg: f64,
        seed: u64,
    ) -> Result<Self> {
        check_ogd_params(&kernels, n_features, lr, reg)?;
        Ok(Raker { kernels, n_features, lr, reg, seed, state: None })
    }

    fn state_mut(&mut self, d: usize) -> Result<&mut State> {
        if self.state.is_none() {
            let mut rng = Rng::new(self.seed);
            let features = draw_all(&self.kernels, d, self.n_features, &mut rng)?;
            let n = self.kernels.len();
            let theta = vec![vec![0.0; 2 * self.n_features]; n];
            self.state = Some(State {
                features,
                theta,
                logw: vec![0.0; n],
                t: 0,
                v: Vec::new(),
                p: Vec::new(),
            });
        }
        let (r, n) = (2 * self.n_features, self.kernels.len());
        let st = self
            .state
            .as_mut()
            .ok_or_else(|| crate::KsError::Internal("Raker state missing".into()))?;
        if st.v.len() != r {
            st.v = vec![0.0; r];
        }
        if st.p.len() != n {
            st.p = vec![0.0; n];
        }
        Ok(st)
    }

    /// Kernel weights (softmax of the log-weights) the next round uses.
    pub fn weights(&self) -> Vec<f64> {
        weights_or_uniform(self.state.as_ref().map(|st| st.logw.as_slice()), self.kernels.len())
    }

    pub fn feature_maps(&self) -> Option<&[RandomFourier]> {
        self.state.as_ref().map(|s| s.features.as_slice())
    }
}

impl OnlineLearner for Raker {
    fn input_dim(&self) -> Option<usize> {
        self.feature_maps().map(|f| f[0].input_dim())
    }

    fn check_input_dim(&self, d: usize) -> Result<()> {
        check_ogd_input_dim("Raker", self.kernels.len(), self.n_features, d)
    }

    fn memory_doubles(&self, d: usize) -> Option<u128> {
        ogd_memory(self.kernels.len(), self.n_features, d)
    }

    /// Finite inputs whose random-feature projections overflow are refused before any change.
    fn check_row(&self, x: &[f64], _y: Option<f64>) -> Result<()> {
        crate::features::rff::check_drawn(self.feature_maps(), x)
    }

    fn predict(&self, x: &[f64]) -> Result<f64> {
        let st = match &self.state {
            Some(st) => st,
            None => return Ok(0.0),
        };
        let p = self.weights();
        Ok(st
            .features
            .iter()
            .zip(&st.theta)
            .zip(&p)
            .map(|((f, th), pj)| pj * dot(th, &f.map(x)))
            .sum())
    }

    fn predict_learn(&mut self, x: &[f64], y: f64) -> Result<f64> {
        // The first round draws the features: check x against them, else undo the draw.
        if self.state.is_none() {
            self.state_mut(x.len())?;
            crate::features::rff::keep_draw_if_fits(&mut self.state, |s| &s.features, x)?;
        }
        let (lr, reg) = (self.lr, self.reg);
        let st = self.state_mut(x.len())?;
        st.t += 1;
        let eta = lr / (st.t as f64).sqrt();
        softmax_pub(&st.logw, &mut st.p);
        let mut pred = 0.0;
        for j in 0..st.features.len() {
            st.features[j].map_into(x, &mut st.v);
            let th = &mut st.theta[j];
            let f = dot(th, &st.v);
            pred += st.p[j] * f;
            let shrink = 1.0 - 2.0 * eta * reg;
            let g = 2.0 * eta * (f - y);
            for (t, vi) in th.iter_mut().zip(&st.v) {
                *t = shrink * *t - g * vi;
            }
            let loss = (f - y).powi(2) + reg * dot(th, th);
            st.logw[j] -= eta * loss;
        }
        renormalise_log_pub(&mut st.logw);
        Ok(pred)
    }

    fn n_seen(&self) -> u64 {
        self.state.as_ref().map_or(0, |s| s.t)
    }

    fn dim(&self) -> usize {
        self.kernels.len() * 2 * self.n_features
    }
}

/// The parts shared by Raker and OMKL-GF: one cos/sin map and one weight vector per kernel.
pub(crate) fn validate_ogd_parts(
    n_kernels: usize,
    n_features: usize,
    features: &[RandomFourier],
    theta: &[Vec<f64>],
    logw: &[f64],
) -> Result<()> {
    use crate::state::ValidState;
    use crate::state::*;
    len_is("feature maps", features.len(), n_kernels)?;
    len_is("weight vectors", theta.len(), n_kernels)?;
    len_is("log-weights", logw.len(), n_kernels)?;
    for (f, th) in features.iter().zip(theta) {
        f.validate()?;
        same("n_features", &f.n_frequencies(), &n_features)?;
        same("features", &f.variant(), &RffVariant::CosSin)?;
        same("input dimension", &f.input_dim(), &features[0].input_dim())?;
        len_is("a weight vector", th.len(), 2 * n_features)?;
        finite("weights", th)?;
    }
    crate::aggregation::no_nan_or_pos_inf("log-weights", logw)
}

impl crate::state::ValidState for Raker {
    fn validate(&self) -> Result<()> {
        match &self.state {
            Some(st) => validate_ogd_parts(
                self.kernels.len(),
                self.n_features,
                &st.features,
                &st.theta,
                &st.logw,
            ),
            None => Ok(()),
        }
    }
    fn check_config(&self, fresh: &Self) -> Result<()> {
        use crate::state::same;
        same("kernels", &self.kernels, &fresh.kernels)?;
        same("n_features", &self.n_features, &fresh.n_features)?;
        same("lr", &self.lr, &fresh.lr)?;
        same("reg", &self.reg, &fresh.reg)?;
        same("seed", &self.seed, &fresh.seed)
    }
}
