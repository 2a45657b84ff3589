//! The machinery EWA and the Aggregating Algorithm share: exponential weights over the
//! experts' square losses, kept in the log domain. The rule ([`ExpRule`]) gives the
//! rate, the loss and the prediction from the weights; [`ExpWeights`] keeps the
//! log-weights and the round count, and plays the round: `logw_j -= w eta loss_j`,
//! renormalised so that the largest log-weight is 0, then Fixed Share where the rule has
//! it.

use super::flat::{self, Holder, Source};
use super::{check_n, fixed_share, no_nan_or_pos_inf, renormalise_log, softmax_into, Aggregator};
use serde::de;
use serde::ser::SerializeStruct;
use serde::{Deserialize, Serialize};

/// Vectors of `n_experts` doubles in the state (for the memory check).
const VECTORS: u128 = 2;

/// What one exponential-weights rule sets: its rate, its loss and its prediction.
pub trait ExpRule: Clone + std::fmt::Debug + Serialize + for<'de> Deserialize<'de> {
    /// The fields of the whole state, in order: the rule's own, `logw`, `n_seen` (state
    /// format 4).
    const FIELDS: &'static [&'static str];
    /// The rate `eta` the losses are multiplied by.
    fn eta(&self) -> f64;
    /// Expert `j`'s loss `(z_j - y)^2` as the rule counts it (before `eta`).
    fn loss(&self, zj: f64, y: f64) -> f64;
    /// The prediction for `z` from the log-weights `logw` (`buf`: scratch of any length).
    fn predict_with(&self, logw: &[f64], z: &[f64], buf: &mut Vec<f64>) -> f64;
    /// The Fixed Share rate (0: none).
    fn share(&self) -> f64 {
        0.0
    }
    /// The rule's configuration equals that of `fresh` (restoring a state).
    fn check_config(&self, fresh: &Self) -> crate::Result<()>;
}

/// An exponential-weights rule `S` with its log-weights. Its state is one flat struct
/// (the rule's fields, `logw`, `n_seen`: state format 4; [`super::flat`]).
#[derive(Clone, Debug)]
pub struct ExpWeights<S> {
    rule: S,
    /// `-eta * cumulative loss`, shifted so that the maximum is 0.
    logw: Vec<f64>,
    n_seen: u64,
    buf: Vec<f64>,
}

impl<S: ExpRule> Holder for ExpWeights<S> {
    type Rule = S;
    type Read = (Option<Vec<f64>>, Option<u64>);
    const NAME: &'static str = "ExpWeights";
    const OWN: &'static [&'static str] = &["logw", "n_seen"];
    const BEFORE: usize = 0;
    const FIELDS: &'static [&'static str] = S::FIELDS;
    fn rule(&self) -> &S {
        &self.rule
    }
    fn write<M: SerializeStruct>(&self, key: &'static str, out: &mut M) -> Result<(), M::Error> {
        if key == "logw" {
            out.serialize_field(key, &self.logw)
        } else {
            out.serialize_field(key, &self.n_seen)
        }
    }
    fn read<'de, R: Source<'de>>(
        (logw, n_seen): &mut Self::Read,
        key: &str,
        src: &mut R,
    ) -> Result<bool, R::Error> {
        match key {
            "logw" => *logw = Some(src.value()?),
            "n_seen" => *n_seen = Some(src.value()?),
            _ => return Ok(false),
        }
        Ok(true)
    }
    fn assemble<E: de::Error>(found: Self::Read, rule: S) -> Result<Self, E> {
        let logw = found.0.ok_or_else(|| E::missing_field("logw"))?;
        let n_seen = found.1.ok_or_else(|| E::missing_field("n_seen"))?;
        Ok(ExpWeights { rule, logw, n_seen, buf: Vec::new() })
    }
}

flat::holder_serde!(ExpWeights, ExpRule);

impl<S: ExpRule> ExpWeights<S> {
    /// Uniform weights over `n_experts` experts (checked first), then the rule `make`
    /// builds (its own checks).
    pub(crate) fn start(
        n_experts: usize,
        make: impl FnOnce() -> crate::Result<S>,
    ) -> crate::Result<Self> {
        let n = check_n(n_experts, VECTORS)?;
        Ok(ExpWeights { rule: make()?, logw: vec![0.0; n], n_seen: 0, buf: vec![0.0; n] })
    }
    pub(crate) fn rule(&self) -> &S {
        &self.rule
    }
    pub(crate) fn rule_mut(&mut self) -> &mut S {
        &mut self.rule
    }
}

impl<S: ExpRule> Aggregator for ExpWeights<S> {
    fn n_experts(&self) -> usize {
        self.logw.len()
    }
    fn predict(&self, z: &[f64]) -> f64 {
        self.rule.predict_with(&self.logw, z, &mut Vec::new())
    }
    fn predict_update(&mut self, z: &[f64], y: f64) -> f64 {
        self.predict_update_weighted(z, y, 1.0)
    }
    /// `logw_j -= w eta loss_j` (`w eta = eta` exactly for `w = 1`).
    fn predict_update_weighted(&mut self, z: &[f64], y: f64, w: f64) -> f64 {
        let eta = w * self.rule.eta();
        let pred = self.rule.predict_with(&self.logw, z, &mut self.buf);
        // If every expert's loss overflows to +inf in the same round, the round
        // carries no relative information: skip it.
        let all_inf = z.iter().all(|&zj| !(eta * self.rule.loss(zj, y)).is_finite());
        if !all_inf {
            for (l, &zj) in self.logw.iter_mut().zip(z) {
                *l -= eta * self.rule.loss(zj, y);
            }
            renormalise_log(&mut self.logw);
        }
        let share = self.rule.share();
        if share > 0.0 && self.logw.len() > 1 {
            // Fixed Share: logw = log((1 - share) softmax(logw) + share / N).
            self.buf.resize(self.logw.len(), 0.0);
            softmax_into(&self.logw, &mut self.buf);
            fixed_share(&mut self.buf, share);
            self.logw.iter_mut().zip(&self.buf).for_each(|(l, p)| *l = p.ln());
            renormalise_log(&mut self.logw);
        }
        self.n_seen += 1;
        pred
    }
    fn weights(&self) -> Vec<f64> {
        let mut p = vec![0.0; self.logw.len()];
        softmax_into(&self.logw, &mut p);
        p
    }
    fn n_seen(&self) -> u64 {
        self.n_seen
    }
}

impl<S: ExpRule> crate::state::ValidState for ExpWeights<S> {
    fn validate(&self) -> crate::Result<()> {
        no_nan_or_pos_inf("log-weights", &self.logw)
    }
    fn check_config(&self, fresh: &Self) -> crate::Result<()> {
        crate::state::same("n_experts", &self.logw.len(), &fresh.logw.len())?;
        self.rule.check_config(&fresh.rule)
    }
}
