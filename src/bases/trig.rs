//! Periodic trigonometric eigenbasis of the kernel `-B4({s - t}) / 24` (periodic
//! second-order Sobolev space on [0, 1]). Zhang and Simon, Table 2 and Example 1:
//! `-B4({s-t})/24 = sum_k 2/(2 pi k)^4 [cos(2 pi k s) cos(2 pi k t) + sin(2 pi k s) sin(2 pi k t)]`.
//! We evaluate the orthonormal functions `sqrt(2) sin(2 pi k x)`, `sqrt(2) cos(2 pi k x)`,
//! operator eigenvalue `1 / (2 pi k)^4` (the paper's `2/(2 pi k)^4` pairs with the
//! non-normalised sin/cos: same kernel). Function index `j = 1, 2, ...` maps to frequency
//! `k = ceil(j / 2)`; within a frequency the sine comes first (paper's order) unless
//! `cos_first` (docs/choices.md, "What N counts").

use std::f64::consts::{PI, SQRT_2};

/// Frequency `k = ceil(j / 2)` of function `j >= 1`.
pub fn frequency(j: usize) -> usize {
    j.div_ceil(2)
}

/// `lambda_j = 1 / (2 pi k)^4` with `k = ceil(j / 2)`.
pub fn eigenvalue(j: usize) -> f64 {
    let w = 2.0 * PI * frequency(j) as f64;
    1.0 / (w * w * w * w)
}

/// Writes `psi_1(x), ..., psi_m(x)` into `out[..m]` (rotation recurrence, O(1) per function).
pub fn eval_into(x: f64, cos_first: bool, out: &mut [f64]) {
    let m = out.len();
    if m == 0 {
        return;
    }
    let omega = 2.0 * PI * x;
    let (s1, c1) = omega.sin_cos();
    let (mut s, mut c) = (s1, c1);
    let kmax = m.div_ceil(2);
    for k in 1..=kmax {
        if k > 1 {
            if k % 64 == 0 {
                let sc = (k as f64 * omega).sin_cos();
                s = sc.0;
                c = sc.1;
            } else {
                let ns = s * c1 + c * s1;
                let nc = c * c1 - s * s1;
                s = ns;
                c = nc;
            }
        }
        let (first, second) = if cos_first { (c, s) } else { (s, c) };
        let j0 = 2 * (k - 1);
        out[j0] = SQRT_2 * first;
        if j0 + 1 < m {
            out[j0 + 1] = SQRT_2 * second;
        }
    }
}

/// Block version: `out[j * LANES + r] = psi_{j+1}(xs[r])` for up to [`super::LANES`] rows
/// (independent rotation chains in fixed-size lanes, so the loop vectorises).
pub fn eval_block(xs: &[f64], cos_first: bool, m: usize, out: &mut [f64]) {
    const L: usize = super::LANES;
    let mut x = [0.0f64; L];
    x[..xs.len()].copy_from_slice(xs);
    let (mut s, mut c, mut s1, mut c1) = ([0.0f64; L], [0.0f64; L], [0.0f64; L], [0.0f64; L]);
    for r in 0..L {
        let (a, b) = (2.0 * PI * x[r]).sin_cos();
        s[r] = a;
        c[r] = b;
        s1[r] = a;
        c1[r] = b;
    }
    let kmax = m.div_ceil(2);
    for k in 1..=kmax {
        if k > 1 {
            if k % 128 == 0 {
                for r in 0..L {
                    let (a, b) = (k as f64 * 2.0 * PI * x[r]).sin_cos();
                    s[r] = a;
                    c[r] = b;
                }
            } else {
                for r in 0..L {
                    let ns = s[r] * c1[r] + c[r] * s1[r];
                    let nc = c[r] * c1[r] - s[r] * s1[r];
                    s[r] = ns;
                    c[r] = nc;
                }
            }
        }
        let j0 = 2 * (k - 1);
        let (first, second) = if cos_first { (&c, &s) } else { (&s, &c) };
        let o = &mut out[j0 * L..(j0 + 1) * L];
        for r in 0..L {
            o[r] = SQRT_2 * first[r];
        }
        if j0 + 1 < m {
            let o = &mut out[(j0 + 1) * L..(j0 + 2) * L];
            for r in 0..L {
                o[r] = SQRT_2 * second[r];
            }
        }
    }
}
