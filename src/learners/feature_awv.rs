//! Linear AWV on a lazily built feature map: the learner behind [`super::TaylorAwv`]
//! (PKAWV on the Taylor basis, PKAWV paper sec. 3.1, Algorithm 1) and
//! [`super::RffAwv`] (the VAW2 expert on random Fourier features, VAW2 paper
//! sec. 2, eqs. (8)-(12)).
//!
//! The map `phi` is built from the learner's parameters when the first input fixes
//! the dimension `d`; every round then runs the linear AWV engine on `phi(x_t)`
//! (`b_0 = 0`: the first prediction is 0).

use super::batch::Rows;
use super::online_learner::OnlineLearner;
use crate::awv::{check_block_size, LinearAwv};
use crate::error::Result;
use crate::features::FeatureMap;
use crate::state::ValidState;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use std::fmt::Debug;

/// A feature map built from parameters fixed at construction once the input
/// dimension is known, with the checks a [`FeatureAwv`] needs from it.
pub trait LazyFeatureMap:
    FeatureMap + ValidState + Clone + Debug + Serialize + DeserializeOwned
{
    /// The parameters the map is built from.
    type Params: Clone + Debug + Serialize + DeserializeOwned;
    /// The learner's name in messages.
    const LEARNER: &'static str;

    /// Builds the map for inputs of dimension `d`.
    fn build(params: &Self::Params, d: usize) -> Result<Self>;
    /// The feature count when it does not depend on `d`.
    fn known_dim(_params: &Self::Params) -> Option<usize> {
        None
    }
    /// The feature count for `d`-dimensional inputs (`None`: beyond any address space).
    fn feature_count(params: &Self::Params, _d: usize) -> Option<usize> {
        Self::known_dim(params)
    }
    /// Checks the parameters that depend on `d` before the first round.
    fn check_input_dim(_params: &Self::Params, _d: usize) -> Result<()> {
        Ok(())
    }
    /// Doubles of the map and the AWV state it feeds for `d`-dimensional inputs.
    fn memory_doubles(params: &Self::Params, d: usize) -> Option<u128>;
    /// Refuses a finite input whose features would overflow (before any change).
    fn check_input(&self, _x: &[f64]) -> Result<()> {
        Ok(())
    }
    /// Refuses mapped features that overflowed (a map [`Self::check_input`] cannot
    /// screen cheaply checks after mapping).
    fn check_features(&self, _v: &[f64]) -> Result<()> {
        Ok(())
    }
    /// Where each feature of this map sits in `wider`, the same map on more inputs,
    /// when the features of a row extended by zeros are this map's features of the row
    /// at those places and 0 elsewhere (`None`: not so, no exact widening).
    fn embedding(&self, _wider: &Self) -> Option<Vec<usize>> {
        None
    }
    /// The built map agrees with `params` (decoded state).
    fn check_built(&self, params: &Self::Params) -> Result<()>;
    /// `params` equal `fresh`, field by field (decoded state).
    fn check_params(params: &Self::Params, fresh: &Self::Params) -> Result<()>;
}

/// Linear AWV (or online ridge, `ridge = true`) with regularisation `lam` on the
/// features `F` built from `params` at the first round.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(bound = "")]
pub struct FeatureAwv<F: LazyFeatureMap> {
    params: F::Params,
    lam: f64,
    ridge: bool,
    /// Forgetting factor in (0, 1] (docs/choices.md, "Discounted AWV"); absent in
    /// states saved before it existed: 1.
    #[serde(default = "crate::awv::no_discount")]
    gamma: f64,
    /// Rounds per block of `progressive_predict`/`learn_many` (None: automatic
    /// from `r`; 1: single rounds). A run-time setting, not part of the state.
    #[serde(skip)]
    block_size: Option<usize>,
    /// Built on the first call, when `d` becomes known.
    state: Option<State<F>>,
    /// The input of [`OnlineLearner::predict_keep`] (its features in `state.v`).
    #[serde(skip)]
    kept: super::kept::Kept,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(bound = "")]
struct State<F: LazyFeatureMap> {
    features: F,
    engine: LinearAwv,
    #[serde(skip)]
    v: Vec<f64>,
}

/// The memory ceiling for an AWV state on `r` features (about `r(r+1)/2` doubles).
pub(crate) fn check_awv_memory(learner: &str, r: usize) -> Result<()> {
    crate::limits::check_doubles(
        &format!("{learner} with {r} features (the AWV state is r(r+1)/2 doubles)"),
        Some(crate::awv::state_doubles(r)),
    )
}

/// Declares the parameter struct ([`crate::params!`]) of a learner on the AWV engine
/// with fixed features: its own fields, then the engine's three (`ridge`, `block_size`,
/// `gamma`; checked by [`crate::awv::check_block_size`] and [`crate::awv::check_gamma`]).
macro_rules! feature_awv_params {
    ($(#[$m:meta])* pub struct $name:ident { $($own:tt)* }) => {
        $crate::params! {
            $(#[$m])*
            pub struct $name {
                $($own)*
                /// Online ridge (predict with `A_{t-1}`) instead of AWV.
                ridge: bool = false => "bool", $crate::params::flag();
                /// Rounds per block of a whole-stream call (None: automatic); not part of the state.
                block_size: Option<usize> = None => "int", $crate::awv::BLOCK_SIZE;
                /// Forgetting factor (discounted VAW; 1: none).
                gamma: f64 = 1.0 => "float", $crate::awv::GAMMA;
            }
        }
    };
}
pub(crate) use feature_awv_params;

crate::params::shared_rows! {
    /// The row `lam` (the AWV ridge) of the same learners, where each places it.
    lam_row {
        /// Ridge parameter `lambda`.
        lam: f64 = 1.0 => "float", crate::params::SCALE;
    }
}

impl<F: LazyFeatureMap> FeatureAwv<F> {
    /// The learner for already checked parameters (the learner's `validate`).
    pub(crate) fn with_params(params: F::Params, lam: f64, ridge: bool) -> Self {
        FeatureAwv {
            params,
            lam,
            ridge,
            gamma: 1.0,
            block_size: None,
            state: None,
            kept: Default::default(),
        }
    }

    /// Sets the forgetting factor `gamma` in (0, 1] (1: no discounting).
    pub fn with_gamma(mut self, gamma: f64) -> Result<Self> {
        self.gamma = crate::awv::check_gamma(gamma)?;
        Ok(self)
    }

    pub fn gamma(&self) -> f64 {
        self.gamma
    }

    /// Sets the block size (`None`: automatic; `1`: single rounds).
    pub fn with_block_size(mut self, block_size: Option<usize>) -> Result<Self> {
        check_block_size(block_size)?;
        self.block_size = block_size;
        Ok(self)
    }

    pub fn params(&self) -> &F::Params {
        &self.params
    }

    /// The state, built for `d`-dimensional inputs and `k` outputs on the first round.
    fn state_mut(&mut self, d: usize, k: usize) -> Result<&mut State<F>> {
        if self.state.is_none() {
            let features = F::build(&self.params, d)?;
            crate::awv::check_discount_span(self.gamma, features.dim(), "features")?;
            let engine = LinearAwv::new(features.dim(), self.lam, self.ridge)?
                .with_gamma(self.gamma)?
                .with_outputs(k)?;
            let v = vec![0.0; features.dim()];
            self.state = Some(State { features, engine, v });
        }
        let st = super::batch::built(&mut self.state, F::LEARNER)?;
        super::batch::sized(&mut st.v, st.engine.dim());
        Ok(st)
    }

    /// The built feature map (None before the first round).
    pub fn feature_map(&self) -> Option<&F> {
        self.state.as_ref().map(|s| &s.features)
    }

    /// The AWV engine (None before the first round).
    pub fn engine(&self) -> Option<&LinearAwv> {
        self.state.as_ref().map(|s| &s.engine)
    }

    /// `phi(x)` by the built map (None before the first round); an `InputError` if
    /// `x` has another length than the inputs learned.
    pub fn mapped(&self, x: &[f64]) -> Result<Option<Vec<f64>>> {
        match self.feature_map() {
            Some(f) if x.len() != f.input_dim() => crate::input_err!(
                "x has {} features, the learner was fed {}-dimensional inputs",
                x.len(),
                f.input_dim()
            ),
            Some(f) => Ok(Some(f.map(x))),
            None => Ok(None),
        }
    }
}

impl<F: LazyFeatureMap> OnlineLearner for FeatureAwv<F> {
    fn input_dim(&self) -> Option<usize> {
        self.state.as_ref().map(|s| s.features.input_dim())
    }

    fn check_input_dim(&self, d: usize) -> Result<()> {
        F::check_input_dim(&self.params, d)?;
        crate::limits::check_input_doubles(
            &format!("{} on {d}-dimensional inputs", F::LEARNER),
            self.memory_doubles(d),
        )
    }

    fn memory_doubles(&self, d: usize) -> Option<u128> {
        F::memory_doubles(&self.params, d)
    }

    fn check_row(&self, x: &[f64], y: Option<f64>) -> Result<()> {
        if y.is_some() && self.outputs() > 1 {
            return crate::multi::single_output_err(self.outputs());
        }
        self.state.as_ref().map_or(Ok(()), |st| st.features.check_input(x))
    }

    fn predict(&self, x: &[f64]) -> Result<f64> {
        match self.single_output_features(x)? {
            Some((st, v)) => Ok(st.engine.predict(&v)),
            // b_0 = 0: the first prediction is 0.
            None => {
                self.check_input_dim(x.len())?;
                Ok(0.0)
            }
        }
    }

    fn noise_std(&self) -> Option<f64> {
        Some(self.state.as_ref().map_or(f64::NAN, |st| st.engine.noise_std()))
    }

    fn widen_inputs(&mut self, d: usize) -> Result<()> {
        self.widen_engine(d)
    }

    fn predict_std(&self, x: &[f64]) -> Result<Option<(f64, f64)>> {
        match self.single_output_features(x)? {
            Some((st, v)) => Ok(Some(st.engine.predict_std(&v))),
            // No round yet: prediction 0, no noise estimate.
            None => self.predict(x).map(|p| Some((p, f64::NAN))),
        }
    }

    fn predict_keep(&mut self, x: &[f64]) -> Result<f64> {
        if self.outputs() > 1 {
            return crate::multi::single_output_err(self.outputs());
        }
        let Some(st) = self.state.as_mut() else { return self.predict(x) };
        self.kept.clear();
        st.v.resize(st.engine.dim(), 0.0);
        st.features.map_into(x, &mut st.v);
        st.features.check_features(&st.v)?;
        let p = st.engine.predict_keep(&st.v);
        self.kept.set(x, st.engine.n_seen());
        Ok(p)
    }

    fn predict_learn(&mut self, x: &[f64], y: f64) -> Result<f64> {
        let mut p = [0.0];
        self.round(x, std::slice::from_ref(&y), 1.0, &mut p)?;
        Ok(p[0])
    }

    fn supports_weights(&self) -> bool {
        true
    }

    /// The engine's weighted round (`A += w phi phi^T`, `b += w y phi`).
    fn predict_learn_weighted(&mut self, x: &[f64], y: f64, w: f64) -> Result<f64> {
        let mut p = [0.0];
        self.round(x, std::slice::from_ref(&y), w, &mut p)?;
        Ok(p[0])
    }

    /// Blocks of rounds on the AWV engine; the first
    /// round of a fresh learner goes through [`OnlineLearner::predict_learn`],
    /// which builds the map. The rows were screened by `check_row` beforehand.
    /// `y` holds `K` targets per row (row-major); `K` is fixed already or by the
    /// first row.
    fn run_rows(&mut self, rows: Rows<'_>, mut out: Option<&mut Vec<f64>>) -> Result<()> {
        let Rows { mut x, d, mut y } = rows;
        let k = y.len() / (x.len() / d.max(1)).max(1);
        let mut p = vec![0.0; k];
        // One row after a kept prediction of it (the serving path through learn_many).
        let kept_row =
            |s: &Self| s.state.as_ref().is_some_and(|st| s.kept.matches(x, st.engine.n_seen()));
        if !y.is_empty() && y.len() == k && kept_row(self) {
            self.round(x, y, 1.0, &mut p)?;
            if let Some(o) = out.as_deref_mut() {
                o.extend_from_slice(&p);
            }
            return Ok(());
        }
        if self.state.is_none() && !y.is_empty() {
            crate::interrupt::poll()?;
            self.round(&x[..d], &y[..k], 1.0, &mut p)?;
            if let Some(o) = out.as_deref_mut() {
                o.extend_from_slice(&p);
            }
            (x, y) = (&x[d..], &y[k..]);
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
                features.check_features(f)
            },
            out,
        )
    }

    /// One matrix-matrix product per chunk of rows ([`LinearAwv::predict_many`]) when
    /// the learner runs blocks; single predictions (bit for bit `predict`) otherwise.
    fn predict_rows(&self, x: &[f64], d: usize, out: &mut Vec<f64>) -> Result<()> {
        if self.outputs() > 1 {
            return crate::multi::single_output_err(self.outputs());
        }
        self.rows_multi(x, d, out)
    }

    fn n_seen(&self) -> u64 {
        self.state.as_ref().map_or(0, |s| s.engine.n_seen())
    }

    fn dim(&self) -> usize {
        match &self.state {
            Some(s) => s.engine.dim(),
            None => F::known_dim(&self.params).unwrap_or(0),
        }
    }
}

impl<F: LazyFeatureMap> FeatureAwv<F> {
    /// The built state and `phi(x)` for a single-output prediction (`None` before the
    /// first round): an error with `K > 1` outputs or when the map refuses `phi(x)`.
    fn single_output_features(&self, x: &[f64]) -> Result<Option<(&State<F>, Vec<f64>)>> {
        match &self.state {
            Some(st) if st.engine.n_outputs() > 1 => {
                crate::multi::single_output_err(st.engine.n_outputs())
            }
            Some(st) => {
                let v = st.features.map(x);
                st.features.check_features(&v)?;
                Ok(Some((st, v)))
            }
            None => Ok(None),
        }
    }

    /// `K` (1 before the first round).
    fn outputs(&self) -> usize {
        self.state.as_ref().map_or(1, |s| s.engine.n_outputs())
    }

    /// One full round of weight `w` with the `K = y.len()` targets `y` (`K` checked by
    /// the caller), the predictions written into `out`.
    fn round(&mut self, x: &[f64], y: &[f64], w: f64, out: &mut [f64]) -> Result<()> {
        if let Some(st) = self.state.as_mut() {
            if st.engine.n_outputs() != y.len() {
                return crate::multi::single_output_err(st.engine.n_outputs());
            }
            if w != 1.0 {
                self.kept.clear();
            } else if self.kept.take(x, st.engine.n_seen())
                && st.engine.learn_kept_multi(&st.v, y, out)
            {
                return Ok(());
            }
        }
        let fresh = self.state.is_none();
        let st = self.state_mut(x.len(), y.len())?;
        // check_row screened x against an existing map; a fresh one is checked here.
        let checked = if fresh { st.features.check_input(x) } else { Ok(()) };
        let checked = checked.and_then(|()| {
            st.features.map_into(x, &mut st.v);
            st.features.check_features(&st.v)
        });
        if let Err(e) = checked {
            // The first round built the map: undo it, the learner is as before the call.
            if fresh {
                self.state = None;
            }
            return Err(e);
        }
        st.engine.predict_learn_weighted_multi(&st.v, y, w, out);
        Ok(())
    }

    /// The `K` predictions of every row (row-major), blocked as [`Self::predict_rows`].
    fn rows_multi(&self, x: &[f64], d: usize, out: &mut Vec<f64>) -> Result<()> {
        let blocked = self.state.as_ref().filter(|st| st.engine.block_size(self.block_size) > 1);
        let Some(st) = blocked else {
            for row in x.chunks_exact(d) {
                crate::interrupt::poll()?;
                crate::multi::MultiOutput::predict_multi(self, row, out)?;
            }
            return Ok(());
        };
        let r = st.engine.dim();
        const CHUNK: usize = 256;
        let mut feats = vec![0.0; r * CHUNK.min(x.len() / d.max(1))];
        for xc in x.chunks(CHUNK * d) {
            crate::interrupt::poll()?;
            // Rows up to the first whose features overflow are predicted, then the error.
            let mut k = 0;
            let mut failed = None;
            for (row, f) in xc.chunks_exact(d).zip(feats.chunks_exact_mut(r)) {
                st.features.map_into(row, f);
                if let Err(e) = st.features.check_features(f) {
                    failed = Some(e);
                    break;
                }
                k += 1;
            }
            st.engine.predict_many(&feats[..k * r], out);
            if let Some(e) = failed {
                return Err(e);
            }
        }
        Ok(())
    }
}

impl<F: LazyFeatureMap> crate::multi::MultiOutput for FeatureAwv<F> {
    fn n_outputs(&self) -> Option<usize> {
        self.state.as_ref().map(|s| s.engine.n_outputs())
    }

    fn check_outputs(&self, k: usize, d: usize) -> Result<()> {
        crate::awv::outputs::check_outputs(k)?;
        let r = F::feature_count(&self.params, d).map(|r| r as u128);
        let extra = r.map(|r| r * (k as u128 - 1));
        crate::limits::check_input_doubles(
            &format!("{} with {k} outputs on {d}-dimensional inputs", F::LEARNER),
            self.memory_doubles(d).zip(extra).map(|(a, b)| a + b),
        )
    }

    fn predict_multi(&self, x: &[f64], out: &mut Vec<f64>) -> Result<()> {
        let Some(st) = &self.state else {
            out.push(self.predict(x)?);
            return Ok(());
        };
        let v = st.features.map(x);
        st.features.check_features(&v)?;
        let s = out.len();
        out.resize(s + st.engine.n_outputs(), 0.0);
        st.engine.predict_multi(&v, &mut out[s..]);
        Ok(())
    }

    fn predict_std_multi(
        &self,
        x: &[f64],
        means: &mut Vec<f64>,
        stds: &mut Vec<f64>,
    ) -> Result<bool> {
        let Some(st) = &self.state else {
            // No round yet: prediction 0, no noise estimate.
            means.push(self.predict(x)?);
            stds.push(f64::NAN);
            return Ok(true);
        };
        let v = st.features.map(x);
        st.features.check_features(&v)?;
        st.engine.predict_std_multi(&v, means, stds);
        Ok(true)
    }

    fn noise_stds_multi(&self, out: &mut Vec<f64>) -> bool {
        match &self.state {
            Some(st) => st.engine.noise_stds(out),
            None => out.push(f64::NAN),
        }
        true
    }

    fn predict_keep_multi(&mut self, x: &[f64], out: &mut Vec<f64>) -> Result<()> {
        let Some(st) = self.state.as_mut() else { return self.predict_multi(x, out) };
        self.kept.clear();
        st.v.resize(st.engine.dim(), 0.0);
        st.features.map_into(x, &mut st.v);
        st.features.check_features(&st.v)?;
        let s = out.len();
        out.resize(s + st.engine.n_outputs(), 0.0);
        st.engine.predict_keep_multi(&st.v, &mut out[s..]);
        self.kept.set(x, st.engine.n_seen());
        Ok(())
    }

    fn predict_learn_multi(&mut self, x: &[f64], y: &[f64], out: &mut Vec<f64>) -> Result<()> {
        let s = out.len();
        out.resize(s + y.len(), 0.0);
        let r = self.round(x, y, 1.0, &mut out[s..]);
        if r.is_err() {
            out.truncate(s);
        }
        r
    }

    /// The engine's weighted round on the `K` targets (`B += w phi y^T`).
    fn predict_learn_weighted_multi(
        &mut self,
        x: &[f64],
        y: &[f64],
        w: f64,
        out: &mut Vec<f64>,
    ) -> Result<()> {
        let s = out.len();
        out.resize(s + y.len(), 0.0);
        let r = self.round(x, y, w, &mut out[s..]);
        if r.is_err() {
            out.truncate(s);
        }
        r
    }

    fn supports_weights_multi(&self) -> bool {
        true
    }

    fn predict_learn_many_multi(&mut self, rows: Rows<'_>, out: &mut Vec<f64>) -> Result<()> {
        self.run_rows(rows, Some(out))
    }

    fn predict_rows_multi(&self, x: &[f64], d: usize, out: &mut Vec<f64>) -> Result<()> {
        self.rows_multi(x, d, out)
    }

    fn add_outputs(&mut self, k: usize) -> Result<()> {
        match self.state.as_mut() {
            Some(st) => {
                st.engine.add_outputs(k)?;
                self.kept.clear();
                Ok(())
            }
            None => crate::multi::before_first_round(),
        }
    }
}

impl<F: LazyFeatureMap> ValidState for FeatureAwv<F> {
    fn validate(&self) -> Result<()> {
        use crate::state::*;
        if let Some(st) = &self.state {
            st.features.validate()?;
            st.engine.validate()?;
            len_is("AWV dimension", st.engine.dim(), st.features.dim())?;
            st.features.check_built(&self.params)?;
            same("lam", &st.engine.lam(), &self.lam)?;
            same("ridge", &st.engine.ridge(), &self.ridge)?;
            same("gamma", &st.engine.gamma(), &self.gamma)?;
        }
        Ok(())
    }
    fn check_config(&self, fresh: &Self) -> Result<()> {
        F::check_params(&self.params, &fresh.params)?;
        crate::state::same_fields!(self, fresh; lam, ridge, gamma)
    }
    fn adopt_settings(&mut self, fresh: &Self) {
        self.block_size = fresh.block_size;
    }
}

impl<F: LazyFeatureMap> crate::state::StateParams for FeatureAwv<F>
where
    F::Params: crate::state::StateParams,
{
    fn state_params(&self) -> Vec<(&'static str, crate::params::Value)> {
        use crate::params::ToValue;
        let mut out = self.params.state_params();
        out.push(("lam", self.lam.to_value()));
        out.push(("ridge", self.ridge.to_value()));
        out.push(("gamma", self.gamma.to_value()));
        out
    }
}

impl<F: LazyFeatureMap> FeatureAwv<F> {
    /// [`OnlineLearner::widen_inputs`] of the AWV engine on features that embed
    /// ([`LazyFeatureMap::embedding`]): a zero-extended row has features `P phi` (`P`
    /// the embedding), so `A = lam I + sum P phi phi^T P^T = P A_0 P^T + lam (I - P P^T)`
    /// and `B = P B_0` ([`crate::awv::LinearAwv::embedded`]).
    fn widen_engine(&mut self, d: usize) -> Result<()> {
        let Some(st) = self.state.as_ref() else { return Ok(()) };
        let d0 = st.features.input_dim();
        if d <= d0 {
            return crate::input_err!("widen to {d} inputs: the learner has {d0} already");
        }
        if self.gamma < 1.0 {
            return crate::input_err!(
                "input has {d} features but this {} was fed {d0}-dimensional inputs before: a \
                 discounted learner (gamma < 1) refills its regulariser one feature a round, \
                 in an order that depends on the feature count, so it cannot be widened \
                 exactly; pass rows of {d0} values",
                F::LEARNER
            );
        }
        OnlineLearner::check_input_dim(self, d)?;
        let wide = F::build(&self.params, d)?;
        let Some(idx) = st.features.embedding(&wide) else {
            return super::cannot_widen(d0, d);
        };
        let engine = st.engine.embedded(wide.dim(), &idx)?;
        self.state = Some(State { features: wide, engine, v: Vec::new() });
        self.kept.clear();
        Ok(())
    }
}
