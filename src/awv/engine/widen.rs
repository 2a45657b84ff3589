//! Widening the linear AWV engine to more features (an exact zero-extension of the
//! inputs, docs/streams.md, "Rows that grow").
//!
//! When a row extended by zeros has the features `P phi` (`P` an embedding of the old
//! features among the new ones, every other new feature 0), the engine fed the extended
//! rows from the first round holds `A = lam I + sum_s P phi_s phi_s^T P^T = P A_0 P^T +
//! lam (I - P P^T)`, so `A^{-1} = P A_0^{-1} P^T + (I - P P^T) / lam`, and `B = P B_0`.
//! Undiscounted engines only: the discounted refill follows `t mod r`, which another
//! `r` changes.

use super::outputs;
use super::LinearAwv;
use crate::error::Result;
use crate::linalg::upper;

impl LinearAwv {
    /// This engine on `r` features, its feature `i` at `idx[i]` (distinct, `< r`);
    /// unchanged `self`. An `InputError` for a discounted engine.
    pub fn embedded(&self, r: usize, idx: &[usize]) -> Result<Self> {
        if self.gamma < 1.0 || idx.len() != self.r || idx.iter().any(|&i| i >= r) {
            return crate::input_err!("this AWV engine cannot be embedded in {r} features");
        }
        crate::limits::check_input_doubles(
            &format!("the AWV state on {r} features"),
            Some(super::state_doubles(r) + outputs::target_doubles(r, self.k)),
        )?;
        let old = self.ainv_dense();
        let (r0, inv_lam) = (self.r, 1.0 / self.lam);
        let mut dense = vec![0.0; r * r];
        (0..r).for_each(|i| dense[i * r + i] = inv_lam);
        for (i, &pi) in idx.iter().enumerate() {
            dense[pi * r + pi] = 0.0;
            for (j, &pj) in idx.iter().enumerate() {
                dense[pi * r + pj] = old[i * r0 + j];
            }
        }
        let mut packed = Vec::with_capacity(r * (r + 1) / 2);
        for j in 0..r {
            packed.extend((0..=j).map(|i| dense[i * r + j]));
        }
        let mut b = vec![0.0; r * self.k];
        for (col, old_col) in b.chunks_exact_mut(r).zip(self.b.chunks_exact(r0.max(1))) {
            idx.iter().zip(old_col).for_each(|(&pi, &v)| col[pi] = v);
        }
        let mut e =
            LinearAwv::from_parts(r, self.lam, self.ridge, upper::from_packed(&packed, r), b);
        e.k = self.k;
        e.n_seen = self.n_seen;
        e.last_leverage = self.last_leverage;
        e.regret_term = self.regret_term;
        e.noise = self.noise;
        e.noise_rest = self.noise_rest.clone();
        Ok(e)
    }
}
