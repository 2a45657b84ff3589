//! Dictionary growth: KORS's step on a round's input and, when the point joins, the
//! bordering of `A_{t-1}` (step 2 of the module documentation) or its refusal.

use super::discount::Stepped;
use super::NystromAwv;
use crate::error::Result;
use crate::linalg::blas::dot;

/// Relative threshold on the Schur complement below which an insertion is refused.
pub(super) const INSERT_TOL: f64 = 1e-10;

/// The bordering of `A_{t-1}` by a candidate point.
#[derive(Clone, Debug)]
pub(super) struct Extension {
    /// `a = (k(x_s, x_t))_{s<t}`.
    pub(super) a: Vec<f64>,
    /// `r = L^{-1} c`.
    pub(super) r: Vec<f64>,
    pub(super) rho: f64,
    /// `sum_{s<t} y_s a_s`, the new row of `q` (one value per output).
    pub(super) q_new: Vec<f64>,
    pub(super) kappa: f64,
    /// The new row of the refill factor (`gamma < 1` only).
    pub(super) refill_row: Vec<f64>,
}

impl NystromAwv {
    /// The bordering of `A_{t-1}` by `x` over the past rows, or None if refused;
    /// `k` outputs (`q` gains `sum_{s<t} y_s a_s` for each).
    /// `st`: the stepped factor to border (None: the state's).
    pub(super) fn extension(
        &self,
        x: &[f64],
        krow: &[f64],
        k: usize,
        st: Option<&Stepped>,
    ) -> Option<Extension> {
        let t = self.t();
        let d = x.len();
        let mut a = vec![0.0; t];
        if t > 0 {
            self.kernel.row_into(x, &self.xs[..t * d], d, &mut a);
        }
        let kappa = self.kernel.diag(x);
        let (mut r, dd, ya, refill_row) = if self.gamma < 1.0 {
            // Discounted (after the round's discount step; discount.rs).
            let b = self.discounted_border(&a, krow, kappa)?;
            (b.c, b.dd, b.wa, b.refill_row)
        } else {
            // c = K_{t-1,D}^T a + lam krow; dd = a^T a + lam k(x, x).
            let r = self
                .kcols
                .iter()
                .zip(krow)
                .map(|(col, &kj)| dot(&col[..t], &a) + self.lam * kj)
                .collect();
            (r, dot(&a, &a) + self.lam * kappa, Vec::new(), Vec::new())
        };
        let ya = if self.gamma < 1.0 { &ya } else { &a };
        st.map_or(&self.chol, |s| &s.chol).forward_solve(&mut r);
        let schur = dd - dot(&r, &r);
        if !schur.is_finite() || schur <= INSERT_TOL * dd {
            return None;
        }
        let q_new = if k == 1 {
            vec![dot(&self.ys[..t], ya)]
        } else {
            let col = |c: usize| self.ys.iter().skip(c).step_by(k).take(t).copied();
            (0..k).map(|c| dot(&col(c).collect::<Vec<_>>(), ya)).collect()
        };
        Some(Extension { a, r, rho: schur.sqrt(), q_new, kappa, refill_row })
    }

    /// KORS's step on `x` (`krow = k_D(x)`): whether `x` joins KORS's dictionary
    /// (false for a fixed dictionary).
    pub(super) fn kors_step(&mut self, x: &[f64], krow: &[f64]) -> Result<bool> {
        let same_size = self.center_rounds.len();
        match self.kors.as_mut() {
            None => Ok(false),
            Some(kors) if kors.is_full() => kors.step_at_cap(x).unwrap_or(Ok(false)),
            Some(kors) => {
                let step = if kors.size() == same_size {
                    kors.step_with_row(x, krow)?
                } else {
                    kors.step_full(x)?
                };
                Ok(step.added)
            }
        }
    }

    /// Step 4, the insertion KORS decided on `x`: the bordering `ext` applied to the
    /// factor, `q` and the caches, `krow` gaining `k(x, x)`; or, `ext` None, refused.
    pub(super) fn insert(&mut self, x: &[f64], ext: Option<Extension>, krow: &mut Vec<f64>) {
        match ext {
            Some(e) => {
                self.chol.extend(&e.r, e.rho);
                if self.gamma < 1.0 {
                    self.grow_refill(&e.refill_row);
                }
                self.q.extend_from_slice(&e.q_new);
                self.kcols.push(e.a);
                self.centers.extend_from_slice(x);
                self.center_rounds.push(Some(self.n_seen));
                krow.push(e.kappa);
                self.stats.insertions += 1;
            }
            None => self.stats.refused_insertions += 1,
        }
    }
}
