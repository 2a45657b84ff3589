//! Eigen-bases of the online projection estimator (Zhang and Simon, sec. 2, 5,
//! Appendices A, D, F).
//!
//! * [`sine`]: `sqrt(2) sin((2j-1) pi x / 2)`, eigenbasis of `min(s, t)` on [0, 1];
//! * [`trig`]: `sqrt(2) sin / cos(2 pi k x)`, eigenbasis of `-B4({s-t}) / 24`;
//! * [`hermite`]: Hermite functions, eigenbasis of the Gaussian kernel;
//! * [`legendre`]: always-on prefix polynomials (shifted Legendre);
//! * [`tensor`]: products in d dimensions ordered by decreasing product eigenvalue;
//! * [`design`]: the column layout of the estimator (prefix, scheduled units, additive model).
//!
//! Every function is evaluated in O(1) (O(d) for a product) by recurrences.

pub mod design;
pub mod hermite;
pub mod legendre;
pub mod sine;
pub mod tensor;
pub mod trig;

pub use design::{Column, Design};

/// Rows evaluated side by side by the block evaluations (column additions).
pub const LANES: usize = 16;
pub use hermite::HermiteParams;

use crate::error::Result;
use serde::{Deserialize, Serialize};

/// A one-dimensional eigenbasis `psi_1, psi_2, ...` in decreasing-eigenvalue order.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub enum Basis1D {
    /// Eigenbasis of `min(s, t)` on [0, 1].
    Sine,
    /// Eigenbasis of `-B4({s - t}) / 24` on [0, 1].
    Trig { cos_first: bool },
    /// Eigenbasis of `exp(-eps^2 (x - z)^2)` under the Gaussian measure of scale `a`.
    Hermite(HermiteParams),
}

crate::names! {
    /// The kind of a [`Basis1D`], by its name (the parameter `basis`).
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub enum BasisKind as "basis" {
        Sine = "sine",
        Trig = "trig",
        Hermite = "gaussian",
    }
}

impl Basis1D {
    /// Builds a basis from its name and parameters (the form the bindings receive).
    pub fn from_spec(name: &str, cos_first: bool, a: f64, eps: f64) -> Result<Basis1D> {
        Ok(match BasisKind::from_name(name)? {
            BasisKind::Sine => Basis1D::Sine,
            BasisKind::Trig => Basis1D::Trig { cos_first },
            BasisKind::Hermite => {
                let h = HermiteParams { a, eps };
                h.validate()?;
                Basis1D::Hermite(h)
            }
        })
    }

    /// The kind (whose name is the basis's name).
    pub fn kind(&self) -> BasisKind {
        match self {
            Basis1D::Sine => BasisKind::Sine,
            Basis1D::Trig { .. } => BasisKind::Trig,
            Basis1D::Hermite(_) => BasisKind::Hermite,
        }
    }

    /// Short name.
    pub fn name(&self) -> &'static str {
        self.kind().name()
    }

    /// Operator eigenvalue `lambda_j` of function `j >= 1` (orthonormal normalisation).
    pub fn eigenvalue(&self, j: usize) -> f64 {
        match self {
            Basis1D::Sine => sine::eigenvalue(j),
            Basis1D::Trig { .. } => trig::eigenvalue(j),
            Basis1D::Hermite(h) => h.eigenvalue(j),
        }
    }

    /// Writes `psi_1(x), ..., psi_m(x)` into `out` (`m = out.len()`).
    #[inline]
    pub fn eval_into(&self, x: f64, out: &mut [f64]) {
        match self {
            Basis1D::Sine => sine::eval_into(x, out),
            Basis1D::Trig { cos_first } => trig::eval_into(x, *cos_first, out),
            Basis1D::Hermite(h) => h.eval_into(x, out),
        }
    }

    /// Block evaluation: `out[j * LANES + r] = psi_{j+1}(xs[r])` for up to `LANES` rows, `m` functions.
    pub fn eval_block(&self, xs: &[f64], m: usize, out: &mut [f64]) {
        match self {
            Basis1D::Sine => sine::eval_block(xs, m, out),
            Basis1D::Trig { cos_first } => trig::eval_block(xs, *cos_first, m, out),
            Basis1D::Hermite(h) => {
                let mut tmp = vec![0.0; m];
                for (r, &x) in xs.iter().enumerate() {
                    h.eval_into(x, &mut tmp);
                    for j in 0..m {
                        out[j * LANES + r] = tmp[j];
                    }
                }
            }
        }
    }

    /// Is `x` in the domain of the basis? ([0, 1] for sine and trig; `|a x| <= 30` for Hermite.)
    pub fn in_domain(&self, x: f64) -> bool {
        match self {
            Basis1D::Sine | Basis1D::Trig { .. } => (0.0..=1.0).contains(&x),
            Basis1D::Hermite(h) => (h.a * x).abs() <= hermite::MAX_SCALED_INPUT,
        }
    }

    /// Human-readable domain, for error messages.
    pub fn domain_text(&self) -> String {
        match self {
            Basis1D::Sine | Basis1D::Trig { .. } => "[0, 1]".into(),
            Basis1D::Hermite(h) => format!("|x| <= {} (30 / a)", hermite::MAX_SCALED_INPUT / h.a),
        }
    }

    /// Exact integer ordering key of function `j`, increasing as `lambda_j` decreases, and
    /// how keys of a product combine (so that ties in the product eigenvalue are detected
    /// exactly, not through rounded floating-point products).
    pub fn order_key(&self, j: usize) -> (u128, KeyCombine) {
        match self {
            // lambda_j ~ (2j - 1)^-2
            Basis1D::Sine => ((2 * j - 1) as u128, KeyCombine::Product),
            // lambda_j ~ k^-4 with k = ceil(j / 2)
            Basis1D::Trig { .. } => (trig::frequency(j) as u128, KeyCombine::Product),
            // lambda_j ~ r^(j - 1)
            Basis1D::Hermite(_) => ((j - 1) as u128, KeyCombine::Sum),
        }
    }
}

/// How per-coordinate ordering keys combine into the key of a product function.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeyCombine {
    Product,
    Sum,
}
