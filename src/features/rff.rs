//! Random Fourier features (Rahimi & Recht 2007) as used by the VAW2 paper
//! (Rokhlin & Gurtovaya 2025), sec. 2, eqs. (3)-(5).
//!
//! Bochner: `kappa(z) = int q(w) cos<w, z> dw`. Frequencies are drawn once:
//! * Gaussian `exp(-||x-y||^2 / (2 sigma^2))`: `w ~ N(0, sigma^-2 I_d)` (eq. 3);
//! * Laplacian `exp(-||x-y||_1 / sigma)`: `w_i` i.i.d. Cauchy(0, 1/sigma) (eq. 4).
//!
//! Two maps (both in sec. 2; docs/choices.md, "Random features"):
//! * `Cos` (variant A, the paper's analysis): `phi_k(x) = sqrt(2) cos(<w_k, x> + b_k)`,
//!   `b_k ~ U(0, 2 pi)`, `k = 1..m`, **unnormalised**: `E phi(x).phi(y) = m k(x, y)`;
//! * `CosSin` (variant B, eq. 5, normalised as in the OMKL-GF code):
//!   `phi(x) = [cos<w_k, x>]_k ++ [sin<w_k, x>]_k / sqrt(m)` (2m features).
//!
//! Draw order from the learner's `Rng` (the NumPy reference replays it): for
//! each feature `k = 0..m` in turn, the `d` coordinates of `w_k` (`normal()/sigma`
//! or `cauchy()/sigma`), then, for `Cos` only, `b_k = 2 pi uniform()`.

use super::trig;
use super::FeatureMap;
use crate::error::Result;
use crate::kernels::Kernel;
use crate::rng::Rng;
use crate::simd::Isa;
use serde::{Deserialize, Serialize};

crate::params::shared_rows! {
    /// The row `kernel` of the parameters of a learner on random Fourier features (FOGD,
    /// RFFAWV), checked by [`spectral`].
    kernel_row {
        /// The shift-invariant kernel whose random features are drawn.
        kernel: Option<crate::kernels::Kernel> = None
            => "kernel", crate::params::object("a Gaussian or Laplacian kernel"), required;
    }
    /// Their row `seed` (of the frequencies).
    seed_row {
        /// Seed of the frequencies.
        seed: u64 = 0 => "int", crate::params::WHOLE;
    }
}

crate::names! {
    /// Which random-feature map (VAW2 paper, sec. 2).
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
    pub enum RffVariant as "features" {
        /// `sqrt(2) cos(<w, x> + b)`, m features, unnormalised.
        Cos = "cos",
        /// `[cos<w, x>, sin<w, x>] / sqrt(m)`, 2m features.
        CosSin = "cossin",
    }
}

/// Largest number of random features per kernel we agree to build (the AWV
/// state of one expert is `r (r + 1) / 2` doubles: 20,000 features need 1.6 GB).
pub const MAX_RFF_FEATURES: usize = 20_000;

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct RandomFourier {
    d: usize,
    m: usize,
    variant: RffVariant,
    /// Frequencies, row-major `m x d` (row k is `w_k`).
    omega: Vec<f64>,
    /// The same, transposed (`d x m`): `u = sum_i x_i W[:, i]` runs over contiguous
    /// rows, and sums each `<w_k, x>` in the same order as a row-by-row dot product.
    omega_t: Vec<f64>,
    /// Phases `b_k` (empty for `CosSin`).
    offset: Vec<f64>,
    /// `max_k ||w_k||_1 + max_k |b_k|`, computed on first use (bounds `|<w_k, x> + b_k|`).
    #[serde(skip)]
    bound: std::sync::OnceLock<f64>,
}

/// `(gaussian, sigma)` of a kernel with random Fourier features: they exist for
/// shift-invariant kernels only (Bochner), here the Gaussian and the Laplacian.
pub fn spectral(kernel: &Kernel) -> Result<(bool, f64)> {
    match *kernel {
        Kernel::Gaussian { sigma } => Ok((true, sigma)),
        Kernel::Laplacian { sigma } => Ok((false, sigma)),
        _ => crate::param_err!(
            "random Fourier features need a shift-invariant kernel (Gaussian or Laplacian), got {kernel:?}"
        ),
    }
}

impl RandomFourier {
    /// Draws `m` features of `kernel` for inputs of dimension `d` from `rng`.
    pub fn draw(
        kernel: &Kernel,
        d: usize,
        m: usize,
        variant: RffVariant,
        rng: &mut Rng,
    ) -> Result<Self> {
        Self::draw_at_most(kernel, d, m, variant, rng, MAX_RFF_FEATURES)
    }

    /// [`RandomFourier::draw`] with the learner's own cap on `m` (a learner linear in
    /// `m`, such as FOGD, allows more than the AWV learners' [`MAX_RFF_FEATURES`]).
    pub fn draw_at_most(
        kernel: &Kernel,
        d: usize,
        m: usize,
        variant: RffVariant,
        rng: &mut Rng,
        max_m: usize,
    ) -> Result<Self> {
        if m == 0 || m > max_m {
            return crate::param_err!("n_features must be in [1, {max_m}], got {m}");
        }
        if d == 0 {
            return crate::input_err!("inputs need at least one feature");
        }
        let (gaussian, sigma) = spectral(kernel)?;
        let what = "the random Fourier frequency matrix";
        crate::limits::check_input_doubles(
            &format!("{m} random Fourier features on {d}-dimensional inputs"),
            Some(map_doubles(m, d)),
        )?;
        let md = m
            .checked_mul(d)
            .ok_or_else(|| crate::KsError::Input(format!("{what}: {m} x {d} overflows")))?;
        let mut omega = crate::limits::try_with_capacity(what, md)?;
        let mut offset = Vec::with_capacity(if variant == RffVariant::Cos { m } else { 0 });
        for _ in 0..m {
            for _ in 0..d {
                // eq. (3): N(0, sigma^-2); eq. (4): Cauchy with scale 1/sigma.
                let w = if gaussian { rng.normal() / sigma } else { rng.cauchy() / sigma };
                omega.push(w);
            }
            if variant == RffVariant::Cos {
                offset.push(2.0 * std::f64::consts::PI * rng.uniform());
            }
        }
        Self::from_parts(d, variant, omega, offset)
    }

    /// The map of given frequencies (row-major `m x d`, `m = omega.len() / d`) and
    /// phases (empty for `CosSin`); `d >= 1`.
    pub fn from_parts(
        d: usize,
        variant: RffVariant,
        omega: Vec<f64>,
        offset: Vec<f64>,
    ) -> Result<Self> {
        let m = omega.len() / d.max(1);
        let mut omega_t = crate::limits::try_zeros("the random Fourier frequency matrix", m * d)?;
        for k in 0..m {
            for i in 0..d {
                omega_t[i * m + k] = omega[k * d + i];
            }
        }
        Ok(RandomFourier { d, m, variant, omega, omega_t, offset, bound: Default::default() })
    }

    pub fn n_frequencies(&self) -> usize {
        self.m
    }
    pub fn variant(&self) -> RffVariant {
        self.variant
    }
    /// Frequencies, row-major `m x d`.
    pub fn omega(&self) -> &[f64] {
        &self.omega
    }
    /// Phases (empty for `CosSin`).
    pub fn offset(&self) -> &[f64] {
        &self.offset
    }

    /// `NumericalError` if a projection `<w_k, x> + b_k` of the finite input `x`
    /// overflows (its cosine would be NaN). O(d) unless `x` is huge: the bound
    /// `||w_k||_1 ||x||_inf + |b_k|` decides, else the projections are computed.
    pub fn check_input(&self, x: &[f64]) -> Result<()> {
        let bound = *self.bound.get_or_init(|| {
            let w1 = self
                .omega
                .chunks_exact(self.d.max(1))
                .map(|w| w.iter().map(|v| v.abs()).sum::<f64>())
                .fold(0.0, f64::max);
            w1 + self.offset.iter().fold(0.0f64, |a, b| a.max(b.abs()))
        });
        let xmax = x.iter().fold(0.0f64, |a, v| a.max(v.abs()));
        if xmax * bound < 1e300 {
            return Ok(());
        }
        let mut u = vec![0.0; self.m];
        let b = (self.variant == RffVariant::Cos).then_some(self.offset.as_slice());
        project(&self.omega_t, self.m, x, &mut u, b);
        if u.iter().all(|v| v.is_finite()) {
            Ok(())
        } else {
            Err(crate::KsError::Numerical(format!(
                "x (largest |x_i| = {xmax:.6e}) is too large for the random features: \
                 a projection <w, x> overflows double precision"
            )))
        }
    }
}

/// Doubles held by one map of `m` frequencies on `d`-dimensional inputs: the
/// `m x d` frequencies twice (row-major and transposed) and the phases.
pub fn map_doubles(m: usize, d: usize) -> u128 {
    2 * m as u128 * d as u128 + m as u128
}

/// [`RandomFourier::check_input`] for every map.
pub fn check_inputs(maps: &[RandomFourier], x: &[f64]) -> Result<()> {
    maps.iter().try_for_each(|f| f.check_input(x))
}

/// [`check_inputs`] once the maps are drawn (`None`: not yet, nothing to check).
pub fn check_drawn(maps: Option<&[RandomFourier]>, x: &[f64]) -> Result<()> {
    maps.map_or(Ok(()), |m| check_inputs(m, x))
}

/// After a first round drew the maps of `state`: checks `x` against them and, if
/// it does not fit, drops the state again (the learner is as before the call).
pub fn keep_draw_if_fits<S>(
    state: &mut Option<S>,
    maps: impl Fn(&S) -> &[RandomFourier],
    x: &[f64],
) -> Result<()> {
    let fits = check_drawn(state.as_ref().map(maps), x);
    if fits.is_err() {
        *state = None;
    }
    fits
}

impl FeatureMap for RandomFourier {
    fn input_dim(&self) -> usize {
        self.d
    }
    fn dim(&self) -> usize {
        match self.variant {
            RffVariant::Cos => self.m,
            RffVariant::CosSin => 2 * self.m,
        }
    }
    fn map_into(&self, x: &[f64], out: &mut [f64]) {
        let m = self.m;
        match self.variant {
            RffVariant::Cos => {
                let out = &mut out[..m];
                project(&self.omega_t, m, x, out, Some(&self.offset));
                // sqrt(2) cos(<w_k, x> + b_k)
                trig::cos_in_place(out, std::f64::consts::SQRT_2);
            }
            RffVariant::CosSin => {
                let (co, si) = out[..2 * m].split_at_mut(m);
                project(&self.omega_t, m, x, si, None);
                // [cos<w_k, x>]_k ++ [sin<w_k, x>]_k, scaled by 1/sqrt(m)
                trig::sincos_in_place(co, si, 1.0 / (m as f64).sqrt());
            }
        }
    }
}

crate::dispatch! {
    /// `u_k = <w_k, x> (+ b_k)` for every k (`omega_t` is `W^T`, `d x m` row-major),
    /// summed over `i = 0..d` in order (as a row-by-row dot product would), the phase
    /// added last; one pass per input coordinate. Compiled per path ([`crate::simd`]).
    fn project(omega_t: &[f64], m: usize, x: &[f64], u: &mut [f64], offset: Option<&[f64]>) => project_impl, project_on;
}

#[inline(always)]
fn project_impl<I: Isa>(
    omega_t: &[f64],
    m: usize,
    x: &[f64],
    u: &mut [f64],
    offset: Option<&[f64]>,
) {
    let d = x.len();
    let mut rows = omega_t.chunks_exact(m);
    if let Some(first) = rows.next() {
        let x0 = x[0];
        match (d, offset) {
            (1, Some(b)) => {
                for ((v, w), bk) in u.iter_mut().zip(first).zip(b) {
                    *v = I::mul_add(*w, x0, *bk);
                }
                return;
            }
            _ => {
                for (v, w) in u.iter_mut().zip(first) {
                    *v = w * x0;
                }
            }
        }
    }
    for (xi, row) in x[1..].iter().zip(rows) {
        for (v, w) in u.iter_mut().zip(row) {
            *v = I::mul_add(*w, *xi, *v);
        }
    }
    if let Some(b) = offset {
        for (v, bk) in u.iter_mut().zip(b) {
            *v += bk;
        }
    }
}

impl crate::state::ValidState for RandomFourier {
    fn validate(&self) -> Result<()> {
        use crate::state::*;
        ensure(self.d >= 1, || "the input dimension is 0".into())?;
        ensure((1..=MAX_RFF_FEATURES).contains(&self.m), || {
            format!("{} random features (at most {MAX_RFF_FEATURES})", self.m)
        })?;
        let md = product("frequencies", self.m, self.d)?;
        len_is("frequencies", self.omega.len(), md)?;
        len_is("transposed frequencies", self.omega_t.len(), md)?;
        let nb = if self.variant == RffVariant::Cos { self.m } else { 0 };
        len_is("phases", self.offset.len(), nb)?;
        finite("frequencies", &self.omega)?;
        finite("phases", &self.offset)?;
        for k in 0..self.m {
            for i in 0..self.d {
                ensure(self.omega_t[i * self.m + k] == self.omega[k * self.d + i], || {
                    "the transposed frequencies disagree with the frequencies".into()
                })?;
            }
        }
        Ok(())
    }
    fn check_config(&self, fresh: &Self) -> Result<()> {
        crate::state::same("features", &self.variant, &fresh.variant)?;
        crate::state::same("n_features", &self.m, &fresh.m)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unbiased_gaussian_and_laplacian() {
        // VAW2 paper, sec. 2 (after eq. (4)): E 2 cos(w.x+b) cos(w.y+b) = k(x, y);
        // 20 x 20,000 features.
        let mut rng = Rng::new(4);
        let (m, chunks) = (20_000, 20);
        let x = [0.3, -0.2];
        let yg = [0.3 + 0.6, -0.2 + 0.8]; // ||x-y||_2 = 1
        let yl = [0.3 + 0.4, -0.2 - 0.6]; // ||x-y||_1 = 1
        let (mut eg, mut el) = (0.0, 0.0);
        for _ in 0..chunks {
            let g = RandomFourier::draw(
                &Kernel::Gaussian { sigma: 1.0 },
                2,
                m,
                RffVariant::Cos,
                &mut rng,
            )
            .unwrap();
            eg += g.map(&x).iter().zip(g.map(&yg)).map(|(a, b)| a * b).sum::<f64>()
                / (m * chunks) as f64;
            let l = RandomFourier::draw(
                &Kernel::Laplacian { sigma: 1.0 },
                2,
                m,
                RffVariant::CosSin,
                &mut rng,
            )
            .unwrap();
            el += l.map(&x).iter().zip(l.map(&yl)).map(|(a, b)| a * b).sum::<f64>() / chunks as f64;
            // ||Phi(x)||^2 = 1 for the normalised cos/sin map.
            let n: f64 = l.map(&x).iter().map(|v| v * v).sum();
            assert!((n - 1.0).abs() < 1e-9);
        }
        assert!((eg - (-0.5f64).exp()).abs() < 6e-3, "{eg}");
        assert!((el - (-1.0f64).exp()).abs() < 6e-3, "{el}");
    }
}
