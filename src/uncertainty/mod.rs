//! Predictive standard deviations (docs/uncertainty.md; the derivation in
//! docs/choices.md, "Predictive variance"): the online noise level shared by the
//! AWV-family learners, the moments of a mixture of experts, and the validated
//! stream loops the bindings call.

mod noise;

pub use noise::{noise_discount, NoiseLevel, OtherOutputs, NOISE_MEMORY};

use crate::error::Result;
use crate::learners::OnlineLearner;

/// The mean and standard deviation of a mixture of experts: expert `j` predicts
/// `z_j` with standard deviation `s_j` and weighs `pi_j = |w_j| / sum_k |w_k|`
/// (the rule's weights `w`; uniform if they are all 0), the mixture predicts `p`:
/// ```text
/// var = sum_j pi_j s_j^2 + sum_j pi_j (z_j - p)^2
/// ```
/// For a convex rule (`w >= 0`, `sum w = 1`, `p = sum w_j z_j`) this is the law of
/// total variance of the mixture distribution `sum_j w_j N(z_j, s_j^2)`; for signed
/// weights (the VAW rule) the same formula with `|w|` normalised (docs/choices.md).
pub fn mixture_std(w: &[f64], z: &[f64], s: &[f64], p: f64) -> f64 {
    let total: f64 = w.iter().map(|v| v.abs()).sum();
    let n = z.len().max(1) as f64;
    let mut var = 0.0;
    for (j, (&zj, &sj)) in z.iter().zip(s).enumerate() {
        let pi = if total > 0.0 { w.get(j).map_or(0.0, |v| v.abs()) / total } else { 1.0 / n };
        var += pi * (sj * sj + (zj - p) * (zj - p));
    }
    var.sqrt()
}

/// The noise level of a mixture: `sqrt(sum_j pi_j sigma_j^2)` with the weights `pi`
/// of [`mixture_std`] (the first term of its variance, without the experts'
/// leverages and spread).
pub fn mixture_noise(w: &[f64], sigma: &[f64]) -> f64 {
    let total: f64 = w.iter().map(|v| v.abs()).sum();
    let n = sigma.len().max(1) as f64;
    let mut var = 0.0;
    for (j, &sj) in sigma.iter().enumerate() {
        let pi = if total > 0.0 { w.get(j).map_or(0.0, |v| v.abs()) / total } else { 1.0 / n };
        var += pi * sj * sj;
    }
    var.sqrt()
}

fn no_std() -> crate::KsError {
    crate::KsError::Parameter(
        "this learner has no predictive standard deviation (the AWV-family regressors and \
         mixtures of them have one)"
            .into(),
    )
}

/// The prediction and predictive standard deviation of each row of row-major `x`
/// (`n x d`) as the next round (pure), pushed onto `means` and `stds`. Validated
/// first; polls Ctrl-C.
pub fn predict_std_many_into<L: OnlineLearner + ?Sized>(
    learner: &L,
    x: &[f64],
    n: usize,
    d: usize,
    means: &mut Vec<f64>,
    stds: &mut Vec<f64>,
) -> Result<()> {
    crate::stream::validate(learner, x, n, d, None)?;
    for row in x.chunks_exact(d) {
        crate::interrupt::poll()?;
        let (m, s) = learner.predict_std(row)?.ok_or_else(no_std)?;
        means.push(m);
        stds.push(s);
    }
    Ok(())
}

/// What [`progressive_predict_std_into`] gives for each round: the prediction, the
/// predictive standard deviation and the noise level.
#[derive(Clone, Debug, Default)]
pub struct StdRounds {
    pub preds: Vec<f64>,
    pub stds: Vec<f64>,
    pub noises: Vec<f64>,
}

/// The online protocol with standard deviations: for each row, the prediction, the
/// predictive standard deviation and the noise level ([`OnlineLearner::noise_std`])
/// before `y_t` is seen, then the round is learned.
/// Validated first (the learner is unchanged by a refused call); stops at a round
/// boundary on Ctrl-C with the completed rounds' outputs pushed.
pub fn progressive_predict_std_into<L: OnlineLearner + ?Sized>(
    learner: &mut L,
    x: &[f64],
    n: usize,
    d: usize,
    y: &[f64],
    out: &mut StdRounds,
) -> Result<()> {
    crate::stream::validate(learner, x, n, d, Some(y))?;
    if learner.predict_std(&x[..d])?.is_none() {
        return Err(no_std());
    }
    crate::interrupt::start();
    for (row, &yt) in x.chunks_exact(d).zip(y) {
        crate::interrupt::poll()?;
        let s = match learner.predict_std(row)? {
            Some((_, s)) => s,
            None => return Err(no_std()),
        };
        let noise = learner.noise_std().unwrap_or(f64::NAN);
        out.preds.push(learner.predict_learn(row, yt)?);
        out.stds.push(s);
        out.noises.push(noise);
    }
    Ok(())
}
