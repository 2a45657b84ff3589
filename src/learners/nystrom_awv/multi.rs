//! Several outputs of NystromAWV.

use super::NystromAwv;
use crate::error::Result;
use crate::learners::batch::Rows;
use crate::learners::online_learner::OnlineLearner;

/// `K` outputs share the factor of `A`; `q` and the past targets have `K` columns
/// (docs/choices.md, "Multi-output AWV").
impl crate::multi::MultiOutput for NystromAwv {
    /// From the past targets (KORS mode) or `q` (fixed dictionary); None before
    /// the first round.
    fn n_outputs(&self) -> Option<usize> {
        if self.n_seen == 0 {
            return None;
        }
        match self.kors {
            Some(_) if self.is_capped() => self.capped.as_ref().map(|c| c.outputs),
            Some(_) => self.ys.len().checked_div(self.t()),
            None => self.q.len().checked_div(self.size()),
        }
    }

    fn check_outputs(&self, k: usize, d: usize) -> Result<()> {
        crate::awv::outputs::check_outputs(k)?;
        let m = self.size() as u128;
        crate::limits::check_input_doubles(
            &format!("NystromAWV with {k} outputs on {d}-dimensional inputs"),
            Some(m * (d as u128 + 3 + k as u128) + 3 * m * m),
        )
    }

    fn predict_multi(&self, x: &[f64], out: &mut Vec<f64>) -> Result<()> {
        let s = out.len();
        out.resize(s + self.outputs(), 0.0);
        let r = self.predict_into(x, &mut out[s..]);
        if r.is_err() {
            out.truncate(s);
        }
        r
    }

    fn predict_std_multi(
        &self,
        x: &[f64],
        means: &mut Vec<f64>,
        stds: &mut Vec<f64>,
    ) -> Result<bool> {
        let k = self.outputs();
        let plan = self.std_plan_multi(x, k)?;
        means.extend_from_slice(&plan.pred);
        self.noise_rest.stds(&self.noise, k, plan.delta, stds);
        Ok(true)
    }

    fn noise_stds_multi(&self, out: &mut Vec<f64>) -> bool {
        self.noise_rest.levels(&self.noise, self.outputs(), out);
        true
    }

    fn predict_keep_multi(&mut self, x: &[f64], out: &mut Vec<f64>) -> Result<()> {
        let s = out.len();
        out.resize(s + self.outputs(), 0.0);
        let r = self.keep(x, &mut out[s..]);
        if r.is_err() {
            out.truncate(s);
        }
        r
    }

    fn predict_learn_multi(&mut self, x: &[f64], y: &[f64], out: &mut Vec<f64>) -> Result<()> {
        if self.n_outputs().is_some_and(|k| k != y.len()) {
            return crate::multi::single_output_err(self.outputs());
        }
        let q0 = (self.n_seen == 0).then(|| self.q.clone());
        self.fix_outputs(y.len());
        let s = out.len();
        out.resize(s + y.len(), 0.0);
        let r = self.round(x, y, &mut out[s..]);
        if r.is_err() {
            out.truncate(s);
            if let (Some(q0), 0) = (q0, self.n_seen) {
                self.q = q0;
            }
        }
        r
    }

    fn predict_learn_many_multi(&mut self, rows: Rows<'_>, out: &mut Vec<f64>) -> Result<()> {
        // A first round that fails leaves `q` as it was (one output, all 0).
        let q0 = (self.n_seen == 0).then(|| self.q.clone());
        let r = self.run_rows(rows, Some(out));
        if let (Some(q0), 0) = (q0, self.n_seen) {
            self.q = q0;
        }
        r
    }

    /// `q` and the past targets gain `k` zero columns: a column of targets that
    /// were all 0 has `q_j = K_{t,D}^T 0 = 0`, through insertions too
    /// (`sum_s 0 a_s = 0`).
    fn add_outputs(&mut self, k: usize) -> Result<()> {
        let Some(k0) = self.n_outputs() else { return crate::multi::before_first_round() };
        let (t, m) = (self.t() as u128, self.size() as u128);
        crate::awv::outputs::check_added(k0, k, |total| {
            (format!("NystromAWV with {total} outputs"), Some((t + m) * total as u128))
        })?;
        self.flush_pending()?;
        let widen = |v: &[f64]| crate::awv::outputs::widen_columns(v, k0, k);
        self.q = widen(&self.q);
        self.ys = widen(&self.ys);
        self.noise_rest.add(&self.noise, k0, k);
        if let Some(c) = self.capped.as_mut() {
            c.outputs += k;
        }
        self.forget_kept();
        Ok(())
    }
}
