//! The warm-up's second predictor and the rule that mixes it with the first
//! (`warm_neighbour`, docs/autokernel.md, step 1): the target of the nearest row so
//! far (1-NN on the rows standardised by their own mean and spread, as the kernel
//! ridge prediction of [`super::warm_krr`] sees them), and AdaHedge (de Rooij, van
//! Erven, Grunwald and Koolen 2014, "Follow the leader if you can, hedge if you
//! must") over the two on their squared errors. Kernel ridge regression falls back to
//! the mean of the rows far from a new point; the nearest row's target never
//! extrapolates and follows a level that moved (a lagged series after a jump). AdaHedge
//! has no learning rate to choose: `eta = ln 2 / Delta`, `Delta` the cumulative
//! mixability gap, so its weights do not change when the losses are multiplied by a
//! constant (the targets' units), and it follows the leader while the gap is 0.

use serde::{Deserialize, Serialize};

/// Index of the row of row-major `xs` (`len / d` rows) nearest to `q` in squared
/// Euclidean distance (the first of equals); None without rows.
pub fn nearest(xs: &[f64], d: usize, q: &[f64]) -> Option<usize> {
    let mut best: Option<(usize, f64)> = None;
    for (i, r) in xs.chunks_exact(d.max(1)).enumerate() {
        let s: f64 = r.iter().zip(q).map(|(a, b)| (a - b) * (a - b)).sum();
        if best.is_none_or(|(_, b)| s < b) {
            best = Some((i, s));
        }
    }
    best.map(|(i, _)| i)
}

/// AdaHedge's state over two predictors: their cumulative squared errors and the
/// cumulative mixability gap.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct WarmMix {
    pub cum: [f64; 2],
    pub gap: f64,
}

impl WarmMix {
    /// The weights of the next round: `exp(-eta L_j)` normalised, `eta = ln 2 / gap`;
    /// while the gap is 0, equal weights on the leaders (follow the leader).
    pub fn weights(&self) -> [f64; 2] {
        let m = self.cum[0].min(self.cum[1]);
        let w = if self.gap > 0.0 {
            let eta = std::f64::consts::LN_2 / self.gap;
            self.cum.map(|c| (-eta * (c - m)).exp())
        } else {
            self.cum.map(|c| f64::from(c == m))
        };
        let s = w[0] + w[1];
        w.map(|v| v / s)
    }

    /// The weighted mean of the two predictions.
    pub fn predict(&self, z: [f64; 2]) -> f64 {
        let w = self.weights();
        if w[1] == 0.0 {
            z[0]
        } else if w[0] == 0.0 {
            z[1]
        } else {
            w[0] * z[0] + w[1] * z[1]
        }
    }

    /// Adds a round with predictions `z` and target `y`: the losses, and the gap
    /// `h - m` between the weighted mean loss `h` and the mix loss
    /// `m = -ln(sum_j w_j exp(-eta l_j)) / eta` (the smallest loss of a leader while the
    /// gap is 0). A round whose losses or new state are not finite (overflow) is left out.
    pub fn update(&mut self, z: [f64; 2], y: f64) {
        let l = z.map(|v| (v - y) * (v - y));
        let w = self.weights();
        let h = w[0] * l[0] + w[1] * l[1];
        let lmin = l[0].min(l[1]);
        let mix = if self.gap > 0.0 {
            let eta = std::f64::consts::LN_2 / self.gap;
            let s = w[0] * (-eta * (l[0] - lmin)).exp() + w[1] * (-eta * (l[1] - lmin)).exp();
            lmin - s.ln() / eta
        } else {
            (0..2).filter(|&j| w[j] > 0.0).map(|j| l[j]).fold(f64::INFINITY, f64::min)
        };
        let next = WarmMix {
            cum: [self.cum[0] + l[0], self.cum[1] + l[1]],
            gap: self.gap + (h - mix).max(0.0),
        };
        if next.is_valid() {
            *self = next;
        }
    }

    /// Finite and non-negative (a state to accept).
    pub fn is_valid(&self) -> bool {
        self.cum.iter().chain([&self.gap]).all(|v| v.is_finite() && *v >= 0.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_is_the_smallest_distance_first_of_equals() {
        let xs = [0.0, 0.0, 1.0, 1.0, 3.0, 0.0, 1.0, 1.0];
        assert_eq!(nearest(&xs, 2, &[0.9, 1.2]), Some(1));
        assert_eq!(nearest(&xs, 2, &[2.9, 0.1]), Some(2));
        assert_eq!(nearest(&[], 2, &[0.0, 0.0]), None);
    }

    /// AdaHedge from its definition, with `eta` recomputed each round.
    #[test]
    fn equals_adahedge_from_its_definition_and_ignores_the_loss_scale() {
        let mut rng = crate::rng::Rng::new(3);
        let rows: Vec<([f64; 2], f64)> =
            (0..60).map(|_| ([rng.normal(), 2.0 * rng.normal()], rng.normal())).collect();
        let (mut a, mut b) = (WarmMix::default(), WarmMix::default());
        let (mut cum, mut gap) = ([0.0f64; 2], 0.0f64);
        for &(z, y) in &rows {
            // reference weights and gap
            let l = z.map(|v| (v - y) * (v - y));
            let w: [f64; 2] = if gap > 0.0 {
                let e = cum.map(|c| (-(2f64.ln() / gap) * c).exp());
                [e[0] / (e[0] + e[1]), e[1] / (e[0] + e[1])]
            } else {
                let m = cum[0].min(cum[1]);
                let e = cum.map(|c| f64::from(c == m));
                [e[0] / (e[0] + e[1]), e[1] / (e[0] + e[1])]
            };
            let ww = a.weights();
            assert!((ww[0] - w[0]).abs() < 1e-12 && (ww[1] - w[1]).abs() < 1e-12);
            let h = w[0] * l[0] + w[1] * l[1];
            let mix = if gap > 0.0 {
                let eta = 2f64.ln() / gap;
                -(w[0] * (-eta * l[0]).exp() + w[1] * (-eta * l[1]).exp()).ln() / eta
            } else {
                (0..2).filter(|&j| w[j] > 0.0).map(|j| l[j]).fold(f64::INFINITY, f64::min)
            };
            assert!(h - mix >= -1e-12, "the mix loss is at most the mean loss");
            gap += (h - mix).max(0.0);
            cum = [cum[0] + l[0], cum[1] + l[1]];
            a.update(z, y);
            assert!((a.gap - gap).abs() <= 1e-9 * gap.max(1.0));
            // targets and predictions in other units: the same weights
            b.update(z.map(|v| 1e3 * v), 1e3 * y);
            let (wa, wb) = (a.weights(), b.weights());
            assert!((wa[0] - wb[0]).abs() < 1e-9, "{wa:?} vs {wb:?}");
        }
        assert!(a.gap > 0.0);
    }

    #[test]
    fn follows_the_leader_while_the_gap_is_zero_and_skips_overflow() {
        let mut m = WarmMix::default();
        assert_eq!(m.predict([1.0, 3.0]), 2.0);
        m.update([1.0, 1.0], 1.0); // equal losses: no gap
        assert_eq!((m.gap, m.weights()), (0.0, [0.5, 0.5]));
        m.update([0.0, 5.0], 0.0); // the first leads alone; its loss is the mix loss
        assert_eq!(m.gap, 12.5);
        let before = m;
        m.update([1e200, 0.0], -1e200);
        assert_eq!(m, before);
    }
}
