//! The machinery BOA, ML-Poly and ML-Prod share (opera's `mixture` loop): weights from
//! the state, the prediction `<p, z>`, the instantaneous regrets `r_j`
//! ([`regrets_into`]), the rule's own update from `r`, then Fixed Share. A rule is the
//! [`RegretState`] it keeps; [`Regret`] holds what is common (the `gradient` switch, the
//! Fixed Share rate, the round count, the round's buffers) and plays the round.

use super::flat::{self, Holder, Source};
use super::{check_n, combine, fixed_share, softmax_in_place, Aggregator};
use serde::de;
use serde::ser::SerializeStruct;
use serde::{Deserialize, Serialize};

/// What one regret rule keeps and how it learns; the rest of the round is [`Regret`]'s.
pub trait RegretState:
    Clone + std::fmt::Debug + RuleWeights + Serialize + for<'de> Deserialize<'de>
{
    /// The fields of the whole state, in order: `gradient`, `share`, the rule's own,
    /// `n_seen` (state format 4).
    const FIELDS: &'static [&'static str];
    /// Vectors of `n_experts` doubles in the whole rule (for the memory check).
    const VECTORS: u128;
    /// The state before the first round, over `n` experts.
    fn start(n: usize) -> Self;
    /// Number of experts.
    fn experts(&self) -> usize;
    /// The invariants of the state.
    fn validate(&self) -> crate::Result<()>;
    /// The rule's update from this round's regrets `r`.
    fn learn_regrets(&mut self, r: &[f64]);
}

/// Declares a regret rule's state of per-expert vectors (one `Vec<f64>` a field, serde
/// by field name) and its [`RegretState`] impl, whose `FIELDS` (`gradient`, `share`, the
/// fields in order, `n_seen`: state format 4), `VECTORS` (the fields and the round's two
/// buffers) and `experts` follow from the field list; the body gives the rest of the impl.
macro_rules! per_expert_state {
    ($(#[$m:meta])* $name:ident { $($field:ident),+ $(,)? } impl { $($body:tt)* }) => {
        $(#[$m])*
        #[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
        pub struct $name {
            $($field: Vec<f64>,)+
        }

        impl $crate::aggregation::regret::RegretState for $name {
            const FIELDS: &'static [&'static str] =
                &["gradient", "share", $(stringify!($field),)+ "n_seen"];
            const VECTORS: u128 = [$(stringify!($field),)+].len() as u128 + 2;
            fn experts(&self) -> usize {
                [$(self.$field.len(),)+][0]
            }
            $($body)*
        }
    };
}
pub(crate) use per_expert_state;

/// A regret rule's weights: those of the next prediction, and the state that plays
/// given ones (Fixed Share). Every [`LogLinear`] rule has them.
pub trait RuleWeights {
    /// The weights of the next prediction, written into `p`.
    fn probs_into(&self, p: &mut [f64]);
    /// Sets the state so that the next weights are `p` (a probability vector with
    /// positive entries), keeping the weights' normaliser (Fixed Share).
    fn set_probs(&mut self, p: &[f64]);
}

/// Each of `vectors` (a name, the values) holds `n` finite numbers: the invariant every
/// per-expert vector of a rule's state keeps.
pub(crate) fn per_expert(n: usize, vectors: &[(&str, &[f64])]) -> crate::Result<()> {
    for (name, v) in vectors {
        crate::state::len_is(name, v.len(), n)?;
        crate::state::finite(name, v)?;
    }
    Ok(())
}

/// A rule whose weights are `p_j prop exp(logw_j)` (BOA, ML-Prod): its [`RuleWeights`]
/// are the softmax of its log-weights.
pub trait LogLinear {
    /// Expert `j`'s log-weight (`-inf`: weight 0).
    fn log_weight(&self, j: usize) -> f64;
    /// Sets expert `j`'s state so that its log-weight is `lw` (an expert of weight 0
    /// stays so).
    fn set_log_weight(&mut self, j: usize, lw: f64);
}

/// A [`LogLinear`] rule's weights: `p = softmax(logw)` (uniform if every weight is 0);
/// setting them puts the log-weights at `log p_j + L`, `L` the log-sum-exp of the
/// current ones (kept; nothing changes if `L` is not finite).
impl<R: LogLinear> RuleWeights for R {
    fn probs_into(&self, p: &mut [f64]) {
        for (j, pj) in p.iter_mut().enumerate() {
            *pj = self.log_weight(j);
        }
        softmax_in_place(p);
    }
    fn set_probs(&mut self, p: &[f64]) {
        let logw: Vec<f64> = (0..p.len()).map(|j| self.log_weight(j)).collect();
        let l = super::logsumexp(&logw);
        if l.is_finite() {
            for (j, pj) in p.iter().enumerate() {
                self.set_log_weight(j, pj.ln() + l);
            }
        }
    }
}

/// A regret rule `S` with what BOA, ML-Poly and ML-Prod have in common. Its state is
/// one flat struct (`gradient`, `share`, the rule's fields, `n_seen`: state format 4;
/// [`super::flat`]), so the state bytes are those of that format.
#[derive(Clone, Debug)]
pub struct Regret<S> {
    gradient: bool,
    /// Fixed Share rate (docs/choices.md, "Fixed Share").
    share: f64,
    rule: S,
    n_seen: u64,
    scratch: Vec<f64>,
    r: Vec<f64>,
}

impl<S: RegretState> Holder for Regret<S> {
    type Rule = S;
    type Read = (Option<bool>, Option<f64>, Option<u64>);
    const NAME: &'static str = "Regret";
    const OWN: &'static [&'static str] = &["gradient", "share", "n_seen"];
    const BEFORE: usize = 2;
    const FIELDS: &'static [&'static str] = S::FIELDS;
    fn rule(&self) -> &S {
        &self.rule
    }
    fn write<M: SerializeStruct>(&self, key: &'static str, out: &mut M) -> Result<(), M::Error> {
        match key {
            "gradient" => out.serialize_field(key, &self.gradient),
            "share" => out.serialize_field(key, &self.share),
            _ => out.serialize_field(key, &self.n_seen),
        }
    }
    fn read<'de, R: Source<'de>>(
        found: &mut Self::Read,
        key: &str,
        src: &mut R,
    ) -> Result<bool, R::Error> {
        match key {
            "gradient" => found.0 = Some(src.value()?),
            "share" => found.1 = Some(src.value()?),
            "n_seen" => found.2 = Some(src.value()?),
            _ => return Ok(false),
        }
        Ok(true)
    }
    fn assemble<E: de::Error>((gradient, share, n_seen): Self::Read, rule: S) -> Result<Self, E> {
        Ok(Regret {
            gradient: gradient.ok_or_else(|| E::missing_field("gradient"))?,
            // States saved before Fixed Share existed: no sharing.
            share: share.unwrap_or_else(super::no_share),
            rule,
            n_seen: n_seen.ok_or_else(|| E::missing_field("n_seen"))?,
            scratch: Vec::new(),
            r: Vec::new(),
        })
    }
}

flat::holder_serde!(Regret, RegretState);

impl<S: RegretState> Regret<S> {
    /// The rule over `n_experts` experts; `gradient`: linearised regrets (opera's
    /// `loss.gradient = TRUE`) or plain ones.
    pub fn new(n_experts: usize, gradient: bool) -> crate::Result<Self> {
        let n = check_n(n_experts, S::VECTORS)?;
        Ok(Regret {
            gradient,
            share: 0.0,
            rule: S::start(n),
            n_seen: 0,
            scratch: vec![0.0; n],
            r: vec![0.0; n],
        })
    }
    pub fn gradient(&self) -> bool {
        self.gradient
    }
    /// Sets the Fixed Share rate `share` in [0, 1] (0: the plain rule).
    pub fn with_share(mut self, share: f64) -> crate::Result<Self> {
        self.share = super::check_share(share)?;
        Ok(self)
    }

    /// One round: returns the prediction made before `y`. The regrets are those of the
    /// loss weighted by `w`: `w r_j` (`w = 1`: plain).
    fn round(&mut self, z: &[f64], y: f64, w: f64) -> f64 {
        let n = self.rule.experts();
        let (p, r) = (&mut self.scratch, &mut self.r);
        p.resize(n, 0.0);
        r.resize(n, 0.0);
        self.rule.probs_into(p);
        let pred = combine(p, z);
        regrets_into(z, y, pred, self.gradient, r);
        if w != 1.0 {
            r.iter_mut().for_each(|v| *v *= w);
        }
        self.rule.learn_regrets(r);
        self.n_seen += 1;
        if self.share > 0.0 && n > 1 {
            // Fixed Share: the next round plays (1 - share) p + share / N.
            self.rule.probs_into(p);
            fixed_share(p, self.share);
            self.rule.set_probs(p);
        }
        pred
    }
}

/// Instantaneous regrets `r_j = l_t(y_hat) - l_t(z_j)` for the square loss
/// (opera's `loss.gradient`; docs/choices.md, "BOA, ML-Poly, ML-Prod"): linearised
/// (`gradient`, opera's default)
/// `r_j = 2 (y_hat - y)(y_hat - z_j)`, else `(y_hat - y)^2 - (z_j - y)^2`.
pub(crate) fn regrets_into(z: &[f64], y: f64, y_hat: f64, gradient: bool, r: &mut [f64]) {
    for (rj, zj) in r.iter_mut().zip(z) {
        *rj = if gradient {
            2.0 * (y_hat - y) * (y_hat - zj)
        } else {
            (y_hat - y).powi(2) - (zj - y).powi(2)
        };
    }
}

impl<S: RegretState> Aggregator for Regret<S> {
    fn n_experts(&self) -> usize {
        self.rule.experts()
    }
    fn predict(&self, z: &[f64]) -> f64 {
        combine(&self.weights(), z)
    }
    fn predict_update(&mut self, z: &[f64], y: f64) -> f64 {
        self.round(z, y, 1.0)
    }
    fn predict_update_weighted(&mut self, z: &[f64], y: f64, w: f64) -> f64 {
        self.round(z, y, w)
    }
    fn weights(&self) -> Vec<f64> {
        let mut p = vec![0.0; self.rule.experts()];
        self.rule.probs_into(&mut p);
        p
    }
    fn n_seen(&self) -> u64 {
        self.n_seen
    }
}

impl<S: RegretState> crate::state::ValidState for Regret<S> {
    fn validate(&self) -> crate::Result<()> {
        self.rule.validate()
    }
    fn check_config(&self, fresh: &Self) -> crate::Result<()> {
        crate::state::same("n_experts", &self.rule.experts(), &fresh.rule.experts())?;
        crate::state::same("gradient", &self.gradient, &fresh.gradient)?;
        crate::state::same("share", &self.share, &fresh.share)
    }
}
