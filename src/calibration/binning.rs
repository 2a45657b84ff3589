//! A second, non-parametric stage on the top-label confidence of a probability vector:
//! histogram binning (Zadrozny and Elkan, *Obtaining calibrated probability estimates
//! from decision trees and naive Bayesian classifiers*, ICML 2001) with each bin's
//! frequency shrunk toward the first stage's probability by an m-estimate, made monotone
//! by isotonic regression over the bins (Zadrozny and Elkan, *Transforming classifier
//! scores into accurate multiclass probability estimates*, KDD 2002), and a Bayesian
//! average over several binnings (the idea of BBQ: Naeini, Cooper and Hauskrecht,
//! *Obtaining well calibrated probabilities using Bayesian binning*, AAAI 2015), weighted
//! online by each model's prequential likelihood (Dawid 1984). The choices are in
//! `docs/classification.md` and `docs/choices.md`.
//!
//! Round t, first-stage probabilities `p` over K >= 2 classes, top class `j = argmax p`:
//!
//! ```text
//!   eps = 1 / (2 (n + 1))                 (n rounds seen: the KT floor)        (1)
//!   p~ = (1 - eps) p + eps / K,   c = p~_j,   o = 1 - c = sum_{k != j} p~_k    (2)
//!   v = ln(c (K - 1) / o) >= 0           (log-odds of c against the uniform 1/K) (3)
//! ```
//!
//! Model 0 is the first stage (`q_0 = c`). Model `i >= 1` cuts `v` into `B` bins of
//! width `w_i` (the last open above); bin `b` holds `n_b` rounds, `k_b` of them with the
//! label `j`; at its centre `x_b = (b + 1/2) w_i`, where the first stage says
//! `c_b = 1 / (1 + (K - 1) exp(-x_b))`, the m-estimate is
//!
//! ```text
//!   g_b = (k_b + m c_b) / (n_b + m)     with weight  n_b + m                   (4)
//! ```
//!
//! `h = PAV(g)` its isotonic (non-decreasing) regression over the bins, and `q_i(v)`
//! interpolates `h` linearly between the centres (constant beyond the first and the
//! last). The models are averaged with weights proportional to the product of their
//! past predictive probabilities of the event "label = top" (uniform prior):
//!
//! ```text
//!   q = sum_i w_i q_i / sum_i w_i,   log w_i += ln q_i (label = j) or ln(1 - q_i)   (5)
//! ```
//!
//! The top class gets
//!
//! ```text
//!   max(q, (c + s / (o + s)) / 2)       (s the second largest p~_k)             (6)
//! ```
//!
//! and the others share the rest in proportion to `p~`: at `q = s / (o + s)` the top
//! class would tie with the runner-up, so (6) keeps half of the first stage's lead and
//! the decisions; a tie (`c = s`) gets exactly `s / (o + s)`, so ties stay ties. Every `q_i` is in (0, 1) (a weighted mean of the `g_b`),
//! so no probability is 0 or 1; each `q_i` is non-decreasing in `v`, so the output is
//! (for K = 2, in the score); and the mixture's cumulative log loss of the event is
//! within `ln M` of the best model's (Cesa-Bianchi and Lugosi, *Prediction, learning,
//! and games*, 2006, Section 3.3 and 9.1).
use crate::error::Result;
use crate::state::{ensure, finite};
use serde::{Deserialize, Serialize};

/// The m-estimate's prior weight in (4): the first stage counts as this many rounds.
pub const PRIOR_ROUNDS: f64 = 2.0;

/// The bin widths of the models `1..` in (3)'s log-odds (nats).
pub const WIDTHS: [f64; 5] = [2.0, 1.0, 0.5, 0.25, 0.125];

/// The averaged models: the first stage and one histogram per width.
const MODELS: usize = WIDTHS.len() + 1;

/// The bins cover `v` in `[0, V_MAX)` evenly; the last is open above.
pub const V_MAX: f64 = 12.0;

fn n_bins(w: f64) -> usize {
    (V_MAX / w).round() as usize
}

/// `exp(-x_b)` at each bin's centre `x_b = (b + 1/2) w_i`, per width of [`WIDTHS`]:
/// the factor of (4)'s `c_b` that does not depend on `K`, computed once.
fn centre_exps() -> &'static [Vec<f64>] {
    static EXPS: std::sync::OnceLock<Vec<Vec<f64>>> = std::sync::OnceLock::new();
    EXPS.get_or_init(|| {
        let at = |w: f64| (0..n_bins(w)).map(|b| (-(b as f64 + 0.5) * w).exp()).collect();
        WIDTHS.iter().map(|&w| at(w)).collect()
    })
}

/// Counts of one bin: rounds, and rounds whose label was the top class.
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct Bin {
    pub n: u64,
    pub k: u64,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct TopLabelBinning {
    /// One vector of bins per width of [`WIDTHS`].
    bins: Vec<Vec<Bin>>,
    /// `log w_i` of (5), shifted so that the largest is 0.
    log_weights: Vec<f64>,
    n_seen: u64,
}

impl Default for TopLabelBinning {
    fn default() -> Self {
        Self::new()
    }
}

/// The quantities (1)-(3) of a round.
struct Round {
    top: usize,
    eps: f64,
    c: f64,
    o: f64,
    v: f64,
}

/// The largest `p_k` with `k != top`.
fn second_raw(p: &[f64], top: usize) -> f64 {
    p.iter()
        .enumerate()
        .filter(|&(i, _)| i != top)
        .map(|(_, &x)| x)
        .fold(f64::NEG_INFINITY, f64::max)
}

impl TopLabelBinning {
    pub fn new() -> Self {
        Self {
            bins: WIDTHS.iter().map(|&w| vec![Bin::default(); n_bins(w)]).collect(),
            log_weights: vec![0.0; MODELS],
            n_seen: 0,
        }
    }

    pub fn n_seen(&self) -> u64 {
        self.n_seen
    }

    /// The models' normalised weights (model 0 the first stage, then one per width).
    pub fn weights(&self) -> Vec<f64> {
        let w: Vec<f64> = self.log_weights.iter().map(|l| l.exp()).collect();
        let total: f64 = w.iter().sum();
        w.iter().map(|x| x / total).collect()
    }

    /// The bins of the model of width [`WIDTHS`]`[i]`.
    pub fn bins(&self, i: usize) -> &[Bin] {
        &self.bins[i]
    }

    fn round(&self, p: &[f64]) -> Round {
        let k = p.len() as f64;
        let top = (0..p.len()).fold(0, |j, i| if p[i] > p[j] { i } else { j });
        let eps = 0.5 / (self.n_seen as f64 + 1.0); // (1)
        let c = (1.0 - eps) * p[top] + eps / k; // (2)
        let rest: f64 = p.iter().enumerate().filter(|&(i, _)| i != top).map(|(_, x)| x).sum();
        let o = (1.0 - eps) * rest + eps * (k - 1.0) / k;
        let v = (c * (k - 1.0) / o).ln().max(0.0); // (3)
        Round { top, eps, c, o, v }
    }

    /// `q_i` of model `i` (0: the first stage) in the round `r`, by (4) and PAV.
    fn model(&self, i: usize, r: &Round, k: f64) -> f64 {
        if i == 0 {
            return r.c;
        }
        let w = WIDTHS[i - 1];
        let mut blocks: Vec<(f64, f64, usize)> = Vec::with_capacity(self.bins[i - 1].len());
        for (bin, &e) in self.bins[i - 1].iter().zip(&centre_exps()[i - 1]) {
            let cb = 1.0 / (1.0 + (k - 1.0) * e);
            let (n, hits) = (bin.n as f64 + PRIOR_ROUNDS, bin.k as f64 + PRIOR_ROUNDS * cb);
            // (4) as a block (sum of weights, weighted sum, bins), pooled while it
            // breaks the order (pool adjacent violators)
            let mut cur = (n, hits, 1);
            while let Some(&(pn, ph, pb)) = blocks.last() {
                if ph / pn < cur.1 / cur.0 {
                    break;
                }
                blocks.pop();
                cur = (cur.0 + pn, cur.1 + ph, cur.2 + pb);
            }
            blocks.push(cur);
        }
        // h at bin `b`: the mean of the block holding it
        let h = |b: usize| {
            let mut end = 0;
            for &(n, hits, m) in &blocks {
                end += m;
                if b < end {
                    return hits / n;
                }
            }
            blocks.last().map_or(0.5, |&(n, hits, _)| hits / n) // (not reached)
        };
        let last = self.bins[i - 1].len() - 1;
        let t = r.v / w - 0.5; // the position among the centres
        if t <= 0.0 {
            return h(0);
        }
        let b = t as usize;
        if b >= last {
            return h(last);
        }
        let f = t - b as f64;
        (1.0 - f) * h(b) + f * h(b + 1)
    }

    fn bin_index(&self, i: usize, v: f64) -> usize {
        ((v / WIDTHS[i]) as usize).min(self.bins[i].len() - 1)
    }

    /// Every model's `q_i` in the round `r` (0: the first stage).
    fn models(&self, r: &Round, k: f64) -> [f64; MODELS] {
        std::array::from_fn(|i| self.model(i, r, k))
    }

    /// The output for `p` from the models' `qs`, by (5)-(6), into `out`.
    fn output(&self, p: &[f64], r: &Round, qs: &[f64; MODELS], out: &mut [f64]) {
        let k = p.len() as f64;
        let total: f64 = self.log_weights.iter().map(|l| l.exp()).sum();
        let q: f64 = self.log_weights.iter().zip(qs).map(|(lw, qi)| lw.exp() / total * qi).sum();
        // (6): the top class keeps half its lead over the runner-up
        let floor = |x: f64| (1.0 - r.eps) * x + r.eps / k;
        let second = floor(second_raw(p, r.top));
        let tie = second / (r.o + second);
        let q = if r.c == second { tie } else { q.max(0.5 * (tie + r.c)) };
        for (i, (o, &pi)) in out.iter_mut().zip(p).enumerate() {
            *o = if i == r.top { q } else { (1.0 - q) * floor(pi) / r.o };
        }
    }

    /// The refined probabilities of `p` (a probability vector, `K >= 1`) into `out`.
    pub fn predict(&self, p: &[f64], out: &mut [f64]) {
        if p.len() == 1 {
            out[0] = 1.0;
            return;
        }
        let r = self.round(p);
        self.output(p, &r, &self.models(&r, p.len() as f64), out);
    }

    /// A round: [`Self::predict`] into `out`, then the label's evidence for each model
    /// (5) and the counts of the round's bins (4).
    pub fn predict_learn(&mut self, p: &[f64], label: usize, out: &mut [f64]) {
        if p.len() == 1 {
            out[0] = 1.0;
            return; // one class: nothing to calibrate
        }
        let r = self.round(p);
        let qs = self.models(&r, p.len() as f64);
        self.output(p, &r, &qs, out);
        let hit = label == r.top;
        for (i, (lw, &qi)) in self.log_weights.iter_mut().zip(&qs).enumerate() {
            // (5); the first stage's 1 - c is o, exact where c rounds to 1
            let miss = if i == 0 { r.o } else { 1.0 - qi };
            *lw += if hit { qi.ln() } else { miss.ln() };
        }
        let top = self.log_weights.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
        for lw in self.log_weights.iter_mut() {
            *lw -= top;
        }
        for i in 0..self.bins.len() {
            let b = self.bin_index(i, r.v);
            let bin = &mut self.bins[i][b];
            bin.n += 1;
            bin.k += u64::from(hit);
        }
        self.n_seen += 1;
    }

    pub fn validate(&self) -> Result<()> {
        ensure(self.bins.len() == WIDTHS.len(), || format!("{} binnings", self.bins.len()))?;
        for (b, &w) in self.bins.iter().zip(&WIDTHS) {
            ensure(b.len() == n_bins(w), || format!("{} bins of width {w}", b.len()))?;
            ensure(b.iter().all(|x| x.k <= x.n), || "a bin with more hits than rounds".into())?;
            let total: u64 = b.iter().map(|x| x.n).sum();
            ensure(total == self.n_seen, || format!("{total} binned rounds of {}", self.n_seen))?;
        }
        ensure(self.log_weights.len() == MODELS, || "model weights".into())?;
        finite("log_weights", &self.log_weights)?;
        ensure(self.log_weights.iter().all(|&l| l <= 0.0), || "log weights above 0".into())?;
        ensure(self.log_weights.contains(&0.0), || "log weights not normalised".into())
    }
}
