//! Restarts of [`AutoKernel`] after an abrupt change (docs/autokernel.md, step 7).
//!
//! A learner that has seen a long stream before a change keeps its old data in its
//! experts (the undiscounted ones) and its old scale; the discounted experts forget, but
//! they remember only about `1 / (1 - gamma)` rounds, so from a few thousand rounds after
//! the change an AutoKernel started fresh at the change is better than all of them. So:
//!
//! * **detector**: the discounted mean squared error of the prediction over about
//!   [`SHORT`] rounds against the one over about [`LONG`] rounds; when the short one is
//!   above [`KAPPA`] times the long one (checked every [`CHECK`] rounds, once the current
//!   learner has seen `2 warmup` rounds), a change is declared;
//! * **successor**: a fresh AutoKernel of the same configuration (its own warm-up, so its
//!   own scale and median distance: the experts of the new stretch sit on its scale)
//!   starts at the next round;
//! * **top level**: while it lives, the prediction is `w_0 z_main + w_1 z_succ` with
//!   exponential weights on the relative square loss, `log w_k -= ETA (z_k - y)^2 / s`
//!   (`s`: the long mean above), prior `(1 - PRIOR, PRIOR)`, Fixed Share [`SHARE`];
//! * **promotion**: after `max(PROMOTE_AGE, 2 warmup)` rounds, if `w_1 > PROMOTE_WEIGHT`,
//!   the successor becomes the learner (the old one is dropped); after
//!   `max(DROP_AGE, 5 warmup)` rounds with `w_1 < 1/2` the successor is dropped (a
//!   false alarm). One successor at a time, so the cost is at most twice that of one
//!   AutoKernel, and only while a successor lives.
//!
//! Events happen only after rounds whose count is a multiple of [`CHECK`], so that a
//! stream fed in any pieces, one round at a time or in blocks, takes the same path.

use super::AutoKernel;
use crate::error::Result;
use crate::learners::OnlineLearner;
use serde::{Deserialize, Serialize};

/// Rounds between two checks of the detector, promotion and drop.
pub const CHECK: u64 = 50;
/// Windows (rounds) of the short and long mean squared errors.
const SHORT: f64 = 100.0;
const LONG: f64 = 2000.0;
/// A change: short mean above `KAPPA` times the long one.
const KAPPA: f64 = 2.0;
/// Prior weight of a successor, learning rate and Fixed Share of the top level.
const PRIOR: f64 = 0.01;
const ETA: f64 = 0.5;
const SHARE: f64 = 1e-4;
const PROMOTE_AGE: u64 = 1000;
const PROMOTE_WEIGHT: f64 = 0.95;
const DROP_AGE: u64 = 5000;

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Restart {
    /// Discounted sums of the squared errors and of the weights, long and short.
    long: [f64; 2],
    short: [f64; 2],
    /// Rounds seen by the current learner (since the start or its promotion).
    since: u64,
    successor: Option<Box<AutoKernel>>,
    /// Top-level log-weights (main, successor) and the successor's age in rounds.
    logw: [f64; 2],
    age: u64,
    /// Changes declared, successors promoted (for reports).
    pub changes: u64,
    pub promotions: u64,
}

fn mean(s: &[f64; 2]) -> f64 {
    if s[1] > 0.0 {
        s[0] / s[1]
    } else {
        0.0
    }
}

impl Restart {
    pub fn successor(&self) -> Option<&AutoKernel> {
        self.successor.as_deref()
    }

    /// Top-level weights `(main, successor)`; `(1, 0)` without a successor.
    pub fn weights(&self) -> [f64; 2] {
        if self.successor.is_none() {
            return [1.0, 0.0];
        }
        let m = self.logw[0].max(self.logw[1]);
        let (a, b) = ((self.logw[0] - m).exp(), (self.logw[1] - m).exp());
        [a / (a + b), b / (a + b)]
    }

    /// The combined prediction from the learner's `pm` and the successor's `ps`.
    pub fn combine(&self, pm: f64, ps: Option<f64>) -> f64 {
        match ps {
            Some(ps) => {
                let w = self.weights();
                w[0] * pm + w[1] * ps
            }
            None => pm,
        }
    }

    /// One round's bookkeeping after `y`: returns the combined prediction.
    pub fn round(&mut self, pm: f64, ps: Option<f64>, y: f64) -> f64 {
        let p = self.combine(pm, ps);
        if let Some(ps) = ps {
            // relative square losses (the long mean of the rounds before)
            let s = mean(&self.long).max(1e-300);
            let s = if self.long[1] > 0.0 { s } else { 1.0 };
            self.logw[0] -= ETA * (pm - y) * (pm - y) / s;
            self.logw[1] -= ETA * (ps - y) * (ps - y) / s;
            // Fixed Share on the two weights, in the log domain
            let w = self.weights();
            self.logw = [(1.0 - SHARE) * w[0] + SHARE / 2.0, (1.0 - SHARE) * w[1] + SHARE / 2.0]
                .map(f64::ln);
            self.age += 1;
        }
        let e = (p - y) * (p - y);
        if e.is_finite() {
            let (bl, bs) = (1.0 - 1.0 / LONG, 1.0 - 1.0 / SHORT);
            self.long = [bl * self.long[0] + e, bl * self.long[1] + 1.0];
            self.short = [bs * self.short[0] + e, bs * self.short[1] + 1.0];
        }
        self.since += 1;
        p
    }

    pub fn drop_successor(&mut self) {
        self.successor = None;
        self.age = 0;
    }

    pub fn successor_mut(&mut self) -> Option<&mut AutoKernel> {
        self.successor.as_deref_mut()
    }

    /// The checks after a round whose count is a multiple of [`CHECK`]: promotion or
    /// drop of the successor, or a new one. Returns the successor to promote.
    pub fn check(
        &mut self,
        fitted: bool,
        warmup: usize,
        fresh: impl FnOnce() -> Result<AutoKernel>,
    ) -> Result<Option<AutoKernel>> {
        let warmup = warmup as u64;
        if self.successor.is_some() {
            let w1 = self.weights()[1];
            if self.age >= PROMOTE_AGE.max(2 * warmup) && w1 > PROMOTE_WEIGHT {
                let s = self.successor.take().map(|b| *b);
                self.promotions += 1;
                self.since = self.age;
                self.age = 0;
                return Ok(s);
            }
            if self.age >= DROP_AGE.max(5 * warmup) && w1 < 0.5 {
                self.successor = None;
                self.age = 0;
            }
            return Ok(None);
        }
        if fitted
            && self.since >= 2 * warmup
            && self.short[1] > 0.0
            && mean(&self.short) > KAPPA * mean(&self.long)
        {
            self.successor = Some(Box::new(fresh()?));
            self.logw = [(1.0 - PRIOR).ln(), PRIOR.ln()];
            self.age = 0;
            self.changes += 1;
        }
        Ok(None)
    }

    /// Invariants of a decoded state (the successor checked itself when decoded).
    pub fn validate(&self) -> Result<()> {
        let ok = self.long.iter().chain(&self.short).all(|v| v.is_finite() && *v >= 0.0)
            && (self.successor.is_none() || self.logw.iter().all(|v| v.is_finite() && *v <= 0.0));
        crate::state::ensure(ok, || "corrupt AutoKernel restart state".into())?;
        match &self.successor {
            Some(s) => crate::state::ValidState::validate(s.as_ref()),
            None => Ok(()),
        }
    }

    /// Rows of `n` rounds starting at global round `n_seen` up to the next check.
    pub fn chunk(n_seen: u64, n: usize) -> usize {
        let left = (CHECK - n_seen % CHECK) as usize;
        left.min(n)
    }

    pub fn successor_predict(&self, x: &[f64]) -> Result<Option<f64>> {
        self.successor.as_ref().map(|s| s.predict(x)).transpose()
    }
}
