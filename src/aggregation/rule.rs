//! The one table of aggregation rules, as [`crate::kernels::Kernel::from_spec`] is for
//! kernels: [`AnyAggregator`] is the enum of the six rules, [`RULES`] their names and
//! parameters, [`RuleParams`] the parameters' defaults, and
//! [`AnyAggregator::from_spec`] the one name -> rule constructor. MultiKernelAWV's
//! meta level, Mixture and AutoKernel build their rule through it; the Python faces
//! read the names and defaults from it (`_core.aggregation_rules()`).

use super::{AggregatingAlgorithm, Aggregator, Boa, Ewa, MlPoly, MlProd, VawMeta};
use crate::error::Result;
use serde::{Deserialize, Serialize};

/// One rule of the table: its name, the Python class of its face and the parameters
/// (fields of [`RuleParams`]) it reads.
#[derive(Clone, Copy, Debug)]
pub struct RuleInfo {
    pub name: &'static str,
    pub class: &'static str,
    pub params: &'static [&'static str],
}

/// Every rule, by name (VAW2 paper, sec. 3-4; opera's rules).
pub const RULES: [RuleInfo; 6] = [
    RuleInfo { name: "vaw", class: "VAWMeta", params: &["lam", "ridge"] },
    RuleInfo { name: "ewa", class: "EWA", params: &["eta", "share"] },
    RuleInfo { name: "aa", class: "AggregatingAlgorithm", params: &["lo", "hi"] },
    RuleInfo { name: "boa", class: "BOA", params: &["gradient", "share"] },
    RuleInfo { name: "mlpoly", class: "MLPoly", params: &["gradient", "share"] },
    RuleInfo { name: "mlprod", class: "MLProd", params: &["gradient", "share"] },
];

/// The rules' names, in [`RULES`]'s order.
pub const RULE_NAMES: [&str; RULES.len()] = {
    let mut names = [""; RULES.len()];
    let mut i = 0;
    while i < RULES.len() {
        names[i] = RULES[i].name;
        i += 1;
    }
    names
};

crate::params! {
    /// The parameters of the rules, declared once ([`crate::params!`]): each one's
    /// default, kind and domain. A rule reads the fields [`RULES`] lists for it, and its
    /// constructor checks them against the same domains.
    #[derive(Copy)]
    pub struct RuleParams {
        /// VAW: ridge of the meta-level VAW.
        lam: f64 = 1.0 => "float", crate::params::SCALE;
        /// VAW: online ridge (current point left out) instead of VAW.
        ridge: bool = false => "bool", crate::params::flag();
        /// EWA: learning rate.
        eta: f64 = 0.5 => "float", crate::params::SCALE;
        /// AA: the label range `[lo, hi]`.
        lo: f64 = 0.0 => "float", ANY_FINITE.note("lo < hi");
        hi: f64 = 1.0 => "float", ANY_FINITE.note("lo < hi");
        /// BOA, ML-Poly, ML-Prod: linearised square loss (opera's `loss.gradient`).
        gradient: bool = true => "bool", crate::params::flag();
        /// EWA, BOA, ML-Poly, ML-Prod: Fixed Share rate.
        share: f64 = 0.0 => "float", crate::params::FRACTION;
    }
}

/// A finite number, without bounds.
const ANY_FINITE: crate::params::Constraint =
    crate::params::between(f64::NEG_INFINITY, f64::INFINITY);

impl RuleParams {
    /// `lo < hi` (the AA's range; the only relation, and the AA's constructor checks it).
    fn relations(&self) -> Result<()> {
        if self.lo < self.hi {
            Ok(())
        } else {
            crate::param_err!("need finite lo < hi, got lo = {}, hi = {}", self.lo, self.hi)
        }
    }
}

/// `"vaw", "ewa", ...` for error messages.
pub fn rule_names() -> String {
    RULES.iter().map(|r| format!("{:?}", r.name)).collect::<Vec<_>>().join(", ")
}

/// The rules that take a Fixed Share rate, for error messages.
fn sharing_names() -> String {
    RULES
        .iter()
        .filter(|r| r.params.contains(&"share"))
        .map(|r| format!("{:?}", r.name))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Any of the rules, for learners that choose one at construction (enum dispatch,
/// serialisable with the learner). One per learner, so the size of the largest variant
/// (the VAW meta level's engine) costs nothing worth a box.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug, Serialize, Deserialize)]
pub enum AnyAggregator {
    Vaw(VawMeta),
    Ewa(Ewa),
    Aa(AggregatingAlgorithm),
    Boa(Boa),
    MlPoly(MlPoly),
    MlProd(MlProd),
}

macro_rules! dispatch {
    ($self:expr, $a:ident => $e:expr) => {
        match $self {
            AnyAggregator::Vaw($a) => $e,
            AnyAggregator::Ewa($a) => $e,
            AnyAggregator::Aa($a) => $e,
            AnyAggregator::Boa($a) => $e,
            AnyAggregator::MlPoly($a) => $e,
            AnyAggregator::MlProd($a) => $e,
        }
    };
}

impl AnyAggregator {
    /// The rule called `name` ([`RULES`]) over `n` experts with the parameters it reads
    /// from `p`; a nonzero `p.share` on a rule without Fixed Share is refused.
    pub fn from_spec(name: &str, n: usize, p: &RuleParams) -> Result<Self> {
        let rule = match name {
            "vaw" => AnyAggregator::Vaw(VawMeta::new(n, p.lam, p.ridge)?),
            "ewa" => AnyAggregator::Ewa(Ewa::new(n, p.eta)?),
            "aa" => AnyAggregator::Aa(AggregatingAlgorithm::new(n, p.lo, p.hi)?),
            "boa" => AnyAggregator::Boa(Boa::new(n, p.gradient)?),
            "mlpoly" => AnyAggregator::MlPoly(MlPoly::new(n, p.gradient)?),
            "mlprod" => AnyAggregator::MlProd(MlProd::new(n, p.gradient)?),
            _ => {
                return crate::param_err!(
                    "the aggregation rule must be one of {}, got {name:?}",
                    rule_names()
                )
            }
        };
        rule.with_share(p.share)
    }

    /// The rule's name in [`RULES`].
    pub fn name(&self) -> &'static str {
        match self {
            AnyAggregator::Vaw(_) => "vaw",
            AnyAggregator::Ewa(_) => "ewa",
            AnyAggregator::Aa(_) => "aa",
            AnyAggregator::Boa(_) => "boa",
            AnyAggregator::MlPoly(_) => "mlpoly",
            AnyAggregator::MlProd(_) => "mlprod",
        }
    }

    /// Sets the Fixed Share rate `share` in [0, 1] (Herbster and Warmuth 1998); the
    /// rules without it ("vaw", "aa") accept 0 only.
    pub fn with_share(self, share: f64) -> Result<Self> {
        Ok(match self {
            AnyAggregator::Ewa(a) => AnyAggregator::Ewa(a.with_share(share)?),
            AnyAggregator::Boa(a) => AnyAggregator::Boa(a.with_share(share)?),
            AnyAggregator::MlPoly(a) => AnyAggregator::MlPoly(a.with_share(share)?),
            AnyAggregator::MlProd(a) => AnyAggregator::MlProd(a.with_share(share)?),
            other => {
                super::check_share(share)?;
                if share > 0.0 {
                    return crate::param_err!(
                        "share (Fixed Share) needs the rule {}, got {:?}",
                        sharing_names(),
                        other.name()
                    );
                }
                other
            }
        })
    }
}

impl crate::state::ValidState for AnyAggregator {
    fn validate(&self) -> Result<()> {
        dispatch!(self, a => a.validate())
    }
    fn check_config(&self, fresh: &Self) -> Result<()> {
        use AnyAggregator::*;
        match (self, fresh) {
            (Vaw(a), Vaw(b)) => a.check_config(b),
            (Ewa(a), Ewa(b)) => a.check_config(b),
            (Aa(a), Aa(b)) => a.check_config(b),
            (Boa(a), Boa(b)) => a.check_config(b),
            (MlPoly(a), MlPoly(b)) => a.check_config(b),
            (MlProd(a), MlProd(b)) => a.check_config(b),
            _ => crate::input_err!(
                "the pickled parameters do not match the learner state: another aggregation rule"
            ),
        }
    }
}

impl Aggregator for AnyAggregator {
    fn n_experts(&self) -> usize {
        dispatch!(self, a => a.n_experts())
    }
    fn predict(&self, z: &[f64]) -> f64 {
        dispatch!(self, a => a.predict(z))
    }
    fn predict_update(&mut self, z: &[f64], y: f64) -> f64 {
        dispatch!(self, a => a.predict_update(z, y))
    }
    fn predict_update_weighted(&mut self, z: &[f64], y: f64, w: f64) -> f64 {
        dispatch!(self, a => a.predict_update_weighted(z, y, w))
    }
    fn weights(&self) -> Vec<f64> {
        dispatch!(self, a => a.weights())
    }
    fn n_seen(&self) -> u64 {
        dispatch!(self, a => a.n_seen())
    }
    fn check_update(&self, z: &[f64], y: f64) -> Result<()> {
        dispatch!(self, a => a.check_update(z, y))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_builds_its_rule_and_reads_listed_params() {
        for r in RULES {
            let a = AnyAggregator::from_spec(r.name, 3, &RuleParams::default()).unwrap();
            assert_eq!(a.name(), r.name);
            assert_eq!(a.n_experts(), 3);
            for p in r.params {
                use crate::params::Params;
                assert!(RuleParams::SPECS.iter().any(|s| s.name == *p), "{p}");
            }
        }
        assert!(AnyAggregator::from_spec("opera", 3, &RuleParams::default()).is_err());
    }

    #[test]
    fn share_only_where_the_rule_has_it() {
        let p = RuleParams { share: 0.1, ..RuleParams::default() };
        for r in RULES {
            let ok = AnyAggregator::from_spec(r.name, 2, &p).is_ok();
            assert_eq!(ok, r.params.contains(&"share"), "{}", r.name);
        }
    }
}

#[cfg(test)]
mod declared {
    use super::*;
    use crate::params::Params;

    #[test]
    fn the_declared_defaults_pass_the_declared_checks() {
        RuleParams::default().validate().unwrap();
        let flipped = RuleParams { lo: 1.0, hi: 0.0, ..RuleParams::default() };
        assert!(flipped.check().is_err());
        // Every rule parameter the table lists is declared once.
        let declared: Vec<&str> = RuleParams::SPECS.iter().map(|s| s.name).collect();
        for r in RULES {
            assert!(r.params.iter().all(|p| declared.contains(p)), "{}", r.name);
        }
    }
}
