//! Discounted NystromAWV on a fixed dictionary (`gamma`; docs/choices.md, "Discounted
//! AWV"). NystromAWV is AWV on the features `phi(x) = R^{-1} k_D(x)` with
//! `R R^T = K_DD` (`R`: the lower Cholesky factor, of `K_DD + jitter I` if a jitter was
//! needed), whose regulariser `lam I` is `lam K_DD = lam R R^T = sum_k lam r_k r_k^T` in
//! the alpha-parametrisation (`A_alpha = R A_phi R^T`, `q = R b_phi`, `k_D(x) = R phi(x)`).
//! The discounted AWV round of the linear engine, `A <- gamma A + c e_k e_k^T`,
//! `b <- gamma b` with `k = t mod m` (with a KORS dictionary, a pointer that wraps at the
//! current size: [`NystromAwv::refill_index`]) and `c = lam (1 - gamma^m)`, is therefore
//! `A <- gamma A + (1 - gamma^m) l_k l_k^T`, `q <- gamma q` here (every output's column), `l_k` the column `k`
//! of the factor `L_0 = sqrt(lam) R` of `A_0 = lam K_DD`: a scaling of the factor and
//! one rank-one update, `O(m^2)`, before the round's prediction (a prediction alone: on
//! copies of the factor and `q`, kept for the round that follows). With a KORS dictionary
//! the same round runs between insertions; an insertion borders `A` with the discounted
//! past and the new coordinate's regulariser, and `L_0` with the new row of `R`. Blocks
//! of rounds between insertions: two plain rows per round on the rescaled `A`.

use super::NystromAwv;
use crate::error::Result;
use crate::linalg::blas::dot;
use crate::linalg::cholesky::ColCholesky;

/// The factor of `A` and `q` after the next round's discount step (a prediction's
/// copies; a learning round on the same input takes them in place of its own step).
#[derive(Clone, Debug)]
pub(super) struct Stepped {
    pub chol: ColCholesky,
    pub q: Vec<f64>,
}

impl NystromAwv {
    /// Sets the forgetting factor `gamma` in `(0, 1]` (1: the plain learner, bit for
    /// bit), before the first round.
    pub fn with_gamma(mut self, gamma: f64) -> Result<Self> {
        crate::awv::check_gamma(gamma)?;
        crate::awv::check_discount_span(gamma, self.size(), "dictionary points")?;
        if gamma < 1.0 {
            if self.n_seen > 0 {
                return crate::param_err!("gamma must be set before the first round");
            }
            self.refill = self.chol.to_dense();
        } else {
            self.refill.clear();
        }
        self.gamma = gamma;
        Ok(self)
    }

    pub fn gamma(&self) -> f64 {
        self.gamma
    }

    /// `A <- gamma A + (1 - gamma^m) l_k l_k^T` (`k`: [`Self::refill_index`]), `q <- gamma q`.
    pub(super) fn discount_step(&mut self) {
        let (mut chol, mut q) = (std::mem::take(&mut self.chol), std::mem::take(&mut self.q));
        self.discount_into(&mut chol, &mut q);
        (self.chol, self.q) = (chol, q);
    }

    /// The discount step of the next round applied to `chol` and `q` (the state's or copies).
    fn discount_into(&self, chol: &mut ColCholesky, q: &mut [f64]) {
        let m = self.size();
        if self.gamma >= 1.0 || m == 0 {
            return;
        }
        let g = self.gamma;
        chol.scale(g.sqrt());
        let k = self.refill_index(self.n_seen);
        let s = (1.0 - g.powf(m as f64)).sqrt();
        let mut v: Vec<f64> = (0..m).map(|i| s * self.refill[i * m + k]).collect();
        chol.rank_one_update(&mut v);
        q.iter_mut().for_each(|v| *v *= g);
    }

    /// The factor and `q` of the next round after its discount step, on copies
    /// (`O(m^2)`; None when the round does not discount: `gamma = 1` or `m = 0`).
    pub(super) fn stepped(&self) -> Option<Box<Stepped>> {
        if self.gamma >= 1.0 || self.size() == 0 {
            return None;
        }
        let (mut chol, mut q) = (self.chol.clone(), self.q.clone());
        self.discount_into(&mut chol, &mut q);
        Some(Box::new(Stepped { chol, q }))
    }

    /// The predictions of the next round with `gamma < 1` (pure: on the stepped factor).
    pub(super) fn discounted_predict(&self, x: &[f64], out: &mut [f64]) -> Result<()> {
        let mut krow = Vec::new();
        let p = self.plan_with(x, &mut krow, &mut Default::default(), out.len(), self.stepped())?;
        if p.pred.iter().all(|p| p.is_finite()) {
            out.copy_from_slice(&p.pred);
            Ok(())
        } else {
            // The learning round would repair the factor; do the same on a copy.
            self.clone().round(x, &vec![0.0; out.len()], out)
        }
    }

    /// Invariants of the discount fields.
    pub(super) fn validate_discount(&self) -> Result<()> {
        let m = self.size();
        crate::state::ensure(self.gamma > 0.0 && self.gamma <= 1.0, || {
            "gamma out of (0, 1]".into()
        })?;
        let want = if self.gamma < 1.0 { m * m } else { 0 };
        crate::state::ensure(
            self.refill.len() == want
                && self.refill.iter().all(|v| v.is_finite())
                && (self.gamma == 1.0 || (0..m).all(|i| self.refill[i * m + i] > 0.0)),
            || "discount refill vectors of the wrong size".into(),
        )
    }
}

/// The smallest decay `gamma^n` a discounted block spans: its rows are scaled by
/// `gamma^{-t/2}`, `t <= n`, which then spread by at most `10^{3/2}`.
const BLOCK_MIN_DECAY: f64 = 1e-3;

/// Runs of fewer discounted rounds between insertions run as single rounds.
const DISCOUNTED_MIN_BLOCK: usize = 8;

impl NystromAwv {
    /// The longest discounted block: the largest `n` with `gamma^n >= 1e-3`
    /// (unbounded for `gamma = 1`).
    pub(super) fn discounted_block_cap(&self) -> usize {
        if self.gamma >= 1.0 {
            return usize::MAX;
        }
        let n = (BLOCK_MIN_DECAY.ln() / self.gamma.ln()).floor();
        if n >= 1.0 {
            n.min(1e6) as usize
        } else {
            1
        }
    }

    /// `block_size=None`: [`super::auto_block_size`], halved when discounted (a
    /// discounted round is two rows of the block: the same `2 n x 2 n` recursion), within
    /// [`Self::discounted_block_cap`]. Measured (fixed dictionary, `gamma = 0.99`): 32
    /// rounds are the fastest at `m` = 100-200, 64 at `m = 500`, 128 slower than 64.
    pub(super) fn discounted_auto_block_size(&self, m: usize) -> usize {
        let b = super::auto_block_size(m);
        if self.gamma < 1.0 {
            (b / 2).max(1).min(self.discounted_block_cap())
        } else {
            b
        }
    }

    /// The fewest rounds run as a block: 2, or [`DISCOUNTED_MIN_BLOCK`] when discounted
    /// (shorter discounted blocks are slower than single rounds: measured 0.3x at 2
    /// rounds, 0.6x at 4, 1.0x at 8, 1.4x at 16, `m` = 100-500).
    pub(super) fn min_block_rows(&self) -> usize {
        if self.gamma < 1.0 {
            DISCOUNTED_MIN_BLOCK
        } else {
            2
        }
    }

    /// `n` discounted rounds without insertion (kernel rows in `b.krows`, targets `y`
    /// row-major `n x K`) as one plain block, as the linear engine's discounted blocks
    /// (docs/choices.md, "Discounted AWV"): with `w_t = gamma^{-t}` (`t = 1..n`),
    /// `A_t = gamma^t Ã_t` and `q_t = gamma^t q̃_t` (`Ã_0 = A`, `q̃_0 = q`) turn round `t`
    /// into two plain rows on `Ã`: the refill `sqrt(w_t (1 - gamma^m)) l_k` (label 0,
    /// `k = t mod m`), then `sqrt(w_t) k_D(x_t)` (label `sqrt(w_t) y_t`), whose plain
    /// prediction over `sqrt(w_t)` is the round's (`krow^T (A'_t + krow krow^T)^{-1} q'_t`
    /// with `A'_t = gamma^t (Ã_{t-1} + w_t c l_k l_k^T)`, `q'_t = gamma^t q̃_{t-1}`) and
    /// whose `delta` is the round's. Predictions and `delta`s into `b.preds`, `b.deltas`,
    /// the factor of `A_n = gamma^n Ã_n` into `b.next`; `false` as
    /// [`Self::block_core`], or when the block is longer than
    /// [`Self::discounted_block_cap`].
    pub(super) fn discounted_block(
        &self,
        y: &[f64],
        k: usize,
        b: &mut super::block::BlockScratch,
    ) -> bool {
        let (m, g) = (self.size(), self.gamma);
        let n = y.len() / k;
        if m == 0 || n > self.discounted_block_cap() {
            return false;
        }
        let c = 1.0 - g.powf(m as f64);
        let (mut rows, mut dy) = (std::mem::take(&mut b.drows), std::mem::take(&mut b.dy));
        rows.clear();
        rows.resize(2 * n * m, 0.0);
        dy.clear();
        dy.resize(2 * n * k, 0.0);
        let k0 = self.refill_index(self.n_seen);
        let mut w = 1.0;
        for t in 0..n {
            w /= g;
            let kr = (k0 + t) % m; // no insertion inside a block
            let (s, sw) = ((w * c).sqrt(), w.sqrt());
            let (refill, data) = rows[2 * t * m..(2 * t + 2) * m].split_at_mut(m);
            for (i, v) in refill.iter_mut().enumerate().skip(kr) {
                *v = s * self.refill[i * m + kr];
            }
            data.iter_mut().zip(&b.krows[t * m..(t + 1) * m]).for_each(|(a, v)| *a = sw * v);
            let yt = &y[t * k..(t + 1) * k];
            dy[(2 * t + 1) * k..(2 * t + 2) * k].iter_mut().zip(yt).for_each(|(a, v)| *a = sw * v);
        }
        let ok = self.block_core(&rows, &dy, k, b);
        (b.drows, b.dy) = (rows, dy);
        if !ok {
            return false;
        }
        // The data rows' predictions over sqrt(w_t) and their deltas.
        let mut w = 1.0;
        for t in 0..n {
            w /= g;
            let sw = w.sqrt();
            for j in 0..k {
                b.preds[t * k + j] = b.preds[(2 * t + 1) * k + j] / sw;
            }
            b.deltas[t] = b.deltas[2 * t + 1];
        }
        b.preds.truncate(n * k);
        b.deltas.truncate(n);
        // A_n = gamma^n Ã_n.
        b.next.scale(g.powi(n as i32).sqrt());
        true
    }
}

/// KORS dictionary (`gamma < 1`): the regulariser of the `phi`-coordinates is the
/// diagonal `lam omega` of the recursion "each round: `omega <- gamma omega`, then
/// `omega_k += 1 - gamma^m` with `k` the refill pointer ([`NystromAwv::refill_index`];
/// `m`: the size before the round's insertion), then a point joining gets `omega = 1`" (docs/choices.md, "Discounted
/// AWV", KORS), the fixed dictionary's refill on a growing `m`.
pub(super) struct Border {
    /// `c = sum_s gamma^(t-s) a_s k_D(x_s) + R diag(lam omega) R^T e_new` (rows `< m`).
    pub c: Vec<f64>,
    /// `dd = sum_s gamma^(t-s) a_s^2 + lam (sum_k omega_k z_k^2 / lam + rho_0^2)`.
    pub dd: f64,
    /// `gamma^(t-s) a_s` for the past rounds `s < t`.
    pub wa: Vec<f64>,
    /// The new row `[z, rho_0]` of the refill factor `L_0 = sqrt(lam) R`.
    pub refill_row: Vec<f64>,
}

impl NystromAwv {
    /// The coordinate `k_s` refilled at round `s` (docs/choices.md, "Discounted AWV",
    /// KORS): a pointer that moves one coordinate a round and wraps at the current size,
    /// `k_{s+1} = (k_s + 1) mod m_{s+1}` (`m_{s+1}`: the size after round `s`'s
    /// insertion), so every coordinate is refilled at least once in any `m + 1` rounds
    /// however the dictionary grows. `s mod m` for a fixed dictionary. `O(insertions)`:
    /// between two insertions the pointer moves linearly. Needs `m_s > 0`.
    pub(super) fn refill_index(&self, s: u64) -> usize {
        let mut m = self.center_rounds.iter().filter(|r| r.is_none()).count() as u64;
        let (mut k, mut from) = (0u64, 0u64); // the pointer at round `from`
        for r in self.center_rounds.iter().flatten().copied().filter(|&r| r < s) {
            // Rounds from..=r run at size m; a point joins after round r's refill.
            let at_r = if m > 0 { (k + r.saturating_sub(from)) % m } else { 0 };
            m += 1;
            k = if m > 1 { (at_r + 1) % m } else { 0 };
            from = r + 1;
        }
        ((k + s.saturating_sub(from)) % m.max(1)) as usize
    }

    /// `omega` after `steps` discount steps (rounds `0..steps`), with the points that
    /// joined at those rounds.
    pub(super) fn reg_weights(&self, steps: u64) -> Vec<f64> {
        let g = self.gamma;
        let mut joins = self.center_rounds.iter().flatten().copied().peekable();
        let mut om: Vec<f64> = vec![1.0; self.center_rounds.iter().filter(|r| r.is_none()).count()];
        let mut k = 0;
        for s in 0..steps {
            om.iter_mut().for_each(|v| *v *= g);
            let m = om.len();
            if m > 0 {
                om[k] += 1.0 - g.powi(m as i32);
            }
            while joins.next_if(|&r| r == s).is_some() {
                om.push(1.0);
            }
            if !om.is_empty() {
                k = if m > 0 { (k + 1) % om.len() } else { 0 };
            }
        }
        om
    }

    /// The discount weights `gamma^(steps-1-s)` of the `t` cached rounds.
    pub(super) fn data_weights(&self, steps: u64) -> Vec<f64> {
        let t = self.n_seen as usize;
        let mut w = vec![0.0; t];
        let mut v = if steps as usize > t { self.gamma } else { 1.0 };
        for ws in w.iter_mut().rev() {
            *ws = v;
            v *= self.gamma;
        }
        w
    }

    /// The discounted bordering of `A` (after the discount step of round `t`) by the
    /// column `a = (k(x_s, x))_{s<t}` of a candidate with kernel row `krow` and
    /// `kappa = k(x, x)`; None if the new column of `K_DD` is numerically dependent.
    pub(super) fn discounted_border(&self, a: &[f64], krow: &[f64], kappa: f64) -> Option<Border> {
        let (m, lam) = (self.size(), self.lam);
        if crate::awv::check_discount_span(self.gamma, m + 1, "points").is_err() {
            return None; // beyond the discount's span (docs/choices.md, "Discounted AWV")
        }
        let steps = self.n_seen + 1;
        let om = self.reg_weights(steps);
        let w = self.data_weights(steps);
        // z = L_0^{-1} (lam krow) = sqrt(lam) R^{-1} krow, rho_0^2 = lam kappa - z.z.
        let l0 = &self.refill;
        let mut z: Vec<f64> = krow.iter().map(|v| lam * v).collect();
        for i in 0..m {
            let s: f64 = (0..i).map(|j| l0[i * m + j] * z[j]).sum();
            z[i] = (z[i] - s) / l0[i * m + i];
        }
        let schur0 = lam * kappa - dot(&z, &z);
        if !schur0.is_finite() || schur0 <= super::growth::INSERT_TOL * lam * kappa {
            return None;
        }
        let wa: Vec<f64> = a.iter().zip(&w).map(|(x, y)| x * y).collect();
        // The regulariser's column: sum_k omega_k z_k l_k (l_k: column k of L_0).
        let oz: Vec<f64> = om.iter().zip(&z).map(|(o, v)| o * v).collect();
        let c = (0..m)
            .map(|i| dot(&self.kcols[i], &wa) + (0..=i).map(|k| l0[i * m + k] * oz[k]).sum::<f64>())
            .collect();
        let dd = dot(&wa, a) + dot(&oz, &z) + schur0;
        let mut refill_row = z;
        refill_row.push(schur0.sqrt());
        Some(Border { c, dd, wa, refill_row })
    }

    /// Grows the refill factor by the row `[z, rho_0]` (an insertion).
    pub(super) fn grow_refill(&mut self, row: &[f64]) {
        let m = row.len() - 1;
        let mut r = vec![0.0; (m + 1) * (m + 1)];
        for i in 0..m {
            r[i * (m + 1)..i * (m + 1) + m].copy_from_slice(&self.refill[i * m..(i + 1) * m]);
        }
        r[m * (m + 1)..].copy_from_slice(row);
        self.refill = r;
    }

    /// `A = sum_s gamma^(steps-1-s) k_s k_s^T + sum_k omega_k l_k l_k^T` (KORS, `gamma < 1`),
    /// after `steps` discount steps, dense row-major.
    pub(super) fn discounted_a(&self, steps: u64) -> Vec<f64> {
        let m = self.size();
        let om = self.reg_weights(steps);
        let w = self.data_weights(steps);
        let l0 = &self.refill;
        let mut a = vec![0.0; m * m];
        for i in 0..m {
            let wi: Vec<f64> = self.kcols[i].iter().zip(&w).map(|(x, y)| x * y).collect();
            for j in 0..=i {
                let reg: f64 = (0..=j).map(|k| om[k] * l0[i * m + k] * l0[j * m + k]).sum();
                let v = dot(&wi, &self.kcols[j]) + reg;
                a[i * m + j] = v;
                a[j * m + i] = v;
            }
        }
        a
    }
}
