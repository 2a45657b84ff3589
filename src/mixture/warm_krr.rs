//! The warm-up prediction of [`super::AutoKernel`]: kernel ridge regression on the
//! standardised rows so far, `k(x)^T (K + lam I)^{-1} y`, with the Gaussian kernel of
//! width `c rho` (`rho` the median pairwise distance, [`super::scale::median_distance`]).
//!
//! Both the median and the Gram matrix need every pairwise squared distance: they are
//! computed once, several pairs at a time (each pair's sum still runs over the
//! coordinates in order, so every distance, kernel value and prediction has the bits
//! of [`super::scale::median_distance`] and [`crate::kernels::Kernel::eval`]), and the
//! Gram matrix is filled from its lower triangle (the kernel is symmetric, bit for
//! bit: `(a - b)^2 = (b - a)^2`), then factored by [`super::warm_cholesky`] (nalgebra's
//! numbers, in tiles). Cost at round `t`: `O(t^2 d)` for the distances, `t^2 / 2`
//! exponentials, `t^3 / 3` for the Cholesky factorisation.
//!
//! [`predict_widths`] gives the predictions of several widths from one set of distances
//! (one factorisation per width), the warm-up's predictors that AdaHedge mixes
//! ([`super::warm_mix`]).

use nalgebra::{Cholesky, DMatrix, DVector};

/// `exp(-s / (2 sigma^2))` for a squared distance `s`, the expression of
/// [`crate::kernels::Kernel::eval`] for the Gaussian kernel.
#[inline]
fn gaussian_of_sq(s: f64, sigma: f64) -> f64 {
    (-s / (2.0 * sigma * sigma)).exp()
}

/// Squared distances between the rows of row-major `x` (`n x d`), pairs `(i, k)` with
/// `k < i` in the order `i = 1..n`, `k = 0..i` (each a sum over the coordinates in order).
fn pairwise_sq(x: &[f64], d: usize, n: usize) -> Vec<f64> {
    // Coordinates by column (`xt[f n + k] = x_kf`): the inner loop runs over pairs.
    let mut xt = vec![0.0; n * d];
    for (k, row) in x.chunks_exact(d).enumerate() {
        for (f, &v) in row.iter().enumerate() {
            xt[f * n + k] = v;
        }
    }
    let mut s = vec![0.0; n * n.saturating_sub(1) / 2];
    let mut start = 0;
    for i in 1..n {
        let si = &mut s[start..start + i];
        for f in 0..d {
            let a = x[i * d + f];
            for (acc, &b) in si.iter_mut().zip(&xt[f * n..f * n + i]) {
                let t = a - b;
                *acc += t * t;
            }
        }
        start += i;
    }
    s
}

/// Median of the distances `sqrt(sq)` (mean if the median is 0, 1 if every distance
/// is 0): [`super::scale::median_distance`] on the same pairs.
fn median_of(sq: &[f64]) -> f64 {
    let mut dist: Vec<f64> = sq.iter().map(|s| s.sqrt()).collect();
    // The mean over the pairs in their original order.
    let mean = |_: &[f64]| sq.iter().map(|s| s.sqrt()).sum::<f64>() / sq.len() as f64;
    super::scale::median_width(&mut dist, mean)
}

/// Kernel ridge regression on rows `xs` (row-major, length `d`) and targets `ys` at
/// `x`, Gaussian kernel of width `c` times the median pairwise distance of `xs`, ridge
/// `lam`: `k(x)^T (K + lam I)^{-1} y` (the mean of `ys` if `K + lam I` is not
/// numerically positive definite; 0 without rows).
#[cfg(test)]
pub fn predict(xs: &[f64], d: usize, ys: &[f64], x: &[f64], c: f64, lam: f64) -> f64 {
    let mut out = Vec::with_capacity(1);
    predict_multi(Sample { xs, d, ys, k: 1 }, x, c, lam, &mut out);
    out[0]
}

/// The rows a warm-up prediction learns from: row-major `xs` (`n x d`) and their
/// targets, row-major `ys` (`n x k`).
#[derive(Clone, Copy, Debug)]
pub struct Sample<'a> {
    pub xs: &'a [f64],
    pub d: usize,
    pub ys: &'a [f64],
    pub k: usize,
}

/// [`predict`] for the `k` target columns of the sample at once, pushed onto `out`: one
/// Gram matrix and one factorisation, then one solve per column (each column's value
/// has the bits of [`predict`] on that column alone).
#[cfg(test)]
pub fn predict_multi(sample: Sample<'_>, x: &[f64], c: f64, lam: f64, out: &mut Vec<f64>) {
    predict_widths(sample, x, &[c], lam, out);
}

/// [`predict_multi`] for each width multiple of `cs` in turn (`cs.len() x k` values,
/// row-major, pushed onto `out`), the pairwise distances and their median computed once;
/// each value has the bits of [`predict`] on its column and width alone.
pub fn predict_widths(sample: Sample<'_>, x: &[f64], cs: &[f64], lam: f64, out: &mut Vec<f64>) {
    let Sample { xs, d, ys, k } = sample;
    let n = ys.len() / k.max(1);
    let sq = pairwise_sq(xs, d, n);
    let rho = median_of(&sq);
    if n == 0 {
        out.extend(std::iter::repeat_n(0.0, k * cs.len()));
        return;
    }
    let column = |c: usize| ys.iter().skip(c).step_by(k).copied();
    let dist: Vec<f64> = (0..n)
        .map(|i| {
            let mut s = 0.0;
            for (a, b) in xs[i * d..(i + 1) * d].iter().zip(x) {
                let t = a - b;
                s += t * t;
            }
            s
        })
        .collect();
    for &c in cs {
        let sigma = c * rho;
        let Some(ch) = factor(&sq, n, sigma, lam) else {
            out.extend((0..k).map(|c| column(c).sum::<f64>() / n as f64));
            continue;
        };
        let kx: Vec<f64> = dist.iter().map(|&s| gaussian_of_sq(s, sigma)).collect();
        for c in 0..k {
            let alpha = ch.solve(&DVector::from_iterator(n, column(c)));
            out.push((0..n).map(|i| kx[i] * alpha[i]).sum());
        }
    }
}

/// The Cholesky factor of `K + lam I` for the pairs' squared distances `sq` (in the
/// order of [`pairwise_sq`]) and width `sigma`; None if it is not numerically positive
/// definite.
fn factor(sq: &[f64], n: usize, sigma: f64, lam: f64) -> Option<Cholesky<f64, nalgebra::Dyn>> {
    // Column-major, lower triangle: pair (i, k) at i (i - 1) / 2 + k; the diagonal
    // k(x, x) = exp(-0) = 1.
    let mut g = vec![0.0; n * n];
    let mut p = 0;
    for i in 0..n {
        for k in 0..i {
            g[k * n + i] = gaussian_of_sq(sq[p], sigma);
            p += 1;
        }
        g[i * n + i] = gaussian_of_sq(0.0, sigma) + lam;
    }
    super::warm_cholesky::factor(&mut g, n)
        .then(|| Cholesky::pack_dirty(DMatrix::from_vec(n, n, g)))
}

#[cfg(test)]
mod tests {
    use super::super::scale::median_distance;
    use super::*;
    use crate::kernels::Kernel;

    /// The definition: the median heuristic, then the Gram matrix entry by entry.
    fn reference(xs: &[f64], d: usize, ys: &[f64], x: &[f64], c: f64, lam: f64) -> f64 {
        let n = ys.len();
        let sigma = c * median_distance(xs, d);
        if n == 0 {
            return 0.0;
        }
        let k = Kernel::Gaussian { sigma };
        let row = |i: usize| &xs[i * d..(i + 1) * d];
        let g =
            DMatrix::from_fn(n, n, |i, j| k.eval(row(i), row(j)) + if i == j { lam } else { 0.0 });
        match g.cholesky() {
            Some(ch) => {
                let alpha = ch.solve(&DVector::from_column_slice(ys));
                (0..n).map(|i| k.eval(row(i), x) * alpha[i]).sum()
            }
            None => ys.iter().sum::<f64>() / n as f64,
        }
    }

    #[test]
    fn equals_the_definition_bit_for_bit() {
        let mut rng = crate::rng::Rng::new(7);
        for (n, d) in [(0, 3), (1, 3), (2, 1), (7, 4), (60, 5), (131, 9)] {
            let xs: Vec<f64> = (0..n * d).map(|_| rng.normal()).collect();
            let ys: Vec<f64> = (0..n).map(|_| rng.normal()).collect();
            let x: Vec<f64> = (0..d).map(|_| rng.normal()).collect();
            for (c, lam) in [(1.4, 0.1), (0.5, 0.01), (4.0, 1.0)] {
                let (a, b) = (predict(&xs, d, &ys, &x, c, lam), reference(&xs, d, &ys, &x, c, lam));
                assert_eq!(a.to_bits(), b.to_bits(), "n={n} d={d}: {a} vs {b}");
            }
        }
    }

    #[test]
    fn each_width_has_the_bits_of_that_width_alone() {
        let mut rng = crate::rng::Rng::new(13);
        let cs = [0.7, 1.0, 2.8];
        for (n, d, k) in [(0, 2, 1), (1, 3, 2), (25, 4, 1), (40, 3, 3)] {
            let xs: Vec<f64> = (0..n * d).map(|_| rng.normal()).collect();
            let ys: Vec<f64> = (0..n * k).map(|_| rng.normal()).collect();
            let x: Vec<f64> = (0..d).map(|_| rng.normal()).collect();
            let sample = Sample { xs: &xs, d, ys: &ys, k };
            let mut out = Vec::new();
            predict_widths(sample, &x, &cs, 0.1, &mut out);
            assert_eq!(out.len(), cs.len() * k);
            for (j, &c) in cs.iter().enumerate() {
                let mut one = Vec::new();
                predict_multi(sample, &x, c, 0.1, &mut one);
                let got: Vec<u64> = out[j * k..(j + 1) * k].iter().map(|v| v.to_bits()).collect();
                assert_eq!(got, one.iter().map(|v| v.to_bits()).collect::<Vec<_>>(), "n={n} c={c}");
            }
        }
    }

    #[test]
    fn repeated_rows_fall_back_as_the_definition() {
        // Every distance 0 (median and mean 0: width c), and half the pairs 0.
        let same = vec![0.5; 4 * 3];
        let half: Vec<f64> = (0..6).flat_map(|i| [f64::from(i % 2 == 0), 1.0]).collect();
        for (xs, d) in [(same, 3), (half, 2)] {
            let n = xs.len() / d;
            let ys: Vec<f64> = (0..n).map(|i| i as f64).collect();
            let x = vec![0.25; d];
            let (a, b) = (predict(&xs, d, &ys, &x, 1.4, 0.1), reference(&xs, d, &ys, &x, 1.4, 0.1));
            assert_eq!(a.to_bits(), b.to_bits());
        }
    }

    #[test]
    fn every_column_has_the_bits_of_one_column_alone() {
        let mut rng = crate::rng::Rng::new(11);
        for (n, d, k) in [(0, 2, 3), (1, 3, 2), (40, 4, 5)] {
            let xs: Vec<f64> = (0..n * d).map(|_| rng.normal()).collect();
            let ys: Vec<f64> = (0..n * k).map(|_| rng.normal()).collect();
            let x: Vec<f64> = (0..d).map(|_| rng.normal()).collect();
            let mut out = Vec::new();
            predict_multi(Sample { xs: &xs, d, ys: &ys, k }, &x, 1.4, 0.1, &mut out);
            assert_eq!(out.len(), k);
            for (c, v) in out.iter().enumerate() {
                let yc: Vec<f64> = ys.iter().skip(c).step_by(k).copied().collect();
                assert_eq!(v.to_bits(), predict(&xs, d, &yc, &x, 1.4, 0.1).to_bits());
            }
        }
        // A matrix that fails the factorisation: every column falls back to its mean.
        let (xs, ys) = (vec![0.0; 3], vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
        let mut out = Vec::new();
        predict_multi(Sample { xs: &xs, d: 1, ys: &ys, k: 2 }, &[0.0], 1.0, -1.0, &mut out);
        assert_eq!(out, vec![3.0, 4.0]);
    }
}
