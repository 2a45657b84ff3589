//! Symmetric matrices stored as the upper triangle packed by columns:
//! entry `(i, j)` with `i <= j` lives at `j (j + 1) / 2 + i`, so column `j`
//! (rows `0..=j`) is the contiguous slice `[j(j+1)/2, j(j+1)/2 + j]`.
//! Both operations below stream the `r (r + 1) / 2` stored entries once; each
//! is compiled per instruction-set path and chosen at run time ([`crate::simd`]).

use super::blas::axpy_impl;
use crate::simd::Isa;

/// Number of stored entries of an `r x r` symmetric matrix.
#[inline]
pub fn packed_len(r: usize) -> usize {
    r * (r + 1) / 2
}

#[inline]
fn col_start(j: usize) -> usize {
    j * (j + 1) / 2
}

/// Packed `scale * I_r`.
pub fn scaled_identity(r: usize, scale: f64) -> Vec<f64> {
    let mut p = vec![0.0; packed_len(r)];
    for j in 0..r {
        p[col_start(j) + j] = scale;
    }
    p
}

crate::dispatch! {
    /// `h = A v` for packed symmetric `A` (order `r = v.len()`).
    ///
    /// One pass per stored column: column `j` (rows `0..j`) adds `v_j col` to
    /// `h[0..j]` and, by symmetry, its dot product with `v[0..j]` to `h[j]` (four
    /// partial sums, a fixed summation order).
    pub fn symv(a: &[f64], v: &[f64], h: &mut [f64]) => symv_impl, symv_on;
}

crate::dispatch! {
    /// `A -= c h h^T` on the packed upper triangle (a symmetric rank-one update).
    pub fn syr(a: &mut [f64], c: f64, h: &[f64]) => syr_impl, syr_on;
}

#[inline(always)]
fn symv_impl<I: Isa>(a: &[f64], v: &[f64], h: &mut [f64]) {
    let r = v.len();
    h[..r].iter_mut().for_each(|x| *x = 0.0);
    for j in 0..r {
        let s = col_start(j);
        let col = &a[s..s + j];
        let vj = v[j];
        let (head, rest) = h.split_at_mut(j);
        let mut acc = [0.0f64; 4];
        let cc = col.chunks_exact(4);
        let (ct, vt) = (cc.remainder(), v[..j].chunks_exact(4).remainder());
        let mut hc = head.chunks_exact_mut(4);
        for ((c4, v4), h4) in cc.zip(v[..j].chunks_exact(4)).zip(&mut hc) {
            for l in 0..4 {
                h4[l] = I::mul_add(vj, c4[l], h4[l]);
                acc[l] = I::mul_add(c4[l], v4[l], acc[l]);
            }
        }
        let mut tail = 0.0;
        for ((c, vi), hi) in ct.iter().zip(vt).zip(hc.into_remainder()) {
            *hi = I::mul_add(vj, *c, *hi);
            tail = I::mul_add(*c, *vi, tail);
        }
        rest[0] += I::mul_add(a[s + j], vj, ((acc[0] + acc[2]) + (acc[1] + acc[3])) + tail);
    }
}

#[inline(always)]
fn syr_impl<I: Isa>(a: &mut [f64], c: f64, h: &[f64]) {
    let r = h.len();
    for j in 0..r {
        let s = col_start(j);
        axpy_impl::<I>(-c * h[j], &h[..=j], &mut a[s..=s + j]);
    }
}

/// Entry `(i, j)` of the packed symmetric matrix.
#[inline]
pub fn get(a: &[f64], i: usize, j: usize) -> f64 {
    let (i, j) = if i <= j { (i, j) } else { (j, i) };
    a[col_start(j) + i]
}

/// Dense row-major copy (for tests, diagnostics and the Python side).
pub fn to_dense(a: &[f64], r: usize) -> Vec<f64> {
    let mut m = vec![0.0; r * r];
    for i in 0..r {
        for j in 0..r {
            m[i * r + j] = get(a, i, j);
        }
    }
    m
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn symv_and_syr_match_dense() {
        let r = 11;
        let mut a = vec![0.0; packed_len(r)];
        for j in 0..r {
            for i in 0..=j {
                a[col_start(j) + i] = ((i * 7 + j * 3) as f64).sin();
            }
        }
        let v: Vec<f64> = (0..r).map(|i| (i as f64).cos()).collect();
        let dense = to_dense(&a, r);
        let mut h = vec![0.0; r];
        symv(&a, &v, &mut h);
        for i in 0..r {
            let e: f64 = (0..r).map(|j| dense[i * r + j] * v[j]).sum();
            assert!((h[i] - e).abs() < 1e-12);
        }
        syr(&mut a, 0.5, &v);
        for i in 0..r {
            for j in 0..r {
                assert!((get(&a, i, j) - (dense[i * r + j] - 0.5 * v[i] * v[j])).abs() < 1e-12);
            }
        }
    }
}
