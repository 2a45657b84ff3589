//! AutoKernel: a [`Mixture`] of kernel experts whose widths and regularisations
//! come from the stream's own scale, so that no parameter needs tuning.
//!
//! Warm-up (the first `warmup` rounds, part of the stream): the learner predicts
//! with kernel ridge regression on the rows seen so far, standardised by their own
//! mean and spread, with the Gaussian kernel of width `c rho_t` (`rho_t` = median
//! distance between those rows, the median heuristic) and ridge `lam`, `c` and
//! `lam` the geometric centres of the expert grid below. When the warm-up ends:
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

use super::restart::Restart;
use super::scale::{median_distance, Scaler};
use super::{AnyLearner, Mixture};
use crate::aggregation::{AnyAggregator, RuleParams};
use crate::error::{positive, Result};
use crate::features::rff::{RffVariant, MAX_RFF_FEATURES};
use crate::features::taylor::MAX_TAYLOR_FEATURES;
use crate::kernels::Kernel;
use crate::learners::{
    LinearAwvLearner, NystromAwv, OnlineLearner, RffAwv, RffAwvParams, TaylorAwv, TaylorAwvParams,
};
use crate::rng::Rng;
use crate::state::ValidState;
use serde::{Deserialize, Serialize};

/// Ridge parameter of the linear experts (standardised inputs and targets).
const LINEAR_LAM: f64 = 1.0;
/// Largest `loss_window` (a discount `1 - 1/window` still distinct from 1).
const MAX_LOSS_WINDOW: usize = 1_000_000_000;

/// Which feature map the experts use.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum ExpertFeatures {
    /// Taylor when a degree `>= 3` fits `max_taylor_features`, else random features.
    Auto,
    Taylor,
    Rff,
}

impl ExpertFeatures {
    pub fn name(&self) -> &'static str {
        match self {
            ExpertFeatures::Auto => "auto",
            ExpertFeatures::Taylor => "taylor",
            ExpertFeatures::Rff => "rff",
        }
    }
    pub fn from_name(name: &str) -> Result<Self> {
        match name {
            "auto" => Ok(ExpertFeatures::Auto),
            "taylor" => Ok(ExpertFeatures::Taylor),
            "rff" => Ok(ExpertFeatures::Rff),
            _ => {
                crate::param_err!("features must be \"auto\", \"taylor\" or \"rff\", got {name:?}")
            }
        }
    }
}

/// The parameters of an [`AutoKernel`] (the Python class holds their defaults).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct AutoKernelConfig {
    /// Warm-up rounds before the scale is fixed (>= 3).
    pub warmup: usize,
    /// Kernel widths, as multiples of the median distance `rho`.
    pub widths: Vec<f64>,
    /// Ridge parameters of the experts (targets are standardised).
    pub lams: Vec<f64>,
    /// Widths (multiples of `rho`) of the Nystrom experts on the warm-up rows.
    pub nystrom_widths: Vec<f64>,
    /// Ridge parameters of the Nystrom experts.
    pub nystrom_lams: Vec<f64>,
    pub features: ExpertFeatures,
    /// Random Fourier frequencies per expert (cos-sin pairs: `2 n_features` features).
    pub n_features: usize,
    /// Largest Taylor feature count `C(M + d, d)` per expert.
    pub max_taylor_features: usize,
    /// Aggregation rule: a name of [`crate::aggregation::RULES`] but "aa".
    pub rule: String,
    pub seed: u64,
    /// Threads running the experts (0 = one per core).
    pub threads: usize,
    /// Forgetting factors `< 1` of the discounted feature experts (docs/autokernel.md,
    /// "Changing streams"); empty: none (as before they existed).
    #[serde(default)]
    pub discounts: Vec<f64>,
    /// Widths (multiples of `rho`) of the discounted feature experts.
    #[serde(default)]
    pub discount_widths: Vec<f64>,
    /// Ridge parameters of the discounted feature experts.
    #[serde(default)]
    pub discount_lams: Vec<f64>,
    /// Linear experts (online ridge on `(1, x)`, standardised), one per forgetting
    /// factor in `{1} + discounts`.
    #[serde(default)]
    pub linear: bool,
    /// Fixed Share rate of the rule (EWA, BOA, ML-Poly, ML-Prod).
    #[serde(default)]
    pub share: f64,
    /// Rounds of the running loss scale that the rule's regrets are divided by
    /// ([`super::loss_scale`]); 0: none (the plain rule).
    #[serde(default)]
    pub loss_window: usize,
    /// Restarts after an abrupt change: a fresh AutoKernel as a successor
    /// ([`super::restart`]).
    #[serde(default)]
    pub restarts: bool,
}

impl AutoKernelConfig {
    /// Every check of the values.
    fn check(&self) -> Result<()> {
        let cfg = self;
        if cfg.warmup < 3 || cfg.warmup > 5000 {
            return crate::param_err!("warmup must be in [3, 5000], got {}", cfg.warmup);
        }
        if cfg.widths.is_empty() || cfg.lams.is_empty() {
            return crate::param_err!("widths and lams must each hold at least one value");
        }
        for &w in &cfg.widths {
            positive("every width", w)?;
        }
        for &l in &cfg.lams {
            positive("every lam", l)?;
        }
        for &w in &cfg.nystrom_widths {
            positive("every nystrom width", w)?;
        }
        for &l in &cfg.nystrom_lams {
            positive("every nystrom lam", l)?;
        }
        for &g in &cfg.discounts {
            if !(g > 0.0 && g < 1.0) {
                return crate::param_err!("every discount must be in (0, 1), got {g}");
            }
        }
        for &w in &cfg.discount_widths {
            positive("every discount width", w)?;
        }
        for &l in &cfg.discount_lams {
            positive("every discount lam", l)?;
        }
        crate::aggregation::check_share(cfg.share)?;
        if cfg.loss_window > 0 && cfg.rule == "vaw" {
            return crate::param_err!(
                "loss_window (regrets relative to the loss scale) needs rule \"boa\", \"mlpoly\", \"mlprod\" or \"ewa\", got \"vaw\""
            );
        }
        if cfg.loss_window > MAX_LOSS_WINDOW {
            return crate::param_err!(
                "loss_window must be at most {MAX_LOSS_WINDOW} rounds, got {}",
                cfg.loss_window
            );
        }
        let n = AutoKernel::expert_count(cfg);
        if n > 1000 {
            return crate::param_err!("the grids give {n} experts, at most 1000 are allowed");
        }
        if cfg.n_features == 0 || 2 * cfg.n_features > MAX_RFF_FEATURES {
            return crate::param_err!(
                "n_features must be in [1, {}], got {}",
                MAX_RFF_FEATURES / 2,
                cfg.n_features
            );
        }
        if cfg.max_taylor_features == 0 || cfg.max_taylor_features > MAX_TAYLOR_FEATURES {
            return crate::param_err!(
                "max_taylor_features must be in [1, {MAX_TAYLOR_FEATURES}], got {}",
                cfg.max_taylor_features
            );
        }
        crate::parallel::check_threads(cfg.threads)?;
        make_rule(&cfg.rule, n, cfg.share)?;
        Ok(())
    }
}

crate::params! {
    /// The parameters of an [`AutoKernel`] (defaults: those of the Python class
    /// `AutoKernel`); [`AutoKernelParams::config`] resolves the rule-dependent defaults.
    pub struct AutoKernelParams {
        /// Warm-up rounds before the scale is fixed.
        warmup: usize = 200 => "int", "in [3, 5000]";
        /// Kernel widths, as multiples of the median distance `rho`.
        widths: Vec<f64> = vec![0.5, 1.0, 2.0, 4.0] => "seq", "non-empty, each > 0";
        /// Ridge parameters of the experts (targets are standardised).
        lams: Vec<f64> = vec![0.01, 0.1, 1.0] => "seq", "non-empty, each > 0";
        /// Widths (multiples of `rho`) of the Nystrom experts on the warm-up rows.
        nystrom_widths: Vec<f64> = vec![0.5, 1.0] => "seq", "each > 0";
        /// Ridge parameters of the Nystrom experts.
        nystrom_lams: Vec<f64> = vec![0.01, 0.1] => "seq", "each > 0";
        /// The experts' feature map.
        features: ExpertFeatures = ExpertFeatures::Auto => "str", "one of ('auto', 'taylor', 'rff')";
        /// Random Fourier frequencies per expert (cos-sin pairs: `2 n_features` features).
        n_features: usize = 50 => "int", "in [1, 10000]";
        /// Largest Taylor feature count `C(M + d, d)` per expert.
        max_taylor_features: usize = 200 => "int", "in [1, 40000]";
        /// Aggregation rule.
        rule: String = "boa".into() => "str", "a rule of _core.aggregation_rules() but 'aa'";
        /// Seed of the random features.
        seed: u64 = 0 => "int", ">= 0";
        /// Threads running the experts (0 = one per core); not part of the results.
        threads: usize = 0 => "int", ">= 0";
        /// Forgetting factors `< 1` of the discounted feature experts (docs/autokernel.md,
        /// "Changing streams").
        discounts: Vec<f64> = vec![0.999, 0.99] => "seq", "each in (0, 1)";
        /// Widths (multiples of `rho`) of the discounted feature experts.
        discount_widths: Vec<f64> = vec![1.0, 2.0] => "seq", "each > 0";
        /// Ridge parameters of the discounted feature experts.
        discount_lams: Vec<f64> = vec![0.1] => "seq", "each > 0";
        /// Linear experts (online ridge on `(1, x)`, standardised), one per forgetting
        /// factor in `{1} + discounts`.
        linear: bool = true => "bool", "True or False";
        /// Fixed Share rate of the rule (None: 1e-4 for the exponential-weights rules,
        /// 0 for "vaw").
        share: Option<f64> = None => "float", "None or in [0, 1] (0 for 'vaw')";
        /// Rounds of the running loss scale of the rule's regrets (None: 2000 for the
        /// exponential-weights rules, 0 for "vaw"; 0: the plain rule).
        loss_window: Option<usize> = None => "int", "None or >= 0 (0 for 'vaw')";
        /// Restarts after an abrupt change: a fresh AutoKernel as a successor.
        restarts: bool = true => "bool", "True or False";
    }
}

/// `share` and `loss_window` when left None: (exponential-weights rules, "vaw").
const DEFAULT_SHARE: (f64, f64) = (1e-4, 0.0);
const DEFAULT_LOSS_WINDOW: (usize, usize) = (2000, 0);

impl AutoKernelParams {
    pub fn validate(&self) -> Result<()> {
        self.config().check()
    }

    /// The resolved configuration (the defaults that depend on the rule filled in).
    pub fn config(&self) -> AutoKernelConfig {
        let vaw = self.rule == "vaw";
        let pick = |d: (f64, f64)| if vaw { d.1 } else { d.0 };
        let pick_w = |d: (usize, usize)| if vaw { d.1 } else { d.0 };
        AutoKernelConfig {
            warmup: self.warmup,
            widths: self.widths.clone(),
            lams: self.lams.clone(),
            nystrom_widths: self.nystrom_widths.clone(),
            nystrom_lams: self.nystrom_lams.clone(),
            features: self.features,
            n_features: self.n_features,
            max_taylor_features: self.max_taylor_features,
            rule: self.rule.clone(),
            seed: self.seed,
            threads: self.threads,
            discounts: self.discounts.clone(),
            discount_widths: self.discount_widths.clone(),
            discount_lams: self.discount_lams.clone(),
            linear: self.linear,
            share: self.share.unwrap_or(pick(DEFAULT_SHARE)),
            loss_window: self.loss_window.unwrap_or(pick_w(DEFAULT_LOSS_WINDOW)),
            restarts: self.restarts,
        }
    }
}

/// Which expert, in the units of the standardised stream.
#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
pub struct ExpertSpec {
    pub taylor_degree: Option<usize>,
    pub n_features: usize,
    /// Dictionary size of a Nystrom expert (0: a feature expert).
    pub dictionary: usize,
    pub sigma: f64,
    pub lam: f64,
    /// Forgetting factor (1: none).
    #[serde(default = "crate::awv::no_discount")]
    pub gamma: f64,
    /// A linear expert (online ridge on `(1, x)`; `sigma` is 0).
    #[serde(default)]
    pub linear: bool,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(try_from = "AutoKernelState")]
pub struct AutoKernel {
    pub(super) cfg: AutoKernelConfig,
    pub(super) d: Option<usize>,
    pub(super) n_seen: u64,
    /// Outputs `K` ([`super::autokernel_outputs`]): 1 until a first round fixes it.
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
    kept_warm: f64,
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

/// The serialised fields of an [`AutoKernel`], checked as a whole before use.
#[derive(Deserialize)]
struct AutoKernelState {
    cfg: AutoKernelConfig,
    d: Option<usize>,
    n_seen: u64,
    k: usize,
    warm_x: Vec<f64>,
    warm_y: Vec<f64>,
    fitted: Option<Fitted>,
    restart: Option<Restart>,
}

impl TryFrom<AutoKernelState> for AutoKernel {
    type Error = crate::KsError;
    fn try_from(s: AutoKernelState) -> Result<Self> {
        let bad = |what: &str| crate::input_err!("corrupt AutoKernel state: {what}");
        let mut a = AutoKernel::with_config(s.cfg)?;
        let n_exp = a.n_experts();
        let d = match s.d {
            Some(0) => return bad("input dimension 0"),
            Some(d) => d,
            None if s.warm_y.is_empty() && s.warm_x.is_empty() && s.fitted.is_none() => 0,
            None => return bad("rows without an input dimension"),
        };
        let k = s.k;
        if k == 0
            || k > 1 && s.n_seen == 0
            || !s.warm_y.len().is_multiple_of(k)
            || s.warm_x.len() != s.warm_y.len() / k * d
            || s.warm_y.len() / k > a.cfg.warmup
        {
            return bad("warm-up buffers of the wrong size");
        }
        if s.warm_x.iter().chain(&s.warm_y).any(|v| !v.is_finite()) {
            return bad("non-finite warm-up values");
        }
        if let Some(f) = &s.fitted {
            let sc = &f.scaler;
            let ok = sc.x_loc.len() == d
                && sc.x_scale.len() == d
                && sc.x_loc.iter().chain([&sc.y_loc]).all(|v| v.is_finite())
                && sc.x_scale.iter().chain([&sc.y_scale]).all(|v| v.is_finite() && *v > 0.0)
                && f.rho.is_finite()
                && f.rho > 0.0
                && f.specs.len() == n_exp
                && f.mixture.n_experts() == n_exp
                && f.mixture.input_dim().is_none_or(|e| e == d)
                && f.y_extra.len() == k - 1
                && f.y_extra.iter().all(|&(l, s)| l.is_finite() && s.is_finite() && s > 0.0)
                && crate::multi::MultiOutput::n_outputs(&f.mixture).is_none_or(|km| km == k)
                && (f.warm_z.len() == a.cfg.warmup * n_exp || k > 1 && f.warm_z.is_empty());
            if !ok {
                return bad("fitted scale, experts or replay of the wrong shape");
            }
        } else if s.warm_y.len() / k >= a.cfg.warmup {
            return bad("warm-up complete but no experts");
        }
        a.d = s.d;
        a.n_seen = s.n_seen;
        a.k = k;
        a.warm_x = s.warm_x;
        a.warm_y = s.warm_y;
        if let Some(r) = &s.restart {
            r.validate()?;
            let succ_ok = r.successor().is_none_or(|s_| {
                s_.restart.is_none()
                    && bincode::serialize(&s_.cfg).ok()
                        == bincode::serialize(&a.successor_config()).ok()
                    && s_.d.is_none_or(|e| e == d)
                    && (s_.n_seen == 0 || s_.k == k)
            });
            if !a.cfg.restarts || !succ_ok {
                return bad("restart state that does not match the configuration");
            }
        } else if a.cfg.restarts {
            return bad("no restart state");
        }
        a.restart = s.restart;
        a.fitted = s.fitted.map(|mut f| {
            f.xs = vec![0.0; d];
            f
        });
        Ok(a)
    }
}

/// `C(m + d, d)`, or `None` above `cap`.
fn taylor_count(d: usize, m: usize, cap: usize) -> Option<usize> {
    let mut c: u128 = 1;
    for i in 1..=m as u128 {
        c = c * (d as u128 + i) / i;
        if c > cap as u128 {
            return None;
        }
    }
    Some(c as usize)
}

/// Largest Taylor degree whose feature count fits `cap` (at most 12).
fn taylor_degree(d: usize, cap: usize) -> Option<usize> {
    (0..=12usize).rev().find(|&m| taylor_count(d, m, cap).is_some())
}

/// The rule by name from the one table ([`AnyAggregator::from_spec`]) with its default
/// parameters and the Fixed Share rate `share`. "aa" is refused: it needs the label range,
/// which the standardised stream does not fix.
fn make_rule(name: &str, n: usize, share: f64) -> Result<AnyAggregator> {
    if name == "aa" {
        return crate::param_err!(
            "AutoKernel's rule cannot be \"aa\" (it needs a fixed label range), pick another of {}",
            crate::aggregation::rule::rule_names()
        );
    }
    AnyAggregator::from_spec(name, n, &RuleParams { share, ..RuleParams::default() })
}

impl AutoKernel {
    pub fn new(p: &AutoKernelParams) -> Result<Self> {
        p.validate()?;
        Self::with_config(p.config())
    }

    /// The learner for a resolved configuration (checked as [`AutoKernelParams::validate`]
    /// does; the form a pickled state holds).
    pub fn with_config(cfg: AutoKernelConfig) -> Result<Self> {
        cfg.check()?;
        Ok(AutoKernel {
            d: None,
            n_seen: 0,
            k: 1,
            warm_x: Vec::new(),
            warm_y: Vec::new(),
            fitted: None,
            restart: if cfg.restarts { Some(Restart::default()) } else { None },
            kept: Default::default(),
            kept_warm: 0.0,
            cfg,
        })
    }

    /// The configuration of a successor: this one without restarts of its own.
    pub(super) fn successor_config(&self) -> AutoKernelConfig {
        AutoKernelConfig { restarts: false, ..self.cfg.clone() }
    }

    /// The change detector and successor (None without `restarts`).
    pub fn restart(&self) -> Option<&Restart> {
        self.restart.as_ref()
    }

    pub fn config(&self) -> &AutoKernelConfig {
        &self.cfg
    }

    /// Number of experts: `widths x lams` feature experts, then `nystrom_widths x
    /// nystrom_lams` Nystrom experts.
    pub fn n_experts(&self) -> usize {
        Self::expert_count(&self.cfg)
    }

    /// `widths x lams` feature experts, `nystrom_widths x nystrom_lams` Nystrom
    /// experts, `discounts x discount_widths x discount_lams` discounted feature
    /// experts, then `1 + |discounts|` linear experts if `linear`.
    fn expert_count(cfg: &AutoKernelConfig) -> usize {
        cfg.widths.len() * cfg.lams.len()
            + cfg.nystrom_widths.len() * cfg.nystrom_lams.len()
            + cfg.discounts.len() * cfg.discount_widths.len() * cfg.discount_lams.len()
            + if cfg.linear { 1 + cfg.discounts.len() } else { 0 }
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

    /// The Taylor degree the experts use for input dimension `d` (None: random features).
    fn degree_for(&self, d: usize) -> Result<Option<usize>> {
        let m = taylor_degree(d, self.cfg.max_taylor_features);
        match self.cfg.features {
            ExpertFeatures::Rff => Ok(None),
            ExpertFeatures::Auto => Ok(m.filter(|&m| m >= 3)),
            ExpertFeatures::Taylor => match m {
                Some(m) if m >= 1 => Ok(Some(m)),
                _ => crate::input_err!(
                    "Taylor features of degree 1 need {} features for d = {d}, more than max_taylor_features = {}",
                    d + 1,
                    self.cfg.max_taylor_features
                ),
            },
        }
    }

    /// Geometric centres of the width and regularisation grids (the warm-up's choice).
    pub(super) fn grid_centre(&self) -> (f64, f64) {
        let centre = |v: &[f64]| {
            let lo = v.iter().copied().fold(f64::INFINITY, f64::min);
            let hi = v.iter().copied().fold(0.0, f64::max);
            (lo * hi).sqrt()
        };
        (centre(&self.cfg.widths), centre(&self.cfg.lams))
    }

    /// Warm-up prediction: kernel ridge regression on the standardised rows so far.
    fn warm_predict(&self, x: &[f64]) -> f64 {
        let n = self.warm_y.len();
        if n == 0 {
            return 0.0;
        }
        let d = x.len();
        let sc = Scaler::fit(&self.warm_x, d, &self.warm_y);
        let mut xs = vec![0.0; n * d];
        for (o, r) in xs.chunks_exact_mut(d).zip(self.warm_x.chunks_exact(d)) {
            sc.x_into(r, o);
        }
        let ys: Vec<f64> = self.warm_y.iter().map(|&y| sc.y(y)).collect();
        let mut q = vec![0.0; d];
        sc.x_into(x, &mut q);
        let (c, lam) = self.grid_centre();
        sc.y_back(super::warm_krr::predict(&xs, d, &ys, &q, c, lam))
    }

    /// Fixes the scale on the warm-up rows, builds the experts and replays the rows.
    pub(super) fn fit(&self, wx: &[f64], wy: &[f64], d: usize) -> Result<Fitted> {
        let k = self.k;
        let (scaler, y_extra) = super::autokernel_outputs::scalers(wx, d, wy, k);
        let sc = &scaler;
        let extra = y_extra.iter().flat_map(|(l, s)| [l, s]);
        if !sc
            .x_loc
            .iter()
            .chain(&sc.x_scale)
            .chain([&sc.y_loc, &sc.y_scale])
            .chain(extra)
            .all(|v| v.is_finite())
            || !sc
                .x_scale
                .iter()
                .chain([&sc.y_scale])
                .chain(y_extra.iter().map(|e| &e.1))
                .all(|v| *v > 0.0)
        {
            return Err(crate::KsError::Numerical(
                "AutoKernel: the warm-up rows' location or spread overflows double precision \
                 (inputs or targets too large); the learner is unchanged"
                    .into(),
            ));
        }
        let mut xs = vec![0.0; wx.len()];
        for (o, r) in xs.chunks_exact_mut(d).zip(wx.chunks_exact(d)) {
            scaler.x_into(r, o);
        }
        let ys = super::autokernel_outputs::standardise_y(&scaler, &y_extra, wy);
        let rho = median_distance(&xs, d);
        let degree = self.degree_for(d)?;
        let mut rng = Rng::new(self.cfg.seed);
        let (mut experts, mut specs) = (Vec::new(), Vec::new());
        for &c in &self.cfg.widths {
            for &lam in &self.cfg.lams {
                let sigma = c * rho;
                let seed = rng.next_u64();
                let (e, spec) = match degree {
                    Some(m) => (
                        // Blocks of rounds (block_size=None): a batch equals the
                        // round loop up to rounding (docs/choices.md, AutoKernel).
                        AnyLearner::TaylorAwv(TaylorAwv::new(&taylor(sigma, m, lam, 1.0))?),
                        ExpertSpec {
                            taylor_degree: Some(m),
                            n_features: 0,
                            dictionary: 0,
                            sigma,
                            lam,
                            gamma: 1.0,
                            linear: false,
                        },
                    ),
                    None => (
                        AnyLearner::RffAwv(RffAwv::new(&rff(
                            sigma,
                            self.cfg.n_features,
                            lam,
                            seed,
                            1.0,
                        ))?),
                        ExpertSpec {
                            taylor_degree: None,
                            n_features: self.cfg.n_features,
                            dictionary: 0,
                            sigma,
                            lam,
                            gamma: 1.0,
                            linear: false,
                        },
                    ),
                };
                experts.push(e);
                specs.push(spec);
            }
        }
        // PKAWV on the fixed Nystrom dictionary of the standardised warm-up rows.
        let m = ys.len();
        for &c in &self.cfg.nystrom_widths {
            for &lam in &self.cfg.nystrom_lams {
                let sigma = c * rho;
                let e =
                    NystromAwv::with_dictionary(Kernel::Gaussian { sigma }, lam, &xs, d, false)?;
                experts.push(AnyLearner::NystromAwv(e));
                specs.push(ExpertSpec {
                    taylor_degree: None,
                    n_features: 0,
                    dictionary: m,
                    sigma,
                    lam,
                    gamma: 1.0,
                    linear: false,
                });
            }
        }
        // Discounted feature experts (drawn after the others: their seeds do not
        // change the undiscounted experts').
        for &gamma in &self.cfg.discounts {
            for &c in &self.cfg.discount_widths {
                for &lam in &self.cfg.discount_lams {
                    let sigma = c * rho;
                    let seed = rng.next_u64();
                    let (e, taylor_degree, n_features) = match degree {
                        Some(m) => (
                            AnyLearner::TaylorAwv(TaylorAwv::new(&taylor(sigma, m, lam, gamma))?),
                            Some(m),
                            0,
                        ),
                        None => (
                            AnyLearner::RffAwv(RffAwv::new(&rff(
                                sigma,
                                self.cfg.n_features,
                                lam,
                                seed,
                                gamma,
                            ))?),
                            None,
                            self.cfg.n_features,
                        ),
                    };
                    experts.push(e);
                    specs.push(ExpertSpec {
                        taylor_degree,
                        n_features,
                        dictionary: 0,
                        sigma,
                        lam,
                        gamma,
                        linear: false,
                    });
                }
            }
        }
        // Linear experts: online ridge on (1, x) (standardised), undiscounted and
        // at every discount, so that trends extrapolate.
        if self.cfg.linear {
            for gamma in std::iter::once(1.0).chain(self.cfg.discounts.iter().copied()) {
                let e = LinearAwvLearner::new(LINEAR_LAM, true)?.with_gamma(gamma)?;
                experts.push(AnyLearner::Linear(e));
                specs.push(ExpertSpec {
                    taylor_degree: None,
                    n_features: d + 1,
                    dictionary: 0,
                    sigma: 0.0,
                    lam: LINEAR_LAM,
                    gamma,
                    linear: true,
                });
            }
        }
        let n = experts.len();
        let mut mixture = Mixture::new(experts, make_rule(&self.cfg.rule, n, self.cfg.share)?)?;
        if self.cfg.loss_window > 0 {
            mixture = mixture.with_loss_scale(self.cfg.loss_window)?;
        }
        mixture.set_threads(self.cfg.threads)?;
        let warm_z = if k == 1 {
            let mut trace = super::Trace::default();
            mixture.progressive_trace(&xs, ys.len(), d, &ys, &mut trace)?;
            trace.experts.iter().map(|&z| scaler.y_back(z)).collect()
        } else {
            crate::multi::MultiOutput::predict_learn_many_multi(
                &mut mixture,
                &xs,
                d,
                &ys,
                &mut Vec::new(),
            )?;
            Vec::new()
        };
        Ok(Fitted { scaler, y_extra, rho, specs, mixture, warm_z, xs: vec![0.0; d] })
    }

    fn standardise_block(f: &Fitted, x: &[f64], d: usize, y: &[f64]) -> (Vec<f64>, Vec<f64>) {
        let mut xs = vec![0.0; x.len()];
        for (o, r) in xs.chunks_exact_mut(d).zip(x.chunks_exact(d)) {
            f.scaler.x_into(r, o);
        }
        (xs, y.iter().map(|&v| f.scaler.y(v)).collect())
    }

    /// Validated progressive run recording the mixture's trace in `t` (rows after the
    /// warm-up only; warm-up rows get `NaN` expert predictions and weights) in
    /// original units. On Ctrl-C it stops at a round boundary: `t` then holds
    /// exactly the completed rounds, and `n_seen` counts them.
    pub fn progressive_trace(
        &mut self,
        x: &[f64],
        n: usize,
        d: usize,
        y: &[f64],
        t: &mut super::Trace,
    ) -> Result<()> {
        crate::stream::validate(self, x, n, d, Some(y))?;
        self.one_output()?;
        let Some(mut r) = self.restart.take() else { return self.core_trace(x, n, d, y, t) };
        let res = self.restart_rows(&mut r, x, d, y, &mut Vec::with_capacity(n), Some(t));
        self.restart = Some(r);
        res
    }

    /// [`Self::progressive_trace`] of the current learner alone (validated rows).
    fn core_trace(
        &mut self,
        x: &[f64],
        n: usize,
        d: usize,
        y: &[f64],
        t: &mut super::Trace,
    ) -> Result<()> {
        let mut i = 0;
        while i < n && self.fitted.is_none() {
            if let Err(e) = crate::interrupt::poll() {
                Self::pad_warmup(t, i, self.n_experts());
                return Err(e);
            }
            match self.core_predict_learn(&x[i * d..(i + 1) * d], y[i]) {
                Ok(p) => t.predictions.push(p),
                Err(e) => {
                    Self::pad_warmup(t, i, self.n_experts());
                    return Err(e);
                }
            }
            i += 1;
        }
        let Some(f) = self.fitted.as_mut() else {
            Self::pad_warmup(t, n, self.n_experts());
            return Ok(());
        };
        Self::pad_warmup(t, i, f.mixture.n_experts());
        if i < n {
            let (xs, ys) = Self::standardise_block(f, &x[i * d..], d, &y[i..]);
            let mut tr = super::Trace::default();
            // On an interrupt the mixture stops at a round boundary: keep and count
            // the rounds it completed before passing the error on.
            let res = f.mixture.progressive_trace(&xs, n - i, d, &ys, &mut tr);
            t.predictions.extend(tr.predictions.iter().map(|&p| f.scaler.y_back(p)));
            t.experts.extend(tr.experts.iter().map(|&p| f.scaler.y_back(p)));
            t.weights.extend(tr.weights);
            self.n_seen += tr.predictions.len() as u64;
            res?;
        }
        Ok(())
    }

    /// `NaN` expert predictions and weights for the first `rows` (warm-up) rounds.
    fn pad_warmup(t: &mut super::Trace, rows: usize, k: usize) {
        t.experts.resize(rows * k, f64::NAN);
        t.weights.resize(rows * k, f64::NAN);
    }
}

impl AutoKernel {
    /// Rows through the current learner and its successor ([`super::restart`]), in
    /// pieces that end on the rounds where the restart checks happen; with `trace`,
    /// the current learner's experts and weights and the combined predictions. On an
    /// error the successor is dropped (the rows the current learner completed are in
    /// `out`, with its own predictions).
    fn restart_rows(
        &mut self,
        r: &mut Restart,
        x: &[f64],
        d: usize,
        y: &[f64],
        out: &mut Vec<f64>,
        mut trace: Option<&mut super::Trace>,
    ) -> Result<()> {
        let n = y.len();
        let (mut i, mut pm, mut ps) = (0, Vec::new(), Vec::new());
        let mut tr = super::Trace::default();
        while i < n {
            let k = Restart::chunk(self.n_seen, n - i);
            let (xc, yc) = (&x[i * d..(i + k) * d], &y[i..i + k]);
            pm.clear();
            let res = match trace.is_some() {
                true => {
                    tr = super::Trace::default();
                    let r = self.core_trace(xc, k, d, yc, &mut tr);
                    pm.extend_from_slice(&tr.predictions);
                    r
                }
                false => self.core_predict_learn_many(xc, d, yc, &mut pm),
            };
            let res = super::autokernel_steps::successor_chunk(r, res, &mut ps, |s, ps| {
                s.predict_learn_many(xc, d, yc, ps)
            });
            let with_succ = match res {
                Ok(w) => w,
                Err(e) => {
                    out.extend_from_slice(&pm);
                    if let Some(t) = trace.as_deref_mut() {
                        t.predictions.extend_from_slice(&pm);
                        t.experts.extend(&tr.experts);
                        t.weights.extend(&tr.weights);
                    }
                    return Err(e);
                }
            };
            let start = out.len();
            for j in 0..k {
                out.push(r.round(pm[j], with_succ.then(|| ps[j]), yc[j]));
            }
            if let Some(t) = trace.as_deref_mut() {
                t.predictions.extend_from_slice(&out[start..]);
                t.experts.extend(&tr.experts);
                t.weights.extend(&tr.weights);
            }
            self.check_restart(r)?;
            i += k;
        }
        Ok(())
    }

    fn core_predict(&self, x: &[f64]) -> Result<f64> {
        match &self.fitted {
            Some(f) => {
                let mut q = vec![0.0; x.len()];
                f.scaler.x_into(x, &mut q);
                Ok(f.scaler.y_back(f.mixture.predict(&q)?))
            }
            None => Ok(self.warm_predict(x)),
        }
    }

    /// The mixture's noise level in the target's units (NaN during the warm-up).
    fn core_noise_std(&self) -> Option<f64> {
        match &self.fitted {
            Some(f) => f.mixture.noise_std().map(|s| s * f.scaler.y_scale),
            None => Some(f64::NAN),
        }
    }

    /// The mixture's std on the standardised stream, in the target's units; during
    /// the warm-up the prediction with a NaN std (no noise estimate yet).
    fn core_predict_std(&self, x: &[f64]) -> Result<Option<(f64, f64)>> {
        let Some(f) = &self.fitted else { return Ok(Some((self.warm_predict(x), f64::NAN))) };
        let mut q = vec![0.0; x.len()];
        f.scaler.x_into(x, &mut q);
        Ok(f.mixture.predict_std(&q)?.map(|(m, s)| (f.scaler.y_back(m), s * f.scaler.y_scale)))
    }

    fn core_predict_keep(&mut self, x: &[f64]) -> Result<f64> {
        let n_seen = self.n_seen;
        match self.fitted.as_mut() {
            Some(f) => {
                let mut q = std::mem::take(&mut f.xs);
                q.resize(x.len(), 0.0);
                f.scaler.x_into(x, &mut q);
                let r = f.mixture.predict_keep(&q);
                f.xs = q;
                Ok(f.scaler.y_back(r?))
            }
            None => {
                self.kept_warm = self.warm_predict(x);
                self.kept.set(x, n_seen);
                Ok(self.kept_warm)
            }
        }
    }

    fn core_predict_learn(&mut self, x: &[f64], y: f64) -> Result<f64> {
        let d = x.len();
        let kept = self.kept.take(x, self.n_seen);
        if let Some(f) = self.fitted.as_mut() {
            let mut q = std::mem::take(&mut f.xs);
            q.resize(d, 0.0);
            f.scaler.x_into(x, &mut q);
            let r = f.mixture.predict_learn(&q, f.scaler.y(y));
            f.xs = q;
            let p = f.scaler.y_back(r?);
            self.n_seen += 1;
            return Ok(p);
        }
        let p = if kept { self.kept_warm } else { self.warm_predict(x) };
        self.warm_round(x, &[y], self.warm_y.len() + 1 >= self.cfg.warmup)?;
        Ok(p)
    }

    fn core_predict_learn_many(
        &mut self,
        x: &[f64],
        d: usize,
        y: &[f64],
        out: &mut Vec<f64>,
    ) -> Result<()> {
        let n = y.len();
        let mut i = 0;
        while i < n && self.fitted.is_none() {
            out.push(self.core_predict_learn(&x[i * d..(i + 1) * d], y[i])?);
            i += 1;
        }
        if i == n {
            return Ok(());
        }
        let Some(f) = self.fitted.as_mut() else { return Ok(()) };
        // Standardised copies of at most CHUNK rows at a time (bounded extra memory).
        const CHUNK: usize = 8192;
        for (xc, yc) in x[i * d..].chunks(CHUNK * d).zip(y[i..].chunks(CHUNK)) {
            let (xs, ys) = Self::standardise_block(f, xc, d, yc);
            let start = out.len();
            // On an interrupt the mixture stops at a round boundary: count and convert
            // the rounds it completed before passing the error on.
            let res = f.mixture.predict_learn_many(&xs, d, &ys, out);
            for p in &mut out[start..] {
                *p = f.scaler.y_back(*p);
            }
            self.n_seen += (out.len() - start) as u64;
            res?;
        }
        Ok(())
    }
}

impl OnlineLearner for AutoKernel {
    fn input_dim(&self) -> Option<usize> {
        self.d
    }

    fn check_input_dim(&self, d: usize) -> Result<()> {
        self.degree_for(d).map(|_| ())
    }

    /// Once fitted, the experts see the standardised row: they check that one (a
    /// finite input can overflow their features after scaling); before, the
    /// standardised row itself must be finite.
    fn check_row(&self, x: &[f64], y: Option<f64>) -> Result<()> {
        if y.is_some() && self.k > 1 {
            return crate::multi::single_output_err(self.k);
        }
        if let Some(s) = self.restart.as_ref().and_then(|r| r.successor()) {
            s.check_row(x, y)?;
        }
        let Some(f) = &self.fitted else { return Ok(()) };
        let mut q = vec![0.0; x.len()];
        f.scaler.x_into(x, &mut q);
        let ys = y.map(|v| f.scaler.y(v));
        if !q.iter().chain(ys.as_ref()).all(|v| v.is_finite()) {
            return Err(crate::KsError::Numerical(
                "AutoKernel: this row overflows once standardised by the warm-up's scale".into(),
            ));
        }
        f.mixture.check_row(&q, ys)
    }

    fn learn(&mut self, x: &[f64], y: f64) -> Result<()> {
        self.predict_learn(x, y).map(|_| ())
    }

    fn predict(&self, x: &[f64]) -> Result<f64> {
        self.one_output()?;
        let pm = self.core_predict(x)?;
        match &self.restart {
            Some(r) => Ok(r.combine(pm, r.successor_predict(x)?)),
            None => Ok(pm),
        }
    }

    /// With a successor (a restart after a change), the two as a mixture of two
    /// experts with the restart's weights ([`crate::uncertainty::mixture_std`]); a
    /// successor still in its warm-up (NaN std) counts with the main learner's std.
    fn predict_std(&self, x: &[f64]) -> Result<Option<(f64, f64)>> {
        self.one_output()?;
        let Some((pm, sm)) = self.core_predict_std(x)? else { return Ok(None) };
        let Some(r) = &self.restart else { return Ok(Some((pm, sm))) };
        let Some(succ) = r.successor() else { return Ok(Some((pm, sm))) };
        let Some((ps, ss)) = succ.predict_std(x)? else { return Ok(Some((pm, sm))) };
        let ss = if ss.is_finite() { ss } else { sm };
        let p = r.combine(pm, Some(ps));
        Ok(Some((p, crate::uncertainty::mixture_std(&r.weights(), &[pm, ps], &[sm, ss], p))))
    }

    /// None with `K > 1` outputs (one noise level per output).
    fn noise_std(&self) -> Option<f64> {
        if self.k > 1 {
            return None;
        }
        let nm = self.core_noise_std()?;
        let Some(r) = &self.restart else { return Some(nm) };
        match r.successor().and_then(|s| s.noise_std()) {
            Some(ns) if ns.is_finite() => {
                Some(crate::uncertainty::mixture_noise(&r.weights(), &[nm, ns]))
            }
            _ => Some(nm),
        }
    }

    fn predict_keep(&mut self, x: &[f64]) -> Result<f64> {
        self.one_output()?;
        let pm = self.core_predict_keep(x)?;
        match self.restart.as_mut() {
            Some(r) => {
                let ps = match r.successor_mut() {
                    Some(s) => Some(s.predict_keep(x)?),
                    None => None,
                };
                Ok(r.combine(pm, ps))
            }
            None => Ok(pm),
        }
    }

    fn predict_learn(&mut self, x: &[f64], y: f64) -> Result<f64> {
        self.one_output()?;
        let Some(mut r) = self.restart.take() else { return self.core_predict_learn(x, y) };
        let mut out = Vec::with_capacity(1);
        let res = self.restart_rows(&mut r, x, x.len(), &[y], &mut out, None);
        self.restart = Some(r);
        res.map(|()| out[0])
    }

    fn predict_learn_many(
        &mut self,
        x: &[f64],
        d: usize,
        y: &[f64],
        out: &mut Vec<f64>,
    ) -> Result<()> {
        self.one_output()?;
        let Some(mut r) = self.restart.take() else {
            return self.core_predict_learn_many(x, d, y, out);
        };
        let start = out.len();
        let res = self.restart_rows(&mut r, x, d, y, out, None);
        self.restart = Some(r);
        res.map(|_| debug_assert_eq!(out.len() - start, y.len()))
    }

    fn learn_batch(&mut self, x: &[f64], d: usize, y: &[f64]) -> Result<()> {
        let mut out = Vec::with_capacity(y.len());
        self.predict_learn_many(x, d, y, &mut out)
    }

    fn n_seen(&self) -> u64 {
        self.n_seen
    }

    fn dim(&self) -> usize {
        let succ = self.restart.as_ref().and_then(|r| r.successor()).map_or(0, |s| s.dim());
        self.fitted.as_ref().map_or(0, |f| f.mixture.dim()) + succ
    }
}

// The format version of a pickled AutoKernel: bump it when a serialised field changes, or
// the version of a state it holds (its Mixture's, its experts').
crate::state::state_version!(AutoKernel, 10);

impl ValidState for AutoKernel {
    fn validate(&self) -> Result<()> {
        if let Some(r) = &self.restart {
            r.validate()?;
        }
        match &self.fitted {
            Some(f) => f.mixture.validate(),
            None => Ok(()),
        }
    }
    fn check_config(&self, fresh: &Self) -> Result<()> {
        // The configuration is compared through its serialised form (it holds floats).
        let (a, b) = (bincode::serialize(&self.cfg), bincode::serialize(&fresh.cfg));
        crate::state::ensure(a.is_ok() && a.ok() == b.ok(), || {
            "the AutoKernel configuration differs from its parameters".into()
        })
    }
}

/// A Taylor expert's parameters (blocks of rounds: `block_size` None).
fn taylor(sigma: f64, degree: usize, lam: f64, gamma: f64) -> TaylorAwvParams {
    TaylorAwvParams { sigma, degree, lam, gamma, ..Default::default() }
}

/// A random-feature expert's parameters ("cossin" features of a Gaussian kernel).
fn rff(sigma: f64, n_features: usize, lam: f64, seed: u64, gamma: f64) -> RffAwvParams {
    let kernel = Some(Kernel::Gaussian { sigma });
    let features = RffVariant::CosSin;
    RffAwvParams { kernel, n_features, lam, features, seed, gamma, ..Default::default() }
}
