//! A multinomial logistic layer on K classifier scores, fitted online by the Online
//! Newton Step (Hazan, Agarwal and Kale, *Logarithmic regret algorithms for online
//! convex optimization*, Machine Learning 2007, Algorithm 2).
//!
//! Model (`docs/classification.md`): scores `s in R^K`, one parameter, the slope `a`
//! (an inverse temperature), logits `z_k = a s_k`, probabilities `p = softmax(z)`. With
//! `a > 0` the most probable class is the highest score's, so the probabilities agree
//! with the classifier's decisions; for K = 2 this is Platt scaling of the score
//! difference without an intercept (least-squares scores put the 50% point at the
//! middle already). Round t: predict `p_t`; see the class `y_t`; the gradient of
//! `-log p_{t, y_t}` in `a` is
//!
//! ```text
//!   g_t = sum_k p_k s_k - s_{y_t}                                              (1)
//! ```
//!
//! and ONS, in one dimension, updates
//!
//! ```text
//!   A_t = A_{t-1} + gamma g_t^2  (A_0 = lam),   a_{t+1} = max(a_t - g_t / A_t, A_MIN)   (2)
//! ```
//!
//! (Hazan et al.'s step `1/gamma` and `epsilon = lam / gamma` in our scaling; the
//! projection onto `a >= A_MIN` in the metric `A_t` is the clamp in one dimension).
//! The number of classes is fixed by the first call and grows by
//! [`SoftmaxCalibrator::add_class`]; no parameter is per class.
//!
//! With `binning`, the probabilities `p` go through a second stage,
//! [`TopLabelBinning`] (`binning.rs`), that refines the top-label confidence; the
//! slope's update (1)-(2) still uses the first stage's `p`.
use super::binning::TopLabelBinning;
use crate::error::Result;
use crate::state::{ensure, finite, same, ValidState};
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct SoftmaxCalibrator {
    lam: f64,
    gamma: f64,
    /// `K` (0 before the first call).
    n_classes: usize,
    /// The slope `a`.
    slope: f64,
    /// `A_t` of (2).
    curvature: f64,
    n_seen: u64,
    /// The second stage (`None`: off).
    binning: Option<TopLabelBinning>,
}

crate::state::state_version!(SoftmaxCalibrator, 2);

/// At most this many classes (far beyond any use; a bound on the scores' width).
pub const MAX_CLASSES: usize = 1 << 20;

/// The smallest slope: positive, so that the probabilities order the classes as the
/// scores do (and ties stay ties).
pub const A_MIN: f64 = 1e-3;

impl SoftmaxCalibrator {
    /// `lam > 0` the prior curvature `A_0`, `gamma > 0` the ONS parameter of (2);
    /// `binning` adds the second stage.
    pub fn new(lam: f64, gamma: f64, binning: bool) -> Result<Self> {
        let lam = crate::error::positive("lam", lam)?;
        let gamma = crate::error::positive("gamma", gamma)?;
        let binning = binning.then(TopLabelBinning::new);
        Ok(Self { lam, gamma, n_classes: 0, slope: A_MIN, curvature: lam, n_seen: 0, binning })
    }

    pub fn binning(&self) -> Option<&TopLabelBinning> {
        self.binning.as_ref()
    }

    pub fn lam(&self) -> f64 {
        self.lam
    }
    pub fn gamma(&self) -> f64 {
        self.gamma
    }
    pub fn n_classes(&self) -> usize {
        self.n_classes
    }
    pub fn n_seen(&self) -> u64 {
        self.n_seen
    }
    /// The slope `a`.
    pub fn slope(&self) -> f64 {
        self.slope
    }
    /// `A_t`.
    pub fn curvature(&self) -> f64 {
        self.curvature
    }

    /// Scores of width `k` are acceptable (before any state change).
    pub fn check_width(&self, k: usize) -> Result<()> {
        if k == 0 {
            return crate::input_err!("the scores must have at least one column");
        }
        if self.n_classes == 0 {
            if k > MAX_CLASSES {
                return crate::input_err!("{k} classes: at most {MAX_CLASSES} are supported");
            }
            return Ok(());
        }
        if k != self.n_classes {
            return crate::input_err!(
                "the scores have {k} columns, but the calibrator has {} classes",
                self.n_classes
            );
        }
        Ok(())
    }

    /// One more class (its scores come last from now on).
    pub fn add_class(&mut self) -> Result<()> {
        if self.n_classes >= MAX_CLASSES {
            return crate::input_err!("at most {MAX_CLASSES} classes are supported");
        }
        self.n_classes += 1;
        Ok(())
    }

    fn check_scores(s: &[f64]) -> Result<()> {
        if s.iter().any(|v| !v.is_finite()) {
            return crate::input_err!("the scores contain NaN or infinite values");
        }
        Ok(())
    }

    /// `p = softmax(a s)` into `out` (no check; `out.len() == s.len()`).
    fn probs(&self, s: &[f64], out: &mut [f64]) {
        let mut top = f64::NEG_INFINITY;
        for (o, &sk) in out.iter_mut().zip(s) {
            *o = self.slope * sk;
            top = top.max(*o);
        }
        let mut total = 0.0;
        for o in out.iter_mut() {
            *o = (*o - top).exp();
            total += *o;
        }
        for o in out.iter_mut() {
            *o /= total;
        }
    }

    /// The probabilities for the scores `s` (pure).
    pub fn predict(&self, s: &[f64], out: &mut [f64]) -> Result<()> {
        self.check_width(s.len())?;
        Self::check_scores(s)?;
        if out.len() != s.len() {
            return crate::input_err!("{} outputs for {} scores", out.len(), s.len());
        }
        self.probs(s, out);
        if let Some(b) = &self.binning {
            let p = out.to_vec();
            b.predict(&p, out);
        }
        Ok(())
    }

    /// A round: the probabilities before the label (into `out`), then the update (1)-(2).
    pub fn predict_learn(&mut self, s: &[f64], label: usize, out: &mut [f64]) -> Result<()> {
        self.check_width(s.len())?;
        Self::check_scores(s)?;
        if out.len() != s.len() {
            return crate::input_err!("{} outputs for {} scores", out.len(), s.len());
        }
        if label >= s.len() {
            return crate::input_err!("label {label} is not a class index below {}", s.len());
        }
        self.probs(s, out);
        // (1)
        let g = out.iter().zip(s).map(|(p, sk)| p * sk).sum::<f64>() - s[label];
        // (2)
        let curvature = self.curvature + self.gamma * g * g;
        if !curvature.is_finite() {
            return crate::input_err!("scores too large to calibrate (the curvature overflows)");
        }
        if self.n_classes == 0 {
            self.n_classes = s.len(); // the first call fixes K
        }
        self.curvature = curvature;
        self.slope = (self.slope - g / curvature).max(A_MIN);
        if let Some(b) = &mut self.binning {
            let p = out.to_vec();
            b.predict_learn(&p, label, out);
        }
        self.n_seen += 1;
        Ok(())
    }

    /// Rows of `scores` (`n x k` row-major) in order: each row's probabilities before its
    /// label, pushed onto `out`; stops at a round boundary on Ctrl-C. Every score and
    /// label is checked before the first update.
    pub fn progressive_into(
        &mut self,
        scores: &[f64],
        k: usize,
        labels: &[usize],
        out: &mut Vec<f64>,
    ) -> Result<()> {
        self.check_width(k)?;
        if scores.len() != k * labels.len() {
            return crate::input_err!(
                "{} labels for {} score rows",
                labels.len(),
                scores.len() / k
            );
        }
        Self::check_scores(scores)?;
        if let Some(bad) = labels.iter().find(|&&l| l >= k) {
            return crate::input_err!("label {bad} is not a class index below {k}");
        }
        *out = crate::limits::try_with_capacity("the probabilities", scores.len())?;
        let mut p = vec![0.0; k];
        for (row, &label) in scores.chunks_exact(k).zip(labels) {
            crate::interrupt::poll()?;
            self.predict_learn(row, label, &mut p)?;
            out.extend_from_slice(&p);
        }
        Ok(())
    }
}

impl ValidState for SoftmaxCalibrator {
    fn validate(&self) -> Result<()> {
        ensure(self.n_classes <= MAX_CLASSES, || format!("{} classes", self.n_classes))?;
        finite("slope", &[self.slope, self.curvature])?;
        ensure(self.slope >= A_MIN, || format!("slope {} below {A_MIN}", self.slope))?;
        ensure(self.curvature >= self.lam, || {
            format!("curvature {} below lam {}", self.curvature, self.lam)
        })?;
        self.binning.as_ref().map_or(Ok(()), TopLabelBinning::validate)
    }

    fn check_config(&self, fresh: &Self) -> Result<()> {
        same("lam", &self.lam.to_bits(), &fresh.lam.to_bits())?;
        same("gamma", &self.gamma.to_bits(), &fresh.gamma.to_bits())?;
        same("binning", &self.binning.is_some(), &fresh.binning.is_some())
    }
}
