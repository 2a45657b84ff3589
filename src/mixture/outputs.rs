//! Mixtures with `K` outputs (docs/choices.md, "Multi-output AWV"): every expert
//! learns the `K` target columns (the AWV family shares its matrix between them)
//! and the rule is run once per output, on that output's expert predictions:
//! one weight vector per output, so a mixture of `K` outputs is `K` mixtures of
//! one output each, on the same experts' work. An expert that learns one output
//! only (outside the AWV family) refuses `K > 1` with an `InputError`.

use super::loss_scale::LossScale;
use super::{AnyLearner, Mixture};
use crate::aggregation::{Aggregator, AnyAggregator};
use crate::error::Result;
use crate::learners::{OnlineLearner, Rows};
use crate::multi::MultiOutput;

/// Rows per block of the experts' runs (as the single-output path).
const BLOCK_ROWS: usize = 256;

fn one_output<T>() -> Result<T> {
    crate::input_err!(
        "this expert learns one output (several: {}, the linear AWV and mixtures of them; \
         FOGD with the squared loss)",
        AnyLearner::multi_output_names().join(", ")
    )
}

/// An expert of several outputs (its line of the learner table says `multi_output:
/// true`: [`AnyLearner::as_multi`]) plays them; any other expert plays one.
impl MultiOutput for AnyLearner {
    fn n_outputs(&self) -> Option<usize> {
        match self.as_multi() {
            Some(l) => l.n_outputs(),
            None => (self.n_seen() > 0).then_some(1),
        }
    }

    fn check_outputs(&self, k: usize, d: usize) -> Result<()> {
        match self.as_multi() {
            Some(l) => l.check_outputs(k, d),
            None if k == 1 => Ok(()),
            None => one_output(),
        }
    }

    fn predict_multi(&self, x: &[f64], out: &mut Vec<f64>) -> Result<()> {
        match self.as_multi() {
            Some(l) => l.predict_multi(x, out),
            None => {
                out.push(self.predict(x)?);
                Ok(())
            }
        }
    }

    fn predict_keep_multi(&mut self, x: &[f64], out: &mut Vec<f64>) -> Result<()> {
        match self.as_multi_mut() {
            Some(l) => l.predict_keep_multi(x, out),
            None => {
                out.push(self.predict_keep(x)?);
                Ok(())
            }
        }
    }

    fn predict_std_multi(
        &self,
        x: &[f64],
        means: &mut Vec<f64>,
        stds: &mut Vec<f64>,
    ) -> Result<bool> {
        match self.as_multi() {
            Some(l) => l.predict_std_multi(x, means, stds),
            None => Ok(false),
        }
    }

    fn noise_stds_multi(&self, out: &mut Vec<f64>) -> bool {
        self.as_multi().is_some_and(|l| l.noise_stds_multi(out))
    }

    fn predict_learn_multi(&mut self, x: &[f64], y: &[f64], out: &mut Vec<f64>) -> Result<()> {
        if let Some(l) = self.as_multi_mut() {
            return l.predict_learn_multi(x, y, out);
        }
        match y {
            [y] => {
                out.push(self.predict_learn(x, *y)?);
                Ok(())
            }
            _ => one_output(),
        }
    }

    fn predict_learn_many_multi(&mut self, rows: Rows<'_>, out: &mut Vec<f64>) -> Result<()> {
        if let Some(l) = self.as_multi_mut() {
            return l.predict_learn_many_multi(rows, out);
        }
        let Rows { x, d, y } = rows;
        if y.len() * d == x.len() {
            self.predict_learn_many(x, d, y, out)
        } else {
            one_output()
        }
    }

    fn add_outputs(&mut self, k: usize) -> Result<()> {
        match self.as_multi_mut() {
            Some(l) => l.add_outputs(k),
            None => one_output(),
        }
    }
}

/// One round of output `c`'s rule (through its loss scale if it has one).
fn rule_round(rule: &mut AnyAggregator, ls: Option<&mut LossScale>, z: &mut [f64], y: f64) -> f64 {
    match ls {
        Some(ls) => ls.round(rule, z, y),
        None => rule.predict_update(z, y),
    }
}

impl Mixture {
    /// A new output's rule and loss scale as constructed.
    fn fresh_output(&self) -> Result<(AnyAggregator, Option<LossScale>)> {
        let ls = self.loss_window().map(LossScale::new).transpose()?;
        Ok((self.fresh_rule.clone(), ls))
    }

    /// Before the first round, one rule per output of the first targets.
    fn start_outputs(&mut self, k: usize) -> Result<()> {
        if self.n_seen == 0 {
            let fresh = self.fresh_output()?;
            self.extra_rules = vec![fresh; k.saturating_sub(1)];
        }
        Ok(())
    }

    /// The rules' predictions and updates on the expert predictions `z` (row-major
    /// `N x K`, expert by expert) of one round with targets `y`, pushed onto `out`.
    fn play_rules(&mut self, z: &[f64], y: &[f64], out: &mut Vec<f64>) {
        let (n, k) = (self.experts.len(), y.len());
        let mut zc = vec![0.0; n];
        for (c, &yc) in y.iter().enumerate() {
            zc.iter_mut().enumerate().for_each(|(j, v)| *v = z[j * k + c]);
            let (rule, ls) = match c {
                0 => (&mut self.rule, self.loss_scale.as_mut()),
                _ => {
                    let (r, ls) = &mut self.extra_rules[c - 1];
                    (r, ls.as_mut())
                }
            };
            out.push(rule_round(rule, ls, &mut zc, yc));
        }
        self.n_seen += 1;
    }
}

impl Mixture {
    /// Output `c`'s rule and loss scale.
    fn output_rule(&self, c: usize) -> (&AnyAggregator, Option<&LossScale>) {
        match c {
            0 => (&self.rule, self.loss_scale.as_ref()),
            _ => (&self.extra_rules[c - 1].0, self.extra_rules[c - 1].1.as_ref()),
        }
    }

    /// The rules' predictions (pure) on the expert predictions `z` (row-major `N x K`,
    /// expert by expert), pushed onto `out`.
    fn rules_predict(&self, z: &[f64], k: usize, out: &mut Vec<f64>) {
        let mut zc = vec![0.0; self.experts.len()];
        for c in 0..k {
            zc.iter_mut().enumerate().for_each(|(j, v)| *v = z[j * k + c]);
            let (rule, ls) = self.output_rule(c);
            out.push(match ls {
                Some(ls) => ls.predict(rule, &mut zc),
                None => rule.predict(&zc),
            });
        }
    }
}

impl MultiOutput for Mixture {
    fn n_outputs(&self) -> Option<usize> {
        (self.n_seen > 0).then_some(1 + self.extra_rules.len())
    }

    fn check_outputs(&self, k: usize, d: usize) -> Result<()> {
        crate::awv::outputs::check_outputs(k)?;
        self.experts.iter().try_for_each(|e| e.check_outputs(k, d))
    }

    fn predict_multi(&self, x: &[f64], out: &mut Vec<f64>) -> Result<()> {
        let (n, k) = (self.experts.len(), self.n_outputs().unwrap_or(1));
        let mut z = Vec::with_capacity(n * k);
        for e in &self.experts {
            e.predict_multi(x, &mut z)?;
        }
        self.rules_predict(&z, k, out);
        Ok(())
    }

    /// Every expert keeps its work for the next round on `x` (its own
    /// `predict_keep_multi`; the following `predict_learn_multi` of its block path
    /// finishes from it); the rules predict as [`MultiOutput::predict_multi`].
    fn predict_keep_multi(&mut self, x: &[f64], out: &mut Vec<f64>) -> Result<()> {
        let (n, k) = (self.experts.len(), self.n_outputs().unwrap_or(1));
        let mut z = Vec::with_capacity(n * k);
        // Kernel rows several experts would each compute, once (the same bits).
        let shared = super::shared_features::Shared::prepare(&self.experts, x, x.len());
        for (j, e) in self.experts.iter_mut().enumerate() {
            super::shared_features::keep_multi(shared.as_ref(), j, e, x, k, &mut z)?;
        }
        self.rules_predict(&z, k, out);
        Ok(())
    }

    /// Output `c`'s mixture of its experts' predictive distributions, as with one
    /// output ([`crate::uncertainty::mixture_std`]) with output `c`'s rule and weights;
    /// `false` if an expert has no std per output.
    fn predict_std_multi(
        &self,
        x: &[f64],
        means: &mut Vec<f64>,
        stds: &mut Vec<f64>,
    ) -> Result<bool> {
        let (n, k) = (self.experts.len(), self.n_outputs().unwrap_or(1));
        let (mut z, mut s) = (Vec::with_capacity(n * k), Vec::with_capacity(n * k));
        for e in &self.experts {
            if !e.predict_std_multi(x, &mut z, &mut s)? {
                return Ok(false);
            }
        }
        let (mut zc, mut sc) = (vec![0.0; n], vec![0.0; n]);
        for c in 0..k {
            for j in 0..n {
                (zc[j], sc[j]) = (z[j * k + c], s[j * k + c]);
            }
            let (rule, ls) = self.output_rule(c);
            let p = match ls {
                Some(ls) => ls.predict(rule, &mut zc),
                None => rule.predict(&zc),
            };
            means.push(p);
            stds.push(crate::uncertainty::mixture_std(&rule.weights(), &zc, &sc, p));
        }
        Ok(true)
    }

    /// Output `c`'s `sqrt(sum_j pi_j sigma_{j,c}^2)` ([`crate::uncertainty::mixture_noise`]).
    fn noise_stds_multi(&self, out: &mut Vec<f64>) -> bool {
        let (n, k) = (self.experts.len(), self.n_outputs().unwrap_or(1));
        let mut sigma = Vec::with_capacity(n * k);
        if !self.experts.iter().all(|e| e.noise_stds_multi(&mut sigma)) {
            return false;
        }
        for c in 0..k {
            let sc: Vec<f64> = (0..n).map(|j| sigma[j * k + c]).collect();
            out.push(crate::uncertainty::mixture_noise(&self.output_rule(c).0.weights(), &sc));
        }
        true
    }

    fn predict_learn_multi(&mut self, x: &[f64], y: &[f64], out: &mut Vec<f64>) -> Result<()> {
        self.start_outputs(y.len())?;
        let mut z = Vec::with_capacity(self.experts.len() * y.len());
        for e in self.experts.iter_mut() {
            e.predict_learn_multi(x, y, &mut z)?;
        }
        self.d = Some(x.len());
        self.play_rules(&z, y, out);
        Ok(())
    }

    /// Each expert runs a block of rows on its own (its blocked path), then the
    /// rules play the rows in order (as [`Mixture`]'s single-output blocks).
    fn predict_learn_many_multi(&mut self, rows: Rows<'_>, out: &mut Vec<f64>) -> Result<()> {
        let Rows { x, d, y } = rows;
        let k = crate::multi::block_outputs(x, d, y);
        self.start_outputs(k)?;
        let mut cols = vec![Vec::new(); self.experts.len()];
        let mut z = Vec::new();
        for (xb, yb) in x.chunks(BLOCK_ROWS * d).zip(y.chunks(BLOCK_ROWS * k)) {
            crate::interrupt::poll()?;
            crate::interrupt::uninterrupted(|| {
                let shared = super::shared_features::Shared::prepare(&self.experts, xb, d);
                let run = super::shared_features::Shared::run;
                for (j, (e, c)) in self.experts.iter_mut().zip(cols.iter_mut()).enumerate() {
                    c.clear();
                    run(shared.as_ref(), j, e, Rows { x: xb, d, y: yb }, true, c)?;
                }
                Ok(())
            })?;
            self.d = Some(d);
            for (i, yi) in yb.chunks_exact(k).enumerate() {
                z.clear();
                z.extend(cols.iter().flat_map(|c| c[i * k..(i + 1) * k].iter().copied()));
                self.play_rules(&z, yi, out);
            }
        }
        Ok(())
    }

    /// The experts gain `k` zero columns; each new output's rule is the rule as
    /// constructed after the rounds so far with every expert predicting 0 and the
    /// target 0 (what the experts predict for a column of zero targets, exactly),
    /// replayed: the mixture is then the one that had the outputs from the start.
    fn add_outputs(&mut self, k: usize) -> Result<()> {
        let Some(k0) = self.n_outputs() else { return crate::multi::before_first_round() };
        let total = crate::awv::outputs::check_outputs(k0.saturating_add(k))?;
        let d = self.d.unwrap_or(1);
        self.experts.iter().try_for_each(|e| e.check_outputs(total, d))?;
        let mut zeros = vec![0.0; self.experts.len()];
        let (mut rule, mut ls) = self.fresh_output()?;
        for t in 0..self.n_seen {
            if t % 4096 == 0 {
                crate::interrupt::poll()?;
            }
            zeros.fill(0.0);
            rule_round(&mut rule, ls.as_mut(), &mut zeros, 0.0);
        }
        for e in self.experts.iter_mut() {
            e.add_outputs(k)?;
        }
        self.extra_rules.extend(std::iter::repeat_n((rule, ls), k));
        Ok(())
    }
}

/// Every rule has the mixture's experts, the outputs agree with the experts'.
pub(super) fn validate(m: &Mixture) -> Result<()> {
    let n = m.experts.len();
    let rules =
        std::iter::once(&m.rule).chain(m.extra_rules.iter().map(|r| &r.0)).chain([&m.fresh_rule]);
    crate::state::ensure(rules.clone().all(|r| r.n_experts() == n), || {
        "a rule with another number of experts".into()
    })?;
    if let Some(k) = m.n_outputs() {
        crate::state::ensure(
            m.experts.iter().all(|e| e.n_outputs().is_none_or(|ke| ke == k)),
            || format!("{k} outputs but an expert has another number"),
        )?;
    } else {
        crate::state::ensure(m.extra_rules.is_empty(), || "outputs before the first round".into())?;
    }
    Ok(())
}
