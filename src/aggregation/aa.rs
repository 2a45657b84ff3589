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

use super::exp_weights::{ExpRule, ExpWeights};
use super::logsumexp;
use crate::error::Result;
use serde::{Deserialize, Serialize};

/// The Aggregating Algorithm: exponential weights ([`ExpWeights`]) with the AA's rate,
/// clipped losses and substitution function.
pub type AggregatingAlgorithm = ExpWeights<AaRule>;

/// The AA's settings: the label range and its mixability rate.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct AaRule {
    lo: f64,
    hi: f64,
    eta: f64,
}

impl AggregatingAlgorithm {
    pub fn new(n_experts: usize, lo: f64, hi: f64) -> Result<Self> {
        ExpWeights::start(n_experts, || {
            if !(lo.is_finite() && hi.is_finite() && hi > lo) {
                return crate::param_err!("need finite lo < hi, got lo = {lo}, hi = {hi}");
            }
            let eta = 2.0 / (hi - lo).powi(2);
            if !eta.is_finite() {
                return crate::param_err!("hi - lo = {} is too small", hi - lo);
            }
            Ok(AaRule { lo, hi, eta })
        })
    }
    pub fn eta(&self) -> f64 {
        self.rule().eta
    }
    pub fn range(&self) -> (f64, f64) {
        (self.rule().lo, self.rule().hi)
    }
}

impl ExpRule for AaRule {
    const FIELDS: &'static [&'static str] = &["lo", "hi", "eta", "logw", "n_seen"];
    fn eta(&self) -> f64 {
        self.eta
    }
    /// `(clip(z_j) - y)^2`.
    fn loss(&self, zj: f64, y: f64) -> f64 {
        (zj.clamp(self.lo, self.hi) - y).powi(2)
    }
    /// The substitution function at the generalised prediction (module docs).
    fn predict_with(&self, logw: &[f64], z: &[f64], buf: &mut Vec<f64>) -> f64 {
        buf.resize(logw.len(), 0.0);
        let log_norm = logsumexp(logw);
        let mut g = |w: f64| -> f64 {
            for ((b, l), zj) in buf.iter_mut().zip(logw).zip(z) {
                let zc = zj.clamp(self.lo, self.hi);
                *b = (l - log_norm) - self.eta * (zc - w).powi(2);
            }
            -logsumexp(buf) / self.eta
        };
        let (g_lo, g_hi) = (g(self.lo), g(self.hi));
        let p = 0.5 * (self.lo + self.hi) - (g_hi - g_lo) / (2.0 * (self.hi - self.lo));
        p.clamp(self.lo, self.hi)
    }
    fn check_config(&self, fresh: &Self) -> Result<()> {
        crate::state::same(
            "(lo, hi, eta)",
            &(self.lo, self.hi, self.eta),
            &(fresh.lo, fresh.hi, fresh.eta),
        )
    }
}

// The format version of a pickled AggregatingAlgorithm: bump it when a serialised field changes.
crate::state::state_version!(AggregatingAlgorithm, 4);
