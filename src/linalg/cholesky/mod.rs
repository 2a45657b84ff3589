//! A growing lower Cholesky factor `L L^T = A` stored by columns (`cols[k]` holds
//! `L[k..m, k]`, the diagonal first), for the Nystrom forecaster (PKAWV paper
//! sec. 3.2 and App. H, Algorithm 2; docs/choices.md, "Nyström variant"): every column is a contiguous slice, so the rank-one update
//! (Givens form) and the forward substitution (axpy form) stream it once, and a
//! bordering `A -> [[A, c], [c^T, dd]]` appends one entry per column plus a new
//! column, O(m) moves.
//!
//! A block of `n` rows `K` (between two borderings) takes one pass over the factor
//! with matrix-matrix products ([`ColCholesky::block_solve_update`]): the forward
//! solve `L X = B` for many right-hand sides, and the factor of `L L^T + K^T K`
//! as the triangular factor of the QR decomposition of `[L^T; K]` (Householder
//! reflectors that zero `K` column by column, accumulated over a panel of columns
//! in compact WY form `I - V T V^T`, as LAPACK's `dtpqrt`).
//!
//! One operation per file: [`factor`](ColCholesky::factor) (`factor.rs`), the forward
//! solves (`solve.rs`), the rank-one update (`update.rs`), the bordering
//! ([`extend`](ColCholesky::extend), `extend.rs`) and the block of rows (`block.rs`).

use serde::{Deserialize, Serialize};

mod block;
mod extend;
mod factor;
mod solve;
mod update;

pub use block::{transpose, BlockScratch, OUTER_PANEL, PANEL, SMALL_PANEL};

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct ColCholesky {
    cols: Vec<Vec<f64>>,
}

impl ColCholesky {
    pub fn new() -> Self {
        ColCholesky { cols: Vec::new() }
    }

    /// Order `m` of the factor.
    pub fn dim(&self) -> usize {
        self.cols.len()
    }

    /// Diagonal entry `L[k, k]`.
    pub fn diag(&self, k: usize) -> f64 {
        self.cols[k][0]
    }

    /// Whether every pivot is finite and strictly positive.
    pub fn is_healthy(&self) -> bool {
        self.cols.iter().all(|c| c[0].is_finite() && c[0] > 0.0)
    }

    /// `L <- s L` (`L L^T <- s^2 L L^T`).
    pub fn scale(&mut self, s: f64) {
        self.cols.iter_mut().flatten().for_each(|v| *v *= s);
    }

    /// Dense row-major copy of `L` (tests, diagnostics).
    pub fn to_dense(&self) -> Vec<f64> {
        let m = self.dim();
        let mut out = vec![0.0; m * m];
        for (k, col) in self.cols.iter().enumerate() {
            for (i, v) in col.iter().enumerate() {
                out[(k + i) * m + k] = *v;
            }
        }
        out
    }

    /// Invariants of a decoded factor: column `k` holds `m - k` finite values, a positive pivot first.
    pub fn validate(&self) -> crate::Result<()> {
        let m = self.dim();
        for (k, c) in self.cols.iter().enumerate() {
            crate::state::len_is("a Cholesky column", c.len(), m - k)?;
            crate::state::finite("a Cholesky column", c)?;
            crate::state::ensure(c[0] > 0.0, || format!("Cholesky pivot {k} is <= 0"))?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;

    /// A symmetric positive definite `m x m` matrix (row-major): `B B^T + I / 2`.
    pub(super) fn spd(m: usize, seed: u64) -> Vec<f64> {
        let mut rng = Rng::new(seed);
        let b: Vec<f64> = (0..m * m).map(|_| rng.normal()).collect();
        let mut a = vec![0.0; m * m];
        for i in 0..m {
            for j in 0..m {
                a[i * m + j] = (0..m).map(|k| b[i * m + k] * b[j * m + k]).sum::<f64>()
                    + if i == j { 0.5 } else { 0.0 };
            }
        }
        a
    }

    /// `L L^T` (row-major).
    pub(super) fn llt(l: &ColCholesky) -> Vec<f64> {
        let m = l.dim();
        let d = l.to_dense();
        let mut a = vec![0.0; m * m];
        for i in 0..m {
            for j in 0..m {
                a[i * m + j] = (0..m).map(|k| d[i * m + k] * d[j * m + k]).sum();
            }
        }
        a
    }

    #[test]
    fn factor_update_extend_solve() {
        let m = 9;
        let a = spd(m, 1);
        let mut l = ColCholesky::factor(&a, m).unwrap();
        for (x, y) in llt(&l).iter().zip(&a) {
            assert!((x - y).abs() < 1e-10);
        }
        // Rank-one update.
        let x: Vec<f64> = (0..m).map(|i| (i as f64).sin()).collect();
        let mut xx = x.clone();
        l.rank_one_update(&mut xx);
        let up = llt(&l);
        for i in 0..m {
            for j in 0..m {
                assert!((up[i * m + j] - a[i * m + j] - x[i] * x[j]).abs() < 1e-10);
            }
        }
        // Forward solve (one and two right-hand sides agree bit for bit).
        let mut w = x.clone();
        l.forward_solve(&mut w);
        let (mut w2, mut v2) = (x.clone(), a[..m].to_vec());
        l.forward_solve2(&mut w2, &mut v2);
        let mut v = a[..m].to_vec();
        l.forward_solve(&mut v);
        assert_eq!(w, w2);
        assert_eq!(v, v2);
        let d = l.to_dense();
        for i in 0..m {
            let s: f64 = (0..m).map(|k| d[i * m + k] * w[k]).sum();
            assert!((s - x[i]).abs() < 1e-10);
        }
        // Extension equals factoring the bordered matrix.
        let big = spd(m + 1, 2);
        let mut l2 = ColCholesky::factor(&big[..], m + 1).unwrap();
        let small: Vec<f64> =
            (0..m).flat_map(|i| big[i * (m + 1)..i * (m + 1) + m].to_vec()).collect();
        let mut l1 = ColCholesky::factor(&small, m).unwrap();
        let mut r: Vec<f64> = (0..m).map(|i| big[m * (m + 1) + i]).collect();
        l1.forward_solve(&mut r);
        let rho = (big[(m + 1) * (m + 1) - 1] - r.iter().map(|v| v * v).sum::<f64>()).sqrt();
        l1.extend(&r, rho);
        for (x, y) in l1.to_dense().iter().zip(l2.to_dense().iter()) {
            assert!((x - y).abs() < 1e-10);
        }
        assert!(l2.is_healthy());
        l2.cols[3][0] = f64::NAN;
        assert!(!l2.is_healthy());
        assert!(ColCholesky::factor(&[1.0, 2.0, 2.0, 1.0], 2).is_err());
    }
}
