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

    /// The `K` predictions for features `v` as the next round and their predictive
    /// standard deviations `sigma_hat_k sqrt(1 + delta)` (pure), pushed onto `means` and
    /// `stds`: one leverage `delta` (the outputs share `A`), a noise level per output.
    pub fn predict_std_multi(&self, v: &[f64], means: &mut Vec<f64>, stds: &mut Vec<f64>) {
        let start = means.len();
        means.resize(start + self.k, 0.0);
        let delta = self.predict_multi_delta(v, &mut means[start..]);
        self.noise_rest.stds(&self.noise, self.k, delta, stds);
    }

    /// `sigma_hat_k` of each output (NaN before the first round), pushed onto `out`.
    pub fn noise_stds(&self, out: &mut Vec<f64>) {
        self.noise_rest.levels(&self.noise, self.k, out);
    }

    /// The online noise estimate (`sigma_hat^2 = noise().variance()`).
    pub fn noise(&self) -> &NoiseLevel {
        &self.noise
    }
}
