//! The predictive standard deviation of the linear AWV engine (docs/choices.md,
//! "Predictive variance"): `sigma_hat sqrt(1 + delta)` with
//! `delta = v^T A_{t-1}^{-1} v` from the mat-vec the forecaster computes anyway
//! ([`LinearAwv::predict_delta`]) and `sigma_hat` the engine's online noise level
//! ([`crate::uncertainty::NoiseLevel`], updated by every learned round).

use super::LinearAwv;
use crate::uncertainty::NoiseLevel;

impl LinearAwv {
    /// The prediction for features `v` as the next round and its predictive standard
    /// deviation (pure; NaN before the first round).
    pub fn predict_std(&self, v: &[f64]) -> (f64, f64) {
        let (p, delta) = self.predict_delta(v);
        (p, self.noise.std(delta))
    }

    /// The online noise estimate (`sigma_hat^2 = noise().variance()`).
    pub fn noise(&self) -> &NoiseLevel {
        &self.noise
    }
}
