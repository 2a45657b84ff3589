//! The factor `L L^T = A`: the fixed dictionary's `lam K_DD`, the refactorisation of
//! `A_{t-1}` from the cache (the module documentation's repairs), `alpha = A^{-1} q`.

use super::NystromAwv;
use crate::error::{KsError, Result};
use crate::linalg::blas::dot;
use crate::linalg::cholesky::ColCholesky;

impl NystromAwv {
    /// Factorises `A_0 = lam K_DD` of a fixed dictionary (`kdd`: `K_DD`, row-major),
    /// with a growing jitter if `K_DD` is (numerically) singular.
    pub(super) fn factor_fixed(&mut self, kdd: &[f64]) -> Result<()> {
        let m = self.size();
        let mut jitter = 0.0;
        loop {
            let a: Vec<f64> = (0..m * m)
                .map(|i| self.lam * (kdd[i] + if i / m == i % m { jitter } else { 0.0 }))
                .collect();
            match ColCholesky::factor(&a, m) {
                Ok(l) => {
                    self.chol = l;
                    break;
                }
                Err(_) if jitter < 1e-2 => {
                    jitter = if jitter == 0.0 { 1e-12 } else { jitter * 10.0 };
                    self.stats.jitters += 1;
                }
                Err(j) => {
                    return Err(KsError::Numerical(format!(
                        "lam K_DD of the fixed dictionary is not positive definite (pivot {j}) even with a jitter {jitter}"
                    )))
                }
            }
        }
        self.fixed_jitter = jitter;
        Ok(())
    }

    /// Refactorises `A_{t-1} = K^T K + lam K_DD` from the cache (with a jitter if needed);
    /// `stepped`: the discount step of round `t` was applied (`gamma < 1`).
    pub(super) fn refactorize(&mut self, stepped: bool) -> Result<()> {
        let m = self.size();
        let t = self.t();
        if self.kors.is_none() {
            return Err(KsError::Numerical(
                "NystromAWV (fixed dictionary): the Cholesky factor of A lost positive definiteness; \
                 no cached kernel matrix to refactorise from"
                    .into(),
            ));
        }
        let a = if let Some(a) = self.capped_a() {
            a
        } else if self.gamma < 1.0 {
            self.discounted_a(self.n_seen + u64::from(stepped))
        } else {
            let kdd = self.kernel.gram(&self.centers, &self.centers, self.d.unwrap_or(1).max(1));
            let mut a = vec![0.0; m * m];
            for i in 0..m {
                for j in 0..=i {
                    let v =
                        dot(&self.kcols[i][..t], &self.kcols[j][..t]) + self.lam * kdd[i * m + j];
                    a[i * m + j] = v;
                    a[j * m + i] = v;
                }
            }
            a
        };
        self.stats.refactorizations += 1;
        let mut jitter = 0.0;
        loop {
            let aj: Vec<f64> =
                (0..m * m).map(|i| a[i] + if i / m == i % m { jitter } else { 0.0 }).collect();
            match ColCholesky::factor(&aj, m) {
                Ok(l) => {
                    self.chol = l;
                    // The cache holds the pending rows: A is up to date.
                    self.drop_pending();
                    return Ok(());
                }
                Err(_) if jitter < 1e-2 * self.lam => {
                    jitter = if jitter == 0.0 { 1e-12 * self.lam } else { jitter * 10.0 };
                    self.stats.jitters += 1;
                }
                Err(j) => {
                    return Err(KsError::Numerical(format!(
                        "NystromAWV: A = K^T K + lam K_DD is not positive definite (pivot {j}) even after \
                         refactorising from the cache with a jitter {jitter}"
                    )))
                }
            }
        }
    }

    /// `alpha = A_t^{-1} q_t` after the last round (two triangular solves).
    pub fn alpha(&self) -> Vec<f64> {
        if !self.pending.is_empty() {
            if let Ok(me) = self.flushed() {
                return me.alpha();
            }
        }
        let m = self.size();
        let mut u = self.q.clone();
        self.chol.forward_solve(&mut u);
        // Backward solve L^T alpha = u.
        let l = self.chol.to_dense();
        let mut a = u;
        for k in (0..m).rev() {
            let s: f64 = (k + 1..m).map(|i| l[i * m + k] * a[i]).sum();
            a[k] = (a[k] - s) / l[k * m + k];
        }
        a
    }
}
