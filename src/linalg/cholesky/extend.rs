//! The bordering `A -> [[A, c], [c^T, dd]]`: one entry per column plus a new column.

use super::ColCholesky;

impl ColCholesky {
    /// Borders the factor: `r = L^{-1} c` (given) and pivot `rho > 0` make the new last row.
    pub fn extend(&mut self, r: &[f64], rho: f64) {
        for (col, &rk) in self.cols.iter_mut().zip(r) {
            col.push(rk);
        }
        self.cols.push(vec![rho]);
    }
}
