//! Sine eigenbasis of the kernel `min(s, t)` on [0, 1] (first-order Sobolev space
//! with `f(0) = 0`). Zhang and Simon, eq. (11) and Table 1:
//! `psi_j(x) = sqrt(2) sin((2j - 1) pi x / 2)`, `lambda_j = 4 / ((2j - 1)^2 pi^2)`, orthonormal
//! under Unif[0, 1]. (Table 3's `2 sin`, `2 / ((2j-1)^2 pi^2)` gives the same kernel; by span
//! invariance the projection estimator does not depend on the normalisation.)

use std::f64::consts::{PI, SQRT_2};

/// `lambda_j` (j >= 1).
pub fn eigenvalue(j: usize) -> f64 {
    let m = (2 * j - 1) as f64;
    4.0 / (m * m * PI * PI)
}

/// Writes `psi_1(x), ..., psi_m(x)` into `out[..m]`, O(1) per function: the angle
/// `(2j + 1) theta` is reached from `(2j - 1) theta` by a rotation of `2 theta`
/// (`theta = pi x / 2`), so only one sine and one cosine pair are evaluated.
pub fn eval_into(x: f64, out: &mut [f64]) {
    if out.is_empty() {
        return;
    }
    let theta = 0.5 * PI * x;
    let (mut s, mut c) = theta.sin_cos();
    let (s2, c2) = (2.0 * theta).sin_cos();
    for (j, o) in out.iter_mut().enumerate() {
        if j > 0 {
            // Re-anchor every 64 steps to keep the rotation error at the 1e-15 level.
            if j % 64 == 0 {
                let a = (2 * j + 1) as f64 * theta;
                let sc = a.sin_cos();
                s = sc.0;
                c = sc.1;
            } else {
                let ns = s * c2 + c * s2;
                let nc = c * c2 - s * s2;
                s = ns;
                c = nc;
            }
        }
        *o = SQRT_2 * s;
    }
}

/// Block version: `out[j * LANES + r] = psi_{j+1}(xs[r])` for up to [`super::LANES`] rows
/// `xs` and `m` functions. The rows advance their rotations side by side in fixed-size lanes,
/// so the recurrence chains are independent and the loop vectorises (column additions of
/// Algorithm 2). Lanes past `xs.len()` hold garbage-free values of `x = 0`.
pub fn eval_block(xs: &[f64], m: usize, out: &mut [f64]) {
    const L: usize = super::LANES;
    let mut x = [0.0f64; L];
    x[..xs.len()].copy_from_slice(xs);
    let (mut s, mut c, mut s2, mut c2) = ([0.0f64; L], [0.0f64; L], [0.0f64; L], [0.0f64; L]);
    for r in 0..L {
        let (a, b) = (0.5 * PI * x[r]).sin_cos();
        s[r] = a;
        c[r] = b;
        s2[r] = 2.0 * a * b;
        c2[r] = b * b - a * a;
    }
    for j in 0..m {
        if j > 0 {
            if j % 128 == 0 {
                for r in 0..L {
                    let (a, b) = ((2 * j + 1) as f64 * 0.5 * PI * x[r]).sin_cos();
                    s[r] = a;
                    c[r] = b;
                }
            } else {
                for r in 0..L {
                    let ns = s[r] * c2[r] + c[r] * s2[r];
                    let nc = c[r] * c2[r] - s[r] * s2[r];
                    s[r] = ns;
                    c[r] = nc;
                }
            }
        }
        let o = &mut out[j * L..(j + 1) * L];
        for r in 0..L {
            o[r] = SQRT_2 * s[r];
        }
    }
}
