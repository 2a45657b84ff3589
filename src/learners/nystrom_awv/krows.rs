//! A fixed Gaussian or Laplacian dictionary's kernel rows given from outside (a mixture computes
//! them once for several such experts): the same rounds and kept predictions, bit for
//! bit.

use super::round::Plan;
use super::NystromAwv;
use crate::error::Result;
use crate::kernels::Kernel;
use crate::linalg::blas::dot;

impl NystromAwv {
    /// The fixed dictionary (row-major) and the kernel of a learner on a fixed
    /// dictionary of `d`-dimensional points with the Gaussian or the Laplacian kernel:
    /// its kernel rows are `exp(-||x - c_j||^2 / (2 sigma^2))` or
    /// `exp(-||x - c_j||_1 / sigma)`, which a mixture may compute once for several such
    /// experts ([`Self::predict_learn_many_krows`]).
    pub fn fixed_distance_kernel(&self, d: usize) -> Option<(&[f64], Kernel)> {
        match self.kernel {
            Kernel::Gaussian { .. } | Kernel::Laplacian { .. }
                if self.kors.is_none() && self.size() > 0 && self.centers_d == d =>
            {
                Some((&self.centers, self.kernel))
            }
            _ => None,
        }
    }

    /// Whether a kept prediction ([`OnlineLearner::predict_keep`]) finishes the next
    /// round on `x` (then the round computes no kernel row).
    pub fn has_kept(&self, x: &[f64]) -> bool {
        self.kept_plan.is_some() && self.kept.matches(x, self.n_seen)
    }

    /// [`OnlineLearner::predict_learn_many`] of a learner on a fixed dictionary of
    /// `m` points with the kernel rows `krows` (row-major `y.len() x m`, row `i` =
    /// `k_D(x_i)` as [`Kernel::row_into`] computes it) given: the same results, bit
    /// for bit. `None` for a KORS dictionary (nothing run).
    pub fn predict_learn_many_krows(
        &mut self,
        x: &[f64],
        d: usize,
        y: &[f64],
        krows: &[f64],
        out: &mut Vec<f64>,
    ) -> Option<Result<()>> {
        if self.kors.is_some() || krows.len() != x.len() / d.max(1) * self.size() {
            return None;
        }
        // One row serves from the pending block; a first round of `K > 1` targets
        // takes the one-row path, which sizes `q` for them (`fix_outputs`).
        if x.len() == d && (y.len() == 1 || self.n_seen > 0) && self.serves_blocked() {
            match self.serve_round_krow(x, krows, y, out) {
                Ok(true) => return Some(Ok(())),
                Ok(false) => {}
                Err(e) => return Some(Err(e)),
            }
        }
        if let Err(e) = self.flush_pending() {
            return Some(Err(e));
        }
        let mut sc = std::mem::take(&mut self.scratch);
        let res = self.run_rows_with(x, d, y, &mut Some(out), &mut sc, Some(krows));
        self.scratch = sc;
        Some(res)
    }

    /// [`OnlineLearner::predict_keep`] of a learner on a fixed dictionary with the
    /// kernel row `krow = k_D(x)` given, its `K = out.len()` predictions written into
    /// `out`: the same predictions and kept work, bit for bit. `None` for a KORS
    /// dictionary (nothing done).
    pub fn predict_keep_krow(
        &mut self,
        x: &[f64],
        krow: &[f64],
        out: &mut [f64],
    ) -> Option<Result<()>> {
        if self.kors.is_some() || krow.len() != self.size() || self.gamma < 1.0 {
            return None;
        }
        let k = self.outputs();
        if out.len() != k {
            return Some(crate::input_err!(
                "{} predictions asked of a learner with {k} outputs",
                out.len()
            ));
        }
        self.forget_kept();
        if self.serves_blocked() {
            match self.serve_keep(x, Some(krow), out).and_then(|kept| match kept {
                true => Ok(true),
                false => self.flush_pending().map(|()| false),
            }) {
                Ok(true) => return Some(Ok(())),
                Ok(false) => {}
                Err(e) => return Some(Err(e)),
            }
        }
        let mut sc = std::mem::take(&mut self.scratch);
        sc.krow.clear();
        sc.krow.extend_from_slice(krow);
        let mut pred = vec![0.0; k];
        self.predict_with(None, &sc.krow, None, &mut sc.sv, &mut pred);
        let delta = dot(&sc.sv.w, &sc.sv.w);
        self.scratch = sc;
        if !pred.iter().all(|p| p.is_finite()) {
            return Some(self.predict_into(x, out));
        }
        out.copy_from_slice(&pred);
        self.kept_plan = Some(Plan { added: false, ext: None, pred, delta, stepped: None });
        self.kept.set(x, self.n_seen);
        Some(Ok(()))
    }
}
