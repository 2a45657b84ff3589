//! The forecaster's round (steps 1-5 of the module documentation): the plan of a
//! round (KORS's decision, the bordering, the prediction by Sherman-Morrison on the
//! factor), the kept prediction of the serving path, and the update after `y_t`.

use super::block::BlockScratch;
use super::discount::Stepped;
use super::growth::Extension;
use super::NystromAwv;
use crate::error::{KsError, Result};
use crate::linalg::blas::{axpy, dot};
use crate::uncertainty::noise_discount;

/// What a prediction decided and computed: KORS's decision, the bordering if
/// the point joins, the prediction.
#[derive(Clone, Debug)]
pub(super) struct Plan {
    pub(super) added: bool,
    pub(super) ext: Option<Extension>,
    pub(super) pred: Vec<f64>,
    /// `delta = w.w = krow^T A_{t-1}^{-1} krow` (the predictive variance's leverage).
    pub(super) delta: f64,
    /// The factor and `q` after the round's discount step (`gamma < 1`), which the
    /// plan was computed on.
    pub(super) stepped: Option<Box<Stepped>>,
}

/// `w = L^{-1} krow` and `u = L^{-1} q` (by columns) of [`NystromAwv::predict_with`].
#[derive(Clone, Debug, Default)]
pub(super) struct Solved {
    pub(super) w: Vec<f64>,
    pub(super) u: Vec<f64>,
}

#[derive(Clone, Debug, Default)]
pub(super) struct Scratch {
    pub(super) krow: Vec<f64>,
    pub(super) sv: Solved,
    pub(super) blk: Box<BlockScratch>,
}

impl NystromAwv {
    /// `w = L^{-1} krow`, `u_j = L^{-1} q_j` for the `K = out.len()` columns of `q`
    /// (`u` holds them by columns), all bordered by `ext` if given, into `sv`;
    /// writes the `K` predictions into `out`; `stepped`: the stepped factor and `q` to
    /// use (None: the state's).
    pub(super) fn predict_with(
        &self,
        stepped: Option<&Stepped>,
        krow: &[f64],
        ext: Option<&Extension>,
        sv: &mut Solved,
        out: &mut [f64],
    ) {
        let Solved { w, u } = sv;
        let (m, k) = (self.size(), out.len());
        let (chol, q) = stepped.map_or((&self.chol, &self.q[..]), |s| (&s.chol, &s.q[..]));
        w.clear();
        w.extend_from_slice(&krow[..m]);
        // Column stride of u: room for the bordered entry.
        let st = m + usize::from(ext.is_some());
        u.clear();
        if k == 1 {
            u.extend_from_slice(q);
        } else {
            u.resize(st * k, 0.0);
            for (j, qj) in q.chunks_exact(k).enumerate() {
                for (c, &v) in qj.iter().enumerate() {
                    u[c * st + j] = v;
                }
            }
        }
        if k == 1 {
            chol.forward_solve2(w, u);
        } else {
            chol.forward_solve_many(w, u, st, k);
        }
        if let Some(e) = ext {
            w.push((e.kappa - dot(&e.r, &w[..m])) / e.rho);
            if k == 1 {
                u.push((e.q_new[0] - dot(&e.r, &u[..m])) / e.rho);
            } else {
                for (uc, qn) in u.chunks_exact_mut(st).zip(&e.q_new) {
                    uc[m] = (qn - dot(&e.r, &uc[..m])) / e.rho;
                }
            }
        }
        if w.is_empty() {
            out.fill(0.0); // empty dictionary: predict 0 (as the paper's code, App. H.2)
            return;
        }
        let ww = if self.ridge { 0.0 } else { dot(w, w) };
        for (o, uc) in out.iter_mut().zip(u.chunks_exact(st.max(1))) {
            let wu = dot(w, uc);
            *o = if self.ridge { wu } else { wu / (1.0 + ww) };
        }
    }

    /// The plan of a round on `x` with `k` outputs (pure; KORS is peeked at, not
    /// stepped), the kernel row of `x` left in `krow`; `stepped`: the factor and `q`
    /// after the round's discount step ([`Self::stepped`]; None: the state's), kept
    /// in the plan.
    pub(super) fn plan_with(
        &self,
        x: &[f64],
        krow: &mut Vec<f64>,
        scratch: &mut Scratch,
        k: usize,
        stepped: Option<Box<Stepped>>,
    ) -> Result<Plan> {
        self.krow_into(x, krow);
        let mut added = false;
        let mut ext = None;
        if let Some(kors) = self.kors.as_ref().filter(|k| !k.is_full()) {
            let step = if kors.size() == self.size() {
                kors.peek_with_row(x, krow)?
            } else {
                kors.peek(x)?
            };
            added = step.added;
            if step.added {
                ext = self.extension(x, krow, k, stepped.as_deref());
            }
        }
        let mut pred = vec![0.0; k];
        self.predict_with(stepped.as_deref(), krow, ext.as_ref(), &mut scratch.sv, &mut pred);
        let delta = dot(&scratch.sv.w, &scratch.sv.w);
        Ok(Plan { added, ext, pred, delta, stepped })
    }

    /// One full round (the fused hot path) with the `K = y.len()` targets `y`, the
    /// predictions made before them written into `out`.
    pub(super) fn round(&mut self, x: &[f64], y: &[f64], out: &mut [f64]) -> Result<()> {
        let mut scratch = std::mem::take(&mut self.scratch);
        let res = self.round_with(x, y, &mut scratch, out);
        self.scratch = scratch;
        res
    }

    pub(super) fn round_with(
        &mut self,
        x: &[f64],
        y: &[f64],
        sc: &mut Scratch,
        out: &mut [f64],
    ) -> Result<()> {
        // A kept plan for x at this round has its kernel row in sc.krow.
        let plan = self.kept_plan.take().filter(|_| self.kept.take(x, self.n_seen));
        let mut krow = std::mem::take(&mut sc.krow);
        if plan.is_none() {
            self.krow_into(x, &mut krow);
        }
        // 1. KORS on x_t (before the prediction: x_t may join the dictionary).
        let added = self.kors_step(x, &krow);
        sc.krow = krow;
        let added = added?;
        let served = self.served.take().filter(|_| plan.is_some());
        if !added && self.serves_blocked() {
            let sv = served.filter(|sv| sv.pred.len() == y.len()).unwrap_or_else(|| {
                let mut sv = Box::default();
                self.serve_predict(&sc.krow, y.len(), &mut sv);
                sv
            });
            if sv.is_finite() {
                out.copy_from_slice(&sv.pred);
                let krow = std::mem::take(&mut sc.krow);
                let r = self.serve_learn(x, &krow, y, &sv);
                sc.krow = krow;
                return r;
            }
        }
        // An insertion (or a repair) needs the factor up to date; the plan stays valid.
        self.flush_pending()?;
        // KORS's step decides as its peek did (the same generator state).
        let plan = plan.filter(|p| p.added == added && p.pred.len() == y.len());
        self.forecaster_round(x, y, added, plan, sc, out)
    }

    /// Forgets the kept prediction and its plan.
    pub(super) fn forget_kept(&mut self) {
        self.kept.clear();
        self.kept_plan = None;
        self.served = None;
    }

    /// [`OnlineLearner::predict_keep`] of the `K = out.len()` outputs: the plan of
    /// `x`, kept with its kernel row.
    pub(super) fn keep(&mut self, x: &[f64], out: &mut [f64]) -> Result<()> {
        self.forget_kept();
        if self.serves_blocked() {
            if self.serve_keep(x, None, out)? {
                return Ok(());
            }
            if !self.pending.is_empty() {
                // x joins the dictionary (or the served prediction is not finite): the
                // plan of the flushed factor, kept without flushing `self`, so that
                // the pending block is flushed where the pure rounds flush it (its
                // learn, or a later round) and the factor is rounded as theirs.
                let mut c = self.clone();
                c.flush_pending()?;
                c.keep(x, out)?;
                self.kept_plan = c.kept_plan.take();
                self.kept = std::mem::take(&mut c.kept);
                self.served = c.served.take();
                std::mem::swap(&mut self.scratch.krow, &mut c.scratch.krow);
                return Ok(());
            }
        }
        let mut sc = std::mem::take(&mut self.scratch);
        let mut krow = std::mem::take(&mut sc.krow);
        let plan = self.plan_with(x, &mut krow, &mut sc, out.len(), self.stepped());
        sc.krow = krow;
        self.scratch = sc;
        let plan = plan?;
        if !plan.pred.iter().all(|p| p.is_finite()) {
            return self.predict_into(x, out);
        }
        out.copy_from_slice(&plan.pred);
        self.kept_plan = Some(plan);
        self.kept.set(x, self.n_seen);
        Ok(())
    }

    /// The `K = out.len()` predictions for `x` as the next round (pure).
    pub(super) fn predict_into(&self, x: &[f64], out: &mut [f64]) -> Result<()> {
        if !self.pending.is_empty() {
            // As the served round predicts (bit for bit), else on the flushed factor.
            if let Some((p, _)) = self.serve_plan(x)?.filter(|(p, _)| p.len() == out.len()) {
                out.copy_from_slice(&p);
                return Ok(());
            }
            return self.flushed()?.predict_into(x, out);
        }
        if self.gamma < 1.0 {
            return self.discounted_predict(x, out);
        }
        let mut krow = Vec::new();
        let p = self.plan_with(x, &mut krow, &mut Scratch::default(), out.len(), None)?;
        out.copy_from_slice(&p.pred);
        if out.iter().all(|p| p.is_finite()) {
            Ok(())
        } else {
            // The learning round would repair the factor; do the same on a copy.
            let mut copy = self.clone();
            copy.round(x, &vec![0.0; out.len()], out)
        }
    }

    /// The forecaster's part of a round (steps 2-5) after KORS decided `kors_added`,
    /// with `sc.krow = k_D(x)` and the `K = y.len()` targets `y`; `planned`: the
    /// discount step, bordering and predictions steps 2-3 give, already computed
    /// ([`Self::plan_with`]). The predictions are written into `out`.
    pub(super) fn forecaster_round(
        &mut self,
        x: &[f64],
        y: &[f64],
        kors_added: bool,
        planned: Option<Plan>,
        sc: &mut Scratch,
        out: &mut [f64],
    ) -> Result<()> {
        let k = y.len();
        // Discounted: A <- gamma A + refill, q <- gamma q before the prediction (or
        // the plan's copies, the same numbers).
        match planned.as_ref().map(|p| p.stepped.is_some()) {
            Some(true) => {}
            _ => self.discount_step(),
        }
        let mut krow = std::mem::take(&mut sc.krow);
        let (ext, mut delta) = match planned {
            Some(p) => {
                if let Some(st) = p.stepped {
                    (self.chol, self.q) = (st.chol, st.q);
                }
                out.copy_from_slice(&p.pred);
                (p.ext, p.delta)
            }
            None => {
                let ext = if kors_added { self.extension(x, &krow, k, None) } else { None };
                // 2-3. Prediction.
                self.predict_with(None, &krow, ext.as_ref(), &mut sc.sv, out);
                (ext, dot(&sc.sv.w, &sc.sv.w))
            }
        };
        // 4. Apply the insertion.
        if kors_added {
            self.insert(x, ext, &mut krow);
        }
        if !out.iter().all(|p| p.is_finite()) {
            // Repair: refactorise from the cache and predict again (with the same decisions).
            self.refactorize(true)?;
            let m = self.size();
            self.predict_with(None, &krow[..m], None, &mut sc.sv, out);
            delta = dot(&sc.sv.w, &sc.sv.w);
            if !out.iter().all(|p| p.is_finite()) {
                return Err(KsError::Numerical(
                    "NystromAWV: the prediction is not finite even after refactorising A".into(),
                ));
            }
        }
        // 5. A_t = A_{t-1} + krow krow^T, q_t = q_{t-1} + krow y^T, caches.
        let mut xup = std::mem::take(&mut sc.sv.u);
        xup.clear();
        xup.extend_from_slice(&krow);
        self.chol.rank_one_update(&mut xup);
        sc.sv.u = xup;
        add_to_q(&mut self.q, &krow, y);
        self.cache_round(x, &krow, y);
        if self.d.is_none() {
            self.d = Some(x.len());
        }
        let rho = noise_discount(self.gamma);
        self.noise_rest.observe(&mut self.noise, rho, (y, &*out), delta, 1.0);
        self.n_seen += 1;
        sc.krow = krow;
        if !self.chol.is_healthy() {
            self.refactorize(false)?;
        }
        self.checkpoint();
        Ok(())
    }

    /// The prediction and predictive std of the next round (after its discount step).
    pub(super) fn std_plan(&self, x: &[f64]) -> Result<Option<(f64, f64)>> {
        let plan = self.std_plan_multi(x, 1)?;
        Ok(Some((plan.pred[0], self.noise.std(plan.delta))))
    }

    /// The plan of the next round's `k` predictions and its leverage `delta` (the
    /// outputs share it), as `predict` makes them.
    pub(super) fn std_plan_multi(&self, x: &[f64], k: usize) -> Result<Plan> {
        if !self.pending.is_empty() {
            if let Some((pred, delta)) = self.serve_plan(x)?.filter(|(p, _)| p.len() == k) {
                return Ok(Plan { added: false, ext: None, pred, delta, stepped: None });
            }
            return self.flushed()?.std_plan_multi(x, k);
        }
        let mut sc = Scratch::default();
        let mut krow = Vec::new();
        let mut plan = self.plan_with(x, &mut krow, &mut sc, k, self.stepped())?;
        if !plan.pred.iter().all(|p| p.is_finite()) {
            // As `predict`: the learning round would repair the factor first.
            let mut copy = self.clone();
            copy.discount_step();
            copy.refactorize(true)?;
            plan = copy.plan_with(x, &mut krow, &mut sc, k, None)?;
        }
        Ok(plan)
    }
}

/// `q += krow y^T` (`q` is `m x K` row-major; one output: `q += y krow`).
pub(super) fn add_to_q(q: &mut [f64], krow: &[f64], y: &[f64]) {
    if let [y] = y {
        axpy(*y, krow, q);
        return;
    }
    for (qj, &kj) in q.chunks_exact_mut(y.len()).zip(krow) {
        qj.iter_mut().zip(y).for_each(|(a, yc)| *a += yc * kj);
    }
}
