//! Losses of the gradient-based learners (PROS-N-KONS, FOGD, NOGD), with their
//! derivatives in the prediction and the default curvature constants.
//!
//! PROS-N-KONS paper (Calandriello, Lazaric, Valko 2017), Asm. 1-2 and Thm 2; the paper
//! gives `sigma` for the squared loss only (docs/choices.md, "Curvature"). Every loss is a
//! function `l(z, y)` of the prediction `z` and the label `y`; the learners use
//! `l'(z) = d l / d z`.
//!
//! | loss | `l(z, y)` | `l'(z)` | default curvature `sigma` for predictions in `[-C, C]` |
//! |---|---|---|---|
//! | squared | `(z - y)^2` | `2 (z - y)` | `1 / (8 C^2)` (paper, Thm 2: `l'' / L^2` with `L = 4C`) |
//! | hinge | `max(0, 1 - y z)` | `-y` if `y z < 1`, else 0 | none exists (Asm. 2 fails): tuning constant, default `1 / (8 C^2)` |
//! | squared_hinge | `max(0, 1 - y z)^2` | `-2 y max(0, 1 - y z)` | `1 / (2 (1 + C)^2)` (`l'' / L^2` with `L = 2(1 + C)`, the paper's recipe) |
//! | logistic | `log(1 + exp(-y z))` | `-y / (1 + exp(y z))` | `min(1 / (8 L C), e^{-C}) / 2` with `L = 1` (Hazan et al.'s exp-concave lemma) |

use crate::error::{KsError, Result};
use serde::{Deserialize, Serialize};

crate::names! {
    /// The loss of a gradient-based learner (the table above).
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
    pub enum Loss as "loss" {
        Squared = "squared",
        Hinge = "hinge",
        SquaredHinge = "squared_hinge",
        Logistic = "logistic",
    }
}

crate::params::shared_rows! {
    /// The row `loss` of a parameter struct (PROS-N-KONS, FOGD, NOGD).
    loss_row {
        /// The loss.
        loss: crate::learners::losses::Loss = crate::learners::losses::Loss::Squared
            => "str", crate::learners::losses::Loss::DOMAIN;
    }
    /// The row `epsilon` beside it (FOGD, NOGD), checked by [`Loss::check_epsilon`].
    epsilon_row {
        /// No-update zone `|f - y| <= epsilon` (squared loss only).
        epsilon: f64 = 0.0 => "float", crate::params::NON_NEGATIVE.note("0 but for the squared loss");
    }
}

impl Loss {
    /// Checks the no-update zone `epsilon` of this loss (the row `epsilon_row`, whose
    /// constraint checks `>= 0`): 0 but for the squared loss.
    pub fn check_epsilon(self, epsilon: f64) -> Result<()> {
        if epsilon > 0.0 && self != Loss::Squared {
            return crate::param_err!(
                "epsilon (the no-update zone |f - y| <= epsilon) applies to the squared loss only"
            );
        }
        Ok(())
    }

    /// Classification losses take labels in {-1, +1}.
    pub fn is_classification(&self) -> bool {
        !matches!(self, Loss::Squared)
    }

    /// `l(z, y)`.
    pub fn value(&self, z: f64, y: f64) -> f64 {
        match self {
            Loss::Squared => (z - y) * (z - y),
            Loss::Hinge => (1.0 - y * z).max(0.0),
            Loss::SquaredHinge => {
                let m = (1.0 - y * z).max(0.0);
                m * m
            }
            Loss::Logistic => softplus(-y * z),
        }
    }

    /// `l'(z) = d l(z, y) / d z` (the hinge uses the subgradient 0 at the kink).
    #[inline]
    pub fn deriv(&self, z: f64, y: f64) -> f64 {
        match self {
            Loss::Squared => 2.0 * (z - y),
            Loss::Hinge => {
                if y * z < 1.0 {
                    -y
                } else {
                    0.0
                }
            }
            Loss::SquaredHinge => -2.0 * y * (1.0 - y * z).max(0.0),
            // -y / (1 + e^{yz}), written to avoid overflow for large |yz|.
            Loss::Logistic => {
                let m = y * z;
                if m >= 0.0 {
                    let e = (-m).exp();
                    -y * e / (1.0 + e)
                } else {
                    -y / (1.0 + m.exp())
                }
            }
        }
    }

    /// The default curvature `sigma` (table above) for predictions bounded by `c`.
    pub fn default_curvature(&self, c: f64) -> f64 {
        match self {
            // Thm 2: sigma = 1/(8 C^2).
            Loss::Squared => 1.0 / (8.0 * c * c),
            // No valid sigma (Asm. 2 fails); a tuning constant, same scale as squared.
            Loss::Hinge => 1.0 / (8.0 * c * c),
            // l'' / L^2 with l'' = 2 and L = 2(1 + C) (the recipe of the squared-loss constant).
            Loss::SquaredHinge => 1.0 / (2.0 * (1.0 + c) * (1.0 + c)),
            // Hazan et al.: sigma = min(1/(8 L C), a)/2, a = e^{-C}, L = 1.
            Loss::Logistic => 0.5 * (1.0 / (8.0 * c)).min((-c).exp()),
        }
    }

    /// Checks a label: finite for squared loss, in {-1, +1} for classification losses.
    pub fn check_label(&self, y: f64) -> Result<()> {
        if self.is_classification() && y != 1.0 && y != -1.0 {
            return Err(KsError::Input(format!(
                "the {} loss is a classification loss: labels must be -1 or +1, got {y}",
                self.name()
            )));
        }
        Ok(())
    }
}

/// `log(1 + e^x)` without overflow.
fn softplus(x: f64) -> f64 {
    if x > 0.0 {
        x + (-x).exp().ln_1p()
    } else {
        x.exp().ln_1p()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn derivatives_match_finite_differences() {
        let h = 1e-6;
        for loss in [Loss::Squared, Loss::Hinge, Loss::SquaredHinge, Loss::Logistic] {
            for &y in &[-1.0, 1.0] {
                for &z in &[-2.3, -0.4, 0.2, 0.7, 1.9] {
                    let fd = (loss.value(z + h, y) - loss.value(z - h, y)) / (2.0 * h);
                    assert!((fd - loss.deriv(z, y)).abs() < 1e-6, "{loss:?} z={z} y={y}");
                }
            }
        }
    }

    #[test]
    fn names_round_trip_and_labels() {
        for n in ["squared", "hinge", "squared_hinge", "logistic"] {
            assert_eq!(Loss::from_name(n).unwrap().name(), n);
        }
        assert!(Loss::from_name("l1").is_err());
        assert!(Loss::Hinge.check_label(0.5).is_err());
        assert!(Loss::Hinge.check_label(-1.0).is_ok());
        assert!(Loss::Squared.check_label(0.5).is_ok());
        assert_eq!(Loss::Squared.default_curvature(1.0), 0.125);
    }
}
