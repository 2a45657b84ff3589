//! Regrets relative to the running loss scale (docs/choices.md, "Relative regrets").
//!
//! BOA, ML-Poly and ML-Prod tune their learning rates on the size of the regrets
//! they have seen (BOA: `eta_j <= 1 / B_j` with `B_j` the largest `|r_j|` so far,
//! `eta_j <= sqrt(log N / V_j)` with `V_j = sum r_j^2`). On a stream whose losses
//! shrink by orders of magnitude (experts that learn, a warm-up replayed from one row)
//! those rates stay those of the first, large regrets, and the weights barely move
//! later when the experts differ by a factor of ten at a thousandth of the early
//! scale. [`LossScale`] divides the regrets of round `t` by `s_{t-1}`, the
//! discounted mean of the mixture's own squared errors of the rounds before:
//! `s_t = (sum_{u<=t} beta^(t-u) (y_hat_u - y_u)^2) / (sum_{u<=t} beta^(t-u))`,
//! `beta = 1 - 1/window`. It does so by feeding the rule `z / c` and `y / c` with
//! `c = sqrt(s_{t-1})`: the linearised regrets `2 (y_hat - y)(y_hat - z_j)` and the
//! plain ones are homogeneous of degree 2, and a convex combination is equivariant,
//! so the rule plays the same weights on the rescaled round and its prediction is
//! `c` times the rescaled one. The rule itself is unchanged.

use crate::aggregation::{Aggregator, AnyAggregator};
use serde::{Deserialize, Serialize};

/// Smallest scale `s` (squared error, in the units of the rule's targets): a stream
/// predicted exactly does not divide by zero.
const MIN_SCALE: f64 = 1e-12;

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct LossScale {
    /// `beta = 1 - 1 / window`.
    window: f64,
    /// Discounted sum of the squared errors and of the weights (`s = num / den`).
    num: f64,
    den: f64,
}

impl LossScale {
    /// A scale over about `window >= 1` rounds.
    pub fn new(window: usize) -> crate::error::Result<Self> {
        if window == 0 {
            return crate::param_err!("the loss window must be at least 1 round");
        }
        Ok(LossScale { window: window as f64, num: 0.0, den: 0.0 })
    }

    pub fn window(&self) -> usize {
        self.window as usize
    }

    /// `c = sqrt(s_{t-1})` (1 before the first round).
    fn factor(&self) -> f64 {
        if self.den > 0.0 {
            (self.num / self.den).max(MIN_SCALE).sqrt()
        } else {
            1.0
        }
    }

    /// The rule's prediction for `z` on the rescaled round (state unchanged).
    pub fn predict(&self, rule: &AnyAggregator, z: &mut [f64]) -> f64 {
        let c = self.factor();
        z.iter_mut().for_each(|v| *v /= c);
        let p = c * rule.predict(z);
        z.iter_mut().for_each(|v| *v *= c);
        p
    }

    /// One round of `rule` on `z / c`, `y / c`; returns the prediction in the units of
    /// `y` and updates the scale with its squared error. `z` is left as it was, up to
    /// rounding.
    pub fn round(&mut self, rule: &mut AnyAggregator, z: &mut [f64], y: f64) -> f64 {
        self.round_weighted(rule, z, y, 1.0)
    }

    /// [`Self::round`] of sample weight `w > 0`: the rule's weighted round, and the
    /// squared error counted `w` times in the scale (`num += w e`, `den += w`).
    pub fn round_weighted(
        &mut self,
        rule: &mut AnyAggregator,
        z: &mut [f64],
        y: f64,
        w: f64,
    ) -> f64 {
        let c = self.factor();
        z.iter_mut().for_each(|v| *v /= c);
        let p = c * rule.predict_update_weighted(z, y / c, w);
        z.iter_mut().for_each(|v| *v *= c);
        let beta = 1.0 - 1.0 / self.window;
        let e = (p - y) * (p - y);
        if e.is_finite() {
            self.num = beta * self.num + w * e;
            self.den = beta * self.den + w;
        }
        p
    }

    /// Invariants of a decoded state.
    pub fn validate(&self) -> crate::error::Result<()> {
        crate::state::ensure(
            self.window >= 1.0
                && self.window.fract() == 0.0
                && self.num.is_finite()
                && self.num >= 0.0
                && self.den.is_finite()
                && self.den >= 0.0,
            || "corrupt loss scale (window, discounted sums)".into(),
        )
    }
}
