//! Symmetric matrices stored as the upper triangle packed by columns:
//! entry `(i, j)` with `i <= j` lives at `j (j + 1) / 2 + i`, so column `j`
//! (rows `0..=j`) is the contiguous slice `[j(j+1)/2, j(j+1)/2 + j]`.
//! Both operations below stream the `r (r + 1) / 2` stored entries once; each
//! is compiled per instruction-set path and chosen at run time ([`crate::simd`]).

use super::triangle;
use crate::simd::Lanes;

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
    /// One pass over the stored columns, four at a time ([`triangle::symv`]).
    pub fn symv(a: &[f64], v: &[f64], h: &mut [f64]) => symv_impl, symv_on;
}

crate::dispatch! {
    /// `A -= c h h^T` on the packed upper triangle (a symmetric rank-one update).
    pub fn syr(a: &mut [f64], c: f64, h: &[f64]) => syr_impl, syr_on;
}

/// Packed storage as a [`triangle::Layout`].
#[derive(Clone, Copy)]
struct Packed;

impl triangle::Layout for Packed {
    #[inline(always)]
    fn off(self, j: usize) -> usize {
        col_start(j)
    }
}

#[inline(always)]
fn symv_impl<I: Lanes>(a: &[f64], v: &[f64], h: &mut [f64]) {
    let r = v.len();
    assert!(a.len() >= packed_len(r) && h.len() >= r);
    triangle::symv::<I, _>(Packed, a, v, h);
}

#[inline(always)]
fn syr_impl<I: Lanes>(a: &mut [f64], c: f64, h: &[f64]) {
    assert!(a.len() >= packed_len(h.len()));
    triangle::syr::<I, _>(Packed, a, c, h);
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
