//! Discounted NystromAWV on a fixed dictionary (`gamma`; docs/choices.md, "Discounted
//! AWV"). NystromAWV is AWV on the features `phi(x) = R^{-1} k_D(x)` with
//! `R R^T = K_DD` (`R`: the lower Cholesky factor, of `K_DD + jitter I` if a jitter was
//! needed), whose regulariser `lam I` is `lam K_DD = lam R R^T = sum_k lam r_k r_k^T` in
//! the alpha-parametrisation (`A_alpha = R A_phi R^T`, `q = R b_phi`, `k_D(x) = R phi(x)`).
//! The discounted AWV round of the linear engine, `A <- gamma A + c e_k e_k^T`,
//! `b <- gamma b` with `k = t mod m` and `c = lam (1 - gamma^m)`, is therefore
//! `A <- gamma A + (1 - gamma^m) l_k l_k^T`, `q <- gamma q` here (every output's column), `l_k` the column `k`
//! of the factor `L_0 = sqrt(lam) R` of `A_0 = lam K_DD`: a scaling of the factor and
//! one rank-one update, `O(m^2)`, before the round's prediction.

use super::NystromAwv;
use crate::error::Result;

impl NystromAwv {
    /// Sets the forgetting factor `gamma` in `(0, 1]` (1: the plain learner, bit for
    /// bit). A fixed dictionary only (a KORS insertion re-projects the whole past), and
    /// before the first round.
    pub fn with_gamma(mut self, gamma: f64) -> Result<Self> {
        crate::awv::check_gamma(gamma)?;
        if gamma < 1.0 {
            if self.kors.is_some() {
                return crate::param_err!(
                    "gamma < 1 (discounting) needs a fixed dictionary (dictionary=...)"
                );
            }
            if self.n_seen > 0 {
                return crate::param_err!("gamma must be set before the first round");
            }
            self.refill = self.chol.to_dense();
        } else {
            self.refill.clear();
        }
        self.gamma = gamma;
        Ok(self)
    }

    pub fn gamma(&self) -> f64 {
        self.gamma
    }

    /// `A <- gamma A + (1 - gamma^m) l_k l_k^T` (`k = t mod m`), `q <- gamma q`.
    pub(super) fn discount_step(&mut self) {
        let m = self.size();
        if self.gamma >= 1.0 || m == 0 {
            return;
        }
        let g = self.gamma;
        self.chol.scale(g.sqrt());
        let k = (self.n_seen % m as u64) as usize;
        let s = (1.0 - g.powf(m as f64)).sqrt();
        let mut v: Vec<f64> = (0..m).map(|i| s * self.refill[i * m + k]).collect();
        self.chol.rank_one_update(&mut v);
        self.q.iter_mut().for_each(|v| *v *= g);
    }

    /// The predictions of the next round with `gamma < 1` (pure: on a discounted copy).
    pub(super) fn discounted_predict(&self, x: &[f64], out: &mut [f64]) -> Result<()> {
        let mut c = self.clone();
        c.discount_step();
        c.gamma = 1.0;
        c.predict_into(x, out)
    }

    /// Invariants of the discount fields.
    pub(super) fn validate_discount(&self) -> Result<()> {
        let m = self.size();
        crate::state::ensure(self.gamma > 0.0 && self.gamma <= 1.0, || {
            "gamma out of (0, 1]".into()
        })?;
        let want = if self.gamma < 1.0 { m * m } else { 0 };
        crate::state::ensure(
            self.refill.len() == want
                && self.refill.iter().all(|v| v.is_finite())
                && (self.gamma == 1.0 || self.kors.is_none()),
            || "discount refill vectors of the wrong size".into(),
        )
    }
}
