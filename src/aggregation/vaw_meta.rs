//! VAW as a meta-learner: VAW2 paper (Rokhlin & Gurtovaya 2025), sec. 3, Theorem 2
//! (the VAW of eqs. (9)-(10) run on the experts' outputs). The inputs are the expert
//! predictions `z_t in R^N`:
//! `alpha_t = (lam I + sum_{s<=t} z_s z_s^T)^{-1} sum_{s<t} y_s z_s`,
//! `y_hat_t = <alpha_t, z_t>`. No simplex constraint: weights may be negative.
//! `ridge = true` leaves the current `z_t` out of the matrix (online ridge, the
//! forecaster of the second author's public code; docs/choices.md, "Random features"):
//! `y_hat_t = sum_{s<t} y_s z_s^T (lam I + sum_{s<t} z_s z_s^T)^{-1} z_t`.

use super::{check_n, Aggregator};
use crate::awv::LinearAwv;
use crate::error::Result;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct VawMeta {
    engine: LinearAwv,
}

impl VawMeta {
    pub fn new(n_experts: usize, lam: f64, ridge: bool) -> Result<Self> {
        Ok(VawMeta { engine: LinearAwv::new(check_n(n_experts, 1)?, lam, ridge)? })
    }
    pub fn lam(&self) -> f64 {
        self.engine.lam()
    }
    pub fn ridge(&self) -> bool {
        self.engine.ridge()
    }
    /// The VAW engine on the expert predictions.
    pub fn engine(&self) -> &LinearAwv {
        &self.engine
    }
    /// `y.len()` rounds on the rows of row-major `z` as one block of the engine
    /// ([`LinearAwv::predict_learn_block`]: the predictions of `predict_update` row by
    /// row up to rounding), pushed onto `out`.
    pub fn predict_update_block(&mut self, z: &[f64], y: &[f64], out: &mut Vec<f64>) {
        self.engine.predict_learn_block(z, y, out);
    }
}

impl Aggregator for VawMeta {
    fn n_experts(&self) -> usize {
        self.engine.dim()
    }
    fn predict(&self, z: &[f64]) -> f64 {
        self.engine.predict(z)
    }
    fn predict_update(&mut self, z: &[f64], y: f64) -> f64 {
        self.engine.predict_learn(z, y)
    }
    /// The weighted ridge update `A += w z z^T`, `b += w y z`.
    fn predict_update_weighted(&mut self, z: &[f64], y: f64, w: f64) -> f64 {
        self.engine.predict_learn_weighted(z, y, w)
    }
    /// The ridge solution after the last round,
    /// `(lam I + sum_{s<=t} z_s z_s^T)^{-1} sum_{s<=t} y_s z_s` (the VAW prediction at `z`
    /// is `<A_{t+1}^{-1} b_t, z>`, which depends on `z` through `A_{t+1}`).
    fn weights(&self) -> Vec<f64> {
        self.engine.weights()
    }
    fn n_seen(&self) -> u64 {
        self.engine.n_seen()
    }
}

// The format version of a pickled VawMeta: bump it when a serialised field changes.
crate::state::state_version!(VawMeta, 5);

impl crate::state::ValidState for VawMeta {
    fn validate(&self) -> Result<()> {
        self.engine.validate()
    }
    fn check_config(&self, fresh: &Self) -> Result<()> {
        crate::state::same("n_experts", &self.engine.dim(), &fresh.engine.dim())?;
        self.engine.check_config(&fresh.engine)
    }
}
