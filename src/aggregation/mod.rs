//! Expert-aggregation rules (VAW2 paper, Rokhlin & Gurtovaya 2025, sec. 3-4),
//! usable on any stream of expert predictions
//! `z_t in R^N`, like R's `opera::mixture`:
//!
//! * [`VawMeta`]: a second VAW on the raw expert predictions (VAW2, Theorem 2);
//! * [`Ewa`]: exponentially weighted average, fixed rate (VAW-EWA, Theorem 3,
//!   with the eq. (29) timing corrected: weights from past losses only);
//! * [`AggregatingAlgorithm`]: Vovk's AA for the square loss on `[lo, hi]`;
//! * [`Boa`], [`MlPoly`], [`MlProd`]: opera's second-order rules (Wintenberger
//!   2017; Gaillard, Stoltz, van Erven 2014), `loss.gradient = TRUE` by default.
//!
//! Protocol: `predict(z)` is pure; `update(z, y)` plays the whole round (it
//! recomputes the prediction the rule made for `z` and then learns `y`);
//! `weights()` is the combination the next round would use (for VAW: the ridge
//! solution, see [`VawMeta::weights`]). Weights of the exponential rules are kept
//! in the log domain, so extreme losses cannot overflow.

pub mod aa;
pub mod boa;
pub mod ewa;
pub mod exp_weights;
mod flat;
pub mod mlpoly;
pub mod mlprod;
pub mod regret;
pub mod rule;
pub mod vaw_meta;

pub use aa::AggregatingAlgorithm;
pub use boa::Boa;
pub use ewa::Ewa;
pub use exp_weights::{ExpRule, ExpWeights};
pub use mlpoly::MlPoly;
pub use mlprod::MlProd;
pub use regret::{Regret, RegretState};
pub use rule::{AnyAggregator, RuleInfo, RuleParams, RULES};
pub use vaw_meta::VawMeta;

use crate::error::Result;

/// An online aggregation rule over `N` experts.
pub trait Aggregator {
    fn n_experts(&self) -> usize;
    /// The combined prediction for expert predictions `z` (pure).
    fn predict(&self, z: &[f64]) -> f64;
    /// Plays the round: the prediction for `z`, then the update with `y`.
    fn predict_update(&mut self, z: &[f64], y: f64) -> f64;
    /// [`Aggregator::predict_update`] with the round's losses weighted by the sample
    /// weight `w > 0` (docs/choices.md, "Sample weights"): EWA/AA
    /// `logw_j -= w eta loss_j`, the regret rules' regrets `w r_j`, VAW the weighted
    /// ridge update. `w = 1` is `predict_update`, bit for bit.
    fn predict_update_weighted(&mut self, z: &[f64], y: f64, w: f64) -> f64;
    /// The weights the next prediction would use.
    fn weights(&self) -> Vec<f64>;
    fn n_seen(&self) -> u64;
    /// Refuses (before any change) a round whose square losses would overflow:
    /// `(z_j - y)^2` and `(y_hat - y)(y_hat - z_j)` must be representable.
    fn check_update(&self, z: &[f64], y: f64) -> Result<()> {
        check_square_losses(z, y)
    }
}

/// `|y|` and every `|z_j - y|` small enough for their squares (times the bounded
/// factors of the rules) to stay finite.
pub fn check_square_losses(z: &[f64], y: f64) -> Result<()> {
    let big = crate::limits::Y_MAX;
    if y.abs() > big || z.iter().any(|v| v.abs() > big) {
        return Err(crate::KsError::Numerical(format!(
            "expert predictions or y above {big:e} in magnitude: the square losses would overflow"
        )));
    }
    Ok(())
}

/// `log sum_j exp(a_j)`, stable; `-inf` if every `a_j` is `-inf`.
pub(crate) fn logsumexp(a: &[f64]) -> f64 {
    let m = a.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    if !m.is_finite() {
        return m;
    }
    m + a.iter().map(|v| (v - m).exp()).sum::<f64>().ln()
}

/// `out = softmax(logits)`; uniform if no logit is finite from above (all `-inf`).
pub(crate) fn softmax_into(logits: &[f64], out: &mut [f64]) {
    let n = logits.len().min(out.len());
    out[..n].copy_from_slice(&logits[..n]);
    softmax_in_place(&mut out[..n]);
}

/// `v = softmax(v)` in place; uniform if every entry is `-inf`.
pub(crate) fn softmax_in_place(v: &mut [f64]) {
    let m = v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let n = v.len();
    if !m.is_finite() {
        v.iter_mut().for_each(|o| *o = 1.0 / n as f64);
        return;
    }
    let mut s = 0.0;
    for o in v.iter_mut() {
        *o = (*o - m).exp();
        s += *o;
    }
    v.iter_mut().for_each(|o| *o /= s);
}

/// `sum_j p_j z_j`.
#[inline]
pub(crate) fn combine(p: &[f64], z: &[f64]) -> f64 {
    p.iter().zip(z).map(|(a, b)| a * b).sum()
}

/// Checks a Fixed Share rate: `share` in [0, 1].
pub fn check_share(share: f64) -> Result<f64> {
    if (0.0..=1.0).contains(&share) {
        Ok(share)
    } else {
        crate::param_err!("share (the Fixed Share mixing rate) must be in [0, 1], got {share}")
    }
}

/// Fixed Share (Herbster and Warmuth 1998, "Tracking the best expert"):
/// `p <- (1 - share) p + share / N`.
pub(crate) fn fixed_share(p: &mut [f64], share: f64) {
    let u = share / p.len() as f64;
    p.iter_mut().for_each(|v| *v = (1.0 - share) * *v + u);
}

/// The states saved before Fixed Share existed: no sharing.
pub(crate) fn no_share() -> f64 {
    0.0
}

/// Subtracts the largest finite entry (the log-weights keep their softmax).
pub(crate) fn renormalise_log(logw: &mut [f64]) {
    let m = logw.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    if m.is_finite() {
        logw.iter_mut().for_each(|v| *v -= m);
    }
}

/// Checks `n_experts >= 1`.
/// Checks `n_experts >= 1` and that `vectors` vectors of `n` doubles fit in the memory ceiling.
pub(crate) fn check_n(n: usize, vectors: u128) -> Result<usize> {
    if n == 0 {
        return crate::param_err!("n_experts must be >= 1, got 0");
    }
    crate::limits::check_doubles(
        &format!("an aggregator of {n} experts"),
        Some(n as u128 * vectors),
    )?;
    Ok(n)
}

/// Log-weights may be `-inf` (an expert ruled out) but never NaN or `+inf`.
pub(crate) fn no_nan_or_pos_inf(name: &str, v: &[f64]) -> Result<()> {
    crate::state::ensure(v.iter().all(|x| !x.is_nan() && *x != f64::INFINITY), || {
        format!("{name} hold NaN or +inf")
    })
}

// --- validated entry points (all checks before any state change) ----------------

fn validate_block(
    n_experts: usize,
    z: &[f64],
    n: usize,
    ncols: usize,
    y: Option<&[f64]>,
) -> Result<()> {
    if n == 0 {
        return crate::input_err!("empty input: Z has no rows");
    }
    if ncols != n_experts {
        return crate::input_err!(
            "expert predictions have {ncols} columns, this aggregator has {n_experts} experts"
        );
    }
    if z.len() != n * ncols {
        return crate::input_err!(
            "Z holds {} values, expected {n} rows x {ncols} columns",
            z.len()
        );
    }
    if let Some(i) = z.iter().position(|v| !v.is_finite()) {
        return crate::input_err!("Z[{}, {}] = {} is not finite", i / ncols, i % ncols, z[i]);
    }
    if let Some(y) = y {
        if y.len() != n {
            return crate::input_err!("Z has {n} rows but y has {} values", y.len());
        }
        if let Some(i) = y.iter().position(|v| !v.is_finite()) {
            return crate::input_err!("y[{i}] = {} is not finite", y[i]);
        }
    }
    Ok(())
}

/// Validated `predict` of one vector of expert predictions.
pub fn predict_checked<A: Aggregator + ?Sized>(agg: &A, z: &[f64]) -> Result<f64> {
    validate_block(agg.n_experts(), z, 1, z.len(), None)?;
    Ok(agg.predict(z))
}

/// Validated round with one vector of expert predictions and its label.
pub fn update_checked<A: Aggregator + ?Sized>(agg: &mut A, z: &[f64], y: f64) -> Result<()> {
    validate_block(agg.n_experts(), z, 1, z.len(), Some(&[y]))?;
    agg.check_update(z, y)?;
    agg.predict_update(z, y);
    Ok(())
}

/// Progressive predictions over a row-major `n x N` block of expert predictions.
pub fn progressive_predict<A: Aggregator + ?Sized>(
    agg: &mut A,
    z: &[f64],
    n: usize,
    ncols: usize,
    y: &[f64],
) -> Result<Vec<f64>> {
    let mut out = Vec::new();
    progressive_predict_into(agg, z, n, ncols, y, &mut out)?;
    Ok(out)
}

/// [`progressive_predict`] pushing onto `out`; stops at a round boundary on Ctrl-C
/// ([`crate::interrupt`]) with the completed rounds' predictions in `out`.
pub fn progressive_predict_into<A: Aggregator + ?Sized>(
    agg: &mut A,
    z: &[f64],
    n: usize,
    ncols: usize,
    y: &[f64],
    out: &mut Vec<f64>,
) -> Result<()> {
    validate_block(agg.n_experts(), z, n, ncols, Some(y))?;
    crate::interrupt::start();
    out.reserve(n);
    for (row, &yt) in z.chunks_exact(ncols).zip(y) {
        crate::interrupt::poll()?;
        agg.check_update(row, yt)?;
        out.push(agg.predict_update(row, yt));
    }
    Ok(())
}

/// [`softmax_into`] for the learners (Raker, OMKL-GF).
/// Kernel weights of the OGD multi-kernel baselines (Raker, OMKL-GF): `softmax(logw)`
/// once log-weights exist, uniform over `n` kernels before the first round.
pub fn weights_or_uniform(logw: Option<&[f64]>, n: usize) -> Vec<f64> {
    let mut p = vec![1.0 / n as f64; n];
    if let Some(l) = logw {
        softmax_pub(l, &mut p);
    }
    p
}

pub fn softmax_pub(logits: &[f64], out: &mut [f64]) {
    softmax_into(logits, out)
}

/// [`renormalise_log`] for the learners (Raker, OMKL-GF).
pub fn renormalise_log_pub(logw: &mut [f64]) {
    renormalise_log(logw)
}
