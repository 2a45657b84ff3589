//! AutoKernel's parameters and its configuration: the expert grid, the rule and the drift options.

use super::AutoKernel;
use crate::aggregation::{AnyAggregator, RuleParams};
use crate::error::Result;
use crate::features::rff::MAX_RFF_FEATURES;
use crate::features::taylor::MAX_TAYLOR_FEATURES;
use serde::{Deserialize, Serialize};

/// Ridge parameter of the linear experts (standardised inputs and targets).
pub(super) const LINEAR_LAM: f64 = 1.0;
/// Largest `loss_window` (a discount `1 - 1/window` still distinct from 1).
const MAX_LOSS_WINDOW: usize = 1_000_000_000;
/// Largest number of the warm-up's kernel ridge widths (`warm_widths`).
const MAX_WARM_WIDTHS: usize = 16;

crate::names! {
    /// Which feature map the experts use.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
    pub enum ExpertFeatures as "features" {
        /// Taylor when a degree `>= 3` fits `max_taylor_features`, else random features.
        Auto = "auto",
        Taylor = "taylor",
        Rff = "rff",
    }
}

crate::params! {
    /// The parameters of an [`AutoKernel`], its one declaration: the learner holds them
    /// as given (the state too), `share` and `loss_window` resolved by the rule
    /// ([`AutoKernelParams::resolved_share`]). A field absent from a saved state takes
    /// its declared default: an option is added with a neutral default (the learner
    /// before it, bit for bit), or, when its default changed since, the value declared
    /// as `absent` (the behaviour the state was saved with,
    /// [`crate::params::absent_default`]).
    pub struct AutoKernelParams {
        /// Warm-up rounds before the scale is fixed.
        warmup: usize = 200 => "int", crate::params::between(3.0, 5000.0);
        /// Kernel widths, as multiples of the median distance `rho`.
        widths: Vec<f64> = vec![0.5, 1.0, 2.0, 4.0] => "seq", crate::params::SCALE.non_empty();
        /// Ridge parameters of the experts (targets are standardised).
        lams: Vec<f64> = vec![0.01, 0.1, 1.0] => "seq", crate::params::SCALE.non_empty();
        /// Widths (multiples of `rho`) of the Nystrom experts on the warm-up rows.
        nystrom_widths: Vec<f64> = vec![0.5, 1.0] => "seq", crate::params::SCALE.each();
        /// Ridge parameters of the Nystrom experts.
        nystrom_lams: Vec<f64> = vec![0.01, 0.1] => "seq", crate::params::SCALE.each();
        /// The experts' feature map.
        features: ExpertFeatures = ExpertFeatures::Auto => "str", ExpertFeatures::DOMAIN;
        /// Random Fourier frequencies per expert (cos-sin pairs: `2 n_features` features).
        n_features: usize = 50 => "int", crate::params::between(1.0, (MAX_RFF_FEATURES / 2) as f64);
        /// Largest Taylor feature count `C(M + d, d)` per expert.
        max_taylor_features: usize = 200 => "int", crate::params::between(1.0, MAX_TAYLOR_FEATURES as f64);
        /// Aggregation rule.
        rule: String = "boa".into() => "str", crate::params::one_of(&crate::aggregation::rule::RULE_NAMES).note("not 'aa'");
        /// Seed of the random features.
        seed: u64 = 0 => "int", crate::params::WHOLE;
        /// Threads running the experts (0 = one per core); not part of the results.
        threads: usize = 0 => "int", crate::parallel::THREADS;
        /// Forgetting factors `< 1` of the discounted feature experts (docs/autokernel.md,
        /// "Changing streams").
        discounts: Vec<f64> = vec![0.999, 0.99] => "seq", crate::params::between(0.0, 1.0).open_lo().open_hi().each().note("gamma^r >= 1e-6 for r features per expert");
        /// Widths (multiples of `rho`) of the discounted feature experts.
        discount_widths: Vec<f64> = vec![1.0, 2.0] => "seq", crate::params::SCALE.each();
        /// Ridge parameters of the discounted feature experts.
        discount_lams: Vec<f64> = vec![0.1] => "seq", crate::params::SCALE.each();
        /// Linear experts (online ridge on `(1, x)`, standardised), one per forgetting
        /// factor in `{1} + discounts`.
        linear: bool = true => "bool", crate::params::flag();
        /// Fixed Share rate of the rule (None: 1e-4 for the exponential-weights rules,
        /// 0 for "vaw").
        share: Option<f64> = None => "float", crate::params::FRACTION.or_none().note("0 for 'vaw'");
        /// Rounds of the running loss scale of the rule's regrets (None: 2000 for the
        /// exponential-weights rules, 0 for "vaw"; 0: the plain rule).
        loss_window: Option<usize> = None => "int", crate::params::between(0.0, MAX_LOSS_WINDOW as f64).or_none().note("0 for 'vaw'");
        /// Restarts after an abrupt change: a fresh AutoKernel as a successor.
        restarts: bool = true => "bool", crate::params::flag();
        /// Widths (multiples of `rho`) of the constant-step experts (FOGD on
        /// [`FOGD_FREQUENCIES`] frequencies, its default step).
        fogd_widths: Vec<f64> = vec![2.0] => "seq", crate::params::SCALE.each();
        /// Widths (multiples of the median L1 distance) of the Laplacian dictionary
        /// experts.
        laplace_widths: Vec<f64> = vec![1.0, 2.0] => "seq", crate::params::SCALE.each();
        /// Ridge parameters of the Laplacian dictionary experts.
        laplace_lams: Vec<f64> = vec![0.1] => "seq", crate::params::SCALE.each();
        /// During the warm-up, mix the kernel ridge prediction with the target of the
        /// nearest row so far by AdaHedge (docs/autokernel.md, step 1).
        /// States saved before it was the default lack it: they warm up with kernel
        /// ridge alone.
        warm_neighbour: bool = true, absent = false => "bool", crate::params::flag();
        /// With `K > 1` target columns, the warm-up mix of `warm_neighbour` column by
        /// column (one AdaHedge per column; off: kernel ridge alone), so that `K`
        /// outputs equal `K` single-output AutoKernels (docs/classification.md).
        warm_neighbour_outputs: bool = false => "bool", crate::params::flag();
        /// Widths (multiples of `rho_t`) of the warm-up's kernel ridge predictors, one
        /// each, its ridge the centre of `lams`; AdaHedge mixes them with the nearest
        /// row (`warm_neighbour`) on their squared errors (docs/autokernel.md, step 1).
        /// Empty: one at the centre of `widths`, as states saved before it was the
        /// default (with `K > 1` outputs, `warm_neighbour_outputs` uses them).
        warm_widths: Vec<f64> = WARM_WIDTHS.to_vec(), absent = Vec::new() => "seq", crate::params::SCALE.each().note("at most 16 entries");
    }
}

/// The warm-up's widths: the centre of the default `widths` (`sqrt 2`) and a factor 2
/// on either side.
const WARM_WIDTHS: [f64; 3] =
    [std::f64::consts::FRAC_1_SQRT_2, std::f64::consts::SQRT_2, 2.0 * std::f64::consts::SQRT_2];

/// `share` and `loss_window` when left None: (exponential-weights rules, "vaw").
const DEFAULT_SHARE: (f64, f64) = (1e-4, 0.0);
const DEFAULT_LOSS_WINDOW: (usize, usize) = (2000, 0);
/// Frequencies of AutoKernel's constant-step experts (FOGD's default).
pub(super) const FOGD_FREQUENCIES: usize = 100;

impl AutoKernelParams {
    /// The Fixed Share rate of the rule (None: the rule's default).
    pub fn resolved_share(&self) -> f64 {
        let vaw = self.rule == "vaw";
        self.share.unwrap_or(if vaw { DEFAULT_SHARE.1 } else { DEFAULT_SHARE.0 })
    }

    /// The loss-scale window of the rule (None: the rule's default; 0: none).
    pub fn resolved_loss_window(&self) -> usize {
        let vaw = self.rule == "vaw";
        self.loss_window.unwrap_or(if vaw { DEFAULT_LOSS_WINDOW.1 } else { DEFAULT_LOSS_WINDOW.0 })
    }

    /// The checks between the values (each is in its declared domain first).
    fn relations(&self) -> Result<()> {
        let cfg = self;
        let r = cfg.max_taylor_features.max(2 * cfg.n_features);
        for &g in &cfg.discounts {
            crate::awv::check_discount_span(g, r, "features per expert")?;
        }
        let (share, loss_window) = (cfg.resolved_share(), cfg.resolved_loss_window());
        if loss_window > 0 && cfg.rule == "vaw" {
            return crate::param_err!(
                "loss_window (regrets relative to the loss scale) needs rule \"boa\", \"mlpoly\", \"mlprod\" or \"ewa\", got \"vaw\""
            );
        }
        // each width is one factorisation of the warm-up rows a round, and a round is
        // the unit Ctrl-C interrupts at
        if cfg.warm_widths.len() > MAX_WARM_WIDTHS {
            return crate::param_err!(
                "warm_widths has {} entries, at most {MAX_WARM_WIDTHS} are allowed",
                cfg.warm_widths.len()
            );
        }
        let n = AutoKernel::expert_count(cfg);
        if n > 1000 {
            return crate::param_err!("the grids give {n} experts, at most 1000 are allowed");
        }
        make_rule(&cfg.rule, n, share)?;
        Ok(())
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
    /// A constant-step expert (FOGD on `n_features` random features; `lam` is its step).
    #[serde(default)]
    pub first_order: bool,
    /// A dictionary expert of the Laplacian kernel (`sigma` in L1 units).
    #[serde(default)]
    pub laplacian: bool,
}

/// The rule by name from the one table ([`AnyAggregator::from_spec`]) with its default
/// parameters and the Fixed Share rate `share`. "aa" is refused: it needs the label range,
/// which the standardised stream does not fix.
pub(super) fn make_rule(name: &str, n: usize, share: f64) -> Result<AnyAggregator> {
    if name == "aa" {
        return crate::param_err!(
            "AutoKernel's rule cannot be \"aa\" (it needs a fixed label range), pick another of {}",
            crate::aggregation::rule::rule_names()
        );
    }
    AnyAggregator::from_spec(name, n, &RuleParams { share, ..RuleParams::default() })
}

#[cfg(test)]
mod tests {
    use super::AutoKernelParams;
    use std::collections::BTreeMap;

    /// A state's parameters that lack `warm_neighbour` and `warm_widths` (saved before
    /// they were the defaults) decode with `false` and empty, the others with their
    /// defaults; a fresh default has `true` and three widths. The encoding is the states' (MessagePack, structs as maps).
    #[test]
    fn a_state_without_the_warm_up_options_decodes_as_saved() {
        assert!(AutoKernelParams::default().warm_neighbour);
        assert_eq!(AutoKernelParams::default().warm_widths.len(), 3);
        let old = BTreeMap::from([("warmup", 50usize), ("seed", 7)]);
        let bytes = rmp_serde::to_vec_named(&old).unwrap();
        let got: AutoKernelParams = crate::state::codec::decode_payload(&bytes).unwrap();
        let want = AutoKernelParams {
            warmup: 50,
            seed: 7,
            warm_neighbour: false,
            warm_widths: Vec::new(),
            ..Default::default()
        };
        assert_eq!(got, want);
        // A state that holds the field keeps its value.
        let new = AutoKernelParams { warm_neighbour: true, ..want.clone() };
        let mut bytes = Vec::new();
        serde::Serialize::serialize(
            &new,
            &mut rmp_serde::Serializer::new(&mut bytes).with_struct_map(),
        )
        .unwrap();
        let back: AutoKernelParams = crate::state::codec::decode_payload(&bytes).unwrap();
        assert_eq!(back, new);
    }
}
