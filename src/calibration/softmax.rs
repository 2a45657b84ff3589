//! A multinomial logistic layer on K classifier scores, fitted online by the Online
//! Newton Step (Hazan, Agarwal and Kale, *Logarithmic regret algorithms for online
//! convex optimization*, Machine Learning 2007, Algorithm 2, without the projection).
//!
//! Model (`docs/classification.md`): scores `s in R^K`, parameters
//! `theta = (a, b_1, ..., b_K)`, logits `z_k = a s_k + b_k`, probabilities
//! `p = softmax(z)` (a shared slope, the "temperature", and one bias per class; for
//! K = 2 this is Platt scaling of the score difference `s_2 - s_1`).
//! Round t: predict `p_t`; see the class `y_t`; the gradient of `-log p_{t, y_t}` is
//!
//! ```text
//!   g_a = sum_k p_k s_k - s_{y_t},   g_{b_k} = p_k - 1{k = y_t}              (1)
//! ```
//!
//! and ONS updates
//!
//! ```text
//!   A_t = A_{t-1} + gamma g_t g_t^T  (A_0 = lam I),   theta_{t+1} = theta_t - A_t^{-1} g_t   (2)
//! ```
//!
//! (Hazan et al.'s step `1/gamma` and `epsilon = lam / gamma` in our scaling). `A^{-1}` is
//! kept and updated by Sherman-Morrison. The gradients' bias part sums to zero, so
//! `sum_k b_k` stays 0: only differences of logits matter, as in the softmax.
//! The number of classes is fixed by the first call and grows by [`SoftmaxCalibrator::add_class`]
//! (a new bias 0 with the prior curvature `lam`, independent of the rest).
use crate::error::Result;
use crate::state::{ensure, finite, same, ValidState};
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct SoftmaxCalibrator {
    lam: f64,
    gamma: f64,
    /// `K` (0 before the first call).
    n_classes: usize,
    /// `(a, b_1..b_K)`.
    theta: Vec<f64>,
    /// `A^{-1}`, `(K + 1) x (K + 1)` row-major.
    ainv: Vec<f64>,
    n_seen: u64,
}

crate::state::state_version!(SoftmaxCalibrator, 1);

/// At most this many classes (a `(K + 1)^2` matrix; far beyond any use).
pub const MAX_CLASSES: usize = 4096;

impl SoftmaxCalibrator {
    /// `lam > 0` the prior curvature `A_0 = lam I`, `gamma > 0` the ONS parameter of (2).
    pub fn new(lam: f64, gamma: f64) -> Result<Self> {
        let lam = crate::error::positive("lam", lam)?;
        let gamma = crate::error::positive("gamma", gamma)?;
        Ok(Self { lam, gamma, n_classes: 0, theta: Vec::new(), ainv: Vec::new(), n_seen: 0 })
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
    /// `(a, b_1..b_K)`.
    pub fn theta(&self) -> &[f64] {
        &self.theta
    }
    /// `A^{-1}` row-major.
    pub fn ainv(&self) -> &[f64] {
        &self.ainv
    }

    /// Fixes `K` on the first call; afterwards `k` must equal it.
    fn ensure_classes(&mut self, k: usize) -> Result<()> {
        if self.n_classes == 0 {
            self.check_width(k)?;
            let mut grown = self.clone(); // all or nothing
            while grown.n_classes < k {
                grown.add_class()?;
            }
            *self = grown;
        }
        Ok(())
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

    /// One more class, with bias 0 and prior curvature `lam` (independent of the rest).
    pub fn add_class(&mut self) -> Result<()> {
        if self.n_classes >= MAX_CLASSES {
            return crate::input_err!("at most {MAX_CLASSES} classes are supported");
        }
        let p = self.n_classes + 1; // parameters now
        let q = p + 1;
        let mut ainv = crate::limits::try_zeros("the calibrator's matrix", q * q)?;
        if self.n_classes == 0 {
            ainv[0] = 1.0 / self.lam; // the slope a
            self.theta.push(0.0);
        } else {
            for i in 0..p {
                ainv[i * q..i * q + p].copy_from_slice(&self.ainv[i * p..(i + 1) * p]);
            }
        }
        ainv[q * q - 1] = 1.0 / self.lam;
        self.ainv = ainv;
        self.theta.push(0.0);
        self.n_classes += 1;
        Ok(())
    }

    fn check_scores(s: &[f64]) -> Result<()> {
        if s.iter().any(|v| !v.is_finite()) {
            return crate::input_err!("the scores contain NaN or infinite values");
        }
        Ok(())
    }

    /// `p = softmax(a s + b)` into `out` (no check; `s.len() == K`).
    fn probs(&self, s: &[f64], out: &mut [f64]) {
        let a = self.theta[0];
        let mut top = f64::NEG_INFINITY;
        for ((o, &sk), &bk) in out.iter_mut().zip(s).zip(&self.theta[1..]) {
            *o = a * sk + bk;
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

    /// The probabilities for the scores `s` (pure; before the first call `K = s.len()`).
    pub fn predict(&self, s: &[f64], out: &mut [f64]) -> Result<()> {
        self.check_width(s.len())?;
        Self::check_scores(s)?;
        if out.len() != s.len() {
            return crate::input_err!("{} outputs for {} scores", out.len(), s.len());
        }
        if self.n_classes == 0 {
            out.fill(1.0 / s.len() as f64); // theta = 0: the uniform distribution
            return Ok(());
        }
        self.probs(s, out);
        Ok(())
    }

    /// A round: the probabilities before the label (into `out`), then the update (1)-(2).
    pub fn predict_learn(&mut self, s: &[f64], label: usize, out: &mut [f64]) -> Result<()> {
        self.check_width(s.len())?;
        Self::check_scores(s)?;
        if label >= s.len() {
            return crate::input_err!("label {label} is not a class index below {}", s.len());
        }
        self.ensure_classes(s.len())?;
        self.probs(s, out);
        // (1): the gradient of -log p_label
        let q = self.n_classes + 1;
        let mut g = vec![0.0; q];
        g[0] = out.iter().zip(s).map(|(p, sk)| p * sk).sum::<f64>() - s[label];
        for (gk, &pk) in g[1..].iter_mut().zip(out.iter()) {
            *gk = pk;
        }
        g[1 + label] -= 1.0;
        // (2): Sherman-Morrison, A^{-1} <- A^{-1} - gamma (A^{-1} g)(A^{-1} g)^T / (1 + gamma g^T A^{-1} g)
        let mut ag = vec![0.0; q];
        for (i, agi) in ag.iter_mut().enumerate() {
            *agi = self.ainv[i * q..(i + 1) * q].iter().zip(&g).map(|(m, gj)| m * gj).sum();
        }
        let gag: f64 = g.iter().zip(&ag).map(|(a, b)| a * b).sum();
        let c = self.gamma / (1.0 + self.gamma * gag);
        for i in 0..q {
            for j in 0..q {
                self.ainv[i * q + j] -= c * ag[i] * ag[j];
            }
        }
        // theta <- theta - A_t^{-1} g = theta - ag / (1 + gamma g^T A_{t-1}^{-1} g)
        let step = 1.0 / (1.0 + self.gamma * gag);
        for (t, a) in self.theta.iter_mut().zip(&ag) {
            *t -= step * a;
        }
        self.n_seen += 1;
        Ok(())
    }

    /// Rows of `scores` (`n x k` row-major) in order: each row's probabilities before its
    /// label, pushed onto `out`; stops at a round boundary on Ctrl-C. Every label is
    /// checked before the first update.
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
        let k = self.n_classes;
        ensure(k <= MAX_CLASSES, || format!("{k} classes"))?;
        let q = if k == 0 { 0 } else { k + 1 };
        crate::state::len_is("theta", self.theta.len(), q)?;
        crate::state::len_is("A^-1", self.ainv.len(), q * q)?;
        finite("theta", &self.theta)?;
        finite("A^-1", &self.ainv)?;
        ensure((0..q).all(|i| self.ainv[i * q + i] > 0.0), || {
            "A^-1 has a non-positive diagonal".into()
        })
    }

    fn check_config(&self, fresh: &Self) -> Result<()> {
        same("lam", &self.lam.to_bits(), &fresh.lam.to_bits())?;
        same("gamma", &self.gamma.to_bits(), &fresh.gamma.to_bits())
    }
}
