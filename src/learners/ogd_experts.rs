//! What Raker and OMKL-GF share (the VAW2 paper's OGD baselines, sec. 4; the form of
//! the OMKL-GF authors' code, docs/choices.md, "Raker and OMKL-GF"): per kernel `j`, a
//! cos/sin random-feature map `v_j(x) = [cos(W_j x), sin(W_j x)] / sqrt(m)` and an OGD
//! weight vector `theta_j`, and log-weights `logw` over the kernels. One step of
//! expert `j` on `(x_t, y_t)` with step `eta_t` and importance weight `iw` (1 for Raker):
//! `f_j = <theta_j, v_j(x_t)>`, `theta_j -= eta_t iw (2 (f_j - y_t) v_j + 2 reg theta_j)`,
//! `logw_j -= eta_t iw ((f_j - y_t)^2 + reg ||theta_j||^2)` (the UPDATED `theta_j`, as
//! the code does).

use crate::error::Result;
use crate::features::rff::{RandomFourier, RffVariant};
use crate::features::FeatureMap;
use crate::kernels::Kernel;
use crate::linalg::blas::dot;
use crate::rng::Rng;
use serde::{Deserialize, Serialize};

/// The experts' maps, weights and log-weights (serialised as these three fields, in
/// this order, inside the learner's state).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct OgdExperts {
    pub features: Vec<RandomFourier>,
    pub theta: Vec<Vec<f64>>,
    pub logw: Vec<f64>,
}

/// Declares a learner's parameter struct ([`crate::params!`]) whose first fields are
/// the four both learners share (their memory checked by [`check_ogd_memory`]), then its own.
macro_rules! ogd_params {
    ($(#[$m:meta])* pub struct $name:ident { $($own:tt)* }) => {
        $crate::params! {
            $(#[$m])*
            pub struct $name {
                /// The kernels, one expert each (shift-invariant: random features).
                kernels: Vec<$crate::kernels::Kernel> = Vec::new() => "kernels", $crate::params::object("a Gaussian or Laplacian kernel").non_empty(), required;
                /// Frequencies per kernel (`2m` features each).
                n_features: usize = 50 => "int", $crate::params::between(1.0, $crate::features::rff::MAX_RFF_FEATURES as f64);
                /// Step size of the experts and of the exponential weights.
                lr: f64 = 0.1 => "float", $crate::params::SCALE;
                /// Ridge penalty of the experts' gradient steps.
                reg: f64 = 1e-3 => "float", $crate::params::NON_NEGATIVE;
                $($own)*
            }
        }
    };
}
pub(crate) use ogd_params;

/// The relation both learners check: the memory their kernels and features take.
pub(crate) fn check_ogd_memory(kernels: &[Kernel], n_features: usize) -> Result<()> {
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

/// The [`crate::learners::OnlineLearner`] methods Raker and OMKL-GF share, expanded
/// inside their `impl OnlineLearner` (`$name` names the learner in messages). Each
/// learner has `kernels`, `n_features` and `state: Option<State>` whose `State` holds
/// `experts: OgdExperts` and the round count `t`.
macro_rules! ogd_protocol {
    ($name:expr) => {
        fn input_dim(&self) -> Option<usize> {
            self.feature_maps().map(|f| f[0].input_dim())
        }

        fn check_input_dim(&self, d: usize) -> Result<()> {
            let (n, m) = (self.kernels.len(), self.n_features);
            super::ogd_experts::check_ogd_input_dim($name, n, m, d)
        }

        fn memory_doubles(&self, d: usize) -> Option<u128> {
            super::ogd_experts::ogd_memory(self.kernels.len(), self.n_features, d)
        }

        /// Finite inputs whose random-feature projections overflow are refused before any change.
        fn check_row(&self, x: &[f64], _y: Option<f64>) -> Result<()> {
            crate::features::rff::check_drawn(self.feature_maps(), x)
        }

        fn n_seen(&self) -> u64 {
            self.state.as_ref().map_or(0, |s| s.t)
        }

        fn dim(&self) -> usize {
            self.kernels.len() * 2 * self.n_features
        }
    };
}
pub(crate) use ogd_protocol;

/// The inherent accessors Raker and OMKL-GF share (same fields as [`ogd_protocol`]).
macro_rules! ogd_accessors {
    () => {
        /// Kernel weights `softmax(logw)` the next round uses (uniform before the first).
        pub fn weights(&self) -> Vec<f64> {
            let logw = self.state.as_ref().map(|st| st.experts.logw.as_slice());
            crate::aggregation::weights_or_uniform(logw, self.kernels.len())
        }

        /// The kernels' random-feature maps (None before the first round).
        pub fn feature_maps(&self) -> Option<&[RandomFourier]> {
            self.state.as_ref().map(|s| s.experts.features.as_slice())
        }
    };
}
pub(crate) use ogd_accessors;

/// The step size of round `t` (1-based) after counting it: `eta_t = lr / sqrt(t)`.
pub(crate) fn next_round(t: &mut u64, lr: f64) -> f64 {
    *t += 1;
    lr / (*t as f64).sqrt()
}

impl OgdExperts {
    /// The cos/sin features of every kernel drawn in order from `rng`; weights and
    /// log-weights 0.
    pub fn draw(kernels: &[Kernel], d: usize, m: usize, rng: &mut Rng) -> Result<Self> {
        let features = kernels
            .iter()
            .map(|k| RandomFourier::draw(k, d, m, RffVariant::CosSin, rng))
            .collect::<Result<Vec<_>>>()?;
        let n = kernels.len();
        Ok(OgdExperts { features, theta: vec![vec![0.0; 2 * m]; n], logw: vec![0.0; n] })
    }

    /// `sum_j w_j f_j(x)` over the kernels `js` and `sum_j w_j`, with the weights
    /// `w = softmax(logw)` (allocates the features).
    pub fn weighted_sum(&self, js: impl Iterator<Item = usize>, x: &[f64]) -> (f64, f64) {
        let mut w = vec![0.0; self.logw.len()];
        crate::aggregation::softmax_pub(&self.logw, &mut w);
        js.fold((0.0, 0.0), |(num, den), j| (num + w[j] * self.predict(j, x), den + w[j]))
    }

    /// `f_j(x)` (allocates the features).
    pub fn predict(&self, j: usize, x: &[f64]) -> f64 {
        dot(&self.theta[j], &self.features[j].map(x))
    }

    /// One step of expert `j` with step `eta` and importance weight `iw` (module docs);
    /// `v` is scratch of length `2 m`. Returns `f_j(x)` before the step.
    pub fn step(
        &mut self,
        j: usize,
        (x, y): (&[f64], f64),
        (eta, iw): (f64, f64),
        reg: f64,
        v: &mut [f64],
    ) -> f64 {
        self.features[j].map_into(x, v);
        let th = &mut self.theta[j];
        let f = dot(th, v);
        let shrink = 1.0 - 2.0 * eta * reg * iw;
        let g = 2.0 * eta * (f - y) * iw;
        for (t, vi) in th.iter_mut().zip(v.iter()) {
            *t = shrink * *t - g * vi;
        }
        let loss = (f - y).powi(2) + reg * dot(th, th);
        self.logw[j] -= eta * loss * iw;
        f
    }

    /// One cos/sin map of `n_features` frequencies and one finite weight vector per
    /// kernel, log-weights without NaN or `+inf`.
    pub fn validate(&self, n_kernels: usize, n_features: usize) -> Result<()> {
        use crate::state::ValidState;
        use crate::state::*;
        len_is("feature maps", self.features.len(), n_kernels)?;
        len_is("weight vectors", self.theta.len(), n_kernels)?;
        len_is("log-weights", self.logw.len(), n_kernels)?;
        for (f, th) in self.features.iter().zip(&self.theta) {
            f.validate()?;
            same("n_features", &f.n_frequencies(), &n_features)?;
            same("features", &f.variant(), &RffVariant::CosSin)?;
            same("input dimension", &f.input_dim(), &self.features[0].input_dim())?;
            len_is("a weight vector", th.len(), 2 * n_features)?;
            finite("weights", th)?;
        }
        crate::aggregation::no_nan_or_pos_inf("log-weights", &self.logw)
    }
}
