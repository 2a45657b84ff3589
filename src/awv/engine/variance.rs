//! The predictive standard deviation of the linear AWV engine (docs/choices.md,
//! "Predictive variance"): `sigma_hat sqrt(1 + delta)` with
//! `delta = v^T A_{t-1}^{-1} v` from the mat-vec the forecaster computes anyway
//! ([`LinearAwv::predict_multi_delta`]) and `sigma_hat` the engine's online noise level
//! ([`crate::uncertainty::NoiseLevel`], updated by every learned round).

use super::LinearAwv;
use crate::uncertainty::NoiseLevel;

impl LinearAwv {
    /// The prediction for features `v` as the next round and its predictive standard
    /// deviation (pure; NaN before the first round). The noise level is that of a
    /// single output: with `K > 1` outputs, the first prediction and a NaN std.
    pub fn predict_std(&self, v: &[f64]) -> (f64, f64) {
        let mut out = vec![0.0; self.k];
        let delta = self.predict_multi_delta(v, &mut out);
        let std = if self.k == 1 { self.noise.std(delta) } else { f64::NAN };
        (out.first().copied().unwrap_or(0.0), std)
    }

    /// `sigma_hat` (NaN before the first round or with `K > 1` outputs).
    pub fn noise_std(&self) -> f64 {
        if self.k == 1 {
            self.noise.variance().sqrt()
        } else {
            f64::NAN
        }
    }

    /// The online noise estimate (`sigma_hat^2 = noise().variance()`).
    pub fn noise(&self) -> &NoiseLevel {
        &self.noise
    }
}
