//! Level-1 kernels with several independent accumulators so that the compiler
//! can vectorise them without reassociating floating-point sums on its own.
//! Each is compiled per instruction-set path and chosen at run time
//! ([`crate::simd`]); the FMA paths may differ from the baseline in the last bits.

use crate::simd::Isa;

crate::dispatch! {
    /// `sum_i a_i b_i` with eight partial sums (pairwise-like, deterministic order).
    pub fn dot(a: &[f64], b: &[f64]) -> f64 => dot_impl, dot_on;
}

crate::dispatch! {
    /// Four dot products `a . b_j` sharing `a` (all slices of one length `n`), each
    /// bit-identical to [`dot`]`(a, b_j)`: the same eight partial sums and final
    /// reduction per product; `a` is read once for the four (cache reuse in blocked
    /// triangular solves).
    pub fn dot4(a: &[f64], b: [&[f64]; 4]) -> [f64; 4] => dot4_impl, dot4_on;
}

crate::dispatch! {
    /// `y += alpha x`.
    pub fn axpy(alpha: f64, x: &[f64], y: &mut [f64]) => axpy_impl, axpy_on;
}

#[inline(always)]
fn dot4_impl<I: Isa>(a: &[f64], b: [&[f64]; 4]) -> [f64; 4] {
    let n = a.len().min(b[0].len()).min(b[1].len()).min(b[2].len()).min(b[3].len());
    let a = &a[..n];
    let (b0, b1, b2, b3) = (&b[0][..n], &b[1][..n], &b[2][..n], &b[3][..n]);
    let mut acc = [[0.0f64; 8]; 4];
    let full = n - n % 8;
    let mut i = 0;
    while i < full {
        let x = &a[i..i + 8];
        let (y0, y1, y2, y3) = (&b0[i..i + 8], &b1[i..i + 8], &b2[i..i + 8], &b3[i..i + 8]);
        for k in 0..8 {
            acc[0][k] = I::mul_add(x[k], y0[k], acc[0][k]);
            acc[1][k] = I::mul_add(x[k], y1[k], acc[1][k]);
            acc[2][k] = I::mul_add(x[k], y2[k], acc[2][k]);
            acc[3][k] = I::mul_add(x[k], y3[k], acc[3][k]);
        }
        i += 8;
    }
    let mut out = [0.0f64; 4];
    let bs = [b0, b1, b2, b3];
    for j in 0..4 {
        let mut tail = 0.0;
        for (x, y) in a[full..].iter().zip(&bs[j][full..]) {
            tail = I::mul_add(*x, *y, tail);
        }
        let c = &acc[j];
        out[j] = ((c[0] + c[4]) + (c[1] + c[5])) + ((c[2] + c[6]) + (c[3] + c[7])) + tail;
    }
    out
}

#[inline(always)]
fn dot_impl<I: Isa>(a: &[f64], b: &[f64]) -> f64 {
    let n = a.len().min(b.len());
    let (a, b) = (&a[..n], &b[..n]);
    let mut acc = [0.0f64; 8];
    let ca = a.chunks_exact(8);
    let cb = b.chunks_exact(8);
    let (ra, rb) = (ca.remainder(), cb.remainder());
    for (x, y) in ca.zip(cb) {
        for k in 0..8 {
            acc[k] = I::mul_add(x[k], y[k], acc[k]);
        }
    }
    let mut tail = 0.0;
    for (x, y) in ra.iter().zip(rb) {
        tail = I::mul_add(*x, *y, tail);
    }
    ((acc[0] + acc[4]) + (acc[1] + acc[5])) + ((acc[2] + acc[6]) + (acc[3] + acc[7])) + tail
}

#[inline(always)]
pub(crate) fn axpy_impl<I: Isa>(alpha: f64, x: &[f64], y: &mut [f64]) {
    for (yi, xi) in y.iter_mut().zip(x) {
        *yi = I::mul_add(alpha, *xi, *yi);
    }
}

/// `||x||^2`.
#[inline]
pub fn norm2(x: &[f64]) -> f64 {
    dot(x, x)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dot_matches_naive() {
        for n in [0usize, 1, 7, 8, 9, 31, 100] {
            let a: Vec<f64> = (0..n).map(|i| (i as f64 * 0.37).sin()).collect();
            let b: Vec<f64> = (0..n).map(|i| (i as f64 * 0.11).cos()).collect();
            let naive: f64 = a.iter().zip(&b).map(|(x, y)| x * y).sum();
            assert!((dot(&a, &b) - naive).abs() < 1e-12);
            let c: Vec<f64> = b.iter().map(|v| v * 1.7 - 0.3).collect();
            let four = dot4(&a, [&b, &c, &a, &b]);
            assert_eq!(
                four.map(f64::to_bits),
                [dot(&a, &b), dot(&a, &c), dot(&a, &a), dot(&a, &b)].map(f64::to_bits)
            );
        }
    }
}
