//! TaylorAWV: PKAWV on the degree-M Taylor basis of the Gaussian kernel.
//! PKAWV paper (Jezequel, Gaillard, Rudi 2019), sec. 3.1, Algorithm 1 and
//! Theorem 4. The basis is orthonormal in the RKHS (Lemma 11), so PKAWV is
//! exactly linear AWV on `phi(x) = (g_k(x))_{|k|<=M}` ([`FeatureAwv`]).

use super::feature_awv::{check_awv_memory, FeatureAwv, LazyFeatureMap};
use crate::error::{invertible, positive, Result};
use crate::features::taylor::{taylor_feature_count, TaylorGaussian, MAX_TAYLOR_FEATURES};
use crate::features::FeatureMap;
use serde::{Deserialize, Serialize};

/// PKAWV on the Taylor features of the Gaussian kernel of width `sigma`.
pub type TaylorAwv = FeatureAwv<TaylorGaussian>;

/// The parameters of the Taylor map: kernel width and degree `M`.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct TaylorParams {
    sigma: f64,
    degree: usize,
}

super::feature_awv::feature_awv_params! {
    /// The parameters of [`TaylorAwv`] (defaults: those of the Python class `TaylorAWV`).
    pub struct TaylorAwvParams {
        /// Width of the Gaussian kernel `exp(-||x - x'||^2 / (2 sigma^2))`.
        sigma: f64 = 1.0 => "float", "> 0 and finite, 1/sigma finite (>= 5.6e-309)";
        /// Taylor degree `M`: all monomials of total degree `<= M`.
        degree: usize = 2 => "int", ">= 0 (C(M + d, d) features)";
        use super::feature_awv::lam_row;
    }
}

impl TaylorAwvParams {
    pub fn validate(&self) -> Result<()> {
        invertible("sigma", self.sigma)?;
        positive("lam", self.lam)?;
        crate::awv::check_block_size(self.block_size)?;
        crate::awv::check_gamma(self.gamma).map(|_| ())
    }
}

impl TaylorAwv {
    pub fn new(p: &TaylorAwvParams) -> Result<Self> {
        p.validate()?;
        let map = TaylorParams { sigma: p.sigma, degree: p.degree };
        FeatureAwv::with_params(map, p.lam, p.ridge)
            .with_block_size(p.block_size)?
            .with_gamma(p.gamma)
    }

    /// The feature vector `phi(x)` (length `C(M+d, d)`), also before the first round.
    pub fn features(&self, x: &[f64]) -> Result<Vec<f64>> {
        match self.mapped(x)? {
            Some(v) => Ok(v),
            None => Ok(TaylorGaussian::build(self.params(), x.len())?.map(x)),
        }
    }
}

impl LazyFeatureMap for TaylorGaussian {
    type Params = TaylorParams;
    const LEARNER: &'static str = "TaylorAWV";

    fn build(p: &TaylorParams, d: usize) -> Result<Self> {
        TaylorGaussian::new(d, p.degree, p.sigma)
    }

    fn feature_count(p: &TaylorParams, d: usize) -> Option<usize> {
        taylor_feature_count(d, p.degree)
    }

    fn memory_doubles(p: &TaylorParams, d: usize) -> Option<u128> {
        let r = taylor_feature_count(d, p.degree)?;
        Some(crate::awv::state_doubles(r) + r as u128)
    }

    fn check_input_dim(p: &TaylorParams, d: usize) -> Result<()> {
        match taylor_feature_count(d, p.degree) {
            Some(r) if r <= MAX_TAYLOR_FEATURES => check_awv_memory(Self::LEARNER, r),
            _ => Self::build(p, d).map(|_| ()),
        }
    }

    /// Finite features, else the input overflowed the monomials.
    fn check_features(&self, v: &[f64]) -> Result<()> {
        if v.iter().all(|x| x.is_finite()) {
            Ok(())
        } else {
            Err(crate::KsError::Numerical(
                "x is too large for the Taylor features: a monomial (x_i / sigma)^k overflows"
                    .into(),
            ))
        }
    }

    /// A row extended by zeros has `g_k = 0` for the multi-indices `k` with a new
    /// coordinate, and the old `g_k` (its norm unchanged) for the others.
    fn embedding(&self, wider: &Self) -> Option<Vec<usize>> {
        let d0 = self.input_dim();
        let at: std::collections::HashMap<Vec<u16>, usize> =
            wider.exponents().into_iter().enumerate().map(|(i, e)| (e, i)).collect();
        let narrow = self.exponents();
        narrow
            .into_iter()
            .map(|mut e| {
                e.resize(wider.input_dim(), 0);
                debug_assert!(e.len() >= d0);
                at.get(&e).copied()
            })
            .collect()
    }

    fn check_built(&self, p: &TaylorParams) -> Result<()> {
        use crate::state::same;
        same("degree", &self.degree(), &p.degree)?;
        same("sigma", &self.sigma(), &p.sigma)
    }

    fn check_params(p: &TaylorParams, fresh: &TaylorParams) -> Result<()> {
        use crate::state::same;
        same("sigma", &p.sigma, &fresh.sigma)?;
        same("degree", &p.degree, &fresh.degree)
    }
}

// The format version of a pickled TaylorAwv: bump it when a serialised field changes.
crate::state::state_version!(TaylorAwv, 5);

crate::state_params!(TaylorParams; sigma, degree);
