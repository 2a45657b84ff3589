//! The online noise level behind every predictive standard deviation
//! (docs/choices.md, "Predictive variance").
//!
//! In the Bayesian reading of ridge regression on features `phi` (noise variance
//! `sigma^2`, prior `w ~ N(0, sigma^2 / lam I)`), the progressive residual of round
//! `t` has variance `sigma^2 (1 + delta_t)`, `delta_t = phi_t^T A_{t-1}^{-1} phi_t`.
//! So `e_t^2 / (1 + delta_t)` estimates `sigma^2`; the estimate is their discounted
//! mean
//! ```text
//! sigma_hat_t^2 = sum_s rho^(t-s) e_s^2 / (1 + delta_s)  /  sum_s rho^(t-s)
//! ```
//! with `rho = min(gamma, NOISE_MEMORY)` (`gamma` the learner's forgetting factor):
//! the weights are normalised, so the first rounds are not biased towards 0.

use serde::{Deserialize, Serialize};

/// Discount of the noise estimate of an undiscounted learner: an effective memory
/// of `1 / (1 - 0.995) = 200` rounds, so that the estimate follows a learner whose
/// residuals shrink as it learns (docs/choices.md, "Predictive variance").
pub const NOISE_MEMORY: f64 = 0.995;

/// The discount `rho` of the noise estimate of a learner with forgetting factor `gamma`.
pub fn noise_discount(gamma: f64) -> f64 {
    gamma.min(NOISE_MEMORY)
}

/// Discounted mean of the normalised squared residuals `e_t^2 / (1 + delta_t)`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct NoiseLevel {
    /// `sum_s rho^(t-s) e_s^2 / (1 + delta_s)`.
    num: f64,
    /// `sum_s rho^(t-s)`.
    den: f64,
}

impl NoiseLevel {
    /// Records a round: prediction `pred`, label `y`, `delta = phi^T A_{t-1}^{-1} phi`
    /// of the matrix the prediction used. A non-finite term (an overflowing
    /// residual) is not recorded.
    #[inline]
    pub fn observe(&mut self, rho: f64, y: f64, pred: f64, delta: f64) {
        let e = y - pred;
        let term = e * e / (1.0 + delta.max(0.0));
        if term.is_finite() {
            self.num = rho * self.num + term;
            self.den = rho * self.den + 1.0;
        }
    }

    /// [`Self::observe`] of a round of sample weight `w` (docs/choices.md, "Sample
    /// weights"): its term counts `w` times, `num = rho num + w term`, `den = rho den + w`
    /// (`w = 1`: [`Self::observe`]).
    pub fn observe_weighted(&mut self, rho: f64, y: f64, pred: f64, delta: f64, w: f64) {
        let e = y - pred;
        let term = e * e / (1.0 + delta.max(0.0));
        if term.is_finite() {
            self.num = rho * self.num + w * term;
            self.den = rho * self.den + w;
        }
    }

    /// `sigma_hat^2` (NaN before any round).
    pub fn variance(&self) -> f64 {
        if self.den > 0.0 {
            self.num / self.den
        } else {
            f64::NAN
        }
    }

    /// The predictive standard deviation `sigma_hat sqrt(1 + delta)` at a point of
    /// leverage `delta = phi^T A^{-1} phi` (NaN before any round).
    pub fn std(&self, delta: f64) -> f64 {
        (self.variance() * (1.0 + delta.max(0.0))).sqrt()
    }

    /// Invariants of a decoded state: finite, non-negative sums.
    pub fn validate(&self) -> crate::Result<()> {
        crate::state::ensure(
            self.num.is_finite() && self.den.is_finite() && self.num >= 0.0 && self.den >= 0.0,
            || "the noise estimate is negative or not finite".into(),
        )
    }
}

/// The noise levels of a learner's outputs `2..K` (docs/uncertainty.md, "Several
/// outputs"): the outputs share `A`, hence `delta`, and each has its own `sigma_hat_k`,
/// the discounted mean of its own `e_{s,k}^2 / (1 + delta_s)`. Output 1's level is the
/// learner's single-output field, so a one-output state is unchanged; a state saved
/// before the other outputs were tracked has none (their std is NaN until the next
/// round starts them).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct OtherOutputs(Vec<NoiseLevel>);

impl OtherOutputs {
    /// Whether no other output is tracked (one output).
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Records a round of `K = y.len()` outputs of weight `w` (1: [`NoiseLevel::observe`])
    /// with one leverage `delta`: output 1 into `first`, the others here.
    pub fn observe(
        &mut self,
        first: &mut NoiseLevel,
        rho: f64,
        (y, pred): (&[f64], &[f64]),
        delta: f64,
        w: f64,
    ) {
        if y.len() > 1 {
            self.0.resize(y.len() - 1, NoiseLevel::default());
        }
        let levels = std::iter::once(first).chain(self.0.iter_mut());
        for ((level, &yk), &pk) in levels.zip(y).zip(pred) {
            if w == 1.0 {
                level.observe(rho, yk, pk, delta);
            } else {
                level.observe_weighted(rho, yk, pk, delta, w);
            }
        }
    }

    /// `sigma_hat_k sqrt(1 + delta)` of each of the `k` outputs, pushed onto `out`.
    pub fn stds(&self, first: &NoiseLevel, k: usize, delta: f64, out: &mut Vec<f64>) {
        out.push(first.std(delta));
        out.extend((1..k).map(|j| self.0.get(j - 1).map_or(f64::NAN, |n| n.std(delta))));
    }

    /// `sigma_hat_k` of each of the `k` outputs, pushed onto `out`.
    pub fn levels(&self, first: &NoiseLevel, k: usize, out: &mut Vec<f64>) {
        self.stds(first, k, 0.0, out);
    }

    /// `k` outputs appended to `k0` whose past targets were all 0: their past
    /// predictions were 0 too (their column of `B` is 0), so every past residual was
    /// 0: `num = 0`, with output 1's discounted count `den`.
    pub fn add(&mut self, first: &NoiseLevel, k0: usize, k: usize) {
        self.0.resize(k0.saturating_sub(1), NoiseLevel::default());
        self.0.extend(std::iter::repeat_n(NoiseLevel { num: 0.0, den: first.den }, k));
    }

    /// Invariants of a decoded state: at most `k - 1` levels, each valid.
    pub fn validate(&self, k: usize) -> crate::Result<()> {
        crate::state::ensure(self.0.len() < k.max(1), || {
            format!("{} noise levels for {k} outputs", self.0.len() + 1)
        })?;
        self.0.iter().try_for_each(NoiseLevel::validate)
    }
}
