//! The weighted round of the linear AWV engine (docs/choices.md, "Sample weights").
//!
//! A round of weight `w > 0` is the ridge update with the row counted `w` times:
//! ```text
//! A_t = A_{t-1} + w v v^T,    b_t = b_{t-1} + w y v
//! ```
//! (after the discount step of a discounted engine, once per round). By
//! Sherman-Morrison, with `h = A_{t-1}^{-1} v` and `delta = v^T h`,
//! `A_t^{-1} = A_{t-1}^{-1} - w h h^T / (1 + w delta)`. So for an undiscounted engine an
//! integer weight `w` is `w` repeated rounds on the row: the same `A_t`, `b_t`. The
//! prediction is made before the label and its weight are revealed: the AWV prediction
//! `v^T (A_{t-1} + v v^T)^{-1} b_{t-1}` of the plain round (the first of the repeats).
//! `w = 1` is [`LinearAwv::predict_learn_multi`], bit for bit.

use super::outputs;
use super::LinearAwv;
use crate::linalg::blas::dot;
use crate::uncertainty::noise_discount;

impl LinearAwv {
    /// One full round of weight `w` (finite, `> 0`) with the `K` targets `y`, the `K`
    /// predictions written into `out` (the plain round's, see the module docs).
    pub fn predict_learn_weighted_multi(&mut self, v: &[f64], y: &[f64], w: f64, out: &mut [f64]) {
        if w == 1.0 {
            return self.predict_learn_multi(v, y, out);
        }
        debug_assert!(y.len() == self.k && out.len() == self.k);
        self.kept = None;
        self.ensure_scratch();
        self.round_symv(v);
        let delta = dot(v, &self.h);
        outputs::predictions(&self.h, &self.b, delta, self.ridge, out);
        // A_t^{-1} = A_{t-1}^{-1} - w h h^T / (1 + w delta), applied at the next pass.
        self.pending = w / (1.0 + w * delta);
        std::mem::swap(&mut self.h, &mut self.hp);
        // b_t = b_{t-1} + w y v.
        outputs::add_round(&mut self.b, v, y, |yj| w * yj);
        let rho = noise_discount(self.gamma);
        self.noise_rest.observe(&mut self.noise, rho, (y, &*out), delta, w);
        // The leverage of the weighted row: w v^T A_t^{-1} v = w delta / (1 + w delta).
        self.last_leverage = w * delta / (1.0 + w * delta);
        self.regret_term += outputs::sum_sq(y) * self.last_leverage;
        self.add_target_mass(w, y);
        self.n_seen += 1;
    }

    /// [`Self::predict_learn_weighted_multi`] with one output; returns the prediction.
    pub fn predict_learn_weighted(&mut self, v: &[f64], y: f64, w: f64) -> f64 {
        let mut o = [0.0];
        self.predict_learn_weighted_multi(v, std::slice::from_ref(&y), w, &mut o);
        o[0]
    }
}
