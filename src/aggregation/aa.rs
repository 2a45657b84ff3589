//! Vovk's Aggregating Algorithm for the square loss on `[lo, hi]` (Cesa-Bianchi
//! & Lugosi 2006, sec. 3.5-3.6; the "VAW-Aggr" rule of the VAW2 paper, sec. 4,
//! which gives no formulas).
//!
//! The square loss is eta-mixable on `[lo, hi]` with `eta = 2 / (hi - lo)^2`.
//! With `alpha = softmax(logw)` and clipped predictions `zc = clip(z, lo, hi)`,
//! the generalised prediction is
//! `g(w) = -(1/eta) log sum_j alpha_j exp(-eta (zc_j - w)^2)` at `w in {lo, hi}`,
//! and the substitution function gives
//! `y_hat = (lo + hi)/2 - (g(hi) - g(lo)) / (2 (hi - lo))`, clipped to `[lo, hi]`.
//! Update: `logw_j -= eta (zc_j - y)^2`.

use super::{check_n, logsumexp, renormalise_log, Aggregator};
use crate::error::Result;
use serde::{Deserialize, Serialize};

/// Vectors of `n_experts` doubles in the state (for the memory check).
const VECTORS: u128 = 2;

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct AggregatingAlgorithm {
    lo: f64,
    hi: f64,
    eta: f64,
    logw: Vec<f64>,
    n_seen: u64,
    #[serde(skip)]
    buf: Vec<f64>,
}

impl AggregatingAlgorithm {
    pub fn new(n_experts: usize, lo: f64, hi: f64) -> Result<Self> {
        let n = check_n(n_experts, VECTORS)?;
        if !(lo.is_finite() && hi.is_finite() && hi > lo) {
            return crate::param_err!("need finite lo < hi, got lo = {lo}, hi = {hi}");
        }
        let eta = 2.0 / (hi - lo).powi(2);
        if !eta.is_finite() {
            return crate::param_err!("hi - lo = {} is too small", hi - lo);
        }
        Ok(AggregatingAlgorithm { lo, hi, eta, logw: vec![0.0; n], n_seen: 0, buf: vec![0.0; n] })
    }
    pub fn eta(&self) -> f64 {
        self.eta
    }
    pub fn range(&self) -> (f64, f64) {
        (self.lo, self.hi)
    }

    fn predict_with(&self, z: &[f64], buf: &mut Vec<f64>) -> f64 {
        let n = self.logw.len();
        buf.resize(n, 0.0);
        let log_norm = logsumexp(&self.logw);
        let mut g = |w: f64| -> f64 {
            for ((b, l), zj) in buf.iter_mut().zip(&self.logw).zip(z) {
                let zc = zj.clamp(self.lo, self.hi);
                *b = (l - log_norm) - self.eta * (zc - w).powi(2);
            }
            -logsumexp(buf) / self.eta
        };
        let (g_lo, g_hi) = (g(self.lo), g(self.hi));
        let p = 0.5 * (self.lo + self.hi) - (g_hi - g_lo) / (2.0 * (self.hi - self.lo));
        p.clamp(self.lo, self.hi)
    }
}

impl Aggregator for AggregatingAlgorithm {
    fn n_experts(&self) -> usize {
        self.logw.len()
    }
    fn predict(&self, z: &[f64]) -> f64 {
        let mut buf = Vec::new();
        self.predict_with(z, &mut buf)
    }
    fn predict_update(&mut self, z: &[f64], y: f64) -> f64 {
        self.predict_update_weighted(z, y, 1.0)
    }
    /// `logw_j -= w eta (clip(z_j) - y)^2` (`w eta = eta` exactly for `w = 1`).
    fn predict_update_weighted(&mut self, z: &[f64], y: f64, w: f64) -> f64 {
        let eta = w * self.eta;
        let mut buf = std::mem::take(&mut self.buf);
        let pred = self.predict_with(z, &mut buf);
        self.buf = buf;
        let all_inf =
            z.iter().all(|zj| !(eta * (zj.clamp(self.lo, self.hi) - y).powi(2)).is_finite());
        if !all_inf {
            for (l, zj) in self.logw.iter_mut().zip(z) {
                *l -= eta * (zj.clamp(self.lo, self.hi) - y).powi(2);
            }
            renormalise_log(&mut self.logw);
        }
        self.n_seen += 1;
        pred
    }
    fn weights(&self) -> Vec<f64> {
        let mut p = vec![0.0; self.logw.len()];
        super::softmax_into(&self.logw, &mut p);
        p
    }
    fn n_seen(&self) -> u64 {
        self.n_seen
    }
}

// The format version of a pickled AggregatingAlgorithm: bump it when a serialised field changes.
crate::state::state_version!(AggregatingAlgorithm, 4);

impl crate::state::ValidState for AggregatingAlgorithm {
    fn validate(&self) -> Result<()> {
        use super::no_nan_or_pos_inf;
        no_nan_or_pos_inf("log-weights", &self.logw)
    }
    fn check_config(&self, fresh: &Self) -> Result<()> {
        crate::state::same("n_experts", &self.logw.len(), &fresh.logw.len())?;
        crate::state::same(
            "(lo, hi, eta)",
            &(self.lo, self.hi, self.eta),
            &(fresh.lo, fresh.hi, fresh.eta),
        )
    }
}
