//! Laplacian kernel `k(x, x') = exp(-||x - x'||_1 / sigma)` (VAW2 paper, sec. 5).

/// `exp(-||x - y||_1 / sigma)`.
#[inline]
pub fn laplacian(x: &[f64], y: &[f64], sigma: f64) -> f64 {
    let mut s = 0.0;
    for (a, b) in x.iter().zip(y) {
        s += (a - b).abs();
    }
    (-s / sigma).exp()
}
