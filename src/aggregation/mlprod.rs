//! ML-Prod: product weights with per-expert adaptive rates (Gaillard, Stoltz,
//! van Erven 2014), as implemented by the R package opera (`MLprod`); the
//! VAW-ML-Prod rule of the VAW2 paper, sec. 4 (docs/choices.md).
//!
//! `R_j = log(1/N)`, `L_j = 1`, `maxloss_j = 0`, `eta_j = exp(700)`. Each round:
//! `p_j prop eta_j exp(R_j)` (log domain), `y_hat = <p, z>`; `L_j += r_j^2`;
//! `maxloss_j = max(maxloss_j, |r_j|)`;
//! `eta'_j = min(1 / (2 maxloss_j), sqrt(log N / L_j))`;
//! `R_j = (eta'_j / eta_j) R_j + log(1 + eta'_j r_j)` (`eta' r >= -1/2`); `eta = eta'`.

use super::mlpoly::OPERA_ETA0;
use super::regret::{per_expert, per_expert_state, LogLinear, Regret};
use crate::error::Result;

/// ML-Prod: the regret rules' round ([`Regret`]) over ML-Prod's state.
pub type MlProd = Regret<MlProdState>;

per_expert_state! {
    /// What ML-Prod keeps per expert: `R`, the sums of squared regrets `L`, the largest
    /// regret `maxloss` and the rates `eta`.
    MlProdState { big_r, l, maxloss, eta }
    impl {
        fn start(n: usize) -> Self {
            MlProdState {
                big_r: vec![-(n as f64).ln(); n],
                l: vec![1.0; n],
                maxloss: vec![0.0; n],
                eta: vec![OPERA_ETA0; n],
            }
        }
        fn validate(&self) -> Result<()> {
            let vectors = [("L", &self.l[..]), ("maxloss", &self.maxloss), ("eta", &self.eta)];
            per_expert(self.big_r.len(), &vectors)?;
            crate::state::finite("R", &self.big_r)
        }
        #[allow(clippy::needless_range_loop)] // parallel per-expert arrays, indexed as in opera
        fn learn_regrets(&mut self, r: &[f64]) {
            let n = self.eta.len();
            let log_n = (n as f64).ln();
            for j in 0..n {
                self.l[j] += r[j] * r[j];
                self.maxloss[j] = self.maxloss[j].max(r[j].abs());
                let e_new = (1.0 / (2.0 * self.maxloss[j])).min((log_n / self.l[j]).sqrt());
                let ratio = if self.eta[j] > 0.0 { e_new / self.eta[j] } else { 0.0 };
                self.big_r[j] = ratio * self.big_r[j] + (e_new * r[j]).ln_1p();
                self.eta[j] = e_new;
            }
        }
    }
}

/// `log eta_j + R_j`; `eta_j = 0` (N = 1: log N = 0) gives weight 0, all zero -> uniform.
impl LogLinear for MlProdState {
    fn log_weight(&self, j: usize) -> f64 {
        let (e, r) = (self.eta[j], self.big_r[j]);
        if e > 0.0 {
            e.ln() + r
        } else {
            f64::NEG_INFINITY
        }
    }
    /// `R_j = lw - log eta_j`.
    fn set_log_weight(&mut self, j: usize, lw: f64) {
        let e = self.eta[j];
        if e > 0.0 {
            self.big_r[j] = lw - e.ln();
        }
    }
}

// The format version of a pickled MlProd: bump it when a serialised field changes.
crate::state::state_version!(MlProd, 4);
