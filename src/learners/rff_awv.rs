//! RFFAWV: the Vovk-Azoury-Warmuth forecaster on random Fourier features of one
//! kernel: VAW2 paper (Rokhlin & Gurtovaya 2025), sec. 2, eqs. (8)-(12) (the
//! "expert" of Theorems 2-3).
//!
//! `w_t = (lam I + sum_{s<=t} phi_s phi_s^T)^{-1} sum_{s<t} y_s phi_s`,
//! `y_hat_t = <w_t, phi_t>` with `phi_t = Phi(x_t)` the random features drawn
//! once from the learner's seed when the input dimension becomes known
//! ([`FeatureAwv`]). `ridge = true` is online ridge instead (the current `phi_t`
//! left out of the matrix; docs/choices.md, "AWV or ridge"):
//! `y_hat_t = sum_{s<t} y_s phi_s^T (lam I + sum_{s<t} phi_s phi_s^T)^{-1} phi_t`.

use super::feature_awv::{check_awv_memory, FeatureAwv, LazyFeatureMap};
use super::online_learner::OnlineLearner;
use crate::error::Result;
use crate::features::rff::{RandomFourier, RffVariant, MAX_RFF_FEATURES};
use crate::kernels::Kernel;
use crate::rng::Rng;
use serde::{Deserialize, Serialize};

/// The VAW2 expert: AWV on `n_features` random Fourier features of `kernel`.
pub type RffAwv = FeatureAwv<RandomFourier>;

/// The parameters of the random features: kernel, frequency count, map, seed.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct RffParams {
    kernel: Kernel,
    n_features: usize,
    variant: RffVariant,
    seed: u64,
}

super::feature_awv::feature_awv_params! {
    /// The parameters of [`RffAwv`] (defaults: those of the Python class `RFFAWV`).
    pub struct RffAwvParams {
        use crate::features::rff::kernel_row;
        /// Frequencies `m` drawn (`m` features for "cos", `2m` for "cossin").
        n_features: usize = 50 => "int", crate::params::between(1.0, MAX_RFF_FEATURES as f64);
        use super::feature_awv::lam_row;
        /// The feature map.
        features: RffVariant = RffVariant::Cos => "str", RffVariant::DOMAIN;
        use crate::features::rff::seed_row;
    }
}

impl RffAwvParams {
    fn relations(&self) -> Result<()> {
        let n = self.n_features;
        let r = match self.features {
            RffVariant::Cos => n,
            RffVariant::CosSin => 2 * n,
        };
        crate::awv::check_discount_span(self.gamma, r, "features")
    }
}

impl RffAwv {
    pub fn new(p: &RffAwvParams) -> Result<Self> {
        p.validate()?;
        let Some(kernel) = p.kernel else { return crate::param_err!("RFFAWV needs a kernel") };
        let map = RffParams { kernel, n_features: p.n_features, variant: p.features, seed: p.seed };
        let learner = FeatureAwv::with_params(map, p.lam, p.ridge);
        check_awv_memory(RandomFourier::LEARNER, learner.dim())?;
        learner.with_block_size(p.block_size)?.with_gamma(p.gamma)
    }
}

impl LazyFeatureMap for RandomFourier {
    type Params = RffParams;
    const LEARNER: &'static str = "RFFAWV";

    /// Draws the features from a fresh RNG seeded with `seed`.
    fn build(p: &RffParams, d: usize) -> Result<Self> {
        let mut rng = Rng::new(p.seed);
        RandomFourier::draw(&p.kernel, d, p.n_features, p.variant, &mut rng)
    }

    fn memory_doubles(p: &RffParams, d: usize) -> Option<u128> {
        let r = Self::known_dim(p)?;
        Some(crate::features::rff::map_doubles(p.n_features, d) + crate::awv::state_doubles(r))
    }

    fn known_dim(p: &RffParams) -> Option<usize> {
        Some(match p.variant {
            RffVariant::Cos => p.n_features,
            RffVariant::CosSin => 2 * p.n_features,
        })
    }

    /// Finite inputs whose random-feature projections overflow are refused.
    fn check_input(&self, x: &[f64]) -> Result<()> {
        RandomFourier::check_input(self, x)
    }

    fn check_built(&self, p: &RffParams) -> Result<()> {
        use crate::state::same;
        same("n_features", &self.n_frequencies(), &p.n_features)?;
        same("features", &self.variant(), &p.variant)
    }

    fn check_params(p: &RffParams, fresh: &RffParams) -> Result<()> {
        use crate::state::same;
        same("kernel", &p.kernel, &fresh.kernel)?;
        same("n_features", &p.n_features, &fresh.n_features)?;
        same("features", &p.variant, &fresh.variant)?;
        same("seed", &p.seed, &fresh.seed)
    }
}

// The format version of a pickled RffAwv: bump it when a serialised field changes.
crate::state::state_version!(RffAwv, 5);

crate::state_params!(RffParams; kernel, n_features, variant as "features", seed);
