//! RFFAWV: the Vovk-Azoury-Warmuth forecaster on random Fourier features of one
//! kernel: VAW2 paper (Rokhlin & Gurtovaya 2025), sec. 2, eqs. (8)-(12) (the
//! "expert" of Theorems 2-3); spec `vaw2.md` sec. 3.
//!
//! `w_t = (lam I + sum_{s<=t} phi_s phi_s^T)^{-1} sum_{s<t} y_s phi_s`,
//! `y_hat_t = <w_t, phi_t>` with `phi_t = Phi(x_t)` the random features drawn
//! once from the learner's seed when the input dimension becomes known.
//! `ridge = true` is online ridge instead (the current `phi_t` left out of the
//! matrix, spec sec. 10): `y_hat_t = sum_{s<t} y_s phi_s^T (lam I + sum_{s<t} phi_s phi_s^T)^{-1} phi_t`.

use super::OnlineLearner;
use crate::awv::{check_block_size, LinearAwv};
use crate::error::{positive, Result};
use crate::features::rff::{RandomFourier, RffVariant, MAX_RFF_FEATURES};
use crate::features::FeatureMap;
use crate::kernels::Kernel;
use crate::rng::Rng;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct RffAwv {
    kernel: Kernel,
    n_features: usize,
    lam: f64,
    variant: RffVariant,
    ridge: bool,
    seed: u64,
    /// Rounds per block of `progressive_predict`/`learn_many` (None: automatic
    /// from `r`; 1: single rounds). A run-time setting, not part of the state.
    #[serde(skip)]
    block_size: Option<usize>,
    state: Option<State>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
struct State {
    features: RandomFourier,
    engine: LinearAwv,
    #[serde(skip)]
    v: Vec<f64>,
}

impl RffAwv {
    pub fn new(
        kernel: Kernel,
        n_features: usize,
        lam: f64,
        variant: RffVariant,
        ridge: bool,
        seed: u64,
    ) -> Result<Self> {
        positive("lam", lam)?;
        if n_features == 0 || n_features > MAX_RFF_FEATURES {
            return crate::param_err!(
                "n_features must be in [1, {MAX_RFF_FEATURES}], got {n_features}"
            );
        }
        let r = match variant {
            RffVariant::Cos => n_features,
            RffVariant::CosSin => 2 * n_features,
        };
        crate::limits::check_doubles(
            &format!("RFFAWV with {r} features (the AWV state is r(r+1)/2 doubles)"),
            Some(crate::awv::state_doubles(r)),
        )?;
        Ok(RffAwv { kernel, n_features, lam, variant, ridge, seed, block_size: None, state: None })
    }

    /// Sets the block size (`None`: automatic; `1`: single rounds).
    pub fn with_block_size(mut self, block_size: Option<usize>) -> Result<Self> {
        check_block_size(block_size)?;
        self.block_size = block_size;
        Ok(self)
    }

    /// Sets a checked block size (a run-time setting: see [`Self::with_block_size`]).
    pub(crate) fn set_block_size(&mut self, block_size: Option<usize>) {
        if check_block_size(block_size).is_ok() {
            self.block_size = block_size;
        }
    }

    /// Full rounds over the rows (blocks of rounds on the AWV engine); the first
    /// round of a fresh learner goes through [`OnlineLearner::predict_learn`],
    /// which draws the features.
    fn run_rows(
        &mut self,
        x: &[f64],
        d: usize,
        y: &[f64],
        mut out: Option<&mut Vec<f64>>,
    ) -> Result<()> {
        let (mut x, mut y) = (x, y);
        if self.state.is_none() && !y.is_empty() {
            crate::interrupt::poll()?;
            let p = self.predict_learn(&x[..d], y[0])?;
            if let Some(o) = out.as_deref_mut() {
                o.push(p);
            }
            (x, y) = (&x[d..], &y[1..]);
        }
        let Some(st) = self.state.as_mut() else { return Ok(()) };
        let block = st.engine.block_size(self.block_size);
        let features = &st.features;
        st.engine.predict_learn_rows(
            x,
            d,
            y,
            block,
            |row, f| {
                features.map_into(row, f);
                Ok(())
            },
            out,
        )
    }

    fn state_mut(&mut self, d: usize) -> Result<&mut State> {
        if self.state.is_none() {
            let mut rng = Rng::new(self.seed);
            let features =
                RandomFourier::draw(&self.kernel, d, self.n_features, self.variant, &mut rng)?;
            let engine = LinearAwv::new(features.dim(), self.lam, self.ridge)?;
            let v = vec![0.0; features.dim()];
            self.state = Some(State { features, engine, v });
        }
        let st = self
            .state
            .as_mut()
            .ok_or_else(|| crate::KsError::Internal("RFFAWV state missing".into()))?;
        if st.v.len() != st.engine.dim() {
            st.v = vec![0.0; st.engine.dim()];
        }
        Ok(st)
    }

    /// The drawn features (None before the first round).
    pub fn feature_map(&self) -> Option<&RandomFourier> {
        self.state.as_ref().map(|s| &s.features)
    }

    /// The AWV engine (None before the first round).
    pub fn engine(&self) -> Option<&LinearAwv> {
        self.state.as_ref().map(|s| &s.engine)
    }
}

impl OnlineLearner for RffAwv {
    fn input_dim(&self) -> Option<usize> {
        self.state.as_ref().map(|s| s.features.input_dim())
    }

    /// Finite inputs whose random-feature projections overflow are refused before any change.
    fn check_row(&self, x: &[f64], _y: Option<f64>) -> Result<()> {
        match &self.state {
            Some(st) => crate::features::rff::check_inputs(std::slice::from_ref(&st.features), x),
            None => Ok(()),
        }
    }

    fn predict(&self, x: &[f64]) -> Result<f64> {
        match &self.state {
            Some(st) => Ok(st.engine.predict(&st.features.map(x))),
            // b_0 = 0: the first prediction is 0.
            None => Ok(0.0),
        }
    }

    fn predict_learn(&mut self, x: &[f64], y: f64) -> Result<f64> {
        // The first round draws the features: check x against them, else undo the draw.
        if self.state.is_none() {
            self.state_mut(x.len())?;
            if let Some(Err(e)) = self
                .state
                .as_ref()
                .map(|st| crate::features::rff::check_inputs(std::slice::from_ref(&st.features), x))
            {
                self.state = None;
                return Err(e);
            }
        }
        let st = self.state_mut(x.len())?;
        st.features.map_into(x, &mut st.v);
        Ok(st.engine.predict_learn(&st.v, y))
    }

    fn predict_learn_many(
        &mut self,
        x: &[f64],
        d: usize,
        y: &[f64],
        out: &mut Vec<f64>,
    ) -> Result<()> {
        self.run_rows(x, d, y, Some(out))
    }

    fn learn_batch(&mut self, x: &[f64], d: usize, y: &[f64]) -> Result<()> {
        self.run_rows(x, d, y, None)
    }

    /// One matrix-matrix product per chunk of rows ([`LinearAwv::predict_many`]) when
    /// the learner runs blocks; single predictions (bit for bit `predict`) otherwise.
    fn predict_rows(&self, x: &[f64], d: usize, out: &mut Vec<f64>) -> Result<()> {
        let blocked = self.state.as_ref().filter(|st| st.engine.block_size(self.block_size) > 1);
        let Some(st) = blocked else {
            for row in x.chunks_exact(d) {
                crate::interrupt::poll()?;
                out.push(self.predict(row)?);
            }
            return Ok(());
        };
        let r = st.engine.dim();
        const CHUNK: usize = 256;
        let mut feats = vec![0.0; r * CHUNK.min(x.len() / d.max(1))];
        for xc in x.chunks(CHUNK * d) {
            crate::interrupt::poll()?;
            let k = xc.len() / d;
            for (row, f) in xc.chunks_exact(d).zip(feats.chunks_exact_mut(r)) {
                st.features.map_into(row, f);
            }
            st.engine.predict_many(&feats[..k * r], out);
        }
        Ok(())
    }

    fn n_seen(&self) -> u64 {
        self.state.as_ref().map_or(0, |s| s.engine.n_seen())
    }

    fn dim(&self) -> usize {
        match self.variant {
            RffVariant::Cos => self.n_features,
            RffVariant::CosSin => 2 * self.n_features,
        }
    }
}

impl crate::state::ValidState for RffAwv {
    fn validate(&self) -> Result<()> {
        use crate::state::*;
        if let Some(st) = &self.state {
            st.features.validate()?;
            st.engine.validate()?;
            len_is("AWV dimension", st.engine.dim(), st.features.dim())?;
            same("n_features", &st.features.n_frequencies(), &self.n_features)?;
            same("features", &st.features.variant(), &self.variant)?;
            same("lam", &st.engine.lam(), &self.lam)?;
        }
        Ok(())
    }
    fn check_config(&self, fresh: &Self) -> Result<()> {
        use crate::state::same;
        same("kernel", &self.kernel, &fresh.kernel)?;
        same("n_features", &self.n_features, &fresh.n_features)?;
        same("lam", &self.lam, &fresh.lam)?;
        same("features", &self.variant, &fresh.variant)?;
        same("ridge", &self.ridge, &fresh.ridge)?;
        same("seed", &self.seed, &fresh.seed)
    }
    fn adopt_settings(&mut self, fresh: &Self) {
        self.block_size = fresh.block_size;
    }
}
