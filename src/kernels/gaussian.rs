//! Gaussian kernel `k(x, x') = exp(-||x - x'||^2 / (2 sigma^2))` (PKAWV paper, sec. 2;
//! the same 2 sigma^2 convention in all five papers).

/// `exp(-||x - y||^2 / (2 sigma^2))`.
#[inline]
pub fn gaussian(x: &[f64], y: &[f64], sigma: f64) -> f64 {
    let mut s = 0.0;
    for (a, b) in x.iter().zip(y) {
        let t = a - b;
        s += t * t;
    }
    (-s / (2.0 * sigma * sigma)).exp()
}
