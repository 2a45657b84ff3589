//! Restarts of [`AutoKernel`] after a change (docs/autokernel.md, step 7).
//!
//! A learner that has seen a long stream before a change keeps its old data in its
//! experts (the undiscounted ones) and its old scale; the discounted experts forget, but
//! they remember only about `1 / (1 - gamma)` rounds, so from a few thousand rounds after
//! the change an AutoKernel started fresh at the change is better than all of them. Two
//! sequential tests, each with its error rate controlled, decide:
//!
//! * **start** (a change of the error level): a one-sided CUSUM (Page 1954) on the
//!   relative squared error `u_t = min(e_t / s_t, U_MAX)` of the prediction (`s_t`: the
//!   discounted mean of `e` over about [`LONG`] rounds before `t`, since the start or the
//!   last declared change), for a rise of its mean
//!   from 1 to [`RHO`]: `S_t = max(0, S_{t-1} + u_t - 1 - (RHO - 1)/2)`, a change declared
//!   when `S_t > sigma h` (`sigma^2`: the discounted variance of `u`). The threshold `h`
//!   gives an in-control average run length of [`ARL0`] rounds for increments
//!   standardised by `sigma` (Siegmund's approximation, `ARL0 = (e^{2kb} - 1 - 2kb) /
//!   (2k^2)`, `k = (RHO - 1) / (2 sigma)`, `b = h + 1.166`); a partial change that raises
//!   the error by less than twice is found in a few hundred rounds. A change declared
//!   while a successor lives (a second change before the first was settled) promotes it
//!   if `T > 0` below, drops it otherwise, and starts a new one;
//! * **successor**: a fresh AutoKernel of the same configuration (its own warm-up, so its
//!   own scale and median distance) starts at the next round;
//! * **top level** while it lives: `w z_main + (1 - w) z_succ` with `w` the discounted
//!   ridge (stacking) weight of the learner on the relative square loss over about
//!   [`ADV`] rounds, shrunk to the learner: `w = clip((A + LAM) / (B + LAM), 0, 1)`, `A =
//!   Σ β^i (y - z_succ)(z_main - z_succ) / s`, `B = Σ β^i (z_main - z_succ)^2 / s` (the
//!   least-squares weight of the pair on recent rounds; two learners that err apart
//!   combine to less than either, and a local change leaves both useful). The
//!   successor's first round (it has seen no row: it predicts 0) adds to none of the
//!   sums, and `w = 1` for its first [`PAIR_WARMUP`] rounds, whose predictions come
//!   from a handful of rows;
//! * **replacement** (the irreversible step, so tested): `d_t = (e_main - e_succ) / s_t`
//!   (clipped to `±U_MAX`), discounted over about [`ADV`] rounds, `T = D / sqrt(Q W2 / W)`
//!   (`D = Σ β^i d`, `Q = Σ β^i d^2`, `W = Σ β^i`, `W2 = Σ β^{2i}`: a z-statistic of the
//!   weighted mean advantage); after `max(PROMOTE_AGE, 2 warmup)` rounds, `T > Z` makes the
//!   successor the learner once the learner's weight `w` is below [`W_KEEP`] (while the
//!   old learner still adds to the pair, both run); after `max(DROP_AGE, 5 warmup)`
//!   rounds, `T <= 0` drops it (a false alarm: it cost only its compute while it lived).
//!   One successor at a time.
//!
//! Events happen only after rounds whose count is a multiple of [`CHECK`], so that a
//! stream fed in any pieces, one round at a time or in blocks, takes the same path.

use super::AutoKernel;
use crate::error::Result;
use crate::learners::OnlineLearner;
use serde::{Deserialize, Serialize};

/// Rounds between two checks of the detector, replacement and drop.
pub const CHECK: u64 = 50;
/// Most rows of the learner run ahead of the checks ([`Restart::quiet_rows`]).
const MAX_QUIET_ROWS: u64 = 1024;
/// Window (rounds) of the error level `s` and of the variance of `u`.
const LONG: f64 = 2000.0;
/// The rise of the relative error the CUSUM is designed for.
const RHO: f64 = 1.5;
/// In-control average run length of the CUSUM (rounds between false alarms).
const ARL0: f64 = 1e5;
/// Clip of the relative errors (one outlier moves each statistic by at most this).
const U_MAX: f64 = 100.0;
/// Shrinkage of the top level's stacking weight towards the learner (in rounds of
/// relative squared difference).
const LAM: f64 = 5.0;
/// Rounds of the successor's life before its prediction enters the pair (its stacking
/// sums start from its second round).
const PAIR_WARMUP: u64 = 10;
/// The learner's weight below which a better successor replaces it.
const W_KEEP: f64 = 0.1;
/// Window (rounds) of the successor's advantage and the z-level that replaces.
const ADV: f64 = 500.0;
const Z: f64 = 3.0;
const PROMOTE_AGE: u64 = 1000;
const DROP_AGE: u64 = 5000;

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Restart {
    /// Discounted sums of the squared errors and of the weights (window [`LONG`]): the
    /// scale of the top level's relative losses.
    long: [f64; 2],
    /// The CUSUM's in-control level since the start or the last change (discounted
    /// sums, window [`LONG`], of `e` and of the weights), and the spread of `u` over the
    /// whole stream (of `(u - 1)^2` and of its weights).
    base: [f64; 4],
    /// The CUSUM statistic `S_t` (in units of `u`).
    cusum: f64,
    /// Rounds since the start or the last declared change.
    since: u64,
    successor: Option<Box<AutoKernel>>,
    /// The top level's discounted stacking sums `[A, B]` and the successor's age in rounds.
    stack: [f64; 2],
    age: u64,
    /// The successor's discounted advantage `[D, Q, W, W2]`.
    adv: [f64; 4],
    /// Changes declared, successors promoted (for reports).
    pub changes: u64,
    pub promotions: u64,
}

fn mean(s: &[f64; 2]) -> f64 {
    if s[1] > 0.0 {
        s[0] / s[1]
    } else {
        0.0
    }
}

/// The CUSUM threshold `sigma h` in units of `u` for the standardised spread `sigma`:
/// `b = h + 1.166` solves Siegmund's `(e^{2kb} - 1 - 2kb) / (2k^2) = ARL0` (bisection;
/// the left side increases with `b`).
pub fn threshold(sigma: f64) -> f64 {
    let k = (RHO - 1.0) / (2.0 * sigma);
    let arl = |b: f64| ((2.0 * k * b).exp_m1() - 2.0 * k * b) / (2.0 * k * k);
    let (mut lo, mut hi) = (0.0, 1.0);
    while arl(hi) < ARL0 {
        hi *= 2.0;
    }
    for _ in 0..60 {
        let mid = 0.5 * (lo + hi);
        if arl(mid) < ARL0 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    sigma * (hi - 1.166).max(0.0)
}

impl Restart {
    pub fn successor(&self) -> Option<&AutoKernel> {
        self.successor.as_deref()
    }

    /// Top-level weights `(main, successor)`; `(1, 0)` without a successor.
    pub fn weights(&self) -> [f64; 2] {
        if self.successor.is_none() || self.age < PAIR_WARMUP {
            return [1.0, 0.0];
        }
        let w = ((self.stack[0] + LAM) / (self.stack[1] + LAM)).clamp(0.0, 1.0);
        [w, 1.0 - w]
    }

    /// The combined prediction from the learner's `pm` and the successor's `ps`.
    pub fn combine(&self, pm: f64, ps: Option<f64>) -> f64 {
        match ps {
            Some(ps) => {
                let w = self.weights();
                w[0] * pm + w[1] * ps
            }
            None => pm,
        }
    }

    /// The advantage z-statistic `T` of the successor (0 before any round).
    pub fn advantage(&self) -> f64 {
        let [d, q, w, w2] = self.adv;
        let v = q * w2 / w.max(1e-300);
        if v > 0.0 {
            d / v.sqrt()
        } else {
            0.0
        }
    }

    /// The bookkeeping of one round: the learner's squared error `em`, with a successor
    /// its squared error and the squared difference of the two predictions `(es, dd)`,
    /// and the combined squared error `e`.
    fn observe(&mut self, em: f64, es: Option<(f64, f64)>, e: f64) {
        // the error level of the rounds before
        let s = if self.long[1] > 0.0 { mean(&self.long).max(1e-300) } else { 1.0 };
        if let Some((es, dd)) = es.filter(|_| self.age > 0) {
            // (y - z_succ)(z_main - z_succ) = (dd + es - em) / 2; a round whose relative
            // difference exceeds U_MAX weighs U_MAX / b (one outlier moves w little)
            let (a, b) = (0.5 * (dd + es - em) / s, dd / s);
            let c = if b > U_MAX { U_MAX / b } else { 1.0 };
            let (a, b) = (c * a, c * b);
            if a.is_finite() && b.is_finite() {
                let beta = 1.0 - 1.0 / ADV;
                self.stack = [beta * self.stack[0] + a, beta * self.stack[1] + b];
            }
            let d = ((em - es) / s).clamp(-U_MAX, U_MAX);
            if d.is_finite() {
                let b = 1.0 - 1.0 / ADV;
                let [a, q, w, w2] = self.adv;
                self.adv = [b * a + d, b * q + d * d, b * w + 1.0, b * b * w2 + 1.0];
            }
        }
        if es.is_some() {
            self.age += 1;
        }
        self.since += 1;
        if e.is_finite() {
            let bl = 1.0 - 1.0 / LONG;
            let b = &mut self.base;
            if b[1] > 0.0 {
                // CUSUM for a rise of the mean of u from 1 to RHO (reference (1 + RHO)/2)
                let u = (e / (b[0] / b[1]).max(1e-300)).min(U_MAX);
                self.cusum = (self.cusum + u - 0.5 * (1.0 + RHO)).max(0.0);
                [b[2], b[3]] = [bl * b[2] + (u - 1.0) * (u - 1.0), bl * b[3] + 1.0];
            }
            [b[0], b[1]] = [bl * b[0] + e, bl * b[1] + 1.0];
            self.long = [bl * self.long[0] + e, bl * self.long[1] + 1.0];
        }
    }

    /// One round's bookkeeping after `y`: returns the combined prediction.
    pub fn round(&mut self, pm: f64, ps: Option<f64>, y: f64) -> f64 {
        let p = self.combine(pm, ps);
        let sq = |a: f64| (a - y) * (a - y);
        self.observe(sq(pm), ps.map(|ps| (sq(ps), (pm - ps) * (pm - ps))), sq(p));
        p
    }

    pub fn drop_successor(&mut self) {
        self.successor = None;
        self.age = 0;
    }

    pub fn successor_mut(&mut self) -> Option<&mut AutoKernel> {
        self.successor.as_deref_mut()
    }

    /// The checks after a round whose count is a multiple of [`CHECK`]: replacement or
    /// drop of the successor, then the CUSUM. Returns the successor to promote.
    pub fn check(
        &mut self,
        fitted: bool,
        warmup: usize,
        fresh: impl FnOnce() -> Result<AutoKernel>,
    ) -> Result<Option<AutoKernel>> {
        let warmup = warmup as u64;
        let mut promoted = None;
        if self.successor.is_some() {
            let t = self.advantage();
            let wm = self.weights()[0];
            if self.age >= PROMOTE_AGE.max(2 * warmup) && t > Z && wm < W_KEEP {
                promoted = self.successor.take().map(|b| *b);
                self.promotions += 1;
                self.age = 0;
            } else if self.age >= DROP_AGE.max(5 * warmup) && t <= 0.0 {
                self.drop_successor();
            }
        }
        if !fitted || self.since < 2 * warmup {
            // too few rounds for an in-control level (the warm-up's errors are none)
            self.cusum = 0.0;
            return Ok(promoted);
        }
        if self.cusum > threshold((self.base[2] / self.base[3]).sqrt().max(1e-3)) {
            if self.successor.is_some() && self.advantage() > 0.0 {
                // a second change before the first was settled: the successor, better
                // so far, becomes the learner
                promoted = self.successor.take().map(|b| *b);
                self.promotions += 1;
            }
            self.successor = Some(Box::new(fresh()?));
            self.stack = [0.0; 2];
            self.age = 0;
            self.adv = [0.0; 4];
            // a new error level; the spread of u (a shape, without units) is kept
            [self.base[0], self.base[1]] = [0.0, 0.0];
            (self.cusum, self.since) = (0.0, 0);
            self.changes += 1;
        }
        Ok(promoted)
    }

    /// Invariants of a decoded state (the successor checked itself when decoded).
    pub fn validate(&self) -> Result<()> {
        let ok = self
            .long
            .iter()
            .chain(&self.base)
            .chain([&self.cusum])
            .chain(&self.adv[1..])
            .all(|v| v.is_finite() && *v >= 0.0)
            && self.adv[0].is_finite()
            && self.stack[0].is_finite()
            && self.stack[1].is_finite()
            && self.stack[1] >= 0.0;
        crate::state::ensure(ok, || "corrupt AutoKernel restart state".into())?;
        match &self.successor {
            Some(s) => crate::state::ValidState::validate(s.as_ref()),
            None => Ok(()),
        }
    }

    /// Rows of `n` rounds starting at global round `n_seen` up to the next check.
    pub fn chunk(n_seen: u64, n: usize) -> usize {
        let left = (CHECK - n_seen % CHECK) as usize;
        left.min(n)
    }

    /// Rows of `n` rounds from global round `n_seen` that the learner can run before
    /// the checks between them are made: only a promotion changes the learner, and
    /// without a successor now none can come before the check `ceil(2 warmup / CHECK)`
    /// checks after the next one (a successor started at a check is promoted once its
    /// `age >= max(PROMOTE_AGE, 2 warmup)`, or on a second change, which needs `since >=
    /// 2 warmup` rounds after the first), so the learner's predictions up to that check
    /// are the same whatever the checks before it decide. With a successor, a check may
    /// promote it: up to the next check. At most [`MAX_QUIET_ROWS`] rows (a Ctrl-C waits
    /// for them).
    pub fn quiet_rows(&self, n_seen: u64, warmup: usize, n: usize) -> usize {
        let first = Self::chunk(n_seen, n);
        if self.successor.is_some() || first == n {
            return first;
        }
        let later = (2 * warmup as u64).div_ceil(CHECK).max(1) * CHECK;
        (first as u64 + later).min(n as u64).min(MAX_QUIET_ROWS.max(first as u64)) as usize
    }

    pub fn successor_predict(&self, x: &[f64]) -> Result<Option<f64>> {
        self.successor.as_ref().map(|s| s.predict(x)).transpose()
    }
}

impl Restart {
    /// [`Restart::round`] for `K` outputs (row `pm`, `ps`, `y` of `K` values each), the
    /// combined predictions pushed onto `out`: every output is combined with the same
    /// two weights, and the weights and the tests follow the squared errors summed over
    /// the outputs. An output whose predictions and targets are all 0 adds nothing to
    /// those sums (what `add_outputs` relies on).
    pub fn round_multi(&mut self, pm: &[f64], ps: Option<&[f64]>, y: &[f64], out: &mut Vec<f64>) {
        let sq = |p: &[f64]| p.iter().zip(y).map(|(a, b)| (a - b) * (a - b)).sum::<f64>();
        let start = out.len();
        match ps {
            Some(ps) => out.extend(pm.iter().zip(ps).map(|(&a, &b)| self.combine(a, Some(b)))),
            None => out.extend_from_slice(pm),
        }
        let e = sq(&out[start..]);
        let dd = |ps: &[f64]| pm.iter().zip(ps).map(|(a, b)| (a - b) * (a - b)).sum::<f64>();
        self.observe(sq(pm), ps.map(|ps| (sq(ps), dd(ps))), e);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn threshold_solves_siegmunds_run_length() {
        for sigma in [0.5, 1.0, 2f64.sqrt(), 3.0, 10.0] {
            let (k, b) = ((RHO - 1.0) / (2.0 * sigma), threshold(sigma) / sigma + 1.166);
            let arl = ((2.0 * k * b).exp_m1() - 2.0 * k * b) / (2.0 * k * k);
            assert!((arl / ARL0 - 1.0).abs() < 1e-9, "sigma {sigma}: {arl}");
        }
        // heavier tails (a larger spread) need a larger threshold
        assert!(threshold(1.0) < threshold(2.0) && threshold(2.0) < threshold(4.0));
    }

    #[test]
    fn the_cusum_adds_up_a_small_persistent_rise() {
        // errors alternating 0.5 and 1.5 (mean 1, sigma of u about 0.5), then 1.3 times
        // larger: a short-over-long ratio never reaches 2, the CUSUM declares the change
        let mut r = Restart::default();
        let mut declared = None;
        for t in 0..20_000u64 {
            let e: f64 = if t % 2 == 0 { 0.5 } else { 1.5 } * if t >= 10_000 { 1.3 } else { 1.0 };
            r.round(e.sqrt(), None, 0.0);
            if (t + 1) % CHECK == 0 {
                let p = crate::mixture::AutoKernelParams::default();
                r.check(true, 200, || AutoKernel::new(&p)).unwrap();
                if r.changes > 0 && declared.is_none() {
                    declared = Some(t + 1);
                }
            }
        }
        let t = declared.expect("declared");
        assert!((10_000..11_000).contains(&t), "declared at {t}");
        assert_eq!(r.changes, 1);
    }

    /// A restart with a successor (its rounds are fed by hand below).
    fn with_successor() -> Restart {
        let p = crate::mixture::AutoKernelParams::default();
        Restart { successor: Some(Box::new(AutoKernel::new(&p).unwrap())), ..Default::default() }
    }

    #[test]
    fn the_top_level_weight_is_the_discounted_ridge_stacking_weight() {
        // the weight from the definition, summed directly over the history each round
        let mut r = with_successor();
        let mut rng = crate::rng::Rng::new(7);
        let (mut hist, mut s_hist) = (Vec::new(), Vec::new());
        let beta = 1.0 - 1.0 / ADV;
        for t in 0..3000 {
            let y = rng.normal();
            let (pm, ps) = (y + 0.8 * rng.normal() + 0.3, y + 1.2 * rng.normal() - 0.2);
            let s = if r.long[1] > 0.0 { mean(&r.long) } else { 1.0 };
            let w = r.weights()[0];
            let (mut a, mut b) = (LAM, LAM);
            // the successor's first round adds nothing; its first PAIR_WARMUP have w = 1
            for (i, (&(pm, ps, y), &s)) in hist.iter().zip(&s_hist).enumerate().skip(1) {
                let f = beta.powi((t - 1 - i) as i32);
                a += f * (y - ps) * (pm - ps) / s;
                b += f * (pm - ps) * (pm - ps) / s;
            }
            let want = if t < PAIR_WARMUP as usize { 1.0 } else { (a / b).clamp(0.0, 1.0) };
            assert!((w - want).abs() < 1e-9, "round {t}: {w} against {want}");
            let p = r.round(pm, Some(ps), y);
            assert_eq!(p, w * pm + (1.0 - w) * ps);
            hist.push((pm, ps, y));
            s_hist.push(s);
        }
    }

    #[test]
    fn a_pair_that_errs_apart_combines_to_less_than_either() {
        // independent errors of variance 1 and 1.5: the best convex weight 0.6 gives
        // variance 0.6; exponential weights would pick one (1.0)
        let mut r = with_successor();
        let mut rng = crate::rng::Rng::new(3);
        let (mut em, mut es, mut e) = (0.0, 0.0, 0.0);
        for t in 0..20_000 {
            let y = 5.0 * rng.normal();
            let (pm, ps) = (y + rng.normal(), y + 1.5f64.sqrt() * rng.normal());
            let p = r.round(pm, Some(ps), y);
            if t >= 2000 {
                em += (pm - y) * (pm - y);
                es += (ps - y) * (ps - y);
                e += (p - y) * (p - y);
            }
        }
        let n = 18_000.0;
        assert!((em / n - 1.0).abs() < 0.05 && (es / n - 1.5).abs() < 0.08);
        assert!(e / n < 0.66, "combined {}", e / n);
        assert!((r.weights()[0] - 0.6).abs() < 0.15, "{:?}", r.weights());
    }

    #[test]
    fn a_better_successor_replaces_the_learner_only_once_the_learner_adds_nothing() {
        // the successor's errors have variance 1; the learner's 1.5 (its stacking weight
        // about 0.4: both stay) or 25 (weight about 0.04: replaced)
        let p = crate::mixture::AutoKernelParams::default();
        for (var, replaced) in [(1.5f64, false), (25.0, true)] {
            let mut r = with_successor();
            let mut rng = crate::rng::Rng::new(5);
            let mut promoted = None;
            for t in 1..=4000u64 {
                let y = rng.normal();
                r.round(y + var.sqrt() * rng.normal(), Some(y + rng.normal()), y);
                if t % CHECK == 0
                    && promoted.is_none()
                    && r.check(true, 200, || AutoKernel::new(&p)).unwrap().is_some()
                {
                    promoted = Some(t);
                }
            }
            assert!(r.advantage() > Z, "var {var}: T = {}", r.advantage());
            assert_eq!(promoted.is_some(), replaced, "var {var}: {promoted:?}, {:?}", r.weights());
            if let Some(t) = promoted {
                assert_eq!(t, PROMOTE_AGE, "replaced at the first test");
            } else {
                assert!((r.weights()[0] - 0.4).abs() < 0.15, "{:?}", r.weights());
            }
        }
    }
}
