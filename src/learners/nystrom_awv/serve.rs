//! Blocks of served rounds (`predict_keep` + `learn` one row at a time, `gamma = 1`,
//! any number of outputs): the factor `L0 L0^T = A_0` stays fixed while rows are pending and
//! is brought up to date at matrix speed when the block is full, at an insertion,
//! or before any reader of the factor (the module documentation's "Blocks of
//! rounds" by Woodbury, one row at a time).
//!
//! With `n` pending rows `k_1..k_n` (targets `y`), `w_i = L0^{-1} k_i`,
//! `W = [w_1..w_n]` and `u_0 = L0^{-1} q_0`, the whitened `A_{t-1}` is
//! `S = I + W W^T` and the whitened `q_{t-1}` is `u = u_0 + W y`. For a new row `k`
//! (`w = L0^{-1} k`, `c = W^T w`) and `M = I + W^T W = L_M L_M^T` (Woodbury,
//! `S^{-1} = I - W M^{-1} W^T`):
//! ```text
//! delta = k^T A_{t-1}^{-1} k = w.w - s.s            (s = L_M^{-1} c)
//! k^T A_{t-1}^{-1} q_{t-1} = w.u_0 + c.y - s.r       (r = L_M^{-1} (z + G y),
//!                                                     z_i = w_i.u_0, G = W^T W,
//!                                                     r kept row by row)
//! ```
//! and AWV predicts `k^T A_{t-1}^{-1} q_{t-1} / (1 + delta)` (ridge: the numerator),
//! as the one-row path's Sherman-Morrison does. Learning the row borders `L_M` by
//! `(s, sqrt(1 + delta))` (`M`'s new column is `c`, its diagonal `1 + w.w`), so
//! `L_M`'s pivots are at least 1: the recursion adds no ill-conditioning of its
//! own, and the predictions equal the one-row path's up to the rounding of the
//! solves with `L0` (the conditioning of `A_0`). `q`, the caches and the noise
//! level are updated at once; only the factor waits. With `K` outputs each output
//! `j` has its own `q_0`, `y`, `u_0`, `z`, `G y` and `r` (its column of the targets);
//! `W`, `L_M`, `c`, `s` and `delta` depend on the inputs only and are shared. The flush is
//! [`ColCholesky::block_solve_update`] (`(2 n + PANEL) m^2` flops, matrix-matrix),
//! against `n` Givens rank-one updates.

use super::block::BlockScratch;
use super::round::{add_to_q, Plan};
use super::NystromAwv;
use crate::error::Result;
use crate::linalg::blas::dot;
use crate::uncertainty::noise_discount;

/// The rows learned since the factor was last brought up to date.
#[derive(Clone, Debug, Default)]
pub(super) struct Pending {
    /// Kernel rows, row-major `n x m`.
    krows: Vec<f64>,
    /// `w_i = L0^{-1} k_i`, row-major `n x m`.
    w: Vec<f64>,
    /// `L_M` by rows, packed (row `i`: `i + 1` entries from `i (i + 1) / 2`).
    lm: Vec<f64>,
    /// What each of the `K` outputs adds (they share `W` and `L_M`).
    outs: Vec<PendingOutput>,
    /// Scratch of the flush (a copy starts empty).
    blk: Box<BlockScratch>,
}

/// One output's part of the pending block.
#[derive(Clone, Debug, Default)]
struct PendingOutput {
    /// `u_0 = L0^{-1} q_0` (`q_0`: this output's column of `q` when the block began).
    u0: Vec<f64>,
    ys: Vec<f64>,
    /// `z_i = w_i.u_0`.
    z: Vec<f64>,
    /// `(G y)_i = sum_j (w_i.w_j) y_j`.
    gy: Vec<f64>,
    /// `r = L_M^{-1} (z + G y)`, kept row by row (learning `y_n` adds `y_n s` to it,
    /// `s = L_M^{-1} c`, then borders it).
    r: Vec<f64>,
}

impl Pending {
    pub(super) fn len(&self) -> usize {
        self.outs.first().map_or(0, |o| o.ys.len())
    }

    pub(super) fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn clear(&mut self) {
        for v in [&mut self.krows, &mut self.w, &mut self.lm] {
            v.clear();
        }
        for o in &mut self.outs {
            for v in [&mut o.u0, &mut o.ys, &mut o.z, &mut o.gy, &mut o.r] {
                v.clear();
            }
        }
    }

    /// Solves `L_M x = b` in place (`b.len() == n`).
    fn lm_solve(&self, b: &mut [f64]) {
        for i in 0..b.len() {
            let row = &self.lm[i * (i + 1) / 2..(i + 1) * (i + 2) / 2];
            b[i] = (b[i] - dot(&row[..i], &b[..i])) / row[i];
        }
    }
}

/// What a served prediction computed, for the `learn` of the same row.
#[derive(Clone, Debug, Default)]
pub(super) struct Served {
    w: Vec<f64>,
    /// The `K` columns `u_0` (each `m` long) when no row is pending (the block begins
    /// with this row).
    u0: Vec<f64>,
    c: Vec<f64>,
    s: Vec<f64>,
    ww: f64,
    /// The `K` predictions.
    pub(super) pred: Vec<f64>,
    pub(super) delta: f64,
}

impl Served {
    /// Whether every prediction is finite.
    pub(super) fn is_finite(&self) -> bool {
        self.pred.iter().all(|p| p.is_finite())
    }
}

impl NystromAwv {
    /// Whether single rounds may wait in a pending block: `gamma = 1` and a dictionary
    /// large enough for blocks ([`Self::block_size`] `>= 2`); any number of outputs.
    pub(super) fn serves_blocked(&self) -> bool {
        let m = self.size();
        self.gamma == 1.0 && m > 0 && self.block_size(m) >= 2
    }

    /// Rows pending in the served block (0: the factor is up to date).
    pub fn pending_rows(&self) -> usize {
        self.pending.len()
    }

    /// The `k` predictions of the next round on the kernel row `krow` (no insertion),
    /// from the pending block (module documentation, once per output: the outputs
    /// share `w`, `c`, `s` and `delta`); pure.
    pub(super) fn serve_predict(&self, krow: &[f64], k: usize, sv: &mut Served) {
        let p = &self.pending;
        let (m, n) = (self.size(), p.len());
        sv.w.clear();
        sv.w.extend_from_slice(&krow[..m]);
        sv.c.clear();
        sv.s.clear();
        sv.u0.clear();
        sv.pred.clear();
        if n == 0 {
            // The first row: the one-row path's numbers (`w` and the first `u_0` in one
            // sweep; `q` is row-major `m x K`).
            if k == 1 {
                sv.u0.extend_from_slice(&self.q[..m]);
            } else {
                sv.u0.resize(k * m, 0.0);
                for (i, qi) in self.q.chunks_exact(k).take(m).enumerate() {
                    for (j, &v) in qi.iter().enumerate() {
                        sv.u0[j * m + i] = v;
                    }
                }
            }
            let (first, rest) = sv.u0.split_at_mut(m);
            self.chol.forward_solve2(&mut sv.w, first);
            for u in rest.chunks_exact_mut(m) {
                self.chol.forward_solve(u);
            }
            sv.ww = dot(&sv.w, &sv.w);
            sv.delta = sv.ww;
            sv.pred.extend(sv.u0.chunks_exact(m).map(|u| dot(&sv.w, u)));
        } else {
            self.chol.forward_solve(&mut sv.w);
            sv.ww = dot(&sv.w, &sv.w);
            sv.c.extend(p.w.chunks_exact(m).map(|wi| dot(wi, &sv.w)));
            sv.s.extend_from_slice(&sv.c);
            p.lm_solve(&mut sv.s);
            sv.delta = sv.ww - dot(&sv.s, &sv.s);
            let (w, c, s) = (&sv.w, &sv.c, &sv.s);
            sv.pred.extend(p.outs.iter().map(|o| dot(w, &o.u0) + dot(c, &o.ys) - dot(s, &o.r)));
        }
        if !self.ridge {
            let scale = 1.0 + sv.delta;
            sv.pred.iter_mut().for_each(|num| *num /= scale);
        }
    }

    /// Learns the row `x` (kernel row `krow`, the `K` targets `y`) whose predictions
    /// `sv` made, KORS already stepped (adding nothing); flushes a full block.
    pub(super) fn serve_learn(
        &mut self,
        x: &[f64],
        krow: &[f64],
        y: &[f64],
        sv: &Served,
    ) -> Result<()> {
        let m = self.size();
        let p = &mut self.pending;
        if p.is_empty() {
            p.outs.resize_with(y.len(), PendingOutput::default);
            for (o, u) in p.outs.iter_mut().zip(sv.u0.chunks_exact(m)) {
                o.u0.clear();
                o.u0.extend_from_slice(u);
            }
        }
        let lnn = (1.0 + sv.delta.max(0.0)).sqrt();
        for (o, &yj) in p.outs.iter_mut().zip(y) {
            // G y gains column n: (G y)_i += c_i y for i < n, (G y)_n = c.y + (w.w) y.
            let gy_new = dot(&sv.c, &o.ys) + sv.ww * yj;
            o.gy.iter_mut().zip(&sv.c).for_each(|(g, c)| *g += c * yj);
            o.gy.push(gy_new);
            let z_new = dot(&sv.w, &o.u0);
            o.z.push(z_new);
            // r = L_M^{-1} (z + G y): its first n entries gain y s (G y gained y c),
            // the new one solves L_M's new row (s, sqrt(1 + delta)).
            o.r.iter_mut().zip(&sv.s).for_each(|(r, s)| *r += yj * s);
            o.r.push((z_new + gy_new - dot(&sv.s, &o.r)) / lnn);
            o.ys.push(yj);
        }
        // L_M's new row: (s, sqrt(1 + w.w - s.s)) = (s, sqrt(1 + delta)).
        p.lm.extend_from_slice(&sv.s);
        p.lm.push(lnn);
        p.krows.extend_from_slice(&krow[..m]);
        p.w.extend_from_slice(&sv.w);
        add_to_q(&mut self.q, &krow[..m], y);
        self.cache_round(x, &krow[..m], y);
        if self.d.is_none() {
            self.d = Some(x.len());
        }
        let rho = noise_discount(self.gamma);
        self.noise_rest.observe(&mut self.noise, rho, (y, &sv.pred), sv.delta, 1.0);
        self.n_seen += 1;
        if self.pending.len() >= self.block_size(m) {
            self.flush_pending()?;
        }
        Ok(())
    }

    /// The served predictions and leverage of the next round on `x` (pure): `None`
    /// when no row is pending, when `x` would join the dictionary or when a
    /// prediction is not finite (a reader then asks [`Self::flushed`]).
    pub(super) fn serve_plan(&self, x: &[f64]) -> Result<Option<(Vec<f64>, f64)>> {
        if self.pending.is_empty() {
            return Ok(None);
        }
        let mut krow = Vec::new();
        self.krow_into(x, &mut krow);
        let adds = match self.kors.as_ref().filter(|k| !k.is_full()) {
            Some(kors) if kors.size() == self.size() => kors.peek_with_row(x, &krow)?.added,
            Some(kors) => kors.peek(x)?.added,
            None => false,
        };
        if adds {
            return Ok(None);
        }
        let mut sv = Served::default();
        self.serve_predict(&krow, self.outputs(), &mut sv);
        Ok(sv.is_finite().then_some((sv.pred, sv.delta)))
    }

    /// Brings the factor up to date with the pending rows: `L L^T = L0 L0^T + K_B^T K_B`
    /// by one blocked pass ([`crate::linalg::cholesky::ColCholesky::block_solve_update`]),
    /// or by rank-one updates if that factor is not healthy.
    pub(super) fn flush_pending(&mut self) -> Result<()> {
        if self.pending.is_empty() {
            return Ok(());
        }
        // A kept served prediction refers to the old factor.
        self.forget_kept();
        let n = self.pending.len();
        let mut blk = std::mem::take(&mut self.pending.blk);
        self.chol.block_solve_update(
            &mut [],
            0,
            &self.pending.krows,
            n,
            &mut blk.chol,
            Some(&mut blk.next),
        );
        if blk.next.is_healthy() {
            std::mem::swap(&mut self.chol, &mut blk.next);
        } else {
            let m = self.size();
            let mut xup = Vec::with_capacity(m);
            for k in self.pending.krows.chunks_exact(m) {
                xup.clear();
                xup.extend_from_slice(k);
                self.chol.rank_one_update(&mut xup);
            }
        }
        self.pending.blk = blk;
        self.pending.clear();
        self.blocked_rounds += n as u64;
        if !self.chol.is_healthy() {
            self.refactorize(false)?;
        }
        self.checkpoint();
        Ok(())
    }

    /// Forgets the pending rows after the factor was rebuilt from the cache (which
    /// holds them).
    pub(super) fn drop_pending(&mut self) {
        self.pending.clear();
    }

    /// `self`, or a copy with the pending rows flushed, for a reader of the factor
    /// that cannot change `self`.
    pub(super) fn flushed(&self) -> Result<std::borrow::Cow<'_, Self>> {
        if self.pending.is_empty() {
            return Ok(std::borrow::Cow::Borrowed(self));
        }
        let mut c = self.clone();
        c.flush_pending()?;
        Ok(std::borrow::Cow::Owned(c))
    }

    /// The served predictions of the next round on `x` (kernel row `krow` if given)
    /// into `out` (`K` long), kept for its `learn` with the kernel row in
    /// `scratch.krow`; `false` (nothing kept, the pending rows left pending) when `x`
    /// joins the dictionary or a prediction is not finite: the caller then predicts on
    /// the flushed factor.
    pub(super) fn serve_keep(
        &mut self,
        x: &[f64],
        krow: Option<&[f64]>,
        out: &mut [f64],
    ) -> Result<bool> {
        let mut sc = std::mem::take(&mut self.scratch);
        match krow {
            Some(k) => {
                sc.krow.clear();
                sc.krow.extend_from_slice(k);
            }
            None => self.krow_into(x, &mut sc.krow),
        }
        let adds = match self.kors.as_ref().filter(|k| !k.is_full()) {
            Some(kors) if kors.size() == self.size() => {
                kors.peek_with_row(x, &sc.krow).map(|s| s.added)
            }
            Some(kors) => kors.peek(x).map(|s| s.added),
            None => Ok(false),
        };
        let mut sv = Box::<Served>::default();
        let finite = match adds {
            Ok(false) => {
                self.serve_predict(&sc.krow, out.len(), &mut sv);
                sv.is_finite()
            }
            _ => false,
        };
        self.scratch = sc;
        adds?;
        if !finite {
            return Ok(false);
        }
        out.copy_from_slice(&sv.pred);
        let (pred, delta) = (sv.pred.clone(), sv.delta);
        self.kept_plan = Some(Plan { added: false, ext: None, pred, delta, stepped: None });
        self.kept.set(x, self.n_seen);
        self.served = Some(sv);
        Ok(true)
    }

    /// One served round on a fixed dictionary with the kernel row `krow` given (the
    /// kept predictions of `x` if any) and the `K` targets `y`, its predictions
    /// pushed onto `out`; `false` when the one-row path must run it (the pending rows
    /// then flushed, nothing pushed).
    pub(super) fn serve_round_krow(
        &mut self,
        x: &[f64],
        krow: &[f64],
        y: &[f64],
        out: &mut Vec<f64>,
    ) -> Result<bool> {
        let plan = self.kept_plan.take().filter(|p| !p.added && p.pred.len() == y.len());
        let kept = plan.is_some() && self.kept.take(x, self.n_seen);
        let sv = match self.served.take().filter(|_| kept) {
            Some(sv) => sv,
            None => {
                let mut sv = Box::<Served>::default();
                self.serve_predict(krow, y.len(), &mut sv);
                sv
            }
        };
        self.kept.clear();
        if !sv.is_finite() {
            self.flush_pending()?;
            return Ok(false);
        }
        self.serve_learn(x, krow, y, &sv)?;
        out.extend_from_slice(&sv.pred);
        Ok(true)
    }
}

#[cfg(test)]
mod tests {
    use super::super::{FixedDictionary, NystromAwv, NystromAwvParams};
    use crate::kernels::Kernel;
    use crate::learners::online_learner::OnlineLearner;
    use crate::rng::Rng;

    fn stream(n: usize, d: usize, seed: u64) -> (Vec<f64>, Vec<f64>) {
        let mut r = Rng::new(seed);
        let x: Vec<f64> = (0..n * d).map(|_| r.uniform() * 2.0 - 1.0).collect();
        let y = x.chunks_exact(d).map(|v| (3.0 * v[0]).sin() + v[1] * v[2] + 0.1 * r.normal());
        let y = y.collect();
        (x, y)
    }

    /// KORS dictionary (about 60-90 points on 600 rows of `d = 3`); `block`: the
    /// block size (Some(1): the one-row path).
    fn kors(block: Option<usize>, ridge: bool) -> NystromAwv {
        NystromAwv::new(&NystromAwvParams {
            kernel: Some(Kernel::Gaussian { sigma: 0.4 }),
            mu: 1.0,
            ridge,
            block_size: block,
            seed: 3,
            ..Default::default()
        })
        .unwrap()
    }

    fn fixed(block: Option<usize>) -> NystromAwv {
        let (pts, _) = stream(80, 3, 99);
        NystromAwv::new(&NystromAwvParams {
            kernel: Some(Kernel::Laplacian { sigma: 0.8 }),
            dictionary: Some(FixedDictionary { points: pts, d: 3 }),
            block_size: block,
            ..Default::default()
        })
        .unwrap()
    }

    /// Equal up to the rounding of the solves with `L0` (`A_0 = lam K_DD + K^T K`
    /// has condition up to about 1e6 here: 1e-9 relative leaves three digits).
    fn close(a: f64, b: f64, what: &str) {
        assert!((a - b).abs() <= 1e-9 * (1.0 + a.abs().max(b.abs())), "{what}: {a} vs {b}");
    }

    fn served_round(l: &mut NystromAwv, x: &[f64], y: f64) -> f64 {
        let p = l.predict_keep(x).unwrap();
        let q = l.predict_learn(x, y).unwrap();
        assert_eq!(p.to_bits(), q.to_bits(), "the kept prediction is the round's");
        p
    }

    /// The served loop (rows pending between flushes, insertions mid-block) predicts
    /// as the one-row path and as progressive_predict; the states agree after.
    #[test]
    fn served_loop_equals_one_row_and_progressive() {
        for ridge in [false, true] {
            let (x, y) = stream(600, 3, 7);
            let (mut s, mut one, mut prog) =
                (kors(Some(16), ridge), kors(Some(1), ridge), kors(None, ridge));
            let mut pp = Vec::new();
            prog.predict_learn_many(&x, 3, &y, &mut pp).unwrap();
            let (mut max_pending, mut inserted_pending) = (0, 0);
            for (i, (xi, &yi)) in x.chunks_exact(3).zip(&y).enumerate() {
                let (before, ins) = (s.pending_rows(), s.stats().insertions);
                let p = served_round(&mut s, xi, yi);
                let q = one.predict_learn(xi, yi).unwrap();
                close(p, q, &format!("round {i}"));
                close(p, pp[i], &format!("round {i} (progressive)"));
                max_pending = max_pending.max(s.pending_rows());
                if s.stats().insertions > ins && before > 0 {
                    inserted_pending += 1;
                }
            }
            assert!(s.size() >= 48, "blocks need a dictionary of 48 points: {}", s.size());
            assert_eq!(max_pending, 15, "blocks of 16 rows (the 16th flushes)");
            assert!(inserted_pending > 0, "an insertion arrived with rows pending");
            assert_eq!(s.stats().insertions, one.stats().insertions);
            assert!(s.blocked_rounds() > 0);
            let (a, b) = (s.alpha(), one.alpha());
            for (u, v) in a.iter().zip(&b) {
                close(*u, *v, "alpha");
            }
        }
    }

    /// Mid-block: a copy, a state round trip, `predict`, `predict_std` and a
    /// `learn_many` see the learner the one-row path would be.
    #[test]
    fn readers_mid_block() {
        let (x, y) = stream(500, 3, 8);
        let (mut s, mut one) = (kors(Some(32), false), kors(Some(1), false));
        let split = 330;
        for (xi, &yi) in x.chunks_exact(3).zip(&y).take(split) {
            served_round(&mut s, xi, yi);
            one.predict_learn(xi, yi).unwrap();
        }
        assert!(s.pending_rows() > 0, "the split falls inside a block");
        let xn = &x[split * 3..split * 3 + 3];
        close(s.predict(xn).unwrap(), one.predict(xn).unwrap(), "predict");
        let (a, b) = (s.predict_std(xn).unwrap().unwrap(), one.predict_std(xn).unwrap().unwrap());
        close(a.0, b.0, "predict_std mean");
        close(a.1, b.1, "predict_std std");
        let bytes = crate::state::codec::encode(&s).unwrap();
        let mut restored: NystromAwv = crate::state::codec::decode(&bytes).unwrap();
        assert_eq!(restored.pending_rows(), 0);
        let bytes_one = crate::state::codec::encode(&one).unwrap();
        assert_eq!(bytes.len(), bytes_one.len());
        let (la, lb) = (s.cholesky_dense(), one.cholesky_dense());
        for (u, v) in la.iter().zip(&lb) {
            close(*u, *v, "factor");
        }
        let mut copy = s.clone();
        assert_eq!(copy.pending_rows(), s.pending_rows());
        let (mut pm, mut po) = (Vec::new(), Vec::new());
        let mut many = s.clone();
        many.predict_learn_many(&x[split * 3..], 3, &y[split..], &mut pm).unwrap();
        for (i, (xi, &yi)) in x.chunks_exact(3).zip(&y).enumerate().skip(split) {
            let p = served_round(&mut s, xi, yi);
            let q = one.predict_learn(xi, yi).unwrap();
            close(p, q, &format!("round {i}"));
            close(served_round(&mut copy, xi, yi), p, "copy");
            close(served_round(&mut restored, xi, yi), p, "restored");
            po.push(q);
        }
        for (a, b) in pm.iter().zip(&po) {
            close(*a, *b, "learn_many mid-block");
        }
    }

    /// A fixed dictionary served with its kernel rows given (AutoKernel's experts):
    /// the one-row path's predictions, and `learn` without a kept prediction too.
    #[test]
    fn fixed_dictionary_krows() {
        let (x, y) = stream(400, 3, 9);
        let (mut s, mut one) = (fixed(None), fixed(Some(1)));
        let (pts, kern) = s.fixed_distance_kernel(3).map(|(p, k)| (p.to_vec(), k)).unwrap();
        let mut krow = vec![0.0; s.size()];
        for (i, (xi, &yi)) in x.chunks_exact(3).zip(&y).enumerate() {
            kern.row_into(xi, &pts, 3, &mut krow);
            let mut out = Vec::new();
            let p = if i % 5 == 0 {
                s.predict_learn_many_krows(xi, 3, &[yi], &krow, &mut out).unwrap().unwrap();
                out[0]
            } else {
                let mut kept = [0.0];
                s.predict_keep_krow(xi, &krow, &mut kept).unwrap().unwrap();
                let p = kept[0];
                s.predict_learn_many_krows(xi, 3, &[yi], &krow, &mut out).unwrap().unwrap();
                assert_eq!(p.to_bits(), out[0].to_bits());
                p
            };
            close(p, one.predict_learn(xi, yi).unwrap(), &format!("round {i}"));
            if i == 100 {
                assert!(s.pending_rows() > 0);
            }
        }
        assert!(s.blocked_rounds() >= 384, "blocks of 64: {}", s.blocked_rounds());
    }

    /// Three outputs served (rows pending between flushes, insertions mid-block):
    /// output `c` predicts as a one-output learner on column `c` of the targets (the
    /// outputs share the factor of `A`, which depends on the inputs only), as the
    /// three-output one-row path and as progressive_predict; kept predictions are the
    /// rounds', readers mid-block see the flushed learner, and a fixed dictionary with
    /// its kernel rows given serves the same numbers.
    #[test]
    fn served_multi_output_equals_each_column_and_the_one_row_path() {
        use crate::multi::MultiOutput;
        let (x, y) = stream(600, 3, 11);
        let k = 3;
        let yk: Vec<f64> = y.iter().flat_map(|&v| [v, -2.0 * v + 1.0, v * v]).collect();
        for fixed_dict in [false, true] {
            let make = |b| if fixed_dict { fixed(b) } else { kors(b, false) };
            let (mut s, mut one, mut prog) = (make(Some(16)), make(Some(1)), make(None));
            let mut cols: Vec<NystromAwv> = (0..k).map(|_| make(Some(16))).collect();
            let mut pp = Vec::new();
            prog.predict_learn_many_multi(
                crate::learners::batch::Rows { x: &x, d: 3, y: &yk },
                &mut pp,
            )
            .unwrap();
            let (mut max_pending, mut krow) = (0, Vec::new());
            for (i, (xi, yi)) in x.chunks_exact(3).zip(yk.chunks_exact(k)).enumerate() {
                let (mut kept, mut p, mut q) = (Vec::new(), Vec::new(), Vec::new());
                if fixed_dict && i > 0 && i % 2 == 0 {
                    let (pts, kern) =
                        s.fixed_distance_kernel(3).map(|(p, k)| (p.to_vec(), k)).unwrap();
                    krow.resize(s.size(), 0.0);
                    kern.row_into(xi, &pts, 3, &mut krow);
                    kept.resize(k, 0.0);
                    s.predict_keep_krow(xi, &krow, &mut kept).unwrap().unwrap();
                    s.predict_learn_many_krows(xi, 3, yi, &krow, &mut p).unwrap().unwrap();
                } else {
                    if i > 0 {
                        s.predict_keep_multi(xi, &mut kept).unwrap();
                    }
                    s.predict_learn_multi(xi, yi, &mut p).unwrap();
                }
                if i > 0 {
                    for (a, b) in kept.iter().zip(&p) {
                        assert_eq!(a.to_bits(), b.to_bits(), "round {i}: kept");
                    }
                }
                one.predict_learn_multi(xi, yi, &mut q).unwrap();
                for c in 0..k {
                    let pc = cols[c].predict_learn(xi, yi[c]).unwrap();
                    close(p[c], pc, &format!("round {i} output {c} (one output)"));
                    close(p[c], q[c], &format!("round {i} output {c} (one-row path)"));
                    close(p[c], pp[i * k + c], &format!("round {i} output {c} (progressive)"));
                }
                max_pending = max_pending.max(s.pending_rows());
                if i == 333 {
                    assert!(s.pending_rows() > 0, "the check falls inside a block");
                    let xn = &x[..3];
                    let (mut a, mut b) = (Vec::new(), Vec::new());
                    s.predict_multi(xn, &mut a).unwrap();
                    one.predict_multi(xn, &mut b).unwrap();
                    let (mut am, mut astd, mut bm, mut bstd) = (vec![], vec![], vec![], vec![]);
                    assert!(s.predict_std_multi(xn, &mut am, &mut astd).unwrap());
                    assert!(one.predict_std_multi(xn, &mut bm, &mut bstd).unwrap());
                    for c in 0..k {
                        close(a[c], b[c], "predict mid-block");
                        close(am[c], bm[c], "predict_std mean mid-block");
                        close(astd[c], bstd[c], "predict_std std mid-block");
                    }
                    let bytes = crate::state::codec::encode(&s).unwrap();
                    let restored: NystromAwv = crate::state::codec::decode(&bytes).unwrap();
                    assert_eq!(restored.pending_rows(), 0);
                    let mut r = Vec::new();
                    restored.predict_multi(xn, &mut r).unwrap();
                    for c in 0..k {
                        close(r[c], a[c], "restored mid-block");
                    }
                }
            }
            assert_eq!(max_pending, 15, "blocks of 16 rows (the 16th flushes)");
            assert!(s.blocked_rounds() > 0);
        }
    }
}
