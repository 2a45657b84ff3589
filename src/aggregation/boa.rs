//! BOA, Bernstein Online Aggregation (Wintenberger 2017), as implemented by the
//! R package opera 1.2.0/1.2.1 (the VAW-BOA rule of the VAW2 paper, sec. 4;
//! docs/choices.md). (opera's development version 1.2.2 changed BOA to
//! an `eta_inv2 += 2.2 r^2` scheme; this is the earlier one.)
//!
//! Uniform prior `w0_j = 1/N`; per expert `Rreg_j = 0`, `eta_j = 1`, `V_j = 0`,
//! `B_j = 2^-20`. Each round:
//! `p_j prop eta_j w0_j exp(eta_j Rreg_j)` (log domain), `y_hat = <p, z>`;
//! regrets `r_j` (linearised square loss by default, see `regrets_into`);
//! `B_j = max(B_j, |r_j|)`, `B2_j = 2^ceil(log2 B_j)`, `V_j += r_j^2`,
//! `eta_j = min(1/B2_j, sqrt(log(1/w0_j) / V_j))`,
//! `Rreg_j += (r_j - eta_j r_j^2 + B2_j [eta_j r_j > 1/2]) / 2`.

use super::regret::{per_expert, per_expert_state, LogLinear, Regret};
use crate::error::Result;

/// opera's initial range estimate `B_j = 2^-20`.
const RANGE0: f64 = 9.5367431640625e-7;

/// BOA: the regret rules' round ([`Regret`]) over BOA's state.
pub type Boa = Regret<BoaState>;

per_expert_state! {
    /// What BOA keeps per expert: regularised regrets `Rreg`, rates `eta`, sums of squared
    /// regrets `V` and range estimates `B`.
    BoaState { rreg, eta, v, b }
    impl {
        fn start(n: usize) -> Self {
            BoaState { rreg: vec![0.0; n], eta: vec![1.0; n], v: vec![0.0; n], b: vec![RANGE0; n] }
        }
        fn validate(&self) -> Result<()> {
            let n = self.rreg.len();
            per_expert(
                n,
                &[("eta", &self.eta), ("v", &self.v), ("b", &self.b), ("regrets", &self.rreg)],
            )?;
            // Learning rates >= 0 (some > 0, or the weights are undefined), sums of
            // squares v >= 0 and range estimates b > 0, as the updates keep them.
            crate::state::ensure(
                self.eta.iter().all(|&e| e >= 0.0)
                    && (n == 0 || self.eta.iter().any(|&e| e > 0.0))
                    && self.v.iter().all(|&v| v >= 0.0)
                    && self.b.iter().all(|&b| b > 0.0),
                || "a learning rate or a sum of squares is negative, or a range is <= 0".into(),
            )
        }
        #[allow(clippy::needless_range_loop)] // parallel per-expert arrays, indexed as in opera
        fn learn_regrets(&mut self, r: &[f64]) {
            let n = self.eta.len();
            let log_inv_w0 = (n as f64).ln();
            for j in 0..n {
                self.b[j] = self.b[j].max(r[j].abs());
                let b2 = self.b[j].log2().ceil().exp2();
                self.v[j] += r[j] * r[j];
                let e = (1.0 / b2).min((log_inv_w0 / self.v[j]).sqrt());
                self.eta[j] = e;
                let jump = if e * r[j] > 0.5 { b2 } else { 0.0 };
                self.rreg[j] += 0.5 * (r[j] - e * r[j] * r[j] + jump);
            }
        }
    }
}

/// `log(eta_j w0_j) + eta_j Rreg_j`, `w0_j = 1/N`.
impl LogLinear for BoaState {
    fn log_weight(&self, j: usize) -> f64 {
        let log_w0 = -(self.eta.len() as f64).ln();
        let (e, r) = (self.eta[j], self.rreg[j]);
        if e > 0.0 {
            e.ln() + log_w0 + e * r
        } else {
            f64::NEG_INFINITY
        }
    }
    /// `eta_j Rreg_j = lw - log(eta_j w0_j)`.
    fn set_log_weight(&mut self, j: usize, lw: f64) {
        let log_w0 = -(self.eta.len() as f64).ln();
        let e = self.eta[j];
        if e > 0.0 {
            self.rreg[j] = (lw - e.ln() - log_w0) / e;
        }
    }
}

// The format version of a pickled Boa: bump it when a serialised field changes.
crate::state::state_version!(Boa, 4);
