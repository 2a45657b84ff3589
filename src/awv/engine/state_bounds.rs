//! The bound on `b` checked when a [`LinearAwv`] state is loaded.

use super::LinearAwv;
use crate::error::Result;
use crate::state::{bounds, ensure};

/// Slack of the bound on `b^T A^-1 b`: rounding in a solve grows with the condition
/// number of `A`, and a damaged `b` is off by orders of magnitude.
const SLACK: f64 = 1e-3;

impl LinearAwv {
    /// With `Phi` the rows `sqrt(w_s gamma^(t-s)) v_s` and `u` the targets
    /// `sqrt(w_s gamma^(t-s)) y_s` of an output, `b = Phi^T u` and `A >= Phi^T Phi` (the
    /// regulariser and the refills add positive terms), so `b^T A^-1 b <= u^T Phi
    /// (Phi^T Phi)^+ Phi^T u <= |u|^2`, at most the stored target mass (every output's
    /// squares). `tri`: `A^-1` packed by columns.
    pub(super) fn validate_targets(&self, tri: &[f64]) -> Result<()> {
        let Some(mass) = self.target_mass else { return Ok(()) };
        ensure(mass >= 0.0, || format!("the target mass {mass:e} is negative or NaN"))?;
        for (c, b) in self.b.chunks_exact(self.r.max(1)).enumerate() {
            let (q, s) = bounds::scaled_quadratic_form(tri, self.r, b);
            // q s^2 <= mass, without forming s^2
            let most = mass / s / s;
            ensure(s == 0.0 || q <= most * (1.0 + SLACK), || {
                format!(
                    "b of output {c} gives b^T A^-1 b = {:e}, above the targets' weighted sum \
                     of squares {mass:e}",
                    q * s * s
                )
            })?;
        }
        Ok(())
    }
}
