//! FOGD: Fourier Online Gradient Descent. Lu, Hoi, Wang, Zhao, Liu (2016),
//! *Large Scale Online Kernel Learning*, JMLR 17, Algorithm 1 (FOGD); the
//! first-order baseline of the PROS-N-KONS paper (sec. 5, Tables 1-2) and of the PKAWV
//! paper (sec. 4).
//!
//! * `z(x) = D^{-1/2} (cos(u_1.x), ..., cos(u_D.x), sin(u_1.x), ..., sin(u_D.x))`
//!   so that `z(x).z(x') = D^{-1} sum_i cos(u_i.(x - x')) ~ k(x, x')`: the `CosSin`
//!   map of [`crate::features::rff`] (frequencies drawn once, when `d` is known, from
//!   the kernel's spectral density, in that module's order).
//! * Predict `f(x) = w.z(x)`; update `w <- w - lr l'(f(x_t), y_t) z(x_t)`.
//!   With `epsilon > 0` (squared loss), no update when `|f - y| <= epsilon`: the
//!   epsilon-insensitive rule of Lu et al.'s public regression code.
//!
//! Lu et al.'s code uses unnormalised features (no `D^{-1/2}`) with the step
//! `eta`; that is this learner with `lr = eta * D` (squared loss: `eta * D / 2`,
//! since their step uses `y - f` and ours `l'(f) = 2 (f - y)`).

use super::losses::Loss;
use super::OnlineLearner;
use crate::error::{positive, Result};
use crate::features::rff::{self, RandomFourier, RffVariant};
use crate::features::FeatureMap;
use crate::kernels::Kernel;
use crate::linalg::blas::{axpy, dot};
use crate::rng::Rng;
use serde::{Deserialize, Serialize};

/// Largest number of frequencies accepted (the weights are `2 D` doubles and the
/// frequencies `D d`, stored twice by the map).
pub const MAX_FOGD_FEATURES: usize = 10_000_000;

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Fogd {
    kernel: Kernel,
    n_features: usize,
    lr: f64,
    loss: Loss,
    epsilon: f64,
    seed: u64,
    rng: Rng,
    n_seen: u64,
    /// Built on the first call, when `d` becomes known.
    state: Option<FogdState>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(try_from = "FogdStateFields", into = "FogdStateFields")]
struct FogdState {
    /// The map `z` (`CosSin`, `D` frequencies).
    map: RandomFourier,
    /// Weights on `z(x)` (length `2 D`).
    w: Vec<f64>,
    /// Scratch for `z(x_t)`.
    z: Vec<f64>,
}

/// The serialised fields of [`FogdState`] (the layout of state format 3): the input
/// dimension, the frequencies row-major `D x d`, the weights.
#[derive(Serialize, Deserialize)]
struct FogdStateFields {
    d: usize,
    freqs: Vec<f64>,
    w: Vec<f64>,
}

impl TryFrom<FogdStateFields> for FogdState {
    type Error = crate::KsError;
    fn try_from(f: FogdStateFields) -> Result<Self> {
        // Sizes are checked by `validate` (a zero `d` leaves an empty map).
        let map = RandomFourier::from_parts(f.d, RffVariant::CosSin, f.freqs, Vec::new())?;
        Ok(FogdState { map, z: Vec::new(), w: f.w })
    }
}

impl From<FogdState> for FogdStateFields {
    fn from(s: FogdState) -> Self {
        FogdStateFields { d: s.map.input_dim(), freqs: s.map.omega().to_vec(), w: s.w }
    }
}

crate::params! {
    /// The parameters of [`Fogd`] (defaults: those of the Python class `FOGD`).
    pub struct FogdParams {
        use crate::features::rff::kernel_row;
        /// Frequencies `m` (`2m` features).
        n_features: usize = 100 => "int", "in [1, 10000000]";
        /// Step size of the gradient step.
        lr: f64 = 0.1 => "float", "> 0";
        use crate::learners::losses::loss_row;
        use crate::learners::losses::epsilon_row;
        use crate::features::rff::seed_row;
    }
}

impl FogdParams {
    pub fn validate(&self) -> Result<()> {
        crate::params::required("FOGD", "a kernel", &self.kernel)?;
        let n_features = self.n_features;
        if n_features == 0 || n_features > MAX_FOGD_FEATURES {
            return crate::param_err!(
                "n_features must be an integer in [1, {MAX_FOGD_FEATURES}], got {n_features}"
            );
        }
        positive("lr", self.lr)?;
        self.loss.check_epsilon(self.epsilon)?;
        crate::limits::check_doubles(
            &format!("FOGD with {n_features} features"),
            Some(4 * n_features as u128),
        )?;
        Ok(())
    }
}

impl Fogd {
    pub fn new(p: &FogdParams) -> Result<Self> {
        p.validate()?;
        let Some(kernel) = p.kernel else { return crate::param_err!("FOGD needs a kernel") };
        let (n_features, lr, loss, epsilon, seed) = (p.n_features, p.lr, p.loss, p.epsilon, p.seed);
        // Validate the kernel now rather than at the first call.
        rff::spectral(&kernel)?;
        Ok(Fogd {
            kernel,
            n_features,
            lr,
            loss,
            epsilon,
            seed,
            rng: Rng::new(seed),
            n_seen: 0,
            state: None,
        })
    }

    pub fn loss(&self) -> Loss {
        self.loss
    }

    fn ensure_state(&mut self, d: usize) -> Result<&mut FogdState> {
        if self.state.is_none() {
            let (kernel, n) = (&self.kernel, self.n_features);
            let map = RandomFourier::draw_at_most(
                kernel,
                d,
                n,
                RffVariant::CosSin,
                &mut self.rng,
                MAX_FOGD_FEATURES,
            )?;
            self.state = Some(FogdState { map, w: vec![0.0; 2 * n], z: vec![0.0; 2 * n] });
        }
        let st = super::batch::built(&mut self.state, "FOGD")?;
        super::batch::sized(&mut st.z, st.w.len());
        Ok(st)
    }

    /// The random features `z(x)` (None before the first call fixes `d`).
    pub fn features(&self, x: &[f64]) -> Option<Vec<f64>> {
        self.state.as_ref().map(|st| st.map.map(x))
    }

    /// The frequencies, row-major `D x d` (None before the first call).
    pub fn frequencies(&self) -> Option<&[f64]> {
        self.state.as_ref().map(|s| s.map.omega())
    }

    /// The weight vector on `z(x)`.
    pub fn weights(&self) -> Option<&[f64]> {
        self.state.as_ref().map(|s| s.w.as_slice())
    }
}

/// Finite inputs whose projections `<u, x>` overflow give NaN features: refuse them.
fn finite_features(z: &[f64]) -> Result<()> {
    if z.iter().all(|v| v.is_finite()) {
        Ok(())
    } else {
        Err(crate::KsError::Numerical(
            "x is too large for the random features: a projection <u, x> overflows".into(),
        ))
    }
}

impl OnlineLearner for Fogd {
    fn input_dim(&self) -> Option<usize> {
        self.state.as_ref().map(|s| s.map.input_dim())
    }

    fn check_row(&self, _x: &[f64], y: Option<f64>) -> Result<()> {
        match y {
            Some(y) => self.loss.check_label(y),
            None => Ok(()),
        }
    }

    fn check_input_dim(&self, d: usize) -> Result<()> {
        if self.n_features.checked_mul(d).is_none_or(|n| n > 100_000_000) {
            return crate::param_err!(
                "n_features x d = {} x {d} frequencies is too many",
                self.n_features
            );
        }
        crate::limits::check_input_doubles(
            &format!("FOGD with {} features on {d}-dimensional inputs", self.n_features),
            self.memory_doubles(d),
        )
    }

    /// The map's frequencies ([`rff::map_doubles`]: `D x d` twice) and the weights and
    /// features (`4 D`).
    fn memory_doubles(&self, d: usize) -> Option<u128> {
        rff::map_doubles(self.n_features, d).checked_add(4 * self.n_features as u128)
    }

    fn predict(&self, x: &[f64]) -> Result<f64> {
        match &self.state {
            // w_0 = 0: the first prediction is 0.
            None => Ok(0.0),
            Some(st) => {
                let z = st.map.map(x);
                finite_features(&z)?;
                Ok(dot(&st.w, &z))
            }
        }
    }

    fn predict_learn(&mut self, x: &[f64], y: f64) -> Result<f64> {
        let (lr, loss, epsilon) = (self.lr, self.loss, self.epsilon);
        let rng0 = self.state.is_none().then(|| self.rng.clone());
        let st = self.ensure_state(x.len())?;
        st.map.map_into(x, &mut st.z);
        if let Err(e) = finite_features(&st.z) {
            // Nothing learned: undo the first round's draw too.
            if let Some(r) = rng0 {
                self.state = None;
                self.rng = r;
            }
            return Err(e);
        }
        let f = dot(&st.w, &st.z);
        let active = loss != Loss::Squared || (f - y).abs() > epsilon;
        if active {
            let g = loss.deriv(f, y);
            if g != 0.0 {
                // w <- w - lr l'(f) z(x)  (Lu et al., Alg. 1).
                axpy(-lr * g, &st.z, &mut st.w);
            }
        }
        self.n_seen += 1;
        Ok(f)
    }

    fn n_seen(&self) -> u64 {
        self.n_seen
    }

    fn dim(&self) -> usize {
        2 * self.n_features
    }
}

// The format version of a pickled Fogd: bump it when a serialised field changes.
crate::state::state_version!(Fogd, 4);

impl crate::state::ValidState for Fogd {
    fn validate(&self) -> Result<()> {
        use crate::state::*;
        if let Some(st) = &self.state {
            let d = st.map.input_dim();
            ensure(d >= 1, || "the input dimension is 0".into())?;
            self.check_input_dim(d)?;
            len_is(
                "frequencies",
                st.map.omega().len(),
                product("frequencies", self.n_features, d)?,
            )?;
            len_is("weights", st.w.len(), 2 * self.n_features)?;
            finite("frequencies", st.map.omega())?;
            finite("weights", &st.w)?;
        }
        Ok(())
    }
    fn check_config(&self, fresh: &Self) -> Result<()> {
        crate::state::same_fields!(self, fresh; kernel, n_features, lr, loss, epsilon, seed)
    }
}

crate::state_params!(Fogd; kernel, n_features, lr, loss, epsilon, seed);
