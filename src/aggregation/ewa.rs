//! Exponentially weighted average with a fixed rate: VAW2 paper (Rokhlin &
//! Gurtovaya 2025), eq. (29)-(30) and Theorem 3 (VAW-EWA); the experiments' rate
//! `eta` is not given (docs/choices.md, "EWA").
//!
//! `alpha_{t,j} prop exp(-eta sum_{s<t} (z_{s,j} - y_s)^2)`, `y_hat_t = <alpha_t, z_t>`.
//! Eq. (29) of the paper uses round t's own label in `alpha_t`; that is a typo
//! (the label is not known yet): round t uses losses up to t-1 only.
//! Log-domain weights, renormalised so that the largest log-weight is 0.

use super::{check_n, combine, renormalise_log, softmax_into, Aggregator};
use crate::error::{positive, Result};
use serde::{Deserialize, Serialize};

/// Vectors of `n_experts` doubles in the state (for the memory check).
const VECTORS: u128 = 2;

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Ewa {
    eta: f64,
    /// Fixed Share rate (docs/choices.md, "Fixed Share").
    #[serde(default = "super::no_share")]
    share: f64,
    /// `-eta * cumulative loss`, shifted so that the maximum is 0.
    logw: Vec<f64>,
    n_seen: u64,
    #[serde(skip)]
    p: Vec<f64>,
}

impl Ewa {
    pub fn new(n_experts: usize, eta: f64) -> Result<Self> {
        let n = check_n(n_experts, VECTORS)?;
        Ok(Ewa {
            eta: positive("eta", eta)?,
            share: 0.0,
            logw: vec![0.0; n],
            n_seen: 0,
            p: vec![0.0; n],
        })
    }
    pub fn eta(&self) -> f64 {
        self.eta
    }
    /// Sets the Fixed Share rate `share` in [0, 1] (0: plain EWA).
    pub fn with_share(mut self, share: f64) -> Result<Self> {
        self.share = super::check_share(share)?;
        Ok(self)
    }
    pub fn share(&self) -> f64 {
        self.share
    }
}

impl Aggregator for Ewa {
    fn n_experts(&self) -> usize {
        self.logw.len()
    }
    fn predict(&self, z: &[f64]) -> f64 {
        combine(&self.weights(), z)
    }
    fn predict_update(&mut self, z: &[f64], y: f64) -> f64 {
        self.predict_update_weighted(z, y, 1.0)
    }
    /// `logw_j -= w eta (z_j - y)^2` (`w eta = eta` exactly for `w = 1`).
    fn predict_update_weighted(&mut self, z: &[f64], y: f64, w: f64) -> f64 {
        let eta = w * self.eta;
        if self.p.len() != self.logw.len() {
            self.p = vec![0.0; self.logw.len()];
        }
        softmax_into(&self.logw, &mut self.p);
        let pred = combine(&self.p, z);
        // logw_j -= eta (z_j - y)^2; if every expert's loss overflows to +inf in
        // the same round, the round carries no relative information: skip it.
        let all_inf = z.iter().all(|zj| !(eta * (zj - y).powi(2)).is_finite());
        if !all_inf {
            for (l, zj) in self.logw.iter_mut().zip(z) {
                *l -= eta * (zj - y).powi(2);
            }
            renormalise_log(&mut self.logw);
        }
        if self.share > 0.0 && self.logw.len() > 1 {
            // Fixed Share: logw = log((1 - share) softmax(logw) + share / N).
            softmax_into(&self.logw, &mut self.p);
            super::fixed_share(&mut self.p, self.share);
            self.logw.iter_mut().zip(&self.p).for_each(|(l, p)| *l = p.ln());
            renormalise_log(&mut self.logw);
        }
        self.n_seen += 1;
        pred
    }
    fn weights(&self) -> Vec<f64> {
        let mut p = vec![0.0; self.logw.len()];
        softmax_into(&self.logw, &mut p);
        p
    }
    fn n_seen(&self) -> u64 {
        self.n_seen
    }
}

// The format version of a pickled Ewa: bump it when a serialised field changes.
crate::state::state_version!(Ewa, 4);

impl crate::state::ValidState for Ewa {
    fn validate(&self) -> Result<()> {
        use super::no_nan_or_pos_inf;
        no_nan_or_pos_inf("log-weights", &self.logw)
    }
    fn check_config(&self, fresh: &Self) -> Result<()> {
        crate::state::same("n_experts", &self.logw.len(), &fresh.logw.len())?;
        crate::state::same("eta", &self.eta, &fresh.eta)?;
        crate::state::same("share", &self.share, &fresh.share)
    }
}
