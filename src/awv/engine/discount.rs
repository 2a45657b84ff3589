//! The discounted engine (`gamma < 1`; the module documentation's "Discounting" and
//! docs/choices.md, "Discounted AWV"): the refill, the discount step on the triangle,
//! the discounted prediction and the discounted block of rounds.

use super::{block, outputs, LinearAwv};
use crate::error::Result;
use crate::linalg::blas::{axpy, dot};
use crate::linalg::upper;

/// Scratch of discounted rounds: `g = A^{-1} e_k` and a block's `2n` rows.
#[derive(Clone, Debug, Default)]
pub(super) struct DiscScratch {
    pub(super) g: Vec<f64>,
    pub(super) dx: Vec<f64>,
    pub(super) dy: Vec<f64>,
    pub(super) dout: Vec<f64>,
    /// `g = A^{-1} e_k` of round `peek.0` as the pure prediction computes it with
    /// the previous round's update pending ([`LinearAwv::full_column`]), kept when a
    /// kept prediction applies that update to the store: the round's later pure
    /// predictions use it, so that they keep their bits.
    pub(super) peek: (Option<u64>, Vec<f64>),
}

/// The domain of a forgetting factor `gamma`, (0, 1] (1: none): the row `gamma` of the
/// learners' parameter structs and the check of [`check_gamma`].
pub const GAMMA: crate::params::Constraint = crate::params::DISCOUNT;

/// Checks a forgetting factor against [`GAMMA`].
pub fn check_gamma(gamma: f64) -> Result<f64> {
    crate::params::Checked::check_in(&gamma, "gamma", &GAMMA)?;
    Ok(gamma)
}

/// The smallest `gamma^r` accepted for `r` coordinates refilled in turn: between refills a
/// coordinate's regulariser falls to `lam gamma^(r-1)`, and below this the learners lose
/// the digits a direct solve keeps (measured: docs/choices.md, "Discounted AWV", Limit).
pub const MIN_DISCOUNT_SPAN: f64 = 1e-6;

/// Checks `gamma^r >= MIN_DISCOUNT_SPAN` for `r` coordinates (`what`: "features", ...).
pub fn check_discount_span(gamma: f64, r: usize, what: &str) -> Result<()> {
    let span = gamma.powf(r as f64);
    if gamma < 1.0 && span < MIN_DISCOUNT_SPAN {
        let least = MIN_DISCOUNT_SPAN.powf(1.0 / r as f64);
        let most = (MIN_DISCOUNT_SPAN.ln() / gamma.ln()).floor();
        return crate::param_err!(
            "gamma = {gamma} with {r} {what}: gamma^{r} = {span:.1e} is below 1e-6, where the \
             discounted regulariser, refilled one coordinate a round, leaves too few digits \
             (docs/choices.md, \"Discounted AWV\"); use gamma >= {least:.4} or at most {most} {what}"
        );
    }
    Ok(())
}

impl LinearAwv {
    /// Sets the forgetting factor `gamma` in (0, 1] (before the first round).
    pub fn with_gamma(mut self, gamma: f64) -> Result<Self> {
        self.gamma = check_gamma(gamma)?;
        Ok(self)
    }

    pub fn gamma(&self) -> f64 {
        self.gamma
    }

    /// `c = lam (1 - gamma^r)`, the cyclic refill of the discounted regulariser.
    pub(super) fn refill(&self) -> f64 {
        self.lam * (1.0 - self.gamma.powi(self.r as i32))
    }

    /// The refilled coordinate of the next round.
    pub(super) fn refill_index(&self) -> usize {
        (self.n_seen % self.r as u64) as usize
    }

    /// `g = A^{-1} e_k` (full column `k` of the current `A^{-1}`, pending applied).
    pub(super) fn full_column(&self, k: usize, g: &mut [f64]) {
        let (r, a) = (self.r, &self.ainv);
        let pk = if self.pending != 0.0 { self.pending * self.hp[k] } else { 0.0 };
        for (i, gi) in g.iter_mut().enumerate() {
            let (off, _) = if i <= k { upper::col_off(r, k) } else { upper::col_off(r, i) };
            let idx = if i <= k { off + i } else { off + k };
            // The pending update subtracts `pending hp hp^T`.
            *gi = a[idx] - if pk != 0.0 { pk * self.hp[i] } else { 0.0 };
        }
    }

    /// The discount step of a round: `A^{-1} <- (A^{-1} - q g g^T) / gamma`
    /// (`A' = gamma A + c e_k e_k^T` by Sherman-Morrison) and `b <- gamma b`.
    pub(super) fn discount(&mut self) {
        let (r, gamma) = (self.r, self.gamma);
        if r == 0 {
            return;
        }
        self.flush();
        let k = self.refill_index();
        let mut g = std::mem::take(&mut self.disc.g);
        g.resize(r, 0.0);
        self.full_column(k, &mut g);
        let cg = self.refill() / gamma;
        let q = cg / (1.0 + cg * g[k]);
        let ig = 1.0 / gamma;
        for j in 0..r {
            let (off, _) = upper::col_off(r, j);
            let qj = q * g[j];
            for (a, gi) in self.ainv[off..=off + j].iter_mut().zip(&g[..=j]) {
                *a = (*a - qj * gi) * ig;
            }
        }
        self.disc.g = g;
        self.b.iter_mut().for_each(|v| *v *= gamma);
    }

    /// [`Self::discount`] then `h = A^{-1} v` in one pass over the triangle (the
    /// pending update folded in), bit for bit the two steps.
    pub(super) fn discount_symv(&mut self, v: &[f64]) {
        let gamma = self.gamma;
        let mut g = std::mem::take(&mut self.disc.g);
        g.resize(self.r, 0.0);
        let step = upper::Discount { k: self.refill_index(), cg: self.refill() / gamma, gamma };
        let pending = (self.pending, &self.hp[..]);
        upper::syr_discount_symv(&mut self.ainv, pending, step, &mut g, v, &mut self.h);
        self.pending = 0.0;
        self.disc.g = g;
        self.b.iter_mut().for_each(|x| *x *= gamma);
    }

    /// The next round's predictions of a discounted engine into `out` from
    /// `h = A^{-1} v` and `g = A^{-1} e_k` (the current matrix, `k` the refilled
    /// coordinate): `A'^{-1} v = (A^{-1} v - q g (g . v)) / gamma`, `b' = gamma b`;
    /// returns `delta = v^T A'^{-1} v` (`h` becomes `A'^{-1} v`).
    pub(super) fn discounted_prediction(
        &self,
        v: &[f64],
        h: &mut [f64],
        g: &[f64],
        out: &mut [f64],
    ) -> f64 {
        let k = self.refill_index();
        let cg = self.refill() / self.gamma;
        let q = cg / (1.0 + cg * g[k]);
        axpy(-q * dot(g, v), g, h);
        h.iter_mut().for_each(|x| *x /= self.gamma);
        let b: Vec<f64> = self.b.iter().map(|x| x * self.gamma).collect();
        let delta = dot(v, h);
        outputs::predictions(h, &b, delta, self.ridge, out);
        delta
    }

    /// A discounted block: with `w_t = gamma^{-t}` (`t = 1..n` in the block),
    /// `A_t = gamma^t Ã_t` and `b_t = gamma^t b̃_t` turn the `n` discounted rounds
    /// into `2n` plain rank-one rounds on `Ã`: a refill row `sqrt(w_t c) e_k` (label
    /// 0, prediction unused), then `sqrt(w_t) v_t` with label `sqrt(w_t) y_t`; the
    /// prediction is the plain one over `sqrt(w_t)` ([`block::run`] then
    /// `A_n^{-1} = gamma^{-n} Ã_n^{-1}`). Returns `false` (state untouched) when
    /// `gamma^n < 1e-3` (the rows' scales would spread too far) or the recursion is
    /// ill-conditioned. `K` outputs: each label is a row of `K` values.
    pub(super) fn discounted_block(&mut self, x: &[f64], y: &[f64], out: &mut Vec<f64>) -> bool {
        let (r, k, gamma) = (self.r, self.k, self.gamma);
        let n = y.len() / k;
        if gamma.powi(n as i32) < 1e-3 {
            return false;
        }
        self.flush();
        let c = self.refill();
        let DiscScratch { g, mut dx, mut dy, mut dout, peek } = std::mem::take(&mut *self.disc);
        dx.clear();
        dx.resize(2 * n * r, 0.0);
        dy.clear();
        dout.clear();
        dout.resize(2 * n * k, 0.0);
        self.deltas.resize(2 * n, 0.0);
        let mut w = 1.0;
        for (t, (xi, yi)) in x.chunks_exact(r).zip(y.chunks_exact(k)).enumerate() {
            w /= gamma;
            let kr = ((self.n_seen + t as u64) % r as u64) as usize;
            let sw = w.sqrt();
            dx[2 * t * r + kr] = (w * c).sqrt();
            dy.extend(std::iter::repeat_n(0.0, k));
            dx[(2 * t + 1) * r..(2 * t + 2) * r].iter_mut().zip(xi).for_each(|(a, v)| *a = sw * v);
            dy.extend(yi.iter().map(|v| sw * v));
        }
        // The refill rows are coordinate rows (their products come off the triangle).
        let units: Vec<(usize, usize)> =
            (0..n).map(|t| (2 * t, ((self.n_seen + t as u64) % r as u64) as usize)).collect();
        let ok = block::run(
            &mut self.ainv,
            r,
            &self.b,
            self.ridge,
            &dx,
            &dy,
            &mut dout,
            &mut self.deltas,
            &mut self.blk,
            &units,
        );
        if ok {
            let gn = gamma.powi(n as i32);
            let ign = 1.0 / gn;
            self.ainv.iter_mut().for_each(|a| *a *= ign);
            self.b.iter_mut().for_each(|v| *v *= gn);
            let mut w = 1.0;
            for (t, (xi, yi)) in x.chunks_exact(r).zip(y.chunks_exact(k)).enumerate() {
                w /= gamma;
                let sw = w.sqrt();
                out.extend(dout[(2 * t + 1) * k..(2 * t + 2) * k].iter().map(|p| p / sw));
                // b_n = gamma^n b_0 + sum_t gamma^(n-t) y_t v_t.
                outputs::add_round(&mut self.b, xi, yi, |yj| yj * gn * w);
                let delta = self.deltas[2 * t + 1];
                self.finish_round(delta, yi, &out[out.len() - k..]);
            }
        }
        *self.disc = DiscScratch { g, dx, dy, dout, peek };
        ok
    }
}
