//! AutoKernel with `K` outputs (docs/choices.md, "Multi-output AWV"), as the
//! [`crate::mixture::Mixture`] has them: the inputs' scale, `rho` and the experts are shared;
//! each output has its own target location and spread (those of its column on the
//! warm-up rows) and its own weight vector in the rule. The warm-up predicts the `K`
//! columns by kernel ridge regression, one factorisation per width for all columns
//! ([`crate::mixture::warm_krr::predict_widths`]): with `warm_neighbour_outputs`, at each
//! of `warm_widths` and with one nearest row, mixed per output (one AdaHedge per column,
//! [`crate::mixture::warm_mix`]); without it (the default) at the centres of `widths`
//! and `lams` alone.
//! Restarts ([`crate::mixture::restart`]) follow the squared errors summed over the outputs,
//! and a successor learns all `K` columns.
//!
//! So `K` outputs equal `K` single-output AutoKernels on the columns (theirs with
//! `warm_neighbour` exactly when this one has both flags), up to rounding,
//! as long as no restart is triggered (a single-output learner's detector sees its own
//! column only). An output added by `add_outputs` is exactly one that had all-zero
//! targets from the first round: such a column's location and spread are `(0, 1)`
//! ([`crate::mixture::scale::location_spread`] of zeros), so its standardised targets are 0,
//! the experts' and the rule's predictions for it are 0, and it adds 0 to the restart
//! detector's sums. `K = 1` runs the single-output code.

use super::AutoKernel;
use crate::error::{KsError, Result};
use crate::learners::{OnlineLearner, Rows};
use crate::mixture::restart::Restart;
use crate::mixture::scale::{location_spread, Scaler};
use crate::mixture::warm_mix::WarmMix;
use crate::multi::MultiOutput;

/// Rows per block of standardised copies (bounded extra memory).
const CHUNK: usize = 8192;

/// The scaler of the inputs and the first column of row-major `wy` (`rows x k`), and
/// the location and spread of the other columns.
pub(super) fn scalers(wx: &[f64], d: usize, wy: &[f64], k: usize) -> (Scaler, Vec<(f64, f64)>) {
    if k == 1 {
        return (Scaler::fit(wx, d, wy), Vec::new());
    }
    let first: Vec<f64> = wy.iter().step_by(k).copied().collect();
    let extra = (1..k).map(|c| location_spread(wy.iter().skip(c).step_by(k).copied())).collect();
    (Scaler::fit(wx, d, &first), extra)
}

/// Row-major targets (`K` columns) standardised column by column.
pub(super) fn standardise_y(sc: &Scaler, extra: &[(f64, f64)], y: &[f64]) -> Vec<f64> {
    let k = 1 + extra.len();
    let col = |i: usize, v: f64| match i % k {
        0 => sc.y(v),
        c => (v - extra[c - 1].0) / extra[c - 1].1,
    };
    y.iter().enumerate().map(|(i, &v)| col(i, v)).collect()
}

/// Row-major standardised predictions mapped back to the original units, in place.
fn back(sc: &Scaler, extra: &[(f64, f64)], p: &mut [f64]) {
    let k = 1 + extra.len();
    for (i, v) in p.iter_mut().enumerate() {
        *v = match i % k {
            0 => sc.y_back(*v),
            c => extra[c - 1].0 + extra[c - 1].1 * *v,
        };
    }
}

impl AutoKernel {
    /// Refuses the single-output protocol once `K > 1`.
    pub(super) fn one_output(&self) -> Result<()> {
        match self.k {
            1 => Ok(()),
            k => crate::multi::single_output_err(k),
        }
    }

    /// The warm-up's predictions of the `K` outputs at `x`, one list per output: with
    /// `warm_neighbour_outputs`, the single-output `warm_candidates` column by column
    /// (kernel ridge regression at each of [`Self::warm_widths`], one factorisation per
    /// width for all columns, then the nearest row's target); else kernel ridge
    /// regression alone at the centres of `widths` and `lams`.
    fn warm_candidates_multi(&self, x: &[f64]) -> Vec<Vec<f64>> {
        let (k, d) = (self.k, x.len());
        let (cs, lam) = match self.mixes_outputs() {
            true => self.warm_widths(),
            false => {
                let (c, lam) = self.grid_centre();
                (vec![c], lam)
            }
        };
        let count = cs.len() + usize::from(self.mixes_outputs());
        if self.warm_y.is_empty() {
            return vec![vec![0.0; count]; k];
        }
        let super::fit::WarmSample { sc, extra, xs, ys } = self.warm_sample(d);
        let mut q = vec![0.0; d];
        sc.x_into(x, &mut q);
        let mut krr = Vec::with_capacity(k * cs.len());
        let sample = crate::mixture::warm_krr::Sample { xs: &xs, d, ys: &ys, k };
        crate::mixture::warm_krr::predict_widths(sample, &q, &cs, lam, &mut krr);
        for row in krr.chunks_exact_mut(k) {
            back(&sc, &extra, row);
        }
        let near = match crate::mixture::warm_mix::nearest(&xs, d, &q) {
            Some(i) if self.mixes_outputs() => Some(&self.warm_y[i * k..(i + 1) * k]),
            _ => None,
        };
        let column = |c: usize| {
            let mut z: Vec<f64> = krr.iter().skip(c).step_by(k).copied().collect();
            z.extend(near.map(|r| r[c]));
            z
        };
        (0..k).map(column).collect()
    }

    /// The `K` outputs' warm-up mixes are on (`warm_neighbour` and `warm_neighbour_outputs`).
    fn mixes_outputs(&self) -> bool {
        self.cfg.warm_neighbour && self.cfg.warm_neighbour_outputs
    }

    /// Output `c`'s warm-up mix (None: one not yet stored, which has seen no round).
    fn output_mix(&self, c: usize) -> Option<&WarmMix> {
        match c {
            0 => Some(&self.warm_mix),
            _ => self.warm_mix_extra.get(c - 1),
        }
    }

    /// The warm-up prediction of the `K` outputs: each output's predictions mixed by its
    /// own AdaHedge (`warm_neighbour_outputs`; else kernel ridge regression alone), as
    /// `K` single-output warm-ups with `warm_neighbour` on the columns.
    fn warm_combine_multi(&self, z: &[Vec<f64>], out: &mut Vec<f64>) {
        for (c, zc) in z.iter().enumerate() {
            out.push(match (self.mixes_outputs(), self.output_mix(c)) {
                (true, Some(m)) => m.predict(zc),
                (true, None) => WarmMix::default().predict(zc),
                (false, _) => zc[0],
            });
        }
    }

    fn warm_predict_multi(&self, x: &[f64], out: &mut Vec<f64>) {
        self.warm_combine_multi(&self.warm_candidates_multi(x), out);
    }

    /// Each output's mix takes the round's predictions `z` and targets `y`.
    pub(super) fn warm_mix_update_multi(&mut self, z: &[Vec<f64>], y: &[f64]) {
        if !self.mixes_outputs() {
            return;
        }
        self.warm_mix_extra.resize(self.k - 1, WarmMix::default());
        for (c, (zc, &yc)) in z.iter().zip(y).enumerate() {
            match c {
                0 => self.warm_mix.update(zc, yc),
                _ => self.warm_mix_extra[c - 1].update(zc, yc),
            }
        }
    }

    fn core_predict_multi(&self, x: &[f64], out: &mut Vec<f64>) -> Result<()> {
        let Some(f) = &self.fitted else {
            self.warm_predict_multi(x, out);
            return Ok(());
        };
        let mut q = vec![0.0; x.len()];
        f.scaler.x_into(x, &mut q);
        let start = out.len();
        f.mixture.predict_multi(&q, out)?;
        back(&f.scaler, &f.y_extra, &mut out[start..]);
        Ok(())
    }

    /// [`Self::core_predict_multi`] keeping the experts' work for the next round on
    /// `x` (the mixture's `predict_keep_multi`; the warm-up keeps nothing).
    fn core_predict_keep_multi(&mut self, x: &[f64], out: &mut Vec<f64>) -> Result<()> {
        let Some(f) = self.fitted.as_mut() else {
            self.warm_predict_multi(x, out);
            return Ok(());
        };
        let mut q = std::mem::take(&mut f.xs);
        q.resize(x.len(), 0.0);
        f.scaler.x_into(x, &mut q);
        let start = out.len();
        let r = f.mixture.predict_keep_multi(&q, out);
        f.xs = q;
        r?;
        back(&f.scaler, &f.y_extra, &mut out[start..]);
        Ok(())
    }

    /// The successor's `K` predictions for `x` (its work kept for the next round)
    /// combined into `out[start..]` (the learner's), as [`MultiOutput::predict_multi`]
    /// combines them.
    fn keep_successor(&mut self, x: &[f64], start: usize, out: &mut [f64]) -> Result<()> {
        let k = self.k;
        let Some(r) = self.restart.as_mut() else { return Ok(()) };
        let Some(s) = r.successor_mut() else { return Ok(()) };
        let mut ps = Vec::with_capacity(k);
        match s.n_seen {
            // a successor before its first round predicts 0
            0 => ps.resize(k, 0.0),
            _ => s.predict_keep_multi(x, &mut ps)?,
        }
        for (p, &q) in out[start..].iter_mut().zip(&ps) {
            *p = r.combine(*p, Some(q));
        }
        Ok(())
    }

    /// One round of `K` targets through the current learner (no restarts).
    fn core_predict_learn_multi(&mut self, x: &[f64], y: &[f64], out: &mut Vec<f64>) -> Result<()> {
        let (d, start) = (x.len(), out.len());
        if let Some(f) = self.fitted.as_mut() {
            let mut q = vec![0.0; d];
            f.scaler.x_into(x, &mut q);
            let ys = standardise_y(&f.scaler, &f.y_extra, y);
            f.mixture.predict_learn_multi(&q, &ys, out).inspect_err(|_| out.truncate(start))?;
            back(&f.scaler, &f.y_extra, &mut out[start..]);
            self.n_seen += 1;
            return Ok(());
        }
        let z = self.warm_candidates_multi(x);
        self.warm_combine_multi(&z, out);
        let full = self.warm_y.len() / self.k + 1 >= self.cfg.warmup;
        self.warm_round(x, y, full).inspect_err(|_| out.truncate(start))?;
        self.warm_mix_update_multi(&z, y);
        Ok(())
    }

    /// Rows through the current learner (no restarts): the warm-up round by round,
    /// then standardised blocks through the mixture's blocked path.
    fn core_predict_learn_many_multi(&mut self, rows: Rows<'_>, out: &mut Vec<f64>) -> Result<()> {
        let Rows { x, d, y } = rows;
        let k = self.k;
        let n = y.len() / k;
        let mut i = 0;
        while i < n && self.fitted.is_none() {
            crate::interrupt::poll()?; // a warm-up round can cost milliseconds
            self.core_predict_learn_multi(&x[i * d..(i + 1) * d], &y[i * k..(i + 1) * k], out)?;
            i += 1;
        }
        let Some(f) = self.fitted.as_mut() else { return Ok(()) };
        for (xc, yc) in x[i * d..].chunks(CHUNK * d).zip(y[i * k..].chunks(CHUNK * k)) {
            let mut xs = vec![0.0; xc.len()];
            for (o, r) in xs.chunks_exact_mut(d).zip(xc.chunks_exact(d)) {
                f.scaler.x_into(r, o);
            }
            let ys = standardise_y(&f.scaler, &f.y_extra, yc);
            let start = out.len();
            // On an interrupt the mixture stops at a round boundary: count and convert
            // the rounds it completed before passing the error on.
            let res = f.mixture.predict_learn_many_multi(Rows { x: &xs, d, y: &ys }, out);
            back(&f.scaler, &f.y_extra, &mut out[start..]);
            self.n_seen += ((out.len() - start) / k) as u64;
            res?;
        }
        Ok(())
    }

    /// [`AutoKernel`]'s rows through the current learner and its successor with `K`
    /// outputs (the single-output `restart_rows` without the trace).
    fn restart_rows_multi(
        &mut self,
        r: &mut Restart,
        rows: Rows<'_>,
        out: &mut Vec<f64>,
    ) -> Result<()> {
        let (Rows { x, d, y }, k) = (rows, self.k);
        let n = y.len() / k;
        let (mut i, mut pm, mut ps) = (0, Vec::new(), Vec::new());
        while i < n {
            let m = Restart::chunk(self.n_seen, n - i);
            let (xc, yc) = (&x[i * d..(i + m) * d], &y[i * k..(i + m) * k]);
            pm.clear();
            let chunk = Rows { x: xc, d, y: yc };
            let alone = r.successor().is_none();
            let learner = || self.core_predict_learn_many_multi(chunk, &mut pm);
            let res = super::steps::successor_chunk(r, learner, &mut ps, |s, ps| {
                s.predict_learn_many_multi(chunk, ps)
            });
            // Ctrl-C inside the learner's rows (no successor: they ran interruptibly):
            // the rows it completed are combined and checked, then it is passed on.
            let (m, with_succ, stopped) = match res {
                Ok(w) => (m, w, None),
                Err(e @ KsError::Interrupted(_)) if alone && pm.len() <= m * k => {
                    (pm.len() / k, false, Some(e))
                }
                Err(e) => {
                    out.extend_from_slice(&pm);
                    return Err(e);
                }
            };
            for j in 0..m {
                let row = j * k..(j + 1) * k;
                let s = with_succ.then(|| &ps[row.clone()]);
                r.round_multi(&pm[row.clone()], s, &yc[row], out);
            }
            self.check_restart(r)?;
            i += m;
            if let Some(e) = stopped {
                return Err(e);
            }
            if i < n {
                crate::interrupt::poll()?; // a round boundary of learner and successor
            }
        }
        Ok(())
    }

    /// The standardised targets of a round are finite for this learner and its
    /// successor (checked before anything changes).
    fn check_targets(&self, y: &[f64]) -> Result<()> {
        if let Some(s) = self.restart.as_ref().and_then(|r| r.successor()) {
            s.check_targets(y)?;
        }
        let Some(f) = &self.fitted else { return Ok(()) };
        if standardise_y(&f.scaler, &f.y_extra, y).iter().all(|v| v.is_finite()) {
            return Ok(());
        }
        Err(crate::KsError::Numerical(
            "AutoKernel: a target overflows once standardised by the warm-up's scale".into(),
        ))
    }

    /// Appends `kk` outputs with all-zero past targets (no checks, may be interrupted
    /// in the mixture's replay: call it on a copy).
    fn push_outputs(&mut self, kk: usize) -> Result<()> {
        if let Some(s) = self.restart.as_mut().and_then(|r| r.successor_mut()) {
            if s.n_seen > 0 {
                s.push_outputs(kk)?;
            }
        }
        let k = self.k;
        if let Some(f) = self.fitted.as_mut() {
            f.mixture.add_outputs(kk)?;
            // The scale of a column of `warmup` zeros, from its definition.
            let zeros = location_spread(std::iter::repeat_n(0.0, self.cfg.warmup));
            f.y_extra.extend(std::iter::repeat_n(zeros, kk));
        }
        // A column of zero targets: every warm-up prediction 0 at every round, so its
        // mix's sums stay 0, the mix before any round.
        if self.mixes_outputs() && self.n_seen > 0 {
            self.warm_mix_extra.resize(k + kk - 1, WarmMix::default());
        }
        self.warm_y = self
            .warm_y
            .chunks_exact(k)
            .flat_map(|r| r.iter().copied().chain(std::iter::repeat_n(0.0, kk)))
            .collect();
        self.k = k + kk;
        Ok(())
    }

    /// Memory for `k` outputs on `d`-dimensional inputs: each output adds one weight
    /// vector per expert (at most `dim` doubles each) and a warm-up column.
    fn check_outputs_memory(&self, k: usize, d: usize) -> Result<()> {
        if let Some(f) = &self.fitted {
            return f.mixture.check_outputs(k, d);
        }
        let c = &self.cfg;
        let per_expert = [c.max_taylor_features, 2 * c.n_features, c.warmup, d.saturating_add(1)]
            .into_iter()
            .max()
            .unwrap_or(0) as u128;
        let doubles = (self.n_experts() as u128 * per_expert + c.warmup as u128) * k as u128;
        crate::limits::check_input_doubles(
            &format!("AutoKernel with {k} outputs on {d}-dimensional inputs"),
            Some(doubles),
        )
    }
}

impl MultiOutput for AutoKernel {
    fn n_outputs(&self) -> Option<usize> {
        (self.n_seen > 0).then_some(self.k)
    }

    fn check_outputs(&self, k: usize, d: usize) -> Result<()> {
        crate::awv::outputs::check_outputs(k)?;
        self.check_outputs_memory(k, d)
    }

    fn predict_multi(&self, x: &[f64], out: &mut Vec<f64>) -> Result<()> {
        if self.k == 1 {
            out.push(self.predict(x)?);
            return Ok(());
        }
        let start = out.len();
        self.core_predict_multi(x, out)?;
        let Some(r) = &self.restart else { return Ok(()) };
        let Some(s) = r.successor() else { return Ok(()) };
        let mut ps = Vec::with_capacity(self.k);
        match s.n_seen {
            // a successor before its first round predicts 0
            0 => ps.resize(self.k, 0.0),
            _ => s.predict_multi(x, &mut ps)?,
        }
        for (p, &q) in out[start..].iter_mut().zip(&ps) {
            *p = r.combine(*p, Some(q));
        }
        Ok(())
    }

    /// [`MultiOutput::predict_multi`] keeping the experts' work (of the learner and
    /// its successor) for the next round on `x`: a served classifier's round
    /// (`predict_one` then `learn_one`) predicts once. The same values.
    fn predict_keep_multi(&mut self, x: &[f64], out: &mut Vec<f64>) -> Result<()> {
        if self.k == 1 {
            out.push(self.predict_keep(x)?);
            return Ok(());
        }
        let start = out.len();
        let res =
            self.core_predict_keep_multi(x, out).and_then(|()| self.keep_successor(x, start, out));
        if res.is_err() {
            out.truncate(start);
        }
        res
    }

    fn predict_learn_multi(&mut self, x: &[f64], y: &[f64], out: &mut Vec<f64>) -> Result<()> {
        self.predict_learn_many_multi(Rows { x, d: x.len(), y }, out)
    }

    fn predict_learn_many_multi(&mut self, rows: Rows<'_>, out: &mut Vec<f64>) -> Result<()> {
        let Rows { x, d, y } = rows;
        let n = x.len() / d.max(1);
        if n == 0 {
            return Ok(());
        }
        let k0 = self.k;
        if self.n_seen == 0 {
            self.k = y.len() / n;
        }
        if self.k == 1 {
            return self.predict_learn_many(x, d, y, out);
        }
        let res = y.chunks_exact(self.k).try_for_each(|yt| self.check_targets(yt));
        let res = res.and_then(|()| {
            self.unchanged_on_error(out, |s, out| match s.restart.take() {
                None => s.core_predict_learn_many_multi(rows, out),
                Some(mut r) => {
                    let res = s.restart_rows_multi(&mut r, rows, out);
                    s.restart = Some(r);
                    res
                }
            })
        });
        if res.is_err() && self.n_seen == 0 {
            self.k = k0;
        }
        res
    }

    /// The new outputs are those of all-zero past targets, exactly (see the module's
    /// documentation). Unchanged on error.
    fn add_outputs(&mut self, k: usize) -> Result<()> {
        let Some(k0) = self.n_outputs() else { return crate::multi::before_first_round() };
        let total = crate::awv::outputs::check_outputs(k0.saturating_add(k))?;
        let d = self.d.unwrap_or(1);
        self.check_outputs_memory(total, d)?;
        if let Some(s) = self.restart.as_ref().and_then(|r| r.successor()) {
            s.check_outputs_memory(total, d)?;
        }
        let mut next = self.clone();
        next.push_outputs(k)?;
        *self = next;
        Ok(())
    }
}
