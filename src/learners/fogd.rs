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
use super::online_learner::OnlineLearner;
use crate::error::{positive, Result};
use crate::features::rff::{self, RandomFourier, RffVariant};
use crate::features::FeatureMap;
use crate::kernels::Kernel;
use crate::linalg::blas::{axpy, dot};
use crate::rng::Rng;
use crate::uncertainty::{NoiseLevel, NOISE_MEMORY};
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
    /// The residuals' level `sigma_hat` (squared loss, one output): the plug-in
    /// predictive standard deviation (docs/choices.md, "Predictive variance").
    noise: NoiseLevel,
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
            noise: NoiseLevel::default(),
        })
    }

    pub fn loss(&self) -> Loss {
        self.loss
    }

    /// The state, built on the first call with `k` outputs (`k` is ignored after it).
    fn ensure_state(&mut self, d: usize, k: usize) -> Result<&mut FogdState> {
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
            let w = vec![0.0; 2 * n * k.max(1)];
            self.state = Some(FogdState { map, w, z: vec![0.0; 2 * n] });
        }
        let n2 = 2 * self.n_features;
        let st = super::batch::built(&mut self.state, "FOGD")?;
        super::batch::sized(&mut st.z, n2);
        Ok(st)
    }

    /// The number of outputs `K` of a built state (`w` holds `K` blocks of `2 D`).
    fn outputs_of(&self, st: &FogdState) -> usize {
        st.w.len() / (2 * self.n_features).max(1)
    }

    /// One round with the `K = y.len()` targets: the `K` predictions `w_c . z(x)` made
    /// before the labels into `out`, then each column's gradient step.
    fn round(&mut self, x: &[f64], y: &[f64], w: f64, out: &mut [f64]) -> Result<()> {
        // Sample weight w: the loss w l(f, y), so the step is w lr l'(f) (w lr = lr
        // exactly for w = 1).
        let (lr, loss, epsilon) = (w * self.lr, self.loss, self.epsilon);
        let rng0 = self.state.is_none().then(|| self.rng.clone());
        let st = self.ensure_state(x.len(), y.len())?;
        st.map.map_into(x, &mut st.z);
        if let Err(e) = finite_features(&st.z) {
            // Nothing learned: undo the first round's draw too.
            if let Some(r) = rng0 {
                self.state = None;
                self.rng = r;
            }
            return Err(e);
        }
        let n2 = st.z.len();
        for ((o, &yc), wc) in out.iter_mut().zip(y).zip(st.w.chunks_exact_mut(n2)) {
            let f = dot(wc, &st.z);
            *o = f;
            let active = loss != Loss::Squared || (f - yc).abs() > epsilon;
            if active {
                let g = loss.deriv(f, yc);
                if g != 0.0 {
                    // w <- w - lr l'(f) z(x)  (Lu et al., Alg. 1), column by column.
                    axpy(-lr * g, &st.z, wc);
                }
            }
        }
        if let ([yt], [pt]) = (y, &*out) {
            if loss == Loss::Squared {
                // The residual of the prediction made before the label (no leverage
                // term: a first-order learner has no A^{-1}).
                self.noise.observe_weighted(NOISE_MEMORY, *yt, *pt, 0.0, w);
            }
        }
        self.n_seen += 1;
        Ok(())
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
                let k = self.outputs_of(st);
                if k > 1 {
                    return crate::multi::single_output_err(k);
                }
                let z = st.map.map(x);
                finite_features(&z)?;
                Ok(dot(&st.w, &z))
            }
        }
    }

    fn predict_learn(&mut self, x: &[f64], y: f64) -> Result<f64> {
        if let Some(k) = self.state.as_ref().map(|st| self.outputs_of(st)).filter(|&k| k > 1) {
            return crate::multi::single_output_err(k);
        }
        let mut f = [0.0];
        self.round(x, &[y], 1.0, &mut f)?;
        Ok(f[0])
    }

    /// The step on the weighted loss `w l(f, y)`: `w <- w - w lr l'(f) z(x)`.
    fn predict_learn_weighted(&mut self, x: &[f64], y: f64, w: f64) -> Result<f64> {
        if let Some(k) = self.state.as_ref().map(|st| self.outputs_of(st)).filter(|&k| k > 1) {
            return crate::multi::single_output_err(k);
        }
        let mut f = [0.0];
        self.round(x, &[y], w, &mut f)?;
        Ok(f[0])
    }

    fn supports_weights(&self) -> bool {
        true
    }

    fn n_seen(&self) -> u64 {
        self.n_seen
    }

    fn dim(&self) -> usize {
        2 * self.n_features
    }

    /// The squared loss's plug-in predictive standard deviation: `sigma_hat`, the
    /// discounted root mean square of the past residuals (NaN before any round); no
    /// input-dependent factor. None for a classification loss.
    fn predict_std(&self, x: &[f64]) -> Result<Option<(f64, f64)>> {
        if self.loss != Loss::Squared {
            return Ok(None);
        }
        let f = self.predict(x)?;
        Ok(Some((f, self.noise.std(0.0))))
    }

    fn noise_std(&self) -> Option<f64> {
        (self.loss == Loss::Squared).then(|| self.noise.std(0.0))
    }
}

/// `K` outputs (inside a mixture: AutoKernel's constant-step experts), each column its
/// own weight vector on the shared features `z(x)`; the squared loss only (a
/// classification loss learns one `-1/+1` label).
impl crate::multi::MultiOutput for Fogd {
    fn n_outputs(&self) -> Option<usize> {
        self.state.as_ref().map(|st| self.outputs_of(st))
    }

    fn check_outputs(&self, k: usize, d: usize) -> Result<()> {
        crate::awv::outputs::check_outputs(k)?;
        if k > 1 && self.loss != Loss::Squared {
            return crate::input_err!(
                "FOGD learns several outputs with the squared loss only, not {}",
                self.loss.name()
            );
        }
        let extra = 2 * self.n_features as u128 * (k as u128 - 1);
        crate::limits::check_input_doubles(
            &format!("FOGD with {k} outputs on {d}-dimensional inputs"),
            self.memory_doubles(d).map(|m| m + extra),
        )
    }

    fn predict_multi(&self, x: &[f64], out: &mut Vec<f64>) -> Result<()> {
        let Some(st) = &self.state else {
            out.push(0.0); // w_0 = 0 (one value while K is unknown)
            return Ok(());
        };
        let z = st.map.map(x);
        finite_features(&z)?;
        out.extend(st.w.chunks_exact(z.len()).map(|wc| dot(wc, &z)));
        Ok(())
    }

    fn predict_learn_multi(&mut self, x: &[f64], y: &[f64], out: &mut Vec<f64>) -> Result<()> {
        match self.n_outputs() {
            // The first round fixes K: its count, loss and memory are checked once.
            None => self.check_outputs(y.len(), x.len())?,
            Some(k) if k != y.len() => {
                return crate::input_err!("y has {} values, this learner has {k} outputs", y.len())
            }
            Some(_) => {}
        }
        let s = out.len();
        out.resize(s + y.len(), 0.0);
        let r = self.round(x, y, 1.0, &mut out[s..]);
        if r.is_err() {
            out.truncate(s);
        }
        r
    }

    fn add_outputs(&mut self, k: usize) -> Result<()> {
        let Some(st) = &self.state else { return crate::multi::before_first_round() };
        let total = self.outputs_of(st).saturating_add(k);
        self.check_outputs(total, st.map.input_dim())?;
        // Columns whose targets were 0 from the first round: their gradient was always
        // 0 (squared loss, w_c = 0 predicts 0), so they are 0.
        let n2 = 2 * self.n_features;
        if let Some(st) = self.state.as_mut() {
            st.w.resize(n2 * total, 0.0);
        }
        Ok(())
    }
}

// The format version of a pickled Fogd: bump it when a serialised field changes.
crate::state::state_version!(Fogd, 5);

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
            let k = self.outputs_of(st);
            ensure((1..=crate::awv::outputs::MAX_OUTPUTS).contains(&k), || {
                format!("{k} outputs (weights of {} values)", st.w.len())
            })?;
            len_is("weights", st.w.len(), product("weights", 2 * self.n_features, k)?)?;
            ensure(k == 1 || self.loss == Loss::Squared, || {
                "several outputs with a classification loss".into()
            })?;
            finite("frequencies", st.map.omega())?;
            finite("weights", &st.w)?;
        }
        self.noise.validate()?;
        Ok(())
    }
    fn check_config(&self, fresh: &Self) -> Result<()> {
        crate::state::same_fields!(self, fresh; kernel, n_features, lr, loss, epsilon, seed)
    }
}

crate::state_params!(Fogd; kernel, n_features, lr, loss, epsilon, seed);
