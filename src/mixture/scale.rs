//! The data's own scale, estimated on the warm-up rows of [`super::AutoKernel`]:
//! per-feature location and spread, the target's, and the median distance between
//! standardised points (the "median heuristic" for a Gaussian width). Every
//! estimate is equivariant: multiplying the inputs (or targets) by `c` multiplies
//! the locations and spreads by `c`, so the standardised stream does not change.

use serde::{Deserialize, Serialize};

/// Location and spread of one column: mean and standard deviation; a column that
/// is constant on the sample gets spread `|mean|` (or 1 if the mean is 0), so that
/// later values keep their relative size. Where the plain sums overflow (finite
/// values near `f64::MAX`), the moments of `v / max|v|` are taken and scaled back:
/// both are at most `max|v|`, so they are finite whenever the values are.
pub fn location_spread(values: impl Iterator<Item = f64> + Clone) -> (f64, f64) {
    let n = values.clone().count().max(1) as f64;
    let (mut mean, mut sd) = moments(values.clone(), n);
    if !(mean.is_finite() && sd.is_finite()) {
        let m = values.clone().fold(0.0, |a: f64, v| a.max(v.abs()));
        if m.is_finite() && m > 0.0 {
            let (ms, ss) = moments(values.map(|v| v / m), n);
            (mean, sd) = (m * ms, (m * ss).min(f64::MAX));
        }
    }
    if sd.is_finite() && sd > 1e-12 * mean.abs() && sd > 0.0 {
        (mean, sd)
    } else if mean != 0.0 && mean.is_finite() {
        (mean, mean.abs())
    } else {
        (mean, 1.0)
    }
}

/// Mean and standard deviation (divisor `n`) of `values`.
fn moments(values: impl Iterator<Item = f64> + Clone, n: f64) -> (f64, f64) {
    let mean = values.clone().sum::<f64>() / n;
    let var = values.map(|v| (v - mean) * (v - mean)).sum::<f64>() / n;
    (mean, var.sqrt())
}

/// `(v - loc) / scale`, as `v / scale - loc / scale` where the difference overflows
/// (`v` and `loc` of opposite signs near `f64::MAX`).
fn standardise(v: f64, loc: f64, scale: f64) -> f64 {
    let z = (v - loc) / scale;
    if z.is_finite() || !v.is_finite() {
        z
    } else {
        v / scale - loc / scale
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
            *o = standardise(*v, *m, *s);
        }
    }

    pub fn y(&self, y: f64) -> f64 {
        standardise(y, self.y_loc, self.y_scale)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spread_of_values_near_the_largest_double_is_finite() {
        // 200 copies of 1e308 sum to inf: the scaled moments give the exact answer.
        let (m, s) = location_spread(std::iter::repeat_n(1e308, 200));
        assert_eq!((m, s), (1e308, 1e308)); // a constant column: spread |mean|
        let v = [1.5e308, -1.5e308, 1.5e308, -1.5e308];
        assert_eq!(location_spread(v.iter().copied()), (0.0, 1.5e308));
        let v = [1.7e308, 1.7e308, -1.7e308];
        let (m, s) = location_spread(v.iter().copied());
        // mean 1.7e308 / 3, sd 1.7e308 * sqrt(8) / 3, from the definition on v / 1.7e308
        assert!((m / (1.7e308 / 3.0) - 1.0).abs() < 1e-15);
        assert!((s / (1.7e308 / 3.0 * 8f64.sqrt()) - 1.0).abs() < 1e-15);
        let sc = Scaler { x_loc: vec![m], x_scale: vec![s], y_loc: m, y_scale: s };
        let mut o = [0.0];
        sc.x_into(&[-1.7e308], &mut o);
        assert!((o[0] - (-4.0 / 8f64.sqrt())).abs() < 1e-15, "{}", o[0]);
        assert!((sc.y(-1.7e308) - o[0]).abs() < 1e-15);
    }

    #[test]
    fn ordinary_values_take_the_plain_sums() {
        let v = [1.0, 2.0, 4.0];
        let mean = 7.0 / 3.0;
        let var = ((1.0 - mean) * (1.0 - mean)
            + (2.0 - mean) * (2.0f64 - mean)
            + (4.0 - mean) * (4.0 - mean))
            / 3.0;
        assert_eq!(location_spread(v.iter().copied()), (mean, f64::sqrt(var)));
    }
}
