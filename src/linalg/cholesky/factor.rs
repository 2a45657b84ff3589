//! The Cholesky factor of a dense symmetric matrix.

use super::ColCholesky;
use crate::linalg::blas::axpy;

impl ColCholesky {
    /// Cholesky factor of a dense symmetric row-major `m x m` matrix, or the index
    /// of the first pivot that is not positive.
    pub fn factor(a: &[f64], m: usize) -> std::result::Result<Self, usize> {
        // Left-looking, column by column.
        let mut cols: Vec<Vec<f64>> = Vec::with_capacity(m);
        for j in 0..m {
            let mut col: Vec<f64> = (j..m).map(|i| a[i * m + j]).collect();
            for (k, ck) in cols.iter().enumerate() {
                // L[j, k] = ck[j - k]; column j of L gets -L[i, k] L[j, k] for i >= j.
                let ljk = ck[j - k];
                axpy(-ljk, &ck[j - k..], &mut col);
            }
            let piv = col[0];
            if !(piv.is_finite() && piv > 0.0) {
                return Err(j);
            }
            let d = piv.sqrt();
            col[0] = d;
            for v in col[1..].iter_mut() {
                *v /= d;
            }
            cols.push(col);
        }
        Ok(ColCholesky { cols })
    }
}
