//! AutoKernel as an [`OnlineLearner`].

use super::AutoKernel;
use crate::error::Result;
use crate::learners::{OnlineLearner, Rows};

impl OnlineLearner for AutoKernel {
    fn input_dim(&self) -> Option<usize> {
        self.d
    }

    fn check_input_dim(&self, d: usize) -> Result<()> {
        self.degree_for(d).map(|_| ())
    }

    /// Once fitted, the experts see the standardised row: they check that one (a
    /// finite input can overflow their features after scaling); before, the
    /// standardised row itself must be finite.
    fn check_row(&self, x: &[f64], y: Option<f64>) -> Result<()> {
        if y.is_some() && self.k > 1 {
            return crate::multi::single_output_err(self.k);
        }
        if let Some(s) = self.restart.as_ref().and_then(|r| r.successor()) {
            s.check_row(x, y)?;
        }
        let Some(f) = &self.fitted else { return Ok(()) };
        let mut q = vec![0.0; x.len()];
        f.scaler.x_into(x, &mut q);
        let ys = y.map(|v| f.scaler.y(v));
        if !q.iter().chain(ys.as_ref()).all(|v| v.is_finite()) {
            return Err(crate::KsError::Numerical(
                "AutoKernel: this row overflows once standardised by the warm-up's scale".into(),
            ));
        }
        f.mixture.check_row(&q, ys)
    }

    fn learn(&mut self, x: &[f64], y: f64) -> Result<()> {
        self.predict_learn(x, y).map(|_| ())
    }

    fn predict(&self, x: &[f64]) -> Result<f64> {
        self.one_output()?;
        let pm = self.core_predict(x)?;
        match &self.restart {
            Some(r) => Ok(r.combine(pm, r.successor_predict(x)?)),
            None => Ok(pm),
        }
    }

    /// With a successor (a restart after a change), the two as a mixture of two
    /// experts with the restart's weights ([`crate::uncertainty::mixture_std`]); a
    /// successor still in its warm-up (NaN std) counts with the main learner's std.
    fn predict_std(&self, x: &[f64]) -> Result<Option<(f64, f64)>> {
        self.one_output()?;
        let Some((pm, sm)) = self.core_predict_std(x)? else { return Ok(None) };
        let Some(r) = &self.restart else { return Ok(Some((pm, sm))) };
        let Some(succ) = r.successor() else { return Ok(Some((pm, sm))) };
        let Some((ps, ss)) = succ.predict_std(x)? else { return Ok(Some((pm, sm))) };
        let ss = if ss.is_finite() { ss } else { sm };
        let p = r.combine(pm, Some(ps));
        Ok(Some((p, crate::uncertainty::mixture_std(&r.weights(), &[pm, ps], &[sm, ss], p))))
    }

    /// None with `K > 1` outputs (one noise level per output).
    fn noise_std(&self) -> Option<f64> {
        if self.k > 1 {
            return None;
        }
        let nm = self.core_noise_std()?;
        let Some(r) = &self.restart else { return Some(nm) };
        match r.successor().and_then(|s| s.noise_std()) {
            Some(ns) if ns.is_finite() => {
                Some(crate::uncertainty::mixture_noise(&r.weights(), &[nm, ns]))
            }
            _ => Some(nm),
        }
    }

    fn predict_keep(&mut self, x: &[f64]) -> Result<f64> {
        self.one_output()?;
        let pm = self.core_predict_keep(x)?;
        match self.restart.as_mut() {
            Some(r) => {
                let ps = match r.successor_mut() {
                    Some(s) => Some(s.predict_keep(x)?),
                    None => None,
                };
                Ok(r.combine(pm, ps))
            }
            None => Ok(pm),
        }
    }

    /// Unchanged on an error other than an interrupt ([`AutoKernel::unchanged_on_error`]).
    fn predict_learn(&mut self, x: &[f64], y: f64) -> Result<f64> {
        self.one_output()?;
        let mut out = Vec::with_capacity(1);
        self.unchanged_on_error(&mut out, |s, out| {
            let Some(mut r) = s.restart.take() else {
                out.push(s.core_predict_learn(x, y)?);
                return Ok(());
            };
            let res = s.restart_rows(&mut r, Rows { x, d: x.len(), y: &[y] }, out, None);
            s.restart = Some(r);
            res
        })?;
        Ok(out[0])
    }

    /// Unchanged on an error other than an interrupt ([`AutoKernel::unchanged_on_error`]).
    fn run_rows(&mut self, rows: Rows<'_>, out: Option<&mut Vec<f64>>) -> Result<()> {
        let mut scratch = Vec::new();
        let out = crate::learners::batch::or_scratch(out, &mut scratch, rows.y.len());
        self.one_output()?;
        self.unchanged_on_error(out, |s, out| {
            let Some(mut r) = s.restart.take() else {
                return s.core_predict_learn_many(rows, out);
            };
            let start = out.len();
            let res = s.restart_rows(&mut r, rows, out, None);
            s.restart = Some(r);
            res.map(|_| debug_assert_eq!(out.len() - start, rows.y.len()))
        })
    }

    /// Integer weights as repeated rows (its state keeps rows without weights:
    /// docs/choices.md, "Sample weights").
    fn repeats_weights(&self) -> bool {
        true
    }

    fn n_seen(&self) -> u64 {
        self.n_seen
    }

    fn dim(&self) -> usize {
        let succ = self.restart.as_ref().and_then(|r| r.successor()).map_or(0, |s| s.dim());
        self.fitted.as_ref().map_or(0, |f| f.mixture.dim()) + succ
    }
}
