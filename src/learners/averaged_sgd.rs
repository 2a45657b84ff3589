//! Averaged functional (kernel) stochastic gradient descent, the competitor of Zhang and
//! Simon's experiments (Appendix E.1, eqs. (87)-(88), after Dieuleveut and Bach 2016):
//! `f~_n = f~_{n-1} + gamma_n (Y_n - f~_{n-1}(X_n)) K(X_n, .)`, `f^_n = (1/(n+1)) sum_{k=0}^n f~_k`
//! (Polyak-Ruppert average including `f~_0 = 0`), `gamma_n = gamma0 n^(-zeta)` with n the
//! iteration index (docs/choices.md, "SGD step").
//!
//! Representation: `f~_n = sum_{i<=n} a_i K(X_i, .)` and
//! `f^_n = sum_{i<=n} a_i (n + 1 - i) / (n + 1) K(X_i, .) = S1 - S2 / (n + 1)` with
//! `S1 = sum_i a_i K(X_i, .)`, `S2 = sum_i i a_i K(X_i, .)`: one pass over the stored points
//! gives both the averaged prediction and the un-averaged residual. O(n) per round.

use super::online_learner::OnlineLearner;
use crate::error::{non_negative, positive, Result};
use crate::kernels::Kernel;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct AveragedKernelSgd {
    kernel: Kernel,
    gamma0: f64,
    zeta: f64,
    d: Option<usize>,
    xs: Vec<f64>,
    /// `a_i` of the un-averaged iterate.
    a: Vec<f64>,
}

crate::params! {
    /// The parameters of [`AveragedKernelSgd`] (defaults: those of the Python class
    /// `AveragedKernelSGD`).
    pub struct AveragedKernelSgdParams {
        /// The kernel.
        kernel: Option<Kernel> = None => "object", "a kernel", required;
        /// Step size scale `gamma_0` of `gamma_n = gamma_0 n^-zeta`.
        gamma0: f64 = 1.0 => "float", "> 0";
        /// Step size decay `zeta`.
        zeta: f64 = 0.5 => "float", ">= 0";
    }
}

impl AveragedKernelSgdParams {
    pub fn validate(&self) -> Result<()> {
        crate::params::required("AveragedKernelSGD", "a kernel", &self.kernel)?;
        positive("gamma0", self.gamma0)?;
        non_negative("zeta", self.zeta).map(|_| ())
    }
}

impl AveragedKernelSgd {
    pub fn new(p: &AveragedKernelSgdParams) -> Result<Self> {
        p.validate()?;
        let Some(kernel) = p.kernel else {
            return crate::param_err!("AveragedKernelSGD needs a kernel");
        };
        let (gamma0, zeta) = (p.gamma0, p.zeta);
        Ok(AveragedKernelSgd { kernel, gamma0, zeta, d: None, xs: Vec::new(), a: Vec::new() })
    }

    /// Coefficients `a_i` of the un-averaged iterate `f~_n`.
    pub fn coefficients(&self) -> &[f64] {
        &self.a
    }

    /// `(S1, S2)` at `x`.
    fn sums(&self, x: &[f64]) -> (f64, f64) {
        let d = x.len();
        let (mut s1, mut s2) = (0.0, 0.0);
        for (i, (xi, ai)) in self.xs.chunks_exact(d.max(1)).zip(&self.a).enumerate() {
            let t = ai * self.kernel.eval(xi, x);
            s1 += t;
            s2 += (i + 1) as f64 * t;
        }
        (s1, s2)
    }

    /// Un-averaged iterate `f~_n(x)`.
    pub fn predict_last(&self, x: &[f64]) -> Result<f64> {
        if let Some(d) = self.d {
            if d != x.len() {
                return crate::input_err!("x has {} features, the learner was fed {d}", x.len());
            }
        }
        Ok(self.sums(x).0)
    }
}

impl OnlineLearner for AveragedKernelSgd {
    fn input_dim(&self) -> Option<usize> {
        self.d
    }

    /// Every round keeps its input and a coefficient: counted before the rounds run.
    fn check_capacity(&self, n_new: usize, d: usize) -> Result<()> {
        let t = (self.a.len() as u128).saturating_add(n_new as u128);
        crate::limits::check_input_doubles(
            &format!("AveragedKernelSGD after {t} rounds (it keeps every {d}-dimensional input)"),
            t.checked_mul(d as u128 + 1),
        )
    }

    fn predict(&self, x: &[f64]) -> Result<f64> {
        let (s1, s2) = self.sums(x);
        Ok(s1 - s2 / (self.a.len() + 1) as f64)
    }

    fn check_row(&self, x: &[f64], _y: Option<f64>) -> Result<()> {
        self.kernel.check_point(x)
    }

    fn predict_learn(&mut self, x: &[f64], y: f64) -> Result<f64> {
        self.predict_learn_weighted(x, y, 1.0)
    }

    fn supports_weights(&self) -> bool {
        true
    }

    /// Sample weight `w`: the step on the loss `w (y - f)^2 / 2`,
    /// `a_n = w gamma_n (Y_n - f~_{n-1}(X_n))` (the average over the iterates is unchanged;
    /// `w gamma = gamma` exactly for `w = 1`).
    fn predict_learn_weighted(&mut self, x: &[f64], y: f64, w: f64) -> Result<f64> {
        let (s1, s2) = self.sums(x);
        let n = self.a.len();
        let pred = s1 - s2 / (n + 1) as f64;
        let gamma = self.gamma0 * ((n + 1) as f64).powf(-self.zeta);
        // eq. (87): a_n = gamma_n (Y_n - f~_{n-1}(X_n)); the round is committed only
        // if everything it computed is finite.
        let a = w * gamma * (y - s1);
        if !(pred.is_finite() && s2.is_finite() && a.is_finite()) {
            return Err(crate::KsError::Numerical(format!(
                "AveragedKernelSGD: this round overflows (prediction {pred:.6e}, new coefficient \
                 {a:.6e}); the learner is unchanged"
            )));
        }
        self.d = Some(x.len());
        self.xs.extend_from_slice(x);
        self.a.push(a);
        Ok(pred)
    }

    fn n_seen(&self) -> u64 {
        self.a.len() as u64
    }

    fn dim(&self) -> usize {
        self.a.len()
    }
}

// The format version of a pickled AveragedKernelSgd: bump it when a serialised field changes.
crate::state::state_version!(AveragedKernelSgd, 4);

impl crate::state::ValidState for AveragedKernelSgd {
    fn validate(&self) -> Result<()> {
        use crate::state::*;
        let t = self.a.len();
        match self.d {
            Some(d) => {
                ensure(d >= 1, || "the input dimension is 0".into())?;
                len_is("past inputs", self.xs.len(), product("past inputs", t, d)?)?;
            }
            None => ensure(t == 0 && self.xs.is_empty(), || "data without a dimension".into())?,
        }
        finite("past inputs", &self.xs)?;
        finite("coefficients", &self.a)
    }
    fn check_config(&self, fresh: &Self) -> Result<()> {
        crate::state::same_fields!(self, fresh; kernel, gamma0, zeta)
    }
}

crate::state_params!(AveragedKernelSgd; kernel, gamma0, zeta);
