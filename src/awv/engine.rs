//! Linear AWV engine: PKAWV paper (Jezequel, Gaillard, Rudi 2019), Algorithm 1,
//! as corrected in spec `pkawv.md` sec. 1.3; VAW2 paper eq. (4)-(5).
//!
//! State: `Ainv = A^{-1}` with `A = lam I + sum_s v_s v_s^T` (including the
//! current point at prediction time, the AWV convention) and `b = sum_s y_s v_s`.
//!
//! One round, with `h = A_{t-1}^{-1} v` and `delta = v^T h`:
//! * prediction `y_hat = (h . b_{t-1}) / (1 + delta)` (= `v^T A_t^{-1} b_{t-1}`,
//!   the AWV prediction); `ridge = true` gives `h . b_{t-1}` (online ridge);
//! * Sherman-Morrison `A_t^{-1} = A_{t-1}^{-1} - h h^T / (1 + delta)` (the
//!   right-hand side uses `A_{t-1}^{-1}`: spec sec. 5 item 1);
//! * `b_t = b_{t-1} + y_t v`.
//!
//! `A^{-1}` is kept as a packed upper triangle, so it is symmetric by
//! construction and each round streams half the matrix twice (one symmetric
//! mat-vec, one symmetric rank-one update). Nothing is allocated per round.
//! Accuracy over long streams is checked in `tests/awv_engine.rs` (relative
//! error of `A^{-1}` against a fresh inverse after 10^5 rounds).

use crate::error::Result;
use crate::limits::{check_doubles, packed, scale};
use crate::linalg::blas::{axpy, dot};
use crate::linalg::packed;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct LinearAwv {
    r: usize,
    lam: f64,
    ridge: bool,
    /// Packed upper triangle of `A^{-1}`.
    ainv: Vec<f64>,
    /// `b = sum_s y_s v_s`.
    b: Vec<f64>,
    /// Scratch for `h = A^{-1} v` (no allocation per round).
    #[serde(skip)]
    h: Vec<f64>,
    n_seen: u64,
    /// `v_t^T A_t^{-1} v_t` of the last learned round (spec sec. 1.3 diagnostic).
    last_leverage: f64,
    /// `sum_t y_t^2 v_t^T A_t^{-1} v_t`: upper-bounds the estimation part of the
    /// regret (PKAWV paper, proof of Prop. 1; spec sec. 4.A.7).
    regret_term: f64,
}

impl LinearAwv {
    /// Engine on `r` features with ridge parameter `lam > 0`.
    pub fn new(r: usize, lam: f64, ridge: bool) -> Result<Self> {
        let lam = scale("lam", lam)?;
        check_doubles(
            &format!("the AWV state on {r} features (r(r+1)/2 + 2r doubles)"),
            Some(packed(r) + 2 * r as u128),
        )?;
        Ok(LinearAwv {
            r,
            lam,
            ridge,
            ainv: packed::scaled_identity(r, 1.0 / lam),
            b: vec![0.0; r],
            h: vec![0.0; r],
            n_seen: 0,
            last_leverage: 0.0,
            regret_term: 0.0,
        })
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
    /// Packed upper triangle of `A^{-1}`.
    pub fn ainv_packed(&self) -> &[f64] {
        &self.ainv
    }
    /// `A^{-1}` as a dense row-major matrix.
    pub fn ainv_dense(&self) -> Vec<f64> {
        packed::to_dense(&self.ainv, self.r)
    }

    fn ensure_scratch(&mut self) {
        if self.h.len() != self.r {
            self.h = vec![0.0; self.r];
        }
    }

    /// Prediction for features `v` (pure: the state does not change).
    /// AWV: `v^T A_t^{-1} b_{t-1}` with `A_t` including `v`; ridge: `v^T A_{t-1}^{-1} b_{t-1}`.
    pub fn predict(&self, v: &[f64]) -> f64 {
        let mut h = vec![0.0; self.r];
        packed::symv(&self.ainv, v, &mut h);
        let delta = dot(v, &h);
        let p = dot(&h, &self.b);
        if self.ridge {
            p
        } else {
            p / (1.0 + delta)
        }
    }

    /// Reveals `y` for features `v` and updates (no prediction).
    pub fn learn(&mut self, v: &[f64], y: f64) {
        self.predict_learn(v, y);
    }

    /// One full round: predict with the current state, then learn `(v, y)`.
    /// One symmetric mat-vec and one rank-one update. Returns the prediction.
    pub fn predict_learn(&mut self, v: &[f64], y: f64) -> f64 {
        self.ensure_scratch();
        packed::symv(&self.ainv, v, &mut self.h);
        let delta = dot(v, &self.h);
        let hb = dot(&self.h, &self.b);
        let pred = if self.ridge { hb } else { hb / (1.0 + delta) };
        // Sherman-Morrison: A_t^{-1} = A_{t-1}^{-1} - h h^T / (1 + delta).
        packed::syr(&mut self.ainv, 1.0 / (1.0 + delta), &self.h);
        axpy(y, v, &mut self.b);
        // v^T A_t^{-1} v = delta - delta^2 / (1 + delta) = delta / (1 + delta).
        self.last_leverage = delta / (1.0 + delta);
        self.regret_term += y * y * self.last_leverage;
        self.n_seen += 1;
        pred
    }

    /// The weight vector `w_t = A_t^{-1} b_t` after the last round (ridge solution).
    pub fn weights(&self) -> Vec<f64> {
        let mut w = vec![0.0; self.r];
        packed::symv(&self.ainv, &self.b, &mut w);
        w
    }
}

impl crate::state::ValidState for LinearAwv {
    fn validate(&self) -> Result<()> {
        use crate::state::*;
        within_memory("the AWV state", packed(self.r) + 2 * self.r as u128)?;
        scale("lam", self.lam)?;
        len_is("A^-1 (packed)", self.ainv.len(), packed::packed_len(self.r))?;
        len_is("b", self.b.len(), self.r)?;
        finite("A^-1", &self.ainv)?;
        finite("b", &self.b)?;
        // A^-1 is positive definite: its diagonal is positive.
        ensure((0..self.r).all(|j| packed::get(&self.ainv, j, j) > 0.0), || {
            "A^-1 has a diagonal entry <= 0".into()
        })?;
        ensure(!self.last_leverage.is_nan() && !self.regret_term.is_nan(), || {
            "a diagnostic is NaN".into()
        })
    }
    fn check_config(&self, fresh: &Self) -> Result<()> {
        crate::state::same("lam", &self.lam, &fresh.lam)?;
        crate::state::same("ridge", &self.ridge, &fresh.ridge)
    }
}
