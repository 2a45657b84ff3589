//! Exponentially weighted average with a fixed rate: VAW2 paper (Rokhlin &
//! Gurtovaya 2025), eq. (29)-(30) and Theorem 3 (VAW-EWA); the experiments' rate
//! `eta` is not given (docs/choices.md, "EWA").
//!
//! `alpha_{t,j} prop exp(-eta sum_{s<t} (z_{s,j} - y_s)^2)`, `y_hat_t = <alpha_t, z_t>`.
//! Eq. (29) of the paper uses round t's own label in `alpha_t`; that is a typo
//! (the label is not known yet): round t uses losses up to t-1 only.
//! Log-domain weights, renormalised so that the largest log-weight is 0.

use super::exp_weights::{ExpRule, ExpWeights};
use super::{combine, softmax_into};
use crate::error::{positive, Result};
use serde::{Deserialize, Serialize};

/// EWA: exponential weights ([`ExpWeights`]) with EWA's rate and prediction.
pub type Ewa = ExpWeights<EwaRule>;

/// EWA's settings: the rate and the Fixed Share rate.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct EwaRule {
    eta: f64,
    /// Fixed Share rate (docs/choices.md, "Fixed Share").
    #[serde(default = "super::no_share")]
    share: f64,
}

impl Ewa {
    pub fn new(n_experts: usize, eta: f64) -> Result<Self> {
        ExpWeights::start(n_experts, || Ok(EwaRule { eta: positive("eta", eta)?, share: 0.0 }))
    }
    pub fn eta(&self) -> f64 {
        self.rule().eta
    }
    /// Sets the Fixed Share rate `share` in [0, 1] (0: plain EWA).
    pub fn with_share(mut self, share: f64) -> Result<Self> {
        self.rule_mut().share = super::check_share(share)?;
        Ok(self)
    }
    pub fn share(&self) -> f64 {
        self.rule().share
    }
}

impl ExpRule for EwaRule {
    const FIELDS: &'static [&'static str] = &["eta", "share", "logw", "n_seen"];
    fn eta(&self) -> f64 {
        self.eta
    }
    fn loss(&self, zj: f64, y: f64) -> f64 {
        (zj - y).powi(2)
    }
    /// `<softmax(logw), z>`.
    fn predict_with(&self, logw: &[f64], z: &[f64], buf: &mut Vec<f64>) -> f64 {
        buf.resize(logw.len(), 0.0);
        softmax_into(logw, buf);
        combine(buf, z)
    }
    fn share(&self) -> f64 {
        self.share
    }
    fn check_config(&self, fresh: &Self) -> Result<()> {
        crate::state::same("eta", &self.eta, &fresh.eta)?;
        crate::state::same("share", &self.share, &fresh.share)
    }
}

// The format version of a pickled Ewa: bump it when a serialised field changes.
crate::state::state_version!(Ewa, 4);
