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

/// AdaHedge's state over the warm-up's predictors: their cumulative squared errors
/// (empty before the first round: all 0) and the cumulative mixability gap.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct WarmMix {
    pub cum: Vec<f64>,
    pub gap: f64,
}

impl WarmMix {
    /// The cumulative loss of predictor `j` of `n`.
    fn cum_of(&self, j: usize) -> f64 {
        self.cum.get(j).copied().unwrap_or(0.0)
    }

    /// The weights of the next round over `n` predictors: `exp(-eta L_j)` normalised,
    /// `eta = ln n / gap`; while the gap is 0, equal weights on the leaders (follow the
    /// leader).
    pub fn weights(&self, n: usize) -> Vec<f64> {
        let m = (0..n).map(|j| self.cum_of(j)).fold(f64::INFINITY, f64::min);
        let w: Vec<f64> = if self.gap > 0.0 {
            let eta = (n as f64).ln() / self.gap;
            (0..n).map(|j| (-eta * (self.cum_of(j) - m)).exp()).collect()
        } else {
            (0..n).map(|j| f64::from(self.cum_of(j) == m)).collect()
        };
        let s: f64 = w.iter().sum();
        w.iter().map(|v| v / s).collect()
    }

    /// The weighted mean of the predictions (those of weight 0 left out, so that an
    /// infinite one does not give NaN).
    pub fn predict(&self, z: &[f64]) -> f64 {
        let w = self.weights(z.len());
        match w.iter().filter(|&&v| v > 0.0).count() {
            1 => z[w.iter().position(|&v| v > 0.0).unwrap_or(0)],
            _ => w.iter().zip(z).filter(|(v, _)| **v > 0.0).map(|(v, p)| v * p).sum(),
        }
    }

    /// Adds a round with predictions `z` and target `y`: the losses, and the gap
    /// `h - m` between the weighted mean loss `h` and the mix loss
    /// `m = -ln(sum_j w_j exp(-eta l_j)) / eta` (the smallest loss of a leader while the
    /// gap is 0). A round whose losses or new state are not finite (overflow) is left out.
    pub fn update(&mut self, z: &[f64], y: f64) {
        let n = z.len();
        let l: Vec<f64> = z.iter().map(|v| (v - y) * (v - y)).collect();
        let w = self.weights(n);
        let h: f64 = w.iter().zip(&l).map(|(a, b)| a * b).sum();
        let lmin = l.iter().copied().fold(f64::INFINITY, f64::min);
        let mix = if self.gap > 0.0 {
            let eta = (n as f64).ln() / self.gap;
            let s: f64 = w.iter().zip(&l).map(|(a, b)| a * (-eta * (b - lmin)).exp()).sum();
            lmin - s.ln() / eta
        } else {
            (0..n).filter(|&j| w[j] > 0.0).map(|j| l[j]).fold(f64::INFINITY, f64::min)
        };
        let next = WarmMix {
            cum: (0..n).map(|j| self.cum_of(j) + l[j]).collect(),
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

    /// A valid state over `n` predictors (or before its first round).
    pub fn is_valid_for(&self, n: usize) -> bool {
        self.is_valid() && (self.cum.is_empty() || self.cum.len() == n)
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

    /// AdaHedge from its definition, with `eta = ln n / gap` recomputed each round.
    #[test]
    fn equals_adahedge_from_its_definition_and_ignores_the_loss_scale() {
        let mut rng = crate::rng::Rng::new(3);
        for n in [2usize, 3, 6] {
            let rows: Vec<(Vec<f64>, f64)> = (0..60)
                .map(|_| ((0..n).map(|j| (1 + j) as f64 * rng.normal()).collect(), rng.normal()))
                .collect();
            let (mut a, mut b) = (WarmMix::default(), WarmMix::default());
            let (mut cum, mut gap) = (vec![0.0f64; n], 0.0f64);
            for (z, y) in &rows {
                let l: Vec<f64> = z.iter().map(|v| (v - y) * (v - y)).collect();
                let e: Vec<f64> = if gap > 0.0 {
                    cum.iter().map(|c| (-((n as f64).ln() / gap) * c).exp()).collect()
                } else {
                    let m = cum.iter().copied().fold(f64::INFINITY, f64::min);
                    cum.iter().map(|&c| f64::from(c == m)).collect()
                };
                let w: Vec<f64> = e.iter().map(|v| v / e.iter().sum::<f64>()).collect();
                for (p, q) in a.weights(n).iter().zip(&w) {
                    assert!((p - q).abs() < 1e-12, "n={n}");
                }
                let want: f64 = w.iter().zip(z).map(|(a, b)| a * b).sum();
                assert!((a.predict(z) - want).abs() <= 1e-12 * (1.0 + want.abs()));
                let h: f64 = w.iter().zip(&l).map(|(a, b)| a * b).sum();
                let mix = if gap > 0.0 {
                    let eta = (n as f64).ln() / gap;
                    -w.iter().zip(&l).map(|(a, b)| a * (-eta * b).exp()).sum::<f64>().ln() / eta
                } else {
                    (0..n).filter(|&j| w[j] > 0.0).map(|j| l[j]).fold(f64::INFINITY, f64::min)
                };
                assert!(h - mix >= -1e-12, "the mix loss is at most the mean loss");
                gap += (h - mix).max(0.0);
                cum.iter_mut().zip(&l).for_each(|(c, v)| *c += v);
                a.update(z, *y);
                assert!((a.gap - gap).abs() <= 1e-9 * gap.max(1.0));
                // targets and predictions in other units: the same weights
                let zb: Vec<f64> = z.iter().map(|v| 1e3 * v).collect();
                b.update(&zb, 1e3 * y);
                for (p, q) in a.weights(n).iter().zip(&b.weights(n)) {
                    assert!((p - q).abs() < 1e-9);
                }
            }
            assert!(a.gap > 0.0 && a.is_valid_for(n) && !a.is_valid_for(n + 1));
        }
    }

    #[test]
    fn follows_the_leader_while_the_gap_is_zero_and_skips_overflow() {
        let mut m = WarmMix::default();
        assert_eq!(m.predict(&[1.0, 3.0]), 2.0);
        m.update(&[1.0, 1.0], 1.0); // equal losses: no gap
        assert_eq!((m.gap, m.weights(2)), (0.0, vec![0.5, 0.5]));
        m.update(&[0.0, 5.0], 0.0); // the first leads alone; its loss is the mix loss
        assert_eq!(m.gap, 12.5);
        let before = m.clone();
        m.update(&[1e200, 0.0], -1e200);
        assert_eq!(m, before);
        // a predictor of weight 0 does not enter the prediction, even infinite
        let lead = WarmMix { cum: vec![0.0, 1.0], gap: 0.0 };
        assert_eq!(lead.predict(&[2.0, f64::INFINITY]), 2.0);
    }
}
