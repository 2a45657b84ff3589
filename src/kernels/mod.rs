//! Kernels, all with the conventions of the API contract:
//! Gaussian `exp(-||x-x'||^2 / (2 sigma^2))` (the 2 sigma^2 convention of all five papers),
//! Laplacian `exp(-||x-x'||_1 / sigma)` (VAW2 paper, sec. 5);
//! Min `prod_l min(x_l, y_l)`, BernoulliPeriodic `prod_l -B4({x_l - y_l})/24` and the additive
//! `sum_l [x_l y_l + x_l^2 y_l^2 - B4({x_l - y_l})/24]` (projection paper, Tables 1, 2, 4).
//!
//! A kernel is a small immutable value (`Kernel` enum), cheap to copy and serialise
//! with the learner that uses it.

mod bernoulli;
mod gaussian;
mod laplacian;
mod min;

pub use bernoulli::{additive_sobolev2, bernoulli4, bernoulli_periodic, bernoulli_periodic_1d};
pub use gaussian::gaussian;
pub use laplacian::laplacian;
pub use min::min_kernel;

use crate::error::{positive, Result};
use serde::{Deserialize, Serialize};

crate::names! {
    /// The kind of a [`Kernel`], by its name (as `Kernel.from_spec` takes it).
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub enum KernelKind as "kernel" {
        Gaussian = "gaussian",
        Laplacian = "laplacian",
        Min = "min",
        BernoulliPeriodic = "bernoulli_periodic",
        AdditiveSobolev2 = "additive_sobolev2",
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub enum Kernel {
    /// `exp(-||x-x'||^2 / (2 sigma^2))`.
    Gaussian { sigma: f64 },
    /// `exp(-||x-x'||_1 / sigma)`.
    Laplacian { sigma: f64 },
    /// `prod_l min(x_l, y_l)` (projection paper, Table 1).
    Min,
    /// `prod_l -B4({x_l - y_l}) / 24` (projection paper, Table 2).
    BernoulliPeriodic,
    /// `sum_l [x_l y_l + x_l^2 y_l^2 - B4({x_l - y_l}) / 24]` (projection paper, eq. (85) corrected).
    AdditiveSobolev2,
}

impl Kernel {
    /// Builds a kernel from its name and parameters (the form the bindings receive).
    pub fn from_spec(name: &str, params: &[f64]) -> Result<Kernel> {
        let one = |what: &str| -> Result<f64> {
            match params {
                [s] => positive(what, *s),
                _ => crate::param_err!(
                    "kernel {name:?} takes exactly one parameter (sigma), got {}",
                    params.len()
                ),
            }
        };
        let none = |k: Kernel| -> Result<Kernel> {
            if params.is_empty() {
                Ok(k)
            } else {
                crate::param_err!("kernel {name:?} takes no parameters, got {}", params.len())
            }
        };
        let Ok(kind) = KernelKind::from_name(name) else {
            return crate::param_err!(
                "unknown kernel {name:?}: kernel must be {}",
                KernelKind::DOMAIN
            );
        };
        match kind {
            KernelKind::Min => none(Kernel::Min),
            KernelKind::BernoulliPeriodic => none(Kernel::BernoulliPeriodic),
            KernelKind::AdditiveSobolev2 => none(Kernel::AdditiveSobolev2),
            KernelKind::Gaussian => Ok(Kernel::Gaussian { sigma: one("sigma")? }),
            KernelKind::Laplacian => Ok(Kernel::Laplacian { sigma: one("sigma")? }),
        }
    }

    /// The kind (whose name is the kernel's name).
    pub fn kind(&self) -> KernelKind {
        match self {
            Kernel::Gaussian { .. } => KernelKind::Gaussian,
            Kernel::Laplacian { .. } => KernelKind::Laplacian,
            Kernel::Min => KernelKind::Min,
            Kernel::BernoulliPeriodic => KernelKind::BernoulliPeriodic,
            Kernel::AdditiveSobolev2 => KernelKind::AdditiveSobolev2,
        }
    }

    /// Name and parameters, the inverse of [`Kernel::from_spec`].
    pub fn spec(&self) -> (&'static str, Vec<f64>) {
        let params = match *self {
            Kernel::Gaussian { sigma } | Kernel::Laplacian { sigma } => vec![sigma],
            Kernel::Min | Kernel::BernoulliPeriodic | Kernel::AdditiveSobolev2 => vec![],
        };
        (self.kind().name(), params)
    }

    /// `k(x, y)`.
    #[inline]
    pub fn eval(&self, x: &[f64], y: &[f64]) -> f64 {
        match *self {
            Kernel::Gaussian { sigma } => gaussian(x, y, sigma),
            Kernel::Laplacian { sigma } => laplacian(x, y, sigma),
            Kernel::Min => min_kernel(x, y),
            Kernel::BernoulliPeriodic => bernoulli_periodic(x, y),
            Kernel::AdditiveSobolev2 => additive_sobolev2(x, y),
        }
    }

    /// `k(x, x)`.
    #[inline]
    pub fn diag(&self, x: &[f64]) -> f64 {
        match *self {
            Kernel::Gaussian { .. } | Kernel::Laplacian { .. } => {
                let _ = x;
                1.0
            }
            Kernel::Min | Kernel::BernoulliPeriodic | Kernel::AdditiveSobolev2 => self.eval(x, x),
        }
    }

    /// Refuses, before any state change, a finite `x` at which the kernel is no
    /// longer a finite positive-definite kernel: `k(x, x)` overflows (a product over
    /// coordinates of huge values) or is negative (`x` outside the domain, e.g. a
    /// negative coordinate for `Min`, whose Sobolev space lives on `[0, 1]`). Such a
    /// point would make every later prediction near it infinite or NaN.
    pub fn check_point(&self, x: &[f64]) -> crate::error::Result<()> {
        let k = self.diag(x);
        if k.is_finite() && k >= 0.0 {
            return Ok(());
        }
        Err(crate::KsError::Numerical(format!(
            "k(x, x) = {k:.6e} for this x (largest |x_i| = {:.6e}): the {} kernel is not a \
             finite positive-definite kernel there (its inputs belong to [0, 1])",
            x.iter().fold(0.0f64, |a, v| a.max(v.abs())),
            self.spec().0
        )))
    }

    /// `sup_x k(x, x)` (kappa^2 in the papers); for the Sobolev kernels the supremum over
    /// [0, 1] in one dimension (`1`, `1/720`, `2 + 1/720`).
    pub fn sup_diag(&self) -> f64 {
        match self {
            Kernel::Min => 1.0,
            Kernel::BernoulliPeriodic => 1.0 / 720.0,
            Kernel::AdditiveSobolev2 => 2.0 + 1.0 / 720.0,
            _ => 1.0,
        }
    }

    /// Row `(k(x, c_j))_j` for row-major centres `c` of dimension `d`, written into `out`.
    pub fn row_into(&self, x: &[f64], centres: &[f64], d: usize, out: &mut [f64]) {
        for (o, c) in out.iter_mut().zip(centres.chunks_exact(d)) {
            *o = self.eval(x, c);
        }
    }

    /// Gram matrix (row-major, `n x m`) of row-major `x` (`n x d`) against `y` (`m x d`).
    pub fn gram(&self, x: &[f64], y: &[f64], d: usize) -> Vec<f64> {
        let m = y.len().checked_div(d).unwrap_or(0);
        let mut out = Vec::with_capacity(x.len().checked_div(d).unwrap_or(0) * m);
        for xi in x.chunks_exact(d.max(1)) {
            for yj in y.chunks_exact(d.max(1)) {
                out.push(self.eval(xi, yj));
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gaussian_uses_two_sigma_squared() {
        let k = Kernel::Gaussian { sigma: 2.0 };
        let v = k.eval(&[0.0, 0.0], &[1.0, 1.0]);
        assert!((v - (-2.0f64 / 8.0).exp()).abs() < 1e-15);
        assert_eq!(k.eval(&[0.3, 0.1], &[0.3, 0.1]), 1.0);
    }

    #[test]
    fn laplacian_uses_l1() {
        let k = Kernel::Laplacian { sigma: 0.5 };
        let v = k.eval(&[0.0, 0.0], &[1.0, -2.0]);
        assert!((v - (-6.0f64).exp()).abs() < 1e-15);
    }

    #[test]
    fn spec_round_trip() {
        let k = Kernel::from_spec("laplacian", &[3.0]).unwrap();
        let (n, p) = k.spec();
        assert_eq!(Kernel::from_spec(n, &p).unwrap(), k);
        assert!(Kernel::from_spec("gaussian", &[0.0]).is_err());
        assert!(Kernel::from_spec("nope", &[1.0]).is_err());
    }
}
