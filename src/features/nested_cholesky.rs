//! Nested-Cholesky Nystrom embedding with rank-revealing pivot skipping.
//! PROS-N-KONS paper (Calandriello, Lazaric, Valko 2017), sec. 2 "Nystrom
//! approximation" (Figure 1 line 7 uses an eigendecomposition; docs/choices.md,
//! "Embedding").
//!
//! For pivots `P = {p_1..p_r}` with `K_P = L L^T` (lower-triangular `L`), the
//! embedding is `phi(x) = L^{-1} k_P(x)`, so `phi(x).phi(x') = k_P(x)^T K_P^{-1} k_P(x')`,
//! the projection of the RKHS onto span{phi(p_i)} (any `M` with `M^T M = K_P^{-1}` is
//! a valid Nystrom map; they differ by a rotation).
//!
//! Appending a point `x` extends `L` by the row `[l^T, c]` with `l = L^{-1} k_P(x)`
//! and `c = sqrt(k(x, x) - l^T l)`: the first `r` coordinates of every embedding
//! are unchanged and one coordinate is appended (nested coordinates; the CON-KONS
//! transport map is `[I; 0]`). If `c^2 <= tol k(x, x)` the point adds no new
//! direction (a duplicate or near-duplicate): it is skipped and the rank stays `r`
//! (the pseudo-inverse `K_I^+` of the paper's proof, App. B). Cost `O(r^2 + r d)` per
//! append or embedding.

use crate::kernels::Kernel;
use crate::linalg::blas::dot;
use serde::{Deserialize, Serialize};

/// Default relative pivot tolerance: `c^2 <= 1e-10 k(x, x)` adds no direction.
pub const DEFAULT_PIVOT_TOL: f64 = 1e-10;

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct NestedCholesky {
    kernel: Kernel,
    d: usize,
    tol: f64,
    /// Pivot points, row-major `r x d`.
    pivots: Vec<f64>,
    /// Lower-triangular factor, packed by rows: row `i` is `l[i(i+1)/2 .. i(i+1)/2 + i + 1]`.
    l: Vec<f64>,
    r: usize,
}

#[inline]
fn row_start(i: usize) -> usize {
    i * (i + 1) / 2
}

impl NestedCholesky {
    pub fn new(kernel: Kernel, d: usize, tol: f64) -> Self {
        NestedCholesky { kernel, d, tol, pivots: Vec::new(), l: Vec::new(), r: 0 }
    }

    /// Embedding dimension `r` (the numerical rank of the dictionary's kernel matrix).
    pub fn rank(&self) -> usize {
        self.r
    }

    pub fn input_dim(&self) -> usize {
        self.d
    }

    pub fn kernel(&self) -> Kernel {
        self.kernel
    }

    /// Pivot points, row-major `r x d`.
    pub fn pivots(&self) -> &[f64] {
        &self.pivots
    }

    /// `L` as a dense row-major `r x r` matrix.
    pub fn factor_dense(&self) -> Vec<f64> {
        let r = self.r;
        let mut m = vec![0.0; r * r];
        for i in 0..r {
            m[i * r..i * r + i + 1].copy_from_slice(&self.l[row_start(i)..row_start(i) + i + 1]);
        }
        m
    }

    /// `k_P(x)`, the kernel row of `x` against the pivots, into `out` (length `r`).
    pub fn kernel_row(&self, x: &[f64], out: &mut [f64]) {
        self.kernel.row_into(x, &self.pivots, self.d, &mut out[..self.r]);
    }

    /// In place: `z <- L^{-1} z` (forward substitution, `O(r^2)`).
    pub fn solve_in_place(&self, z: &mut [f64]) {
        for i in 0..self.r {
            let s = row_start(i);
            let acc = dot(&self.l[s..s + i], &z[..i]);
            z[i] = (z[i] - acc) / self.l[s + i];
        }
    }

    /// `phi(x) = L^{-1} k_P(x)` into `out` (length `r`).
    pub fn embed_into(&self, x: &[f64], out: &mut [f64]) {
        self.kernel_row(x, out);
        self.solve_in_place(&mut out[..self.r]);
    }

    /// `phi(x)` as a new vector.
    pub fn embed(&self, x: &[f64]) -> Vec<f64> {
        let mut v = vec![0.0; self.r];
        self.embed_into(x, &mut v);
        v
    }

    /// Offers `x` as a new pivot; returns `true` if it added a direction (rank + 1).
    pub fn push(&mut self, x: &[f64]) -> bool {
        let mut l = vec![0.0; self.r];
        self.embed_into(x, &mut l);
        let kxx = self.kernel.diag(x);
        let c2 = kxx - dot(&l, &l);
        // Written negated so that a NaN also refuses the point.
        if c2.partial_cmp(&(self.tol * kxx)) != Some(std::cmp::Ordering::Greater) {
            return false;
        }
        self.l.extend_from_slice(&l);
        self.l.push(c2.sqrt());
        self.pivots.extend_from_slice(x);
        self.r += 1;
        true
    }
}

impl crate::state::ValidState for NestedCholesky {
    fn validate(&self) -> crate::Result<()> {
        use crate::state::*;
        ensure(self.d >= 1, || "the input dimension is 0".into())?;
        ensure(self.tol > 0.0 && self.tol < 1.0, || "bad pivot tolerance".into())?;
        len_is("pivots", self.pivots.len(), product("pivots", self.r, self.d)?)?;
        let packed = self.r.checked_mul(self.r + 1).map(|v| v / 2);
        len_is("factor", self.l.len(), packed.unwrap_or(usize::MAX))?;
        finite("pivots", &self.pivots)?;
        finite("factor", &self.l)?;
        ensure((0..self.r).all(|i| self.l[row_start(i) + i] > 0.0), || {
            "the embedding factor has a pivot <= 0".into()
        })
    }
    fn check_config(&self, fresh: &Self) -> crate::Result<()> {
        crate::state::same("kernel", &self.kernel, &fresh.kernel)?;
        crate::state::same("tol", &self.tol, &fresh.tol)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reproduces_the_kernel_on_pivots_and_skips_duplicates() {
        let k = Kernel::Gaussian { sigma: 0.7 };
        let pts = [[0.1, 0.2], [0.5, -0.3], [0.1, 0.2], [1.0, 0.4]];
        let mut e = NestedCholesky::new(k, 2, DEFAULT_PIVOT_TOL);
        let added: Vec<bool> = pts.iter().map(|p| e.push(p)).collect();
        assert_eq!(added, vec![true, true, false, true]);
        assert_eq!(e.rank(), 3);
        for a in &pts {
            for b in &pts {
                let v = dot(&e.embed(a), &e.embed(b));
                assert!((v - k.eval(a, b)).abs() < 1e-12);
            }
        }
    }
}
