//! Online ridge / AWV on the affine features `(1, x)`: a linear model with an
//! intercept, run by the linear AWV engine ([`FeatureAwv`]). AutoKernel's linear
//! experts (on its standardised stream) use it so that trends extrapolate, which
//! no Gaussian-kernel expert does (they decay to 0 away from the data).

use super::feature_awv::{check_awv_memory, FeatureAwv, LazyFeatureMap};
use crate::error::Result;
use crate::features::FeatureMap;
use serde::{Deserialize, Serialize};

/// The features `(1, x_1, ..., x_d)`.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Affine {
    d: usize,
}

/// AWV (or online ridge) on `(1, x)`.
pub type LinearAwvLearner = FeatureAwv<Affine>;

/// No parameters: the map depends on `d` only.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct AffineParams;

impl LinearAwvLearner {
    pub fn new(lam: f64, ridge: bool) -> Result<Self> {
        crate::error::positive("lam", lam)?;
        Ok(FeatureAwv::with_params(AffineParams, lam, ridge))
    }
}

impl FeatureMap for Affine {
    fn input_dim(&self) -> usize {
        self.d
    }
    fn dim(&self) -> usize {
        self.d + 1
    }
    fn map_into(&self, x: &[f64], out: &mut [f64]) {
        out[0] = 1.0;
        out[1..].copy_from_slice(x);
    }
}

impl crate::state::ValidState for Affine {
    fn validate(&self) -> Result<()> {
        Ok(())
    }
    fn check_config(&self, fresh: &Self) -> Result<()> {
        crate::state::same("d", &self.d, &fresh.d)
    }
}

impl LazyFeatureMap for Affine {
    type Params = AffineParams;
    const LEARNER: &'static str = "LinearAWV";

    fn build(_: &AffineParams, d: usize) -> Result<Self> {
        check_awv_memory(Self::LEARNER, d.saturating_add(1))?;
        Ok(Affine { d })
    }
    fn feature_count(_: &AffineParams, d: usize) -> Option<usize> {
        d.checked_add(1)
    }
    fn memory_doubles(_: &AffineParams, d: usize) -> Option<u128> {
        let r = d.checked_add(1)?;
        Some(crate::awv::state_doubles(r) + r as u128)
    }
    fn check_input_dim(_: &AffineParams, d: usize) -> Result<()> {
        check_awv_memory(Self::LEARNER, d.saturating_add(1))
    }
    fn check_built(&self, _: &AffineParams) -> Result<()> {
        Ok(())
    }
    fn check_params(_: &AffineParams, _: &AffineParams) -> Result<()> {
        Ok(())
    }
}
