//! Linear AWV engine: PKAWV paper (Jezequel, Gaillard, Rudi 2019), Algorithm 1,
//! with the Sherman-Morrison update on the previous inverse; VAW2 paper eq. (4)-(5).
//!
//! State: `Ainv = A^{-1}` with `A = lam I + sum_s v_s v_s^T` (including the
//! current point at prediction time, the AWV convention) and `b = sum_s y_s v_s`.
//!
//! One round, with `h = A_{t-1}^{-1} v` and `delta = v^T h`:
//! * prediction `y_hat = (h . b_{t-1}) / (1 + delta)` (= `v^T A_t^{-1} b_{t-1}`,
//!   the AWV prediction); `ridge = true` gives `h . b_{t-1}` (online ridge);
//! * Sherman-Morrison `A_t^{-1} = A_{t-1}^{-1} - h h^T / (1 + delta)` (the
//!   right-hand side uses `A_{t-1}^{-1}`);
//! * `b_t = b_{t-1} + y_t v`.
//!
//! Discounting (`gamma < 1`, docs/choices.md "Discounted AWV"): round `t` first
//! forms `A' = gamma A_{t-1} + c e_k e_k^T` and `b' = gamma b_{t-1}`, with
//! `k = (t - 1) mod r` and `c = lam (1 - gamma^r)`, then runs the round above on
//! `A'`, `b'`. So `A_t = gamma^t lam I + sum_s gamma^{t-s} (c e_{k_s} e_{k_s}^T +
//! v_s v_s^T)`: past rounds weigh `gamma^(t-s)`, and the cyclic refill keeps
//! `A_t >= lam gamma^(r-1) I` (the inverse stays bounded). By Sherman-Morrison,
//! `A'^{-1} = (A^{-1} - q g g^T) / gamma` with `g = A^{-1} e_k`,
//! `q = (c/gamma) / (1 + (c/gamma) g_k)`: one more pass over the triangle.
//! `gamma = 1` is the undiscounted engine, bit for bit.
//!
//! Storage: the upper triangle of `A^{-1}` in column panels
//! ([`crate::linalg::upper`]), so that single rounds read the
//! triangle once and blocks of rounds ([`super::block`]) run as matrix-matrix
//! products on the same array. A single round's rank-one update is kept
//! pending and folded into the next round's mat-vec (one pass over the
//! triangle per round instead of two, bit for bit the same numbers:
//! [`crate::linalg::triangle`]); every reader of `A^{-1}` sees the update applied. Serialised state holds the
//! packed triangle with the pending update applied. Nothing is allocated per
//! round. Accuracy over long streams: `tests/awv_engine.rs`.
//!
//! Several outputs (`K` columns of targets) share `A^{-1}`: `b` is then the
//! `r x K` matrix `B` ([`super::outputs`]); every method below with a `_multi`
//! twin is that twin with `K = 1`.
//!
//! Files: the discounted engine (`discount.rs`), the serialised form and the invariants
//! of a decoded state (`state.rs`), the weighted round (`weighted.rs`), the predictive
//! std (`variance.rs`).

use super::block;
use super::outputs;
use crate::error::Result;
use crate::limits::{check_doubles, scale};
use crate::linalg::blas::{axpy, dot};
use crate::linalg::upper;
use crate::uncertainty::{noise_discount, NoiseLevel, OtherOutputs};

mod discount;
mod state;
mod state_bounds;
mod variance;
mod weighted;
mod widen;

use discount::DiscScratch;
pub use discount::{check_discount_span, check_gamma, GAMMA};
pub use state::no_discount;

#[derive(Clone, Debug)]
pub struct LinearAwv {
    r: usize,
    lam: f64,
    ridge: bool,
    /// Forgetting factor in (0, 1] (1: no discounting).
    gamma: f64,
    /// `A^{-1}` (upper triangle in panel storage), before the pending update.
    ainv: Vec<f64>,
    /// `b = sum_s y_s v_s`: `r x K` by columns for `K` outputs ([`super::outputs`]).
    b: Vec<f64>,
    /// The number of outputs `K` (columns of `b`).
    k: usize,
    /// Scratch for `h = A^{-1} v`.
    h: Vec<f64>,
    /// The pending rank-one update `A^{-1} -= pending hp hp^T` (0: none).
    pending: f64,
    hp: Vec<f64>,
    n_seen: u64,
    /// `v_t^T A_t^{-1} v_t` of the last learned round (a leverage score).
    last_leverage: f64,
    /// `sum_t y_t^2 v_t^T A_t^{-1} v_t`: upper-bounds the estimation part of the
    /// regret (PKAWV paper, proof of Prop. 1).
    regret_term: f64,
    /// `sum_s gamma^(t-s) w_s |y_s|^2`, which bounds `b_c^T A^-1 b_c` for each output
    /// (checked on load); `None` in states saved before it was kept.
    target_mass: Option<f64>,
    blk: block::Scratch,
    deltas: Vec<f64>,
    /// `(round, delta)` of [`LinearAwv::predict_keep`], with `h` in `self.h` and its
    /// `K` predictions in `kept_pred`.
    kept: Option<(u64, f64)>,
    kept_pred: Vec<f64>,
    /// Scratch of discounted rounds (boxed: the undiscounted engine stays small).
    disc: Box<DiscScratch>,
    /// Noise level of the progressive residuals (the predictive std: `variance.rs`),
    /// of output 1; those of outputs `2..K` in `noise_rest`.
    noise: NoiseLevel,
    noise_rest: OtherOutputs,
}

/// Doubles held by an engine on `r` features (`A^{-1}`, `b` and the round scratch).
pub fn state_doubles(r: usize) -> u128 {
    upper::stored_len(r) + 4 * r as u128
}

/// The block size `block_size=None` stands for: single rounds below 160
/// features (there the one-pass single round is as fast as a block; the
/// `O(B^3)` recursion does not pay), blocks of 32 rows below 700, else 64
/// (measured with `kernelstream bench taylor-blocked` and TaylorAWV at
/// r = 45-2300; see docs/choices.md).
pub fn auto_block_size(r: usize) -> usize {
    match r {
        0..160 => 1,
        160..700 => 32,
        _ => 64,
    }
}

/// Largest `block_size` accepted: its scratch is about `3 r block_size` doubles.
pub const MAX_BLOCK_SIZE: usize = 1024;

/// The domain of a learner's `block_size` (`None`: [`auto_block_size`]; `1`: single
/// rounds): the row `block_size` of the parameter structs and the check of
/// [`check_block_size`].
pub const BLOCK_SIZE: crate::params::Constraint =
    crate::params::between(1.0, MAX_BLOCK_SIZE as f64).or_none();

/// Checks a learner's `block_size` against [`BLOCK_SIZE`].
pub fn check_block_size(block_size: Option<usize>) -> Result<()> {
    crate::params::Checked::check_in(&block_size, "block_size", &BLOCK_SIZE)
}

impl LinearAwv {
    /// The block size of `block_size` on this engine.
    pub fn block_size(&self, block_size: Option<usize>) -> usize {
        block_size.unwrap_or_else(|| auto_block_size(self.r))
    }

    /// Engine on `r` features with ridge parameter `lam > 0`.
    pub fn new(r: usize, lam: f64, ridge: bool) -> Result<Self> {
        let lam = scale("lam", lam)?;
        check_doubles(
            &format!("the AWV state on {r} features (about r(r+1)/2 + 4r doubles)"),
            Some(state_doubles(r)),
        )?;
        Ok(Self::from_parts(r, lam, ridge, upper::scaled_identity(r, 1.0 / lam), vec![0.0; r]))
    }

    fn from_parts(r: usize, lam: f64, ridge: bool, ainv: Vec<f64>, b: Vec<f64>) -> Self {
        // K from the length of `b` (r x K); an engine on 0 features has one output.
        let k = b.len().checked_div(r).unwrap_or(1);
        LinearAwv {
            r,
            lam,
            ridge,
            gamma: 1.0,
            ainv,
            b,
            k,
            h: vec![0.0; r],
            pending: 0.0,
            hp: vec![0.0; r],
            n_seen: 0,
            last_leverage: 0.0,
            regret_term: 0.0,
            target_mass: Some(0.0),
            blk: block::Scratch::default(),
            deltas: Vec::new(),
            kept: None,
            kept_pred: Vec::new(),
            disc: Box::default(),
            noise: NoiseLevel::default(),
            noise_rest: OtherOutputs::default(),
        }
    }

    /// Sets the number of outputs `K >= 1` (before the first round; `B` starts at 0).
    pub fn with_outputs(mut self, k: usize) -> Result<Self> {
        self.add_outputs(outputs::check_outputs(k)? - 1)?;
        Ok(self)
    }

    /// The number of outputs `K`.
    pub fn n_outputs(&self) -> usize {
        self.k
    }

    /// Appends `k` outputs whose past targets were all 0: their columns of `B` are
    /// 0, which is what they would hold had they been there from the first round
    /// ([`super::outputs`]). Checks the memory first; unchanged on error.
    pub fn add_outputs(&mut self, k: usize) -> Result<()> {
        let total = outputs::check_outputs(self.k.saturating_add(k))?;
        crate::limits::check_input_doubles(
            &format!("the AWV targets of {total} outputs on {} features", self.r),
            Some(state_doubles(self.r) + outputs::target_doubles(self.r, total)),
        )?;
        self.b.resize(self.r * total, 0.0);
        self.noise_rest.add(&self.noise, self.k, total - self.k);
        self.k = total;
        self.kept = None;
        Ok(())
    }

    pub fn dim(&self) -> usize {
        self.r
    }
    pub fn lam(&self) -> f64 {
        self.lam
    }
    pub fn ridge(&self) -> bool {
        self.ridge
    }
    pub fn n_seen(&self) -> u64 {
        self.n_seen
    }
    pub fn last_leverage(&self) -> f64 {
        self.last_leverage
    }
    pub fn regret_term(&self) -> f64 {
        self.regret_term
    }
    /// `b = sum_s y_s v_s`.
    pub fn b(&self) -> &[f64] {
        &self.b
    }

    /// Column `j` (rows `0..=j`) of the upper triangle of the current `A^{-1}`.
    fn column(&self, j: usize, col: &mut [f64]) {
        upper::updated_column(&self.ainv, self.r, self.pending, &self.hp, j, col);
    }

    /// Packed upper triangle of `A^{-1}` by columns.
    pub fn ainv_packed(&self) -> Vec<f64> {
        let mut col = vec![0.0; self.r];
        let mut p = Vec::with_capacity(self.r * (self.r + 1) / 2);
        for j in 0..self.r {
            self.column(j, &mut col);
            p.extend_from_slice(&col[..=j]);
        }
        p
    }

    /// `A^{-1}` as a dense row-major matrix.
    pub fn ainv_dense(&self) -> Vec<f64> {
        let r = self.r;
        let mut m = vec![0.0; r * r];
        let mut col = vec![0.0; r];
        for j in 0..r {
            self.column(j, &mut col);
            for i in 0..=j {
                m[i * r + j] = col[i];
                m[j * r + i] = col[i];
            }
        }
        m
    }

    /// Applies the pending rank-one update to the stored triangle.
    fn flush(&mut self) {
        if self.pending != 0.0 {
            upper::syr(&mut self.ainv, self.pending, &self.hp);
            self.pending = 0.0;
        }
    }

    fn ensure_scratch(&mut self) {
        if self.h.len() != self.r {
            self.h = vec![0.0; self.r];
        }
        if self.hp.len() != self.r {
            self.hp = vec![0.0; self.r];
        }
    }

    /// `h = A^{-1} v` for the current `A^{-1}` (pure).
    fn apply(&self, v: &[f64], h: &mut [f64]) {
        if self.pending != 0.0 {
            upper::syr_symv_peek(&self.ainv, self.pending, &self.hp, v, h, &mut Vec::new());
        } else {
            upper::symv(&self.ainv, v, h);
        }
    }

    /// Prediction for features `v` (pure: the state does not change).
    /// AWV: `v^T A_t^{-1} b_{t-1}` with `A_t` including `v`; ridge: `v^T A_{t-1}^{-1} b_{t-1}`.
    pub fn predict(&self, v: &[f64]) -> f64 {
        let mut o = [0.0];
        self.predict_multi(v, &mut o);
        o[0]
    }

    /// [`Self::predict`] of the `K` outputs into `out` (length `K`).
    pub fn predict_multi(&self, v: &[f64], out: &mut [f64]) {
        self.predict_multi_delta(v, out);
    }

    /// [`Self::predict_multi`], returning `delta = v^T A_{t-1}^{-1} v` (the next
    /// round's matrix, discount step included) of its one mat-vec `h = A_{t-1}^{-1} v`.
    pub fn predict_multi_delta(&self, v: &[f64], out: &mut [f64]) -> f64 {
        debug_assert_eq!(out.len(), self.k);
        let mut h = vec![0.0; self.r];
        self.apply(v, &mut h);
        if self.gamma < 1.0 && self.r > 0 {
            let (round, kept_g) = &self.disc.peek;
            if *round == Some(self.n_seen) {
                return self.discounted_prediction(v, &mut h, kept_g, out);
            }
            let mut g = vec![0.0; self.r];
            self.full_column(self.refill_index(), &mut g);
            return self.discounted_prediction(v, &mut h, &g, out);
        }
        let delta = dot(v, &h);
        outputs::predictions(&h, &self.b, delta, self.ridge, out);
        delta
    }
    /// Predictions for the `n` rows of row-major `x` (`n x r`) as the next round
    /// each (pure), pushed onto `out`: `P = A^{-1} X^T` as matrix-matrix
    /// products over chunks of rows, then `delta_i = x_i . P_i` and
    /// `x_i^T A^{-1} b = x_i . w` with `w = A^{-1} b` (equal to [`Self::predict`]
    /// up to rounding).
    /// With `K` outputs, `K` values per row (row-major `n x K`), `W = A^{-1} B`.
    pub fn predict_many(&self, x: &[f64], out: &mut Vec<f64>) {
        let (r, k) = (self.r, self.k);
        if r == 0 {
            out.extend(std::iter::repeat_n(0.0, x.len() * k));
            return;
        }
        if self.gamma < 1.0 {
            let mut o = vec![0.0; k];
            for xi in x.chunks_exact(r) {
                self.predict_multi(xi, &mut o);
                out.extend_from_slice(&o);
            }
            return;
        }
        let w = self.weights();
        const CHUNK: usize = 256;
        let (mut p, mut tile) = (vec![0.0; r * CHUNK.min(x.len() / r)], Vec::new());
        for xc in x.chunks(CHUNK * r) {
            let n = xc.len() / r;
            upper::symm_rows(&self.ainv, r, xc, n, &mut p, &mut tile);
            for (xi, pi) in xc.chunks_exact(r).zip(p.chunks_exact_mut(r)) {
                if self.pending != 0.0 {
                    axpy(-self.pending * dot(&self.hp, xi), &self.hp, pi);
                }
                let delta = dot(xi, pi);
                for wj in w.chunks_exact(r) {
                    let hb = dot(xi, wj);
                    out.push(if self.ridge { hb } else { hb / (1.0 + delta) });
                }
            }
        }
    }

    /// [`Self::predict`] (bit for bit) that keeps `h = A^{-1} v` for a following
    /// [`Self::learn_kept`] on the same `v`: the pending update of the previous round
    /// is applied to the stored triangle in the same pass as the mat-vec
    /// ([`upper::syr_symv`], the pass [`Self::predict_learn`] would make), which
    /// changes how `A^{-1}` is stored, not its value. The round is then `O(r)`;
    /// a discounted round (its discount step first) is played whole by `learn_kept`.
    pub fn predict_keep(&mut self, v: &[f64]) -> f64 {
        let mut o = [0.0];
        self.predict_keep_multi(v, &mut o);
        o[0]
    }

    /// [`Self::predict_keep`] of the `K` outputs into `out` (length `K`).
    pub fn predict_keep_multi(&mut self, v: &[f64], out: &mut [f64]) {
        self.ensure_scratch();
        if self.gamma < 1.0 && self.r > 0 {
            // A discounted round starts with its discount step: the prediction is the
            // pure one (discounted_prediction), with the pending update applied to the
            // store in its mat-vec; `learn_kept` plays the whole round.
            let (round, mut g) = std::mem::take(&mut self.disc.peek);
            if round != Some(self.n_seen) {
                g.resize(self.r, 0.0);
                self.full_column(self.refill_index(), &mut g); // before the update is applied
            }
            self.flush_symv(v);
            let mut h = std::mem::take(&mut self.h);
            let delta = self.discounted_prediction(v, &mut h, &g, out);
            self.h = h;
            self.disc.peek = (Some(self.n_seen), g);
            self.kept_pred.clear();
            self.kept_pred.extend_from_slice(out);
            self.kept = Some((self.n_seen, delta));
            return;
        }
        if self.gamma < 1.0 {
            self.kept = None;
            return self.predict_multi(v, out);
        }
        self.flush_symv(v);
        let delta = dot(v, &self.h);
        outputs::predictions(&self.h, &self.b, delta, self.ridge, out);
        self.kept_pred.clear();
        self.kept_pred.extend_from_slice(out);
        self.kept = Some((self.n_seen, delta));
    }

    /// `h = A_{t-1}^{-1} v` at the start of a learning round: the discount step first
    /// (`gamma < 1`), or the previous round's pending update applied to the store in
    /// the same pass (the caller sets the new `pending`).
    fn round_symv(&mut self, v: &[f64]) {
        if self.gamma < 1.0 && self.r > 0 {
            self.discount_symv(v);
        } else if self.pending != 0.0 {
            upper::syr_symv(&mut self.ainv, self.pending, &self.hp, v, &mut self.h);
        } else {
            upper::symv(&self.ainv, v, &mut self.h);
        }
    }

    /// `h = A^{-1} v` with the pending update applied to the store in the same pass.
    fn flush_symv(&mut self, v: &[f64]) {
        if self.pending != 0.0 {
            upper::syr_symv(&mut self.ainv, self.pending, &self.hp, v, &mut self.h);
            self.pending = 0.0;
        } else {
            upper::symv(&self.ainv, v, &mut self.h);
        }
    }

    /// Finishes the round [`Self::predict_keep`] started on the same features `v`
    /// (the caller's promise) with label `y`, as [`Self::predict_learn`] would, and
    /// returns its prediction; `None` (nothing changed) if nothing was kept for
    /// this round.
    pub fn learn_kept(&mut self, v: &[f64], y: f64) -> Option<f64> {
        let mut o = [0.0];
        self.learn_kept_multi(v, std::slice::from_ref(&y), &mut o).then_some(o[0])
    }

    /// [`Self::learn_kept`] with the `K` targets `y`, the kept predictions written
    /// into `out`; `false` (nothing changed) if nothing was kept for this round.
    pub fn learn_kept_multi(&mut self, v: &[f64], y: &[f64], out: &mut [f64]) -> bool {
        let Some((round, delta)) = self.kept.take() else { return false };
        if round != self.n_seen || self.kept_pred.len() != out.len() {
            return false;
        }
        if self.gamma < 1.0 {
            // The whole round (its discount step first) on the flushed store.
            self.predict_learn_multi(v, y, out);
            return true;
        }
        out.copy_from_slice(&self.kept_pred);
        // Sherman-Morrison (PKAWV paper, Algorithm 1), pending as in predict_learn.
        self.pending = 1.0 / (1.0 + delta);
        std::mem::swap(&mut self.h, &mut self.hp);
        outputs::add_round(&mut self.b, v, y, |yj| yj);
        self.finish_round(delta, y, out);
        true
    }

    /// Reveals `y` for features `v` and updates (no prediction).
    pub fn learn(&mut self, v: &[f64], y: f64) {
        self.predict_learn(v, y);
    }

    /// One full round: predict with the current state, then learn `(v, y)`, in
    /// one pass over the triangle: the previous round's update is kept pending
    /// and folded into this round's mat-vec ([`upper::syr_symv`]; every reader
    /// of `A^{-1}` applies a pending update first). The same numbers, bit for
    /// bit, as [`Self::predict_learn_two_pass`]. Returns the prediction.
    pub fn predict_learn(&mut self, v: &[f64], y: f64) -> f64 {
        let mut o = [0.0];
        self.predict_learn_multi(v, std::slice::from_ref(&y), &mut o);
        o[0]
    }

    /// [`Self::predict_learn`] with the `K` targets `y` (`B += v y^T`), the `K`
    /// predictions written into `out`.
    pub fn predict_learn_multi(&mut self, v: &[f64], y: &[f64], out: &mut [f64]) {
        debug_assert!(y.len() == self.k && out.len() == self.k);
        self.ensure_scratch();
        self.round_symv(v);
        let delta = dot(v, &self.h);
        outputs::predictions(&self.h, &self.b, delta, self.ridge, out);
        // Sherman-Morrison (PKAWV paper, Algorithm 1), applied at the next pass:
        // A_t^{-1} = A_{t-1}^{-1} - h h^T / (1 + delta).
        self.pending = 1.0 / (1.0 + delta);
        std::mem::swap(&mut self.h, &mut self.hp);
        outputs::add_round(&mut self.b, v, y, |yj| yj);
        self.finish_round(delta, y, out);
    }

    /// [`Self::predict_learn`] in two passes over the triangle (the mat-vec,
    /// then the rank-one update): the reference the fused round is tested and
    /// benchmarked against.
    pub fn predict_learn_two_pass(&mut self, v: &[f64], y: f64) -> f64 {
        debug_assert_eq!(self.k, 1, "the two-pass reference has one output");
        self.ensure_scratch();
        if self.gamma < 1.0 {
            self.discount();
        }
        self.flush();
        upper::symv(&self.ainv, v, &mut self.h);
        let delta = dot(v, &self.h);
        let hb = dot(&self.h, &self.b);
        let pred = if self.ridge { hb } else { hb / (1.0 + delta) };
        upper::syr(&mut self.ainv, 1.0 / (1.0 + delta), &self.h);
        axpy(y, v, &mut self.b);
        self.finish_round(delta, &[y], &[pred]);
        pred
    }

    /// The end of a round with targets `y` and predictions `pred` (`K` each).
    fn finish_round(&mut self, delta: f64, y: &[f64], pred: &[f64]) {
        // The noise level of each output (the predictive std: variance.rs).
        self.noise_rest.observe(&mut self.noise, noise_discount(self.gamma), (y, pred), delta, 1.0);
        // v^T A_t^{-1} v = delta - delta^2 / (1 + delta) = delta / (1 + delta).
        self.last_leverage = delta / (1.0 + delta);
        self.regret_term += outputs::sum_sq(y) * self.last_leverage;
        self.add_target_mass(1.0, y);
        self.n_seen += 1;
    }

    /// `m <- gamma m + w |y|^2` (the discount of round `t`, then its targets).
    fn add_target_mass(&mut self, w: f64, y: &[f64]) {
        let gamma = self.gamma;
        self.target_mass = self.target_mass.map(|m| gamma * m + w * outputs::sum_sq(y));
    }

    /// `n` consecutive full rounds on the rows of row-major `x` (`n x r`) with
    /// the row-major targets `y` (`n x K`) as one block of matrix-matrix products
    /// ([`super::block`]), pushing the `n x K` predictions onto `out`: the same
    /// predictions and state as [`Self::predict_learn_multi`] row by row, up to
    /// rounding. A block whose recursion is ill-conditioned runs as single rounds.
    /// Returns whether the block ran blocked.
    pub fn predict_learn_block(&mut self, x: &[f64], y: &[f64], out: &mut Vec<f64>) -> bool {
        let (r, k) = (self.r, self.k);
        let n = y.len() / k;
        assert_eq!(y.len(), n * k, "predict_learn_block: y is not n x K");
        assert_eq!(x.len(), n * r, "predict_learn_block: x is not n x r");
        if self.gamma < 1.0 {
            if n >= 2 && r > 0 && self.discounted_block(x, y, out) {
                return true;
            }
        } else if n >= 2 && r > 0 {
            self.flush();
            let start = out.len();
            out.resize(start + n * k, 0.0);
            self.deltas.resize(n, 0.0);
            let ok = block::run(
                &mut self.ainv,
                r,
                &self.b,
                self.ridge,
                x,
                y,
                &mut out[start..],
                &mut self.deltas,
                &mut self.blk,
                &[],
            );
            if ok {
                outputs::add_rounds(&mut self.b, x, y, r, k);
                for (i, yi) in y.chunks_exact(k).enumerate() {
                    let pred = &out[start + i * k..start + (i + 1) * k];
                    self.finish_round(self.deltas[i], yi, pred);
                }
                return true;
            }
            out.truncate(start);
        }
        let mut o = vec![0.0; k];
        for (xi, yi) in x.chunks_exact(r.max(1)).zip(y.chunks_exact(k)) {
            self.predict_learn_multi(&xi[..r], yi, &mut o);
            out.extend_from_slice(&o);
        }
        false
    }

    /// Full rounds over the rows of row-major `x` (`n` rows of `d` inputs, targets
    /// row-major `n x K` in `y`), features from `map(row, features)`, in blocks of
    /// `block` rows (1: single rounds); the `n x K` predictions pushed onto `out`
    /// when given. Polls Ctrl-C between blocks. If `map` fails on a row, the rows
    /// before it are learned and the error is returned (as a loop of single rounds
    /// would).
    pub fn predict_learn_rows(
        &mut self,
        x: &[f64],
        d: usize,
        y: &[f64],
        block: usize,
        mut map: impl FnMut(&[f64], &mut [f64]) -> Result<()>,
        mut out: Option<&mut Vec<f64>>,
    ) -> Result<()> {
        let (r, k, block) = (self.r, self.k, block.max(1));
        let mut feats = vec![0.0; r * block.min(y.len() / k)];
        let (mut scratch, mut o1) = (Vec::new(), vec![0.0; k]);
        for (xc, yc) in x.chunks(block * d.max(1)).zip(y.chunks(block * k)) {
            crate::interrupt::poll()?;
            let mut failed = None;
            let mut m = 0;
            for (row, f) in xc.chunks_exact(d.max(1)).zip(feats.chunks_exact_mut(r.max(1))) {
                if let Err(e) = map(row, f) {
                    failed = Some(e);
                    break;
                }
                m += 1;
            }
            let o = match out.as_deref_mut() {
                Some(o) => o,
                None => {
                    scratch.clear();
                    &mut scratch
                }
            };
            if block == 1 || r == 0 {
                for (f, yi) in feats.chunks_exact(r.max(1)).zip(yc[..m * k].chunks_exact(k)) {
                    self.predict_learn_multi(&f[..r], yi, &mut o1);
                    o.extend_from_slice(&o1);
                }
            } else {
                self.predict_learn_block(&feats[..m * r], &yc[..m * k], o);
            }
            if let Some(e) = failed {
                return Err(e);
            }
        }
        Ok(())
    }

    /// The weights `W_t = A_t^{-1} B_t` after the last round (the ridge solution;
    /// `r x K` by columns).
    pub fn weights(&self) -> Vec<f64> {
        let r = self.r;
        let mut w = vec![0.0; r * self.k];
        if r > 0 {
            for (wj, bj) in w.chunks_exact_mut(r).zip(self.b.chunks_exact(r)) {
                self.apply(bj, wj);
            }
        }
        w
    }
}
