//! Rounds after the warm-up: through the mixture, and through the restart's successor ([`crate::mixture::restart`]).

use super::AutoKernel;
use crate::error::{KsError, Result};
use crate::learners::{OnlineLearner, Rows};
use crate::mixture::restart::Restart;
use crate::mixture::Traced;

/// The mixture's trace (rows after the warm-up only; warm-up rows get `NaN` expert
/// predictions and weights) in original units, with `n_seen` counting the completed
/// rounds after Ctrl-C.
impl Traced for AutoKernel {
    fn trace_rows(&mut self, rows: Rows<'_>, t: &mut crate::mixture::Trace) -> Result<()> {
        self.one_output()?;
        let Some(mut r) = self.restart.take() else { return self.core_trace(rows, t) };
        let out = &mut Vec::with_capacity(rows.y.len());
        let res = self.restart_rows(&mut r, rows, out, Some(t));
        self.restart = Some(r);
        res
    }
}

impl AutoKernel {
    /// [`Traced::progressive_trace`] of the current learner alone (validated rows).
    pub(super) fn core_trace(
        &mut self,
        rows: Rows<'_>,
        t: &mut crate::mixture::Trace,
    ) -> Result<()> {
        let Rows { x, d, y } = rows;
        let n = y.len();
        let mut i = 0;
        while i < n && self.fitted.is_none() {
            if let Err(e) = crate::interrupt::poll() {
                Self::pad_warmup(t, i, self.n_experts());
                return Err(e);
            }
            match self.core_predict_learn(&x[i * d..(i + 1) * d], y[i]) {
                Ok(p) => t.predictions.push(p),
                Err(e) => {
                    Self::pad_warmup(t, i, self.n_experts());
                    return Err(e);
                }
            }
            i += 1;
        }
        let Some(f) = self.fitted.as_mut() else {
            Self::pad_warmup(t, n, self.n_experts());
            return Ok(());
        };
        Self::pad_warmup(t, i, f.mixture.n_experts());
        if i < n {
            let (xs, ys) = Self::standardise_block(f, &x[i * d..], d, &y[i..]);
            let mut tr = crate::mixture::Trace::default();
            // On an interrupt the mixture stops at a round boundary: keep and count
            // the rounds it completed before passing the error on.
            let res = f.mixture.progressive_trace(&xs, n - i, d, &ys, &mut tr);
            t.predictions.extend(tr.predictions.iter().map(|&p| f.scaler.y_back(p)));
            t.experts.extend(tr.experts.iter().map(|&p| f.scaler.y_back(p)));
            t.weights.extend(tr.weights);
            self.n_seen += tr.predictions.len() as u64;
            res?;
        }
        Ok(())
    }

    /// `NaN` expert predictions and weights for the first `rows` (warm-up) rounds.
    pub(super) fn pad_warmup(t: &mut crate::mixture::Trace, rows: usize, k: usize) {
        t.experts.resize(rows * k, f64::NAN);
        t.weights.resize(rows * k, f64::NAN);
    }
}
impl AutoKernel {
    /// Rows through the current learner and its successor ([`crate::mixture::restart`]):
    /// the learner's rows up to a check that could change it ([`Restart::quiet_rows`];
    /// during the learner's warm-up, whose rows can cost milliseconds each, at most to
    /// the next check or the warm-up's end, the piece's end kept), then the successor's
    /// and the checks, one piece between two checks at a time; with `trace`, the current
    /// learner's experts and weights and the combined predictions. The learner's rows
    /// run without stopping for Ctrl-C only beside a successor; an interrupt inside
    /// them stops the learner at a round boundary, and the rows it completed are
    /// combined and checked before the interrupt is passed on, so the state is that of
    /// a stream of those rows. On another error the successor is dropped (the rows the
    /// current learner completed and that the restart has not combined are in `out`
    /// with its own predictions).
    pub(super) fn restart_rows(
        &mut self,
        r: &mut Restart,
        rows: Rows<'_>,
        out: &mut Vec<f64>,
        mut trace: Option<&mut crate::mixture::Trace>,
    ) -> Result<()> {
        let Rows { x, d, y } = rows;
        let n = y.len();
        let (mut i, mut pm, mut ps) = (0, Vec::new(), Vec::new());
        let mut tr = crate::mixture::Trace::default();
        let mut end = 0; // global round at which the current piece of quiet rows ends
        while i < n {
            let n0 = self.n_seen;
            if end <= n0 {
                end = n0 + r.quiet_rows(n0, self.cfg.warmup, n - i) as u64;
            }
            let mut q = (end - n0) as usize;
            if self.fitted.is_none() {
                let warm_left = (self.cfg.warmup as u64).saturating_sub(n0).max(1) as usize;
                q = q.min(Restart::chunk(n0, q)).min(warm_left);
            }
            let (xq, yq) = (&x[i * d..(i + q) * d], &y[i..i + q]);
            pm.clear();
            let traced = trace.is_some();
            let mut learner = || match traced {
                true => {
                    tr = crate::mixture::Trace::default();
                    let r = self.core_trace(Rows { x: xq, d, y: yq }, &mut tr);
                    pm.extend_from_slice(&tr.predictions);
                    r
                }
                false => self.core_predict_learn_many(Rows { x: xq, d, y: yq }, &mut pm),
            };
            let whole = r.successor().is_some();
            let res = if whole { crate::interrupt::uninterrupted(learner) } else { learner() };
            let fail = |e, r: &mut Restart, out: &mut Vec<f64>, from: usize, trace| {
                r.drop_successor();
                out.extend_from_slice(&pm[from..]);
                if let Some(t) = trace {
                    let t: &mut crate::mixture::Trace = t;
                    t.predictions.extend_from_slice(&pm[from..]);
                    t.experts.extend(&tr.experts);
                    t.weights.extend(&tr.weights);
                }
                Err(e)
            };
            // Ctrl-C inside the learner's rows (no successor: they ran interruptibly):
            // the rows it completed are combined and checked below, then it is passed on.
            let (q, stopped) = match res {
                Err(e @ KsError::Interrupted(_)) if !whole && pm.len() <= q => (pm.len(), Some(e)),
                Err(e) => return fail(e, r, out, 0, trace.as_deref_mut()),
                Ok(()) => (q, None),
            };
            let start = out.len();
            let mut a = 0;
            while a < q {
                let b = a + Restart::chunk(n0 + a as u64, q - a);
                let (xc, yc) = (&xq[a * d..b * d], &yq[a..b]);
                let with_succ = match r.successor_mut() {
                    Some(s) => {
                        ps.clear();
                        let res = crate::interrupt::uninterrupted(|| {
                            s.predict_learn_many(xc, d, yc, &mut ps)
                        });
                        if let Err(e) = res {
                            return fail(e, r, out, a, trace.as_deref_mut());
                        }
                        true
                    }
                    None => false,
                };
                for j in a..b {
                    out.push(r.round(pm[j], with_succ.then(|| ps[j - a]), yq[j]));
                }
                if let Some(t) = trace.as_deref_mut() {
                    t.predictions.extend_from_slice(&out[start + a..start + b]);
                }
                let promoted = self.check_restart_at(r, n0 + b as u64)?;
                debug_assert!(!promoted || b == q, "a promotion before the quiet rows' end");
                a = b;
            }
            if let Some(t) = trace.as_deref_mut() {
                t.experts.extend(&tr.experts);
                t.weights.extend(&tr.weights);
            }
            i += q;
            if let Some(e) = stopped {
                return Err(e);
            }
            if i < n {
                crate::interrupt::poll()?; // a round boundary of learner and successor
            }
        }
        Ok(())
    }

    pub(super) fn core_predict(&self, x: &[f64]) -> Result<f64> {
        match &self.fitted {
            Some(f) => {
                let mut q = vec![0.0; x.len()];
                f.scaler.x_into(x, &mut q);
                Ok(f.scaler.y_back(f.mixture.predict(&q)?))
            }
            None => Ok(self.warm_predict(x)),
        }
    }

    /// The mixture's noise level in the target's units (NaN during the warm-up).
    pub(super) fn core_noise_std(&self) -> Option<f64> {
        match &self.fitted {
            Some(f) => f.mixture.noise_std().map(|s| s * f.scaler.y_scale),
            None => Some(f64::NAN),
        }
    }

    /// The mixture's std on the standardised stream, in the target's units; during
    /// the warm-up the prediction with a NaN std (no noise estimate yet).
    pub(super) fn core_predict_std(&self, x: &[f64]) -> Result<Option<(f64, f64)>> {
        let Some(f) = &self.fitted else { return Ok(Some((self.warm_predict(x), f64::NAN))) };
        let mut q = vec![0.0; x.len()];
        f.scaler.x_into(x, &mut q);
        Ok(f.mixture.predict_std(&q)?.map(|(m, s)| (f.scaler.y_back(m), s * f.scaler.y_scale)))
    }

    pub(super) fn core_predict_keep(&mut self, x: &[f64]) -> Result<f64> {
        let n_seen = self.n_seen;
        match self.fitted.as_mut() {
            Some(f) => {
                let mut q = std::mem::take(&mut f.xs);
                q.resize(x.len(), 0.0);
                f.scaler.x_into(x, &mut q);
                let r = f.mixture.predict_keep(&q);
                f.xs = q;
                Ok(f.scaler.y_back(r?))
            }
            None => {
                self.kept_warm = self.warm_candidates(x);
                self.kept.set(x, n_seen);
                Ok(self.warm_combine(&self.kept_warm))
            }
        }
    }

    pub(super) fn core_predict_learn(&mut self, x: &[f64], y: f64) -> Result<f64> {
        let d = x.len();
        let kept = self.kept.take(x, self.n_seen);
        if let Some(f) = self.fitted.as_mut() {
            let mut q = std::mem::take(&mut f.xs);
            q.resize(d, 0.0);
            f.scaler.x_into(x, &mut q);
            let r = f.mixture.predict_learn(&q, f.scaler.y(y));
            f.xs = q;
            let p = f.scaler.y_back(r?);
            self.n_seen += 1;
            return Ok(p);
        }
        let z = if kept { std::mem::take(&mut self.kept_warm) } else { self.warm_candidates(x) };
        let p = self.warm_combine(&z);
        self.warm_round(x, &[y], self.warm_y.len() + 1 >= self.cfg.warmup)?;
        if z.len() > 1 {
            self.warm_mix.update(&z, y);
        }
        Ok(p)
    }

    pub(super) fn core_predict_learn_many(
        &mut self,
        rows: Rows<'_>,
        out: &mut Vec<f64>,
    ) -> Result<()> {
        let Rows { x, d, y } = rows;
        let n = y.len();
        let mut i = 0;
        while i < n && self.fitted.is_none() {
            crate::interrupt::poll()?; // a warm-up round can cost milliseconds
            out.push(self.core_predict_learn(&x[i * d..(i + 1) * d], y[i])?);
            i += 1;
        }
        if i == n {
            return Ok(());
        }
        let Some(f) = self.fitted.as_mut() else { return Ok(()) };
        // Standardised copies of at most CHUNK rows at a time (bounded extra memory).
        const CHUNK: usize = 8192;
        for (xc, yc) in x[i * d..].chunks(CHUNK * d).zip(y[i..].chunks(CHUNK)) {
            let (xs, ys) = Self::standardise_block(f, xc, d, yc);
            let start = out.len();
            // On an interrupt the mixture stops at a round boundary: count and convert
            // the rounds it completed before passing the error on.
            let res = f.mixture.predict_learn_many(&xs, d, &ys, out);
            for p in &mut out[start..] {
                *p = f.scaler.y_back(*p);
            }
            self.n_seen += (out.len() - start) as u64;
            res?;
        }
        Ok(())
    }
}
