//! Set-up shared by the integration tests: a seeded stream and the experts the
//! mixture and serving tests build again and again.
#![allow(dead_code)] // each test crate uses a part of it

use kernelstream::features::RffVariant;
use kernelstream::kernels::Kernel;
use kernelstream::learners::{
    KernelAwv, KernelAwvParams, RffAwv, RffAwvParams, TaylorAwv, TaylorAwvParams,
};
use kernelstream::rng::Rng;

/// `n` rows of `d` inputs uniform in [-1, 1] and `y = sin(3 x_0) cos(x_{d-1})` plus
/// noise of std 0.1, from `seed`.
pub fn data(n: usize, d: usize, seed: u64) -> (Vec<f64>, Vec<f64>) {
    let mut rng = Rng::new(seed);
    let x: Vec<f64> = (0..n * d).map(|_| 2.0 * rng.uniform() - 1.0).collect();
    let y = x.chunks(d).map(|r| (3.0 * r[0]).sin() * r[d - 1].cos() + 0.1 * rng.normal()).collect();
    (x, y)
}

/// The bit patterns of `v` (for bit-for-bit comparisons).
pub fn bits(v: &[f64]) -> Vec<u64> {
    v.iter().map(|x| x.to_bits()).collect()
}

/// A TaylorAWV expert with the remaining parameters at their defaults.
pub fn taylor(sigma: f64, degree: usize, lam: f64, ridge: bool) -> TaylorAwv {
    let p = TaylorAwvParams { sigma, degree, lam, ridge, ..Default::default() };
    TaylorAwv::new(&p).unwrap()
}

/// An RFF expert with `lam = 1`, no ridge, seed 3.
pub fn rff(kernel: Kernel, n_features: usize, features: RffVariant) -> RffAwv {
    let p = RffAwvParams {
        kernel: Some(kernel),
        n_features,
        lam: 1.0,
        features,
        ridge: false,
        seed: 3,
        ..Default::default()
    };
    RffAwv::new(&p).unwrap()
}

/// A KernelAWV of budget 10 000.
pub fn kernel_awv(kernel: Kernel, lam: f64, ridge: bool) -> KernelAwv {
    let p = KernelAwvParams { kernel: Some(kernel), lam, ridge, max_size: 10_000 };
    KernelAwv::new(&p).unwrap()
}

/// `a` equals `b` to `tol` relative to the largest `|b|` (one scale for the whole vector).
pub fn assert_rel(a: &[f64], b: &[f64], tol: f64, what: &str) {
    assert_eq!(a.len(), b.len(), "{what}");
    let scale = b.iter().fold(1e-300f64, |m, v| m.max(v.abs()));
    for (i, (p, q)) in a.iter().zip(b).enumerate() {
        assert!((p - q).abs() <= tol * scale, "{what}[{i}]: {p} vs {q}");
    }
}

/// Column `j` of a row-major matrix with `k` columns.
pub fn column(y: &[f64], j: usize, k: usize) -> Vec<f64> {
    y.iter().skip(j).step_by(k).copied().collect()
}
