//! AutoKernel: a [`Mixture`] of kernel experts whose widths and regularisations
//! come from the stream's own scale, so that no parameter needs tuning.
//!
//! Warm-up (the first `warmup` rounds, part of the stream): the learner predicts
//! with kernel ridge regression on the rows seen so far, standardised by their own
//! mean and spread, with the Gaussian kernel of width `c rho_t` (`rho_t` = median
//! distance between those rows, the median heuristic) for each `c` of `warm_widths`
//! and ridge `lam` the geometric centre of the grid's `lams`, and the nearest row's
//! target, mixed by AdaHedge (`fit`, [`crate::mixture::warm_mix`]). When the warm-up ends:
//!
//! 1. a [`Scaler`] fixes the per-feature and target location/spread of the warm-up;
//! 2. `rho` = median distance between the standardised warm-up points;
//! 3. one expert per (width multiple `c`, regularisation `lam`) pair: a Gaussian
//!    kernel of width `c rho`, approximated by the Taylor basis of the PKAWV paper
//!    (Jezequel et al. 2019, sec. 3.1) when `C(M + d, d)` features of degree
//!    `M >= 3` fit the budget, by random Fourier features (VAW2 paper, eq. (8))
//!    otherwise, each run by the VAW forecaster on the standardised stream;
//!    and one expert per pair in `nystrom_widths x nystrom_lams`: PKAWV on the
//!    Nystrom dictionary of the standardised warm-up rows (PKAWV paper sec. 3.2, the
//!    fixed-dictionary variant), whose kernels centred on past points capture local
//!    structure that a few global features miss;
//! 4. the warm-up rows are replayed through the experts and the rule in order
//!    (each expert prediction still uses earlier rows only), then the stream
//!    goes on through the mixture. Predictions are mapped back to the original units.
//!
//! Cost per round after the warm-up: `O(N (D^2 + D d) + N' (m^2 + m d))` for `N`
//! feature experts of `D` features (`D = C(M+d, d)` for Taylor, `2 n_features` for
//! cos-sin RFF) and `N'` Nystrom experts on `m = warmup` points, plus `O(N + N')`
//! for the rule; memory `O(N D^2 + N' m^2)`. The warm-up costs `O(t^3 + t^2 d)` at
//! round `t <= warmup`, once `O(warmup^2 d)` for the median.
//!
//! Files: `config` (parameters and the grid), `fit` (the end of the warm-up, steps 1-4),
//! `rounds` (rounds after it, through the restart's successor), `steps` (the successor's
//! chunks), `outputs` (`K` target columns), `learner` (the [`crate::learners::OnlineLearner`]
//! face), `state` (the serialised form, checked as a whole). The type is defined here;
//! the files below only add methods to it, so the dependencies point one way.

mod config;
mod fit;
mod learner;
mod outputs;
mod rounds;
mod state;
mod steps;

pub use config::{AutoKernelParams, ExpertFeatures, ExpertSpec};
use state::AutoKernelState;

use crate::error::Result;
use crate::mixture::restart::Restart;
use crate::mixture::scale::Scaler;
use crate::mixture::Mixture;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(try_from = "AutoKernelState")]
pub struct AutoKernel {
    pub(super) cfg: AutoKernelParams,
    pub(super) d: Option<usize>,
    pub(super) n_seen: u64,
    /// Outputs `K` ([`super::outputs`]): 1 until a first round fixes it.
    pub(super) k: usize,
    pub(super) warm_x: Vec<f64>,
    /// Warm-up targets, row-major `rows x K`.
    pub(super) warm_y: Vec<f64>,
    pub(super) fitted: Option<Fitted>,
    /// Change detector and successor (`cfg.restarts`).
    pub(super) restart: Option<Restart>,
    /// The input of a kept warm-up prediction ([`OnlineLearner::predict_keep`]) and
    /// the prediction (after the warm-up the experts keep their own work).
    #[serde(skip)]
    pub(super) kept: crate::learners::Kept,
    #[serde(skip)]
    kept_warm: Vec<f64>,
    /// The warm-up's mix of its predictors (`warm_widths`, `warm_neighbour`), of the
    /// first output.
    pub(super) warm_mix: crate::mixture::warm_mix::WarmMix,
    /// The mixes of outputs `2..=K` ([`super::outputs`]; one not yet stored is the
    /// mix before any round).
    pub(super) warm_mix_extra: Vec<crate::mixture::warm_mix::WarmMix>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub(super) struct Fitted {
    pub(super) scaler: Scaler,
    /// Target location and spread of outputs `2..=K` (the scaler holds the first's).
    pub(super) y_extra: Vec<(f64, f64)>,
    rho: f64,
    specs: Vec<ExpertSpec>,
    pub(super) mixture: Mixture,
    /// Expert predictions of the replayed warm-up rows, original units (`warmup x N`;
    /// the first output's; empty when `K > 1` from the first round).
    warm_z: Vec<f64>,
    #[serde(skip)]
    xs: Vec<f64>,
}

impl AutoKernel {
    pub fn new(p: &AutoKernelParams) -> Result<Self> {
        Self::with_config(p.clone())
    }

    /// The learner for `cfg` (checked by [`AutoKernelParams::validate`]).
    pub fn with_config(cfg: AutoKernelParams) -> Result<Self> {
        cfg.validate()?;
        Ok(AutoKernel {
            d: None,
            n_seen: 0,
            k: 1,
            warm_x: Vec::new(),
            warm_y: Vec::new(),
            fitted: None,
            restart: if cfg.restarts { Some(Restart::default()) } else { None },
            kept: Default::default(),
            kept_warm: Vec::new(),
            warm_mix: Default::default(),
            warm_mix_extra: Vec::new(),
            cfg,
        })
    }

    /// The configuration of a successor: this one without restarts of its own.
    pub(super) fn successor_config(&self) -> AutoKernelParams {
        AutoKernelParams { restarts: false, ..self.cfg.clone() }
    }

    /// The change detector and successor (None without `restarts`).
    pub fn restart(&self) -> Option<&Restart> {
        self.restart.as_ref()
    }

    pub fn config(&self) -> &AutoKernelParams {
        &self.cfg
    }

    /// Number of experts: `widths x lams` feature experts, then `nystrom_widths x
    /// nystrom_lams` Nystrom experts.
    pub fn n_experts(&self) -> usize {
        Self::expert_count(&self.cfg)
    }

    /// `widths x lams` feature experts, `nystrom_widths x nystrom_lams` Nystrom
    /// experts, `discounts x discount_widths x discount_lams` discounted feature
    /// experts, `1 + |discounts|` linear experts if `linear`, `fogd_widths`
    /// constant-step experts, then `laplace_widths x laplace_lams` Laplacian dictionary
    /// experts.
    fn expert_count(cfg: &AutoKernelParams) -> usize {
        cfg.widths.len() * cfg.lams.len()
            + cfg.nystrom_widths.len() * cfg.nystrom_lams.len()
            + cfg.discounts.len() * cfg.discount_widths.len() * cfg.discount_lams.len()
            + if cfg.linear { 1 + cfg.discounts.len() } else { 0 }
            + cfg.fogd_widths.len()
            + cfg.laplace_widths.len() * cfg.laplace_lams.len()
    }

    /// The mixture once the warm-up is over.
    pub fn mixture(&self) -> Option<&Mixture> {
        self.fitted.as_ref().map(|f| &f.mixture)
    }

    pub fn mixture_mut(&mut self) -> Option<&mut Mixture> {
        self.fitted.as_mut().map(|f| &mut f.mixture)
    }

    pub fn specs(&self) -> Option<&[ExpertSpec]> {
        self.fitted.as_ref().map(|f| f.specs.as_slice())
    }

    pub fn scaler(&self) -> Option<(&Scaler, f64)> {
        self.fitted.as_ref().map(|f| (&f.scaler, f.rho))
    }

    /// Replayed expert predictions of the warm-up rows (original units, `warmup x N`).
    pub fn warmup_expert_predictions(&self) -> Option<&[f64]> {
        self.fitted.as_ref().map(|f| f.warm_z.as_slice())
    }
}
