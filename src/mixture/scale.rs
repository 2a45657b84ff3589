//! The data's own scale, estimated on the warm-up rows of [`super::AutoKernel`]:
//! per-feature location and spread, the target's, and the median distance between
//! standardised points (the "median heuristic" for a Gaussian width). Every
//! estimate is equivariant: multiplying the inputs (or targets) by `c` multiplies
//! the locations and spreads by `c`, so the standardised stream does not change.

use serde::{Deserialize, Serialize};

/// Location and spread of one column: mean and standard deviation; a column that
/// is constant on the sample gets spread `|mean|` (or 1 if the mean is 0), so that
/// later values keep their relative size.
pub fn location_spread(values: impl Iterator<Item = f64> + Clone) -> (f64, f64) {
    let n = values.clone().count().max(1) as f64;
    let mean = values.clone().sum::<f64>() / n;
    let var = values.map(|v| (v - mean) * (v - mean)).sum::<f64>() / n;
    let sd = var.sqrt();
    if sd.is_finite() && sd > 1e-12 * mean.abs() && sd > 0.0 {
        (mean, sd)
    } else if mean != 0.0 && mean.is_finite() {
        (mean, mean.abs())
    } else {
        (mean, 1.0)
    }
}

/// Affine standardisation of inputs and targets, fixed once estimated.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Scaler {
    pub x_loc: Vec<f64>,
    pub x_scale: Vec<f64>,
    pub y_loc: f64,
    pub y_scale: f64,
}

impl Scaler {
    /// Estimates from row-major `x` (`y.len()` rows of length `d`) and `y`.
    pub fn fit(x: &[f64], d: usize, y: &[f64]) -> Scaler {
        let n = y.len();
        let (mut x_loc, mut x_scale) = (vec![0.0; d], vec![1.0; d]);
        for j in 0..d {
            let col = (0..n).map(|i| x[i * d + j]);
            (x_loc[j], x_scale[j]) = location_spread(col);
        }
        let (y_loc, y_scale) = location_spread(y.iter().copied());
        Scaler { x_loc, x_scale, y_loc, y_scale }
    }

    /// `out = (x - loc) / scale`.
    pub fn x_into(&self, x: &[f64], out: &mut [f64]) {
        for (((o, v), m), s) in out.iter_mut().zip(x).zip(&self.x_loc).zip(&self.x_scale) {
            *o = (v - m) / s;
        }
    }

    pub fn y(&self, y: f64) -> f64 {
        (y - self.y_loc) / self.y_scale
    }

    pub fn y_back(&self, p: f64) -> f64 {
        self.y_loc + self.y_scale * p
    }
}

/// Median of the pairwise Euclidean distances between the rows of `x` (mean if
/// the median is 0, 1 if every row is the same).
pub fn median_distance(x: &[f64], d: usize) -> f64 {
    median_pairwise(x, d, |a, b| a.iter().zip(b).map(|(a, b)| (a - b).powi(2)).sum::<f64>().sqrt())
}

/// Median of the pairwise L1 distances `sum_j |x_j - x'_j|` between the rows of `x`
/// (the width unit of the Laplacian kernel; mean if the median is 0, 1 if every row is
/// the same).
pub fn median_l1_distance(x: &[f64], d: usize) -> f64 {
    median_pairwise(x, d, |a, b| a.iter().zip(b).map(|(a, b)| (a - b).abs()).sum())
}

/// [`median_width`] of `dist` over every pair of rows of `x`.
fn median_pairwise(x: &[f64], d: usize, dist: impl Fn(&[f64], &[f64]) -> f64) -> f64 {
    let n = x.len() / d.max(1);
    let row = |r: usize| &x[r * d..(r + 1) * d];
    let mut all = Vec::with_capacity(n * n.saturating_sub(1) / 2);
    for i in 0..n {
        for k in 0..i {
            all.push(dist(row(i), row(k)));
        }
    }
    // The mean over the pairs as the median's selection left them.
    median_width(&mut all, |v| v.iter().sum::<f64>() / v.len() as f64)
}

/// A width from pairwise distances: their median (the upper one of an even count;
/// `dist` is reordered), else `mean(dist)` if the median is 0 or not finite, else 1
/// (also without distances).
pub(super) fn median_width(dist: &mut [f64], mean: impl FnOnce(&[f64]) -> f64) -> f64 {
    if dist.is_empty() {
        return 1.0;
    }
    let m = dist.len() / 2;
    let (_, med, _) = dist.select_nth_unstable_by(m, |a, b| a.total_cmp(b));
    let med = *med;
    if med > 0.0 && med.is_finite() {
        return med;
    }
    let mean = mean(dist);
    if mean > 0.0 && mean.is_finite() {
        mean
    } else {
        1.0
    }
}
