//! Gaussian-kernel eigenbasis (Hermite functions). Zhang and Simon, Appendix A,
//! eqs. (29)-(32). Kernel `exp(-eps^2 (x - z)^2)`, working measure density
//! `(a / sqrt(pi)) exp(-a^2 x^2)`:
//! `beta = (1 + (2 eps / a)^2)^(1/4)`, `delta^2 = a^2 (beta^2 - 1) / 2`,
//! `psi_j(x) = sqrt(beta / (2^(j-1) (j-1)!)) exp(-delta^2 x^2) H_{j-1}(a beta x)` (physicists' Hermite),
//! `lambda_j = sqrt(a^2 / (a^2 + delta^2 + eps^2)) (eps^2 / (a^2 + delta^2 + eps^2))^(j-1)`.
//!
//! Evaluation uses the normalised recurrence `h_k = H_k / sqrt(2^k k!)`:
//! `h_{k+1} = sqrt(2/(k+1)) z h_k - sqrt(k/(k+1)) h_{k-1}`, `h_0 = 1`, `h_1 = sqrt(2) z`, with a
//! running power-of-ten scale so that neither `2^(j-1) (j-1)!` nor `H_{j-1}` ever overflows.

use crate::error::Result;

/// Largest `|a x|` accepted (the working measure puts mass `< e^-900` beyond it).
pub const MAX_SCALED_INPUT: f64 = 30.0;

crate::params::shared_rows! {
    /// The rows of the Gaussian (Hermite) basis's parameters ([`HermiteParams`] and
    /// OnlineProjection's).
    hermite_rows {
        /// Gaussian (Hermite) basis: the scale `a` of the working measure (the paper's
        /// "alpha" in eqs. (29)-(30), renamed to avoid a clash with the smoothness index).
        a: f64 = 1.0 => "float", crate::params::SCALE;
        /// Gaussian (Hermite) basis: the width `eps` of the kernel `exp(-eps^2 (x - z)^2)`.
        eps: f64 = 1.0 => "float", crate::params::SCALE;
    }
}

crate::params! {
    /// The parameters of the Gaussian (Hermite) basis: their one check
    /// ([`crate::bases::Basis1D::from_spec`] runs it).
    #[derive(Copy)]
    pub struct HermiteParams {
        use crate::bases::hermite::hermite_rows;
    }
}

impl HermiteParams {
    fn relations(&self) -> Result<()> {
        Ok(())
    }

    pub fn beta(&self) -> f64 {
        (1.0 + (2.0 * self.eps / self.a).powi(2)).powf(0.25)
    }

    pub fn delta2(&self) -> f64 {
        let b = self.beta();
        0.5 * self.a * self.a * (b * b - 1.0)
    }

    /// `lambda_j` (j >= 1), eq. (31).
    pub fn eigenvalue(&self, j: usize) -> f64 {
        let (a2, e2, d2) = (self.a * self.a, self.eps * self.eps, self.delta2());
        let den = a2 + d2 + e2;
        (a2 / den).sqrt() * (e2 / den).powi(j as i32 - 1)
    }

    /// Writes `psi_1(x), ..., psi_m(x)` into `out[..m]`.
    pub fn eval_into(&self, x: f64, out: &mut [f64]) {
        if out.is_empty() {
            return;
        }
        let beta = self.beta();
        let z = self.a * beta * x;
        let base = -self.delta2() * x * x; // log of exp(-delta^2 x^2)
        let ln_sqrt_beta = 0.5 * beta.ln();
        let mut log_scale = 0.0f64; // true h_k = stored h_k * exp(log_scale)
        let mut factor = (base + ln_sqrt_beta).exp();
        let (mut hm1, mut h) = (0.0f64, 1.0f64);
        for (k, o) in out.iter_mut().enumerate() {
            if k == 1 {
                hm1 = h;
                h = std::f64::consts::SQRT_2 * z * hm1;
            } else if k > 1 {
                let kf = (k - 1) as f64; // previous degree
                let next = (2.0 / (kf + 1.0)).sqrt() * z * h - (kf / (kf + 1.0)).sqrt() * hm1;
                hm1 = h;
                h = next;
            }
            if h.abs() > 1e150 {
                h *= 1e-150;
                hm1 *= 1e-150;
                log_scale += 150.0 * std::f64::consts::LN_10;
                factor = (base + ln_sqrt_beta + log_scale).exp();
            }
            *o = h * factor;
        }
    }
}
