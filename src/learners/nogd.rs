//! NOGD: Nystrom Online Gradient Descent. Lu, Hoi, Wang, Zhao, Liu (2016),
//! *Large Scale Online Kernel Learning*, JMLR 17, Algorithm 2 (NOGD); the
//! first-order baseline of the PROS-N-KONS paper (sec. 5, Tables 1-2).
//!
//! Stage 1 (budget not full): kernel online gradient descent,
//! `f(x) = sum_i alpha_i k(s_i, x)`; on a round with a nonzero loss gradient
//! (`l'(f(x_t), y_t) != 0`, and `|f - y| > epsilon` for the squared loss) the point
//! joins the support set with `alpha = -lr l'(f(x_t), y_t)`.
//!
//! Transition (the first active round once `B` points are stored): eigendecompose
//! `K_B = V Lambda V^T`, keep the top `k` eigenpairs (eigenvalues below
//! `1e-12 lambda_max` are dropped), and embed `phi(x) = Lambda_k^{-1/2} V_k^T k_B(x)`.
//! The kernel expansion becomes `w = pinv(M)^T alpha = Lambda_k^{1/2} V_k^T alpha`
//! (`M = Lambda_k^{-1/2} V_k^T`; as in Lu et al.'s code `w = alpha pinv(M)`), then the
//! round's gradient step is taken in the new embedding.
//!
//! Stage 2: `f(x) = w.phi(x)`, `w <- w - lr l'(f(x_t), y_t) phi(x_t)`.
//! Lu et al.'s experiments use `k = 0.2 B` (the default of `rank`).

use super::losses::Loss;
use super::online_learner::OnlineLearner;
use crate::error::{positive, Result};
use crate::kernels::Kernel;
use crate::linalg::blas::{axpy, dot};
use serde::{Deserialize, Serialize};

pub const MAX_NOGD_BUDGET: usize = 20_000;

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Nogd {
    kernel: Kernel,
    budget: usize,
    rank: usize,
    lr: f64,
    loss: Loss,
    epsilon: f64,
    d: Option<usize>,
    n_seen: u64,
    /// Support points, row-major (`n_sv x d`).
    sv: Vec<f64>,
    /// Stage-1 coefficients.
    alpha: Vec<f64>,
    /// Stage 2: `M = Lambda_k^{-1/2} V_k^T`, row-major `k x B` (empty in stage 1).
    m: Vec<f64>,
    /// Stage-2 weights (length `k`).
    w: Vec<f64>,
    #[serde(skip)]
    krow: Vec<f64>,
    #[serde(skip)]
    phi: Vec<f64>,
}

crate::params! {
    /// The parameters of [`Nogd`] (defaults: those of the Python class `NOGD`).
    pub struct NogdParams {
        /// The kernel.
        kernel: Option<Kernel> = None => "object", "a kernel", required;
        /// Support points kept before the embedding step (`B`).
        budget: usize = 100 => "int", "in [1, 20000]";
        /// Rank `k` of the embedding (None: `round(0.2 B)`).
        rank: Option<usize> = None => "int", "None or in [1, budget]";
        /// Step size.
        lr: f64 = 0.2 => "float", "> 0";
        use crate::learners::losses::loss_row;
        use crate::learners::losses::epsilon_row;
    }
}

impl NogdParams {
    pub fn validate(&self) -> Result<()> {
        crate::params::required("NOGD", "a kernel", &self.kernel)?;
        self.rank_or_default().map(|_| ())?;
        positive("lr", self.lr)?;
        self.loss.check_epsilon(self.epsilon)
    }

    /// The rank, `round(0.2 B)` when not given (checked against the budget).
    fn rank_or_default(&self) -> Result<usize> {
        let budget = self.budget;
        if budget == 0 || budget > MAX_NOGD_BUDGET {
            return crate::param_err!(
                "budget must be an integer in [1, {MAX_NOGD_BUDGET}], got {budget}"
            );
        }
        match self.rank {
            // Lu et al.: k = 0.2 B.
            None => Ok(((0.2 * budget as f64).round() as usize).max(1)),
            Some(k) if k >= 1 && k <= budget => Ok(k),
            Some(k) => {
                crate::param_err!("rank must be an integer in [1, budget = {budget}], got {k}")
            }
        }
    }
}

impl Nogd {
    pub fn new(p: &NogdParams) -> Result<Self> {
        p.validate()?;
        let Some(kernel) = p.kernel else { return crate::param_err!("NOGD needs a kernel") };
        let rank = p.rank_or_default()?;
        let (budget, lr, loss, epsilon) = (p.budget, p.lr, p.loss, p.epsilon);
        // The embedding step forms the budget x budget kernel matrix and its eigenvectors.
        crate::limits::check_doubles(
            &format!("NOGD with budget = {budget} (two budget x budget matrices)"),
            Some(2 * (budget as u128) * (budget as u128)),
        )?;
        Ok(Nogd {
            kernel,
            budget,
            rank,
            lr,
            loss,
            epsilon,
            d: None,
            n_seen: 0,
            sv: Vec::new(),
            alpha: Vec::new(),
            m: Vec::new(),
            w: Vec::new(),
            krow: Vec::new(),
            phi: Vec::new(),
        })
    }

    pub fn rank(&self) -> usize {
        self.rank
    }
    pub fn loss(&self) -> Loss {
        self.loss
    }
    /// Number of stored support points.
    pub fn n_support(&self) -> usize {
        self.alpha.len()
    }
    /// `true` once the Nystrom embedding is built (stage 2).
    pub fn embedded(&self) -> bool {
        !self.m.is_empty()
    }
    /// Support points, row-major.
    pub fn support(&self) -> &[f64] {
        &self.sv
    }

    fn kernel_row(&self, x: &[f64], out: &mut [f64]) {
        let d = self.d.unwrap_or(x.len());
        self.kernel.row_into(x, &self.sv, d, out);
    }

    /// `phi = M k` (stage 2).
    fn embed(m: &[f64], b: usize, krow: &[f64], out: &mut [f64]) {
        for (o, row) in out.iter_mut().zip(m.chunks_exact(b)) {
            *o = dot(row, krow);
        }
    }

    fn prediction(&self, krow: &[f64], phi: &mut [f64]) -> f64 {
        if self.embedded() {
            Self::embed(&self.m, self.alpha.len(), krow, phi);
            dot(&self.w, phi)
        } else {
            dot(&self.alpha, krow)
        }
    }

    /// Builds the embedding from the full support set (the transition).
    fn build_embedding(&mut self) -> Result<()> {
        let b = self.alpha.len();
        let d = self.d.unwrap_or(0);
        let kmat =
            nalgebra::DMatrix::from_row_slice(b, b, &self.kernel.gram(&self.sv, &self.sv, d));
        let eig = nalgebra::SymmetricEigen::new(kmat);
        let mut order: Vec<usize> = (0..b).collect();
        order.sort_by(|&i, &j| eig.eigenvalues[j].total_cmp(&eig.eigenvalues[i]));
        let lmax = eig.eigenvalues[order[0]];
        if !(lmax.is_finite() && lmax > 0.0) {
            return Err(crate::KsError::Numerical(format!(
                "NOGD: the support kernel matrix has largest eigenvalue {lmax}; the Nystrom embedding cannot be built"
            )));
        }
        let keep: Vec<usize> = order
            .into_iter()
            .take(self.rank)
            .filter(|&i| eig.eigenvalues[i] > 1e-12 * lmax)
            .collect();
        let k = keep.len();
        let mut m = vec![0.0; k * b];
        let mut w = vec![0.0; k];
        for (r, &i) in keep.iter().enumerate() {
            let lam = eig.eigenvalues[i];
            let v = eig.eigenvectors.column(i);
            let s = 1.0 / lam.sqrt();
            for c in 0..b {
                m[r * b + c] = s * v[c];
            }
            // w = Lambda^{1/2} V^T alpha (= pinv(M)^T alpha).
            w[r] = lam.sqrt() * (0..b).map(|c| v[c] * self.alpha[c]).sum::<f64>();
        }
        self.m = m;
        self.w = w;
        Ok(())
    }
}

impl OnlineLearner for Nogd {
    fn input_dim(&self) -> Option<usize> {
        self.d
    }

    fn check_input_dim(&self, d: usize) -> Result<()> {
        crate::limits::check_input_doubles(
            &format!("NOGD with budget = {} on {d}-dimensional inputs", self.budget),
            self.memory_doubles(d),
        )
    }

    /// The budget's support vectors (`budget x d`) and two `budget x budget` matrices.
    fn memory_doubles(&self, d: usize) -> Option<u128> {
        let b = self.budget as u128;
        Some(b * (d as u128 + 2) + 2 * b * b)
    }

    fn check_row(&self, x: &[f64], y: Option<f64>) -> Result<()> {
        self.kernel.check_point(x)?;
        match y {
            Some(y) => self.loss.check_label(y),
            None => Ok(()),
        }
    }

    fn predict(&self, x: &[f64]) -> Result<f64> {
        if self.alpha.is_empty() {
            return Ok(0.0);
        }
        let mut krow = vec![0.0; self.alpha.len()];
        self.kernel_row(x, &mut krow);
        let mut phi = vec![0.0; self.w.len()];
        Ok(self.prediction(&krow, &mut phi))
    }

    fn predict_learn(&mut self, x: &[f64], y: f64) -> Result<f64> {
        self.predict_learn_weighted(x, y, 1.0)
    }

    fn supports_weights(&self) -> bool {
        true
    }

    /// Sample weight `w`: the loss `w l(f, y)`, so every step uses `w l'(f)` (exactly
    /// `l'(f)` for `w = 1`).
    fn predict_learn_weighted(&mut self, x: &[f64], y: f64, w: f64) -> Result<f64> {
        if self.d.is_none() {
            self.d = Some(x.len());
        }
        let b = self.alpha.len();
        let mut krow = std::mem::take(&mut self.krow);
        let mut phi = std::mem::take(&mut self.phi);
        krow.resize(b, 0.0);
        phi.resize(self.w.len(), 0.0);
        self.kernel_row(x, &mut krow);
        let f = if b == 0 { 0.0 } else { self.prediction(&krow, &mut phi) };
        let active = self.loss != Loss::Squared || (f - y).abs() > self.epsilon;
        let g = if active { w * self.loss.deriv(f, y) } else { 0.0 };
        let mut result = Ok(());
        if g != 0.0 {
            if self.embedded() {
                axpy(-self.lr * g, &phi, &mut self.w);
            } else if b < self.budget {
                // Stage 1: x joins the support set with alpha = -lr l'(f).
                self.sv.extend_from_slice(x);
                self.alpha.push(-self.lr * g);
            } else {
                // Transition, then this round's step in the new embedding.
                result = self.build_embedding();
                if result.is_ok() {
                    phi.resize(self.w.len(), 0.0);
                    Self::embed(&self.m, b, &krow, &mut phi);
                    axpy(-self.lr * g, &phi, &mut self.w);
                }
            }
        }
        self.krow = krow;
        self.phi = phi;
        result?;
        self.n_seen += 1;
        Ok(f)
    }

    fn n_seen(&self) -> u64 {
        self.n_seen
    }

    /// Support-set size in stage 1, embedding rank in stage 2.
    fn dim(&self) -> usize {
        if self.embedded() {
            self.w.len()
        } else {
            self.alpha.len()
        }
    }
}

// The format version of a pickled Nogd: bump it when a serialised field changes.
crate::state::state_version!(Nogd, 4);

impl crate::state::ValidState for Nogd {
    fn validate(&self) -> Result<()> {
        use crate::state::*;
        let b = self.alpha.len();
        at_most("support size", b, self.budget)?;
        match self.d {
            Some(d) => {
                ensure(d >= 1, || "the input dimension is 0".into())?;
                len_is("support points", self.sv.len(), product("support", b, d)?)?;
            }
            None => ensure(b == 0 && self.sv.is_empty(), || "support without a dimension".into())?,
        }
        let k = self.w.len();
        at_most("embedding rank", k, self.rank)?;
        len_is("embedding", self.m.len(), product("embedding", k, b)?)?;
        ensure(self.m.is_empty() == self.w.is_empty(), || "embedding without weights".into())?;
        finite("support points", &self.sv)?;
        finite("coefficients", &self.alpha)?;
        finite("embedding", &self.m)?;
        finite("weights", &self.w)
    }
    fn check_config(&self, fresh: &Self) -> Result<()> {
        crate::state::same_fields!(self, fresh; kernel, budget, rank, lr, loss, epsilon)
    }
}

crate::state_params!(Nogd; kernel, budget, rank, lr, loss, epsilon);
