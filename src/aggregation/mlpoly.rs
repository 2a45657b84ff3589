//! ML-Poly: polynomial potential with per-expert adaptive rates (Gaillard,
//! Stoltz, van Erven 2014), as implemented by the R package opera (`MLpol`);
//! the VAW-ML-Poly rule of the VAW2 paper, sec. 4 (docs/choices.md).
//!
//! `R_j = 0`, `eta_j = exp(700)` (opera's "infinite" start), `B = 0`. Each round:
//! `p_j prop eta_j (R_j)_+` if some `R_j > 0`, else uniform; `y_hat = <p, z>`;
//! `R += r`; `B' = max(B, max_j r_j^2)`; `eta_j = 1 / (1/eta_j + r_j^2 + B' - B)`.

use super::regret::{Regret, RegretState, RuleWeights};
use crate::error::Result;
use serde::{Deserialize, Serialize};

/// opera's initial learning rate `exp(700)` (finite in float64).
pub const OPERA_ETA0: f64 = 1.0142320547350045e304;

/// ML-Poly: the regret rules' round ([`Regret`]) over ML-Poly's state.
pub type MlPoly = Regret<MlPolyState>;

/// What ML-Poly keeps: the cumulative regrets `R`, the rates `eta` and `B`.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct MlPolyState {
    regret: Vec<f64>,
    eta: Vec<f64>,
    b: f64,
}

impl RegretState for MlPolyState {
    const FIELDS: &'static [&'static str] = &["gradient", "share", "regret", "eta", "b", "n_seen"];
    /// Its two vectors and the round's two buffers.
    const VECTORS: u128 = 4;
    fn start(n: usize) -> Self {
        MlPolyState { regret: vec![0.0; n], eta: vec![OPERA_ETA0; n], b: 0.0 }
    }
    fn experts(&self) -> usize {
        self.eta.len()
    }
    fn validate(&self) -> Result<()> {
        crate::state::len_is("eta", self.eta.len(), self.regret.len())?;
        crate::state::finite("regrets", &self.regret)?;
        crate::state::finite("eta", &self.eta)?;
        crate::state::finite("b", &[self.b])
    }
    #[allow(clippy::needless_range_loop)] // parallel per-expert arrays, indexed as in opera
    fn learn_regrets(&mut self, r: &[f64]) {
        let n = self.eta.len();
        let r2max = r.iter().map(|v| v * v).fold(0.0, f64::max);
        let b_new = self.b.max(r2max);
        for j in 0..n {
            self.regret[j] += r[j];
            self.eta[j] = 1.0 / (1.0 / self.eta[j] + r[j] * r[j] + b_new - self.b);
        }
        self.b = b_new;
    }
}

/// `p_j prop eta_j (R_j)_+` if some `R_j > 0`, else uniform.
impl RuleWeights for MlPolyState {
    fn probs_into(&self, p: &mut [f64]) {
        let n = p.len();
        let rmax = self.regret.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        if rmax > 0.0 {
            // Scale by the largest rate so that eta_j R_j cannot overflow.
            let emax = self.eta.iter().copied().fold(0.0, f64::max);
            let mut s = 0.0;
            for ((pj, e), r) in p.iter_mut().zip(&self.eta).zip(&self.regret) {
                *pj = (e / emax) * r.max(0.0);
                s += *pj;
            }
            if s > 0.0 && s.is_finite() {
                p.iter_mut().for_each(|v| *v /= s);
                return;
            }
        }
        p.iter_mut().for_each(|v| *v = 1.0 / n as f64);
    }
    /// `R_j = p_j S / eta_j` with `S = sum_k eta_k (R_k)_+` (kept; rates
    /// scaled by the largest). Uniform weights (no `R_j > 0`) are a fixed point.
    fn set_probs(&mut self, p: &[f64]) {
        let emax = self.eta.iter().copied().fold(0.0, f64::max);
        let s: f64 = self.eta.iter().zip(&self.regret).map(|(e, r)| (e / emax) * r.max(0.0)).sum();
        if !(s > 0.0 && s.is_finite()) {
            return;
        }
        for ((r, e), pj) in self.regret.iter_mut().zip(&self.eta).zip(p) {
            let en = e / emax;
            if en > 0.0 {
                *r = pj * s / en;
            }
        }
    }
}

// The format version of a pickled MlPoly: bump it when a serialised field changes.
crate::state::state_version!(MlPoly, 4);
