//! Blocks of rounds between insertions (the module documentation's "Blocks of
//! rounds"): KORS stepped row by row, the rows before an insertion as one block
//! (`crate::awv::block`'s recursion on `W = L^{-1} K_B^T`), the inserting row alone.

use super::round::{add_to_q, Scratch};
use super::NystromAwv;
use crate::error::Result;
use crate::linalg::cholesky::{self, ColCholesky};
use crate::linalg::gemm::{gemm, View};
use crate::uncertainty::noise_discount;

/// Scratch of the blocked rounds (a copy starts empty).
#[derive(Debug, Default)]
pub(super) struct BlockScratch {
    /// Kernel rows of the block, row-major `n x m`.
    pub(super) krows: Vec<f64>,
    /// `K_B^T`, row-major `m x n`.
    pub(super) kt: Vec<f64>,
    /// `[K_B^T | q]`, row-major `m x (n + 1)`, solved in place into `[W | u_0]`.
    pub(super) rhs: Vec<f64>,
    /// `W^T [W | u_0]`: `G` then `pb` (column-major `n x (n + 1)`).
    pub(super) gp: Vec<f64>,
    pub(super) u: Vec<f64>,
    pub(super) mm: Vec<f64>,
    pub(super) deltas: Vec<f64>,
    pub(super) preds: Vec<f64>,
    pub(super) chol: cholesky::BlockScratch,
    /// The factor after the block, swapped in when the block is accepted.
    pub(super) next: ColCholesky,
    /// A discounted block's `2 n` rows and their targets (`discount.rs`).
    pub(super) drows: Vec<f64>,
    pub(super) dy: Vec<f64>,
}

impl Clone for BlockScratch {
    fn clone(&self) -> Self {
        BlockScratch::default()
    }
}

impl NystromAwv {
    /// `pre`: the kernel rows of every row (fixed dictionary only).
    pub(super) fn run_rows_with(
        &mut self,
        x: &[f64],
        d: usize,
        y: &[f64],
        out: &mut Option<&mut Vec<f64>>,
        sc: &mut Scratch,
        pre: Option<&[f64]>,
    ) -> Result<()> {
        let row = |i: usize| &x[i * d..(i + 1) * d];
        let n = x.len() / d;
        let kk = y.len() / n.max(1);
        let yr = |i: usize| &y[i * kk..(i + 1) * kk];
        let mut p = vec![0.0; kk];
        let push = |out: &mut Option<&mut Vec<f64>>, p: &[f64]| {
            if let Some(o) = out.as_deref_mut() {
                o.extend_from_slice(p);
            }
        };
        let mut i = 0;
        while i < n {
            crate::interrupt::poll()?;
            let m = self.size();
            let bmax = self.block_size(m).min(n - i);
            // Served rows pending (`serve.rs`): a single round without kernel rows
            // given serves on (`round_with`), anything else needs the factor.
            if bmax >= 2 || pre.is_some() {
                self.flush_pending()?;
            }
            if bmax < 2 || m == 0 {
                self.fix_outputs(kk);
                match pre {
                    Some(pre) => {
                        // A plan kept for this row at this round (predict_keep_krow on
                        // the same kernel row) finishes it: the numbers it would compute.
                        let plan = self
                            .kept_plan
                            .take()
                            .filter(|p| !p.added && p.ext.is_none() && p.pred.len() == kk);
                        let plan = plan.filter(|_| self.kept.take(row(i), self.n_seen));
                        self.kept.clear();
                        sc.krow.clear();
                        sc.krow.extend_from_slice(&pre[i * m..(i + 1) * m]);
                        self.forecaster_round(row(i), yr(i), false, plan, sc, &mut p)?
                    }
                    None => self.round_with(row(i), yr(i), sc, &mut p)?,
                };
                push(out, &p);
                i += 1;
                continue;
            }
            // KORS row by row until it adds a point (that row then runs alone).
            let mut krows = std::mem::take(&mut sc.blk.krows);
            krows.resize(bmax * m, 0.0);
            let (mut k, mut stop) = (0, None);
            while k < bmax {
                let kr = &mut krows[k * m..(k + 1) * m];
                match pre {
                    Some(pre) => kr.copy_from_slice(&pre[(i + k) * m..(i + k + 1) * m]),
                    None => self.kernel.row_into(row(i + k), &self.centers, d, kr),
                }
                match self.kors_step(row(i + k), kr) {
                    Ok(false) => k += 1,
                    other => {
                        stop = Some(other);
                        break;
                    }
                }
            }
            sc.blk.krows = krows;
            self.fix_outputs(kk);
            let res =
                self.block_rounds(&x[i * d..(i + k) * d], d, &y[i * kk..(i + k) * kk], sc, out);
            i += k;
            res?;
            match stop {
                None => {}
                Some(Err(e)) => return Err(e),
                Some(Ok(added)) => {
                    sc.krow.clear();
                    sc.krow.extend_from_slice(&sc.blk.krows[k * m..(k + 1) * m]);
                    self.forecaster_round(row(i), yr(i), added, None, sc, &mut p)?;
                    push(out, &p);
                    i += 1;
                }
            }
        }
        Ok(())
    }

    /// Before the first round, `q` takes the `k` columns of the first targets (it
    /// is 0 then: nothing learned).
    pub(super) fn fix_outputs(&mut self, k: usize) {
        if self.n_seen == 0 && self.q.len() != self.size() * k {
            self.q = vec![0.0; self.size() * k];
        }
    }

    /// The forecaster's rounds on rows whose KORS steps added nothing, kernel rows in
    /// `sc.blk.krows`: one block, or single rounds if the block is refused.
    fn block_rounds(
        &mut self,
        x: &[f64],
        d: usize,
        y: &[f64],
        sc: &mut Scratch,
        out: &mut Option<&mut Vec<f64>>,
    ) -> Result<()> {
        let (n, m) = (x.len() / d, self.size());
        let k = y.len() / n.max(1);
        if n >= self.min_block_rows() && self.try_block(x, d, y, &mut sc.blk) {
            if let Some(o) = out.as_deref_mut() {
                o.extend_from_slice(&sc.blk.preds[..n * k]);
            }
            return Ok(());
        }
        let mut p = vec![0.0; k];
        for (i, (xi, yi)) in x.chunks_exact(d).zip(y.chunks_exact(k.max(1))).enumerate() {
            sc.krow.clear();
            sc.krow.extend_from_slice(&sc.blk.krows[i * m..(i + 1) * m]);
            self.forecaster_round(xi, yi, false, None, sc, &mut p)?;
            if let Some(o) = out.as_deref_mut() {
                o.extend_from_slice(&p);
            }
        }
        Ok(())
    }

    /// `n >= 2` rounds without insertion as one block (`y` row-major `n x K`;
    /// discounted: [`Self::discounted_rows`]); `false` (state unchanged) when the
    /// recursion is ill-conditioned or a prediction or the new factor is not finite.
    fn try_block(&mut self, x: &[f64], d: usize, y: &[f64], b: &mut BlockScratch) -> bool {
        let (n, m) = (x.len() / d, self.size());
        let k = y.len() / n;
        // The block builds a second factor beside the first: within the memory limit
        // only (else single rounds, which update the factor in place).
        if crate::limits::check_doubles("", Some((m as u128) * (m as u128))).is_err() {
            return false;
        }
        let ok = if self.gamma < 1.0 {
            self.discounted_block(y, k, b)
        } else {
            let krows = std::mem::take(&mut b.krows);
            let ok = self.block_core(&krows[..n * m], y, k, b);
            b.krows = krows;
            ok
        };
        if !ok {
            return false;
        }
        std::mem::swap(&mut self.chol, &mut b.next);
        // q_t = gamma q_{t-1} + krow_t y_t^T and the caches, row by row as single rounds.
        for (i, (xi, yi)) in x.chunks_exact(d).zip(y.chunks_exact(k)).enumerate() {
            let krow = &b.krows[i * m..(i + 1) * m];
            let (rho, pi) = (noise_discount(self.gamma), &b.preds[i * k..(i + 1) * k]);
            self.noise_rest.observe(&mut self.noise, rho, (yi, pi), b.deltas[i], 1.0);
            if self.gamma < 1.0 {
                self.q.iter_mut().for_each(|v| *v *= self.gamma);
            }
            add_to_q(&mut self.q, krow, yi);
            self.cache_round(xi, krow, yi);
        }
        if self.d.is_none() {
            self.d = Some(d);
        }
        self.n_seen += n as u64;
        self.blocked_rounds += n as u64;
        self.checkpoint();
        true
    }

    /// The plain rounds on the rows `krows` (row-major `n x m`, targets `y` row-major
    /// `n x K`) from `A_{t-1}`: their predictions and `delta`s into `b.preds`,
    /// `b.deltas`, the factor of `A_{t-1} + K_B^T K_B` into `b.next`; `false` when the
    /// recursion is ill-conditioned or a number is not finite.
    pub(super) fn block_core(
        &self,
        krows: &[f64],
        y: &[f64],
        k: usize,
        b: &mut BlockScratch,
    ) -> bool {
        let m = self.size();
        let n = krows.len() / m;
        let c = n + k;
        // [W | U_0] = L^{-1} [K_B^T | Q] and the factor of A_0 + K_B^T K_B, one pass over L.
        b.kt.clear();
        b.kt.resize(m * n, 0.0);
        cholesky::transpose(krows, n, m, &mut b.kt);
        b.rhs.clear();
        b.rhs.resize(m * c, 0.0);
        for ((r, kj), qj) in
            b.rhs.chunks_exact_mut(c).zip(b.kt.chunks_exact(n)).zip(self.q.chunks_exact(k))
        {
            r[..n].copy_from_slice(kj);
            r[n..].copy_from_slice(qj);
        }
        self.chol.block_solve_update_t(&mut b.rhs, c, &b.kt, n, &mut b.chol, Some(&mut b.next));
        // G = W^T W (G_lk = k_l^T A_0^{-1} k_k) and pb = W^T U_0 (= k_k^T A_0^{-1} q_j).
        b.gp.clear();
        b.gp.resize(n * c, 0.0);
        let wt = View { rows: n, cols: m, off: 0, rs: 1, cs: c };
        let wu = View { rows: m, cols: c, off: 0, rs: c, cs: 1 };
        gemm(1.0, &b.rhs, wt, &b.rhs, wu, 0.0, &mut b.gp, View::col_major(n, c, 0, n));
        b.preds.clear();
        b.preds.resize(n * k, 0.0);
        b.deltas.clear();
        b.deltas.resize(n, 0.0);
        let (g, pb) = b.gp.split_at(n * n);
        let ok = crate::awv::block_recursion_multi(
            g,
            pb,
            y,
            k,
            self.ridge,
            &mut b.preds,
            &mut b.deltas,
            &mut b.u,
            &mut b.mm,
        );
        ok && b.preds.iter().all(|p| p.is_finite()) && b.next.is_healthy()
    }
}
