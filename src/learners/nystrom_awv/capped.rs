//! A KORS dictionary at its cap (`max_dictionary`, `gamma = 1`): no point can join any
//! more, so what only an insertion reads (the past inputs and targets, `K_{t,D}` by
//! columns: the column `a` of a new point and `K_{t-1,D}^T a`) is dropped, memory
//! `O(m^2 + m d)` flat in the stream's length. What the repair of the module
//! documentation still needs, `A_{t-1}` to refactorise, is kept as a checkpoint: the
//! factor `L_c` of `A_c` at a past round `c` and the kernel rows since, so that
//! `A_{t-1} = L_c L_c^T + sum_{c <= s < t} k_D(x_s) k_D(x_s)^T` (the update
//! `A_t = A_{t-1} + k_D(x_t) k_D(x_t)^T` of step 4). A new checkpoint is taken, from
//! the present (healthy) factor, every [`checkpoint_rows`] rounds.

use super::NystromAwv;
use crate::error::Result;
use crate::linalg::cholesky::ColCholesky;
use serde::{Deserialize, Serialize};

/// The repair's checkpoint of a capped dictionary (see the module documentation).
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub(super) struct Capped {
    /// `K` outputs (the past targets that gave it are gone).
    pub outputs: usize,
    /// `L_c`, the factor of `A_c`.
    pub base: ColCholesky,
    /// `k_D(x_s)` of the rounds `c <= s < t`, row-major.
    pub rows: Vec<f64>,
}

/// Rounds between two checkpoints on a dictionary of `m` points: `m`, at least 64
/// (the rows then cost at most the factor's memory, and copying the factor `m^2 / 2`
/// doubles every `m` rounds costs `m / 2` a round).
pub(super) fn checkpoint_rows(m: usize) -> usize {
    m.max(64)
}

impl NystromAwv {
    /// Whether no point can join the forecaster's dictionary any more, its cache dropped.
    pub(super) fn is_capped(&self) -> bool {
        self.capped.is_some()
    }

    /// Whether KORS is at its cap and has decided on no round the forecaster has not
    /// run (a block's rows run before the row that filled the dictionary).
    fn kors_full(&self) -> bool {
        self.kors
            .as_ref()
            .is_some_and(|k| k.budget().is_some_and(|b| k.size() >= b) && k.n_seen() == self.n_seen)
    }

    /// Drops the insertion cache once KORS is at its cap (`gamma = 1`, a healthy factor),
    /// after a round or a block.
    pub(super) fn cap_if_full(&mut self) {
        let full = self.kors_full();
        if self.capped.is_some() || !full || self.gamma < 1.0 || !self.chol.is_healthy() {
            return;
        }
        #[cfg(test)]
        if tests::NEVER_CAP.with(|c| c.get()) {
            return;
        }
        self.capped =
            Some(Capped { outputs: self.outputs(), base: self.chol.clone(), rows: Vec::new() });
        self.kcols = Vec::new();
        self.xs = Vec::new();
        self.ys = Vec::new();
    }

    /// The round's cache entry: the kernel row `krow` (a capped dictionary), else the
    /// input `x`, the targets `y` and `krow` (KORS mode; nothing for a fixed dictionary).
    pub(super) fn cache_round(&mut self, x: &[f64], krow: &[f64], y: &[f64]) {
        if let Some(c) = self.capped.as_mut() {
            c.rows.extend_from_slice(krow);
        } else if self.kors.is_some() {
            for (col, &kj) in self.kcols.iter_mut().zip(krow) {
                col.push(kj);
            }
            self.xs.extend_from_slice(x);
            self.ys.extend_from_slice(y);
        }
    }

    /// A new checkpoint from the present factor when [`checkpoint_rows`] rows have
    /// gathered (and the factor is healthy), after a round or a block; else
    /// [`Self::cap_if_full`].
    pub(super) fn checkpoint(&mut self) {
        if !self.pending.is_empty() {
            return; // the factor is behind: the flush checkpoints
        }
        let m = self.size();
        let healthy = self.chol.is_healthy();
        match self.capped.as_mut() {
            Some(c) if healthy && c.rows.len() >= checkpoint_rows(m) * m => {
                c.base.clone_from(&self.chol);
                c.rows.clear();
            }
            Some(_) => {}
            None => self.cap_if_full(),
        }
    }

    /// `A_{t-1} = L_c L_c^T + R^T R` (`R`: the rows since the checkpoint), dense row-major.
    pub(super) fn capped_a(&self) -> Option<Vec<f64>> {
        let c = self.capped.as_ref()?;
        let m = self.size();
        let l = c.base.to_dense();
        let mut a = vec![0.0; m * m];
        for i in 0..m {
            for j in 0..=i {
                // (L L^T)_ij = sum_{k <= j} L_ik L_jk.
                let mut v: f64 = (0..=j).map(|k| l[i * m + k] * l[j * m + k]).sum();
                v += c.rows.chunks_exact(m).map(|r| r[i] * r[j]).sum::<f64>();
                a[i * m + j] = v;
                a[j * m + i] = v;
            }
        }
        Some(a)
    }

    /// The invariants of a capped dictionary's state (`k` outputs, `m` points).
    pub(super) fn validate_capped(&self, k: usize) -> Result<()> {
        use crate::state::*;
        let Some(c) = self.capped.as_ref() else { return Ok(()) };
        let m = self.size();
        ensure(self.kors_full() && self.gamma == 1.0, || {
            "a dictionary without its cache that is not at its cap".into()
        })?;
        ensure(self.kcols.is_empty() && self.xs.is_empty() && self.ys.is_empty(), || {
            "a capped dictionary holds an insertion cache".into()
        })?;
        same("outputs", &c.outputs, &k)?;
        c.base.validate()?;
        len_is("checkpoint factor order", c.base.dim(), m)?;
        ensure(c.base.is_healthy(), || "the checkpoint factor is not positive definite".into())?;
        ensure(m > 0 || c.rows.is_empty(), || "kernel rows of an empty dictionary".into())?;
        ensure(c.rows.len().is_multiple_of(m.max(1)), || "ragged checkpoint rows".into())?;
        at_most("checkpoint rows", c.rows.len() / m.max(1), self.n_seen as usize)?;
        finite("checkpoint rows", &c.rows)
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::super::{NystromAwv, NystromAwvParams};
    use crate::kernels::Kernel;
    use crate::learners::online_learner::OnlineLearner;
    use crate::multi::MultiOutput;
    use crate::rng::Rng;
    use crate::state::ValidState;
    use std::cell::Cell;

    thread_local! {
        /// Keeps the insertion cache at the cap (the learner as it was before `capped.rs`).
        pub static NEVER_CAP: Cell<bool> = const { Cell::new(false) };
    }

    /// Dictionary capped at 12 points (single rounds), or 60 (blocks between insertions).
    fn learner_m(never_cap: bool, m: usize) -> NystromAwv {
        NEVER_CAP.with(|c| c.set(never_cap));
        NystromAwv::new(&NystromAwvParams {
            kernel: Some(Kernel::Gaussian { sigma: if m > 12 { 0.25 } else { 0.7 } }),
            mu: if m > 12 { 3.0 } else { 1.0 },
            max_dictionary: Some(m),
            seed: 5,
            ..Default::default()
        })
        .unwrap()
    }

    fn learner(never_cap: bool) -> NystromAwv {
        learner_m(never_cap, 12)
    }

    fn stream(n: usize, d: usize) -> (Vec<f64>, Vec<f64>) {
        let mut r = Rng::new(11);
        let x: Vec<f64> = (0..n * d).map(|_| r.uniform() * 2.0 - 1.0).collect();
        let y = x.chunks_exact(d).map(|v| (3.0 * v[0]).sin() + v[1] * v[2] + 0.1 * r.normal());
        let y = y.collect();
        (x, y)
    }

    /// Single rounds, then blocks, then single rounds, with and without the cap's
    /// cache drop: every prediction equal bit for bit (the cache is read by insertions
    /// only, none of which can happen at the cap), and the capped learner's memory flat;
    /// 60 points: blocks, one of which ends on the row that fills the dictionary.
    #[test]
    fn capped_predictions_equal_the_cached_learners_bit_for_bit() {
        for m in [12, 60] {
            capped_equals_cached(m);
        }
    }

    fn capped_equals_cached(m: usize) {
        let d = 3;
        let (x, y) = stream(3000, d);
        let run = |never: bool| {
            let mut l = learner_m(never, m);
            let mut out = Vec::new();
            // Single rounds first when they fill the dictionary (12), else blocks (60).
            let s = if m > 12 { 0 } else { 500 };
            for (xi, yi) in x[..s * d].chunks_exact(d).zip(&y[..s]) {
                out.push(l.predict_learn(xi, *yi).unwrap());
            }
            l.predict_learn_many(&x[s * d..2500 * d], d, &y[s..2500], &mut out).unwrap();
            for (xi, yi) in x[2500 * d..].chunks_exact(d).zip(&y[2500..]) {
                out.push(l.predict_learn(xi, *yi).unwrap());
            }
            NEVER_CAP.with(|c| c.set(false));
            (l, out)
        };
        let (capped, a) = run(false);
        let (cached, b) = run(true);
        assert_eq!(capped.size(), m);
        assert_eq!(capped.blocked_rounds() > 0, m > 12);
        assert!(capped.is_capped() && !cached.is_capped());
        assert_eq!(
            a.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
            b.iter().map(|v| v.to_bits()).collect::<Vec<_>>()
        );
        assert!(capped.xs.is_empty() && capped.kcols.is_empty() && capped.ys.is_empty());
        assert_eq!(cached.xs.len(), 3000 * d);
        let rows = capped.capped.as_ref().unwrap().rows.len() / m;
        assert!(rows < super::checkpoint_rows(m) + super::super::auto_block_size(m));
        capped.validate().unwrap();
        assert_eq!(capped.n_outputs(), Some(1));
    }

    /// The repair refactorises `A_{t-1}` from the checkpoint as the cached learner does
    /// from `K_{t,D}`: the same factor up to rounding, then the same predictions.
    #[test]
    fn refactorising_from_the_checkpoint_matches_the_cache() {
        let d = 3;
        let (x, y) = stream(1000, d);
        let mut ls = [learner(false), learner(true)];
        let mut outs = [Vec::new(), Vec::new()];
        for (i, l) in ls.iter_mut().enumerate() {
            NEVER_CAP.with(|c| c.set(i == 1));
            l.predict_learn_many(&x[..900 * d], d, &y[..900], &mut outs[i]).unwrap();
            l.refactorize(false).unwrap();
        }
        NEVER_CAP.with(|c| c.set(false));
        assert!(ls[0].is_capped() && !ls[1].is_capped());
        let (l0, l1) = (ls[0].cholesky_dense(), ls[1].cholesky_dense());
        let scale = l1.iter().fold(0.0f64, |a, v| a.max(v.abs()));
        for (a, b) in l0.iter().zip(&l1) {
            assert!((a - b).abs() <= 1e-10 * scale, "{a} vs {b}");
        }
        for (xi, yi) in x[900 * d..].chunks_exact(d).zip(&y[900..]) {
            let (p0, p1) =
                (ls[0].predict_learn(xi, *yi).unwrap(), ls[1].predict_learn(xi, *yi).unwrap());
            assert!((p0 - p1).abs() <= 1e-9 * (1.0 + p1.abs()), "{p0} vs {p1}");
        }
        assert_eq!(ls[0].stats().refactorizations, 1);
    }

    /// Outputs added at the cap: counted by the checkpoint, zero columns of `q`.
    #[test]
    fn outputs_added_at_the_cap() {
        let d = 3;
        let (x, y) = stream(600, d);
        let mut l = learner(false);
        let mut out = Vec::new();
        l.predict_learn_many(&x, d, &y, &mut out).unwrap();
        assert!(l.is_capped());
        l.add_outputs(2).unwrap();
        assert_eq!(l.n_outputs(), Some(3));
        l.validate().unwrap();
        let mut p = Vec::new();
        l.predict_learn_multi(&x[..d], &[1.0, 0.0, 2.0], &mut p).unwrap();
        assert_eq!(p.len(), 3);
        assert_eq!(p[1], 0.0);
        l.validate().unwrap();
    }
}

#[cfg(test)]
mod kors_at_cap {
    use crate::kernels::Kernel;
    use crate::rng::Rng;
    use crate::samplers::{Kors, KorsWeights};

    /// `Kors::step_at_cap` leaves the generator as `step_full` does: after lifting the
    /// cap, both samplers add the same points.
    #[test]
    fn a_step_at_the_cap_consumes_the_same_draw() {
        let mut r = Rng::new(4);
        let pts: Vec<Vec<f64>> = (0..400).map(|_| vec![r.uniform(), r.uniform()]).collect();
        let k = Kernel::Gaussian { sigma: 0.2 };
        let mut a = Kors::new(k, 0.5, 0.5, 1.0, KorsWeights::Sqrt, 9).unwrap();
        a.set_budget(Some(5));
        let mut i = 0;
        while !a.is_full() {
            a.step(&pts[i]).unwrap();
            i += 1;
        }
        let mut b = a.clone();
        for p in &pts[i..i + 100] {
            assert!(!a.step_full(p).unwrap().added);
            assert_eq!(b.step_at_cap(p).map(|s| s.unwrap()), Some(false));
        }
        a.set_budget(None);
        b.set_budget(None);
        assert_eq!(b.step_at_cap(&pts[0]), None);
        for p in &pts[i + 100..] {
            assert_eq!(a.step(p).unwrap(), b.step(p).unwrap());
        }
        assert!(a.size() > 5);
        assert_eq!(a.indices(), b.indices());
        assert_eq!(a.n_seen(), b.n_seen());
    }
}
