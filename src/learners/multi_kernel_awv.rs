//! MultiKernelAWV: one RFF-VAW expert per kernel, combined online by an
//! aggregation rule. VAW2 paper (Rokhlin & Gurtovaya 2025), sec. 3 (Theorems 2
//! and 3) and sec. 4; choices in docs/choices.md (VAW2).
//!
//! Round t (docs/choices.md, VAW2, "Order inside a round"):
//! 1. features `phi_{t,j} = Phi_j(x_t)` of every kernel (independent draws per
//!    kernel, taken in kernel order from the learner's one `Rng`);
//! 2. expert predictions `z_{t,j} = <w_{t,j}, phi_{t,j}>` (VAW, current point in
//!    the covariance; with `ridge`, online ridge: the current point left out,
//!    the forecaster of the second author's public code, docs/choices.md);
//! 3. meta input `z_t`, or `clip(z_t, lo, hi)` if `clip` is set (eq. 28);
//! 4. meta prediction `y_hat_t` (VAW2: `aggregator = vaw`, itself VAW or, with
//!    `MetaRule::Vaw { ridge: true }`, online ridge; VAW-EWA, -Aggr, -BOA,
//!    -ML-Poly, -ML-Prod otherwise);
//! 5. then `y_t` updates every expert (on the raw label) and the meta rule.

use super::OnlineLearner;
use crate::aggregation::{
    AggregatingAlgorithm, Aggregator, AnyAggregator, Boa, Ewa, MlPoly, MlProd, VawMeta,
};
use crate::awv::LinearAwv;
use crate::error::{positive, Result};
use crate::features::rff::{RandomFourier, RffVariant, MAX_RFF_FEATURES};
use crate::features::FeatureMap;
use crate::kernels::Kernel;
use crate::rng::Rng;
use serde::{Deserialize, Serialize};

/// Which meta rule and its parameters.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub enum MetaRule {
    /// A second VAW on the expert predictions; `ridge`: online ridge instead.
    Vaw {
        ridge: bool,
    },
    Ewa {
        eta: f64,
    },
    Aa,
    Boa {
        gradient: bool,
    },
    MlPoly {
        gradient: bool,
    },
    MlProd {
        gradient: bool,
    },
}

impl MetaRule {
    /// From the Python names `"vaw"`, `"ewa"`, `"aa"`, `"boa"`, `"mlpoly"`, `"mlprod"`.
    /// `meta_ridge` (online ridge at the meta level) exists for `"vaw"` only.
    pub fn from_name(name: &str, eta: f64, gradient: bool, meta_ridge: bool) -> Result<Self> {
        if meta_ridge && name != "vaw" {
            return crate::param_err!(
                "meta_ridge=True needs aggregator \"vaw\" (the other rules have no ridge form), got {name:?}"
            );
        }
        // eta is checked whatever the rule, so that a bad value is never silently kept
        positive("eta", eta)?;
        Ok(match name {
            "vaw" => MetaRule::Vaw { ridge: meta_ridge },
            "ewa" => MetaRule::Ewa { eta: positive("eta", eta)? },
            "aa" => MetaRule::Aa,
            "boa" => MetaRule::Boa { gradient },
            "mlpoly" => MetaRule::MlPoly { gradient },
            "mlprod" => MetaRule::MlProd { gradient },
            _ => {
                return crate::param_err!(
                    "aggregator must be one of \"vaw\", \"ewa\", \"aa\", \"boa\", \"mlpoly\", \"mlprod\", got {name:?}"
                )
            }
        })
    }
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct MultiKernelAwv {
    kernels: Vec<Kernel>,
    n_features: usize,
    lam: f64,
    variant: RffVariant,
    /// Online ridge (current point left out) for the experts.
    ridge: bool,
    rule: MetaRule,
    clip: Option<(f64, f64)>,
    seed: u64,
    state: Option<State>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
struct State {
    features: Vec<RandomFourier>,
    experts: Vec<LinearAwv>,
    meta: AnyAggregator,
    #[serde(skip)]
    v: Vec<f64>,
    #[serde(skip)]
    z: Vec<f64>,
    /// Raw expert predictions of the last round (before clipping).
    #[serde(skip)]
    raw: Vec<f64>,
}

impl MultiKernelAwv {
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        kernels: Vec<Kernel>,
        n_features: usize,
        lam: f64,
        variant: RffVariant,
        ridge: bool,
        rule: MetaRule,
        clip: Option<(f64, f64)>,
        seed: u64,
    ) -> Result<Self> {
        if kernels.is_empty() {
            return crate::param_err!("kernels must hold at least one kernel");
        }
        positive("lam", lam)?;
        if n_features == 0 || n_features > MAX_RFF_FEATURES {
            return crate::param_err!(
                "n_features must be in [1, {MAX_RFF_FEATURES}], got {n_features}"
            );
        }
        if let Some((lo, hi)) = clip {
            if !(lo.is_finite() && hi.is_finite() && lo < hi) {
                return crate::param_err!(
                    "clip must be a pair of finite numbers lo < hi, got ({lo}, {hi})"
                );
            }
        }
        if rule == MetaRule::Aa && clip.is_none() {
            return crate::param_err!(
                "aggregator \"aa\" needs the label range: pass clip=(lo, hi)"
            );
        }
        // Every kernel has its own AWV expert: n_kernels x r(r+1)/2 doubles.
        let r = match variant {
            RffVariant::Cos => n_features,
            RffVariant::CosSin => 2 * n_features,
        };
        crate::limits::check_doubles(
            &format!("MultiKernelAWV with {} kernels x {r} features", kernels.len()),
            Some(kernels.len() as u128 * (crate::limits::packed(r) + 2 * r as u128)),
        )?;
        let me = MultiKernelAwv {
            kernels,
            n_features,
            lam,
            variant,
            ridge,
            rule,
            clip,
            seed,
            state: None,
        };
        me.make_meta()?;
        Ok(me)
    }

    fn make_meta(&self) -> Result<AnyAggregator> {
        let n = self.kernels.len();
        Ok(match self.rule {
            MetaRule::Vaw { ridge } => AnyAggregator::Vaw(VawMeta::new(n, self.lam, ridge)?),
            MetaRule::Ewa { eta } => AnyAggregator::Ewa(Ewa::new(n, eta)?),
            MetaRule::Aa => {
                let (lo, hi) = self.clip.unwrap_or((0.0, 1.0));
                AnyAggregator::Aa(AggregatingAlgorithm::new(n, lo, hi)?)
            }
            MetaRule::Boa { gradient } => AnyAggregator::Boa(Boa::new(n, gradient)?),
            MetaRule::MlPoly { gradient } => AnyAggregator::MlPoly(MlPoly::new(n, gradient)?),
            MetaRule::MlProd { gradient } => AnyAggregator::MlProd(MlProd::new(n, gradient)?),
        })
    }

    fn feature_dim(&self) -> usize {
        match self.variant {
            RffVariant::Cos => self.n_features,
            RffVariant::CosSin => 2 * self.n_features,
        }
    }

    fn state_mut(&mut self, d: usize) -> Result<&mut State> {
        if self.state.is_none() {
            let mut rng = Rng::new(self.seed);
            let mut features = Vec::with_capacity(self.kernels.len());
            let mut experts = Vec::with_capacity(self.kernels.len());
            for k in &self.kernels {
                let f = RandomFourier::draw(k, d, self.n_features, self.variant, &mut rng)?;
                experts.push(LinearAwv::new(f.dim(), self.lam, self.ridge)?);
                features.push(f);
            }
            let meta = self.make_meta()?;
            self.state = Some(State {
                features,
                experts,
                meta,
                v: Vec::new(),
                z: Vec::new(),
                raw: Vec::new(),
            });
        }
        let r = self.feature_dim();
        let n = self.kernels.len();
        let st = self
            .state
            .as_mut()
            .ok_or_else(|| crate::KsError::Internal("MultiKernelAWV state missing".into()))?;
        if st.v.len() != r {
            st.v = vec![0.0; r];
        }
        if st.z.len() != n {
            st.z = vec![0.0; n];
        }
        if st.raw.len() != n {
            st.raw = vec![0.0; n];
        }
        Ok(st)
    }

    pub fn n_kernels(&self) -> usize {
        self.kernels.len()
    }

    /// The feature maps, in kernel order (None before the first round).
    pub fn feature_maps(&self) -> Option<&[RandomFourier]> {
        self.state.as_ref().map(|s| s.features.as_slice())
    }

    /// The current meta weights (see [`Aggregator::weights`]); before the first
    /// round, those of a fresh rule.
    pub fn weights(&self) -> Result<Vec<f64>> {
        match &self.state {
            Some(st) => Ok(st.meta.weights()),
            None => Ok(self.make_meta()?.weights()),
        }
    }

    /// The expert predictions `z_j(x)` for `x` as the next round (raw, unclipped).
    pub fn expert_predictions(&self, x: &[f64]) -> Vec<f64> {
        match &self.state {
            Some(st) => {
                st.features.iter().zip(&st.experts).map(|(f, e)| e.predict(&f.map(x))).collect()
            }
            None => vec![0.0; self.kernels.len()],
        }
    }

    /// Runs the online protocol over `n` rows (like `progressive_predict`) and returns
    /// the raw expert predictions `z_{t,j}` (row-major `n x N`) made before each label.
    /// Every aggregation rule applied to (clipped) rows of this matrix reproduces the
    /// corresponding MultiKernelAWV (the experts do not depend on the meta rule).
    pub fn progressive_experts(
        &mut self,
        x: &[f64],
        n: usize,
        d: usize,
        y: &[f64],
    ) -> Result<Vec<f64>> {
        crate::stream::validate(self, x, n, d, Some(y))?;
        let nk = self.kernels.len();
        let mut out = Vec::with_capacity(n * nk);
        for (row, &yt) in x.chunks_exact(d).zip(y) {
            self.predict_learn(row, yt)?;
            if let Some(st) = &self.state {
                out.extend_from_slice(&st.raw);
            }
        }
        Ok(out)
    }

    fn clip_in_place(&self, z: &mut [f64]) {
        if let Some((lo, hi)) = self.clip {
            z.iter_mut().for_each(|v| *v = v.clamp(lo, hi));
        }
    }
}

impl OnlineLearner for MultiKernelAwv {
    fn input_dim(&self) -> Option<usize> {
        self.feature_maps().map(|f| f[0].input_dim())
    }

    /// Finite inputs whose random-feature projections overflow are refused before any change.
    fn check_row(&self, x: &[f64], _y: Option<f64>) -> Result<()> {
        crate::features::rff::check_drawn(self.feature_maps(), x)
    }

    fn predict(&self, x: &[f64]) -> Result<f64> {
        let mut z = self.expert_predictions(x);
        self.clip_in_place(&mut z);
        match &self.state {
            Some(st) => Ok(st.meta.predict(&z)),
            None => Ok(self.make_meta()?.predict(&z)),
        }
    }

    fn predict_learn(&mut self, x: &[f64], y: f64) -> Result<f64> {
        // The first round draws the features: check x against them, else undo the draw.
        if self.state.is_none() {
            self.state_mut(x.len())?;
            crate::features::rff::keep_draw_if_fits(&mut self.state, |s| &s.features, x)?;
        }
        let clip = self.clip;
        let st = self.state_mut(x.len())?;
        let State { features, experts, meta, v, z, raw } = st;
        for ((f, e), zj) in features.iter().zip(experts.iter_mut()).zip(z.iter_mut()) {
            f.map_into(x, v);
            // The expert predicts before y_t (its z uses labels up to t-1), then learns y_t.
            *zj = e.predict_learn(v, y);
        }
        raw.copy_from_slice(z);
        if let Some((lo, hi)) = clip {
            z.iter_mut().for_each(|v| *v = v.clamp(lo, hi));
        }
        Ok(meta.predict_update(z, y))
    }

    fn n_seen(&self) -> u64 {
        self.state.as_ref().map_or(0, |s| s.meta.n_seen())
    }

    fn dim(&self) -> usize {
        self.kernels.len() * self.feature_dim()
    }
}

impl crate::state::ValidState for MultiKernelAwv {
    fn validate(&self) -> Result<()> {
        use crate::state::*;
        let Some(st) = &self.state else { return Ok(()) };
        let n = self.kernels.len();
        len_is("feature maps", st.features.len(), n)?;
        len_is("experts", st.experts.len(), n)?;
        for (f, e) in st.features.iter().zip(&st.experts) {
            f.validate()?;
            e.validate()?;
            same("n_features", &f.n_frequencies(), &self.n_features)?;
            same("features", &f.variant(), &self.variant)?;
            same("input dimension", &f.input_dim(), &st.features[0].input_dim())?;
            len_is("an expert's dimension", e.dim(), f.dim())?;
            same("lam", &e.lam(), &self.lam)?;
        }
        st.meta.validate()?;
        st.meta.check_config(&self.make_meta()?)
    }
    fn check_config(&self, fresh: &Self) -> Result<()> {
        use crate::state::same;
        same("kernels", &self.kernels, &fresh.kernels)?;
        same("n_features", &self.n_features, &fresh.n_features)?;
        same("lam", &self.lam, &fresh.lam)?;
        same("features", &self.variant, &fresh.variant)?;
        same("ridge", &self.ridge, &fresh.ridge)?;
        same("aggregator", &self.rule, &fresh.rule)?;
        same("clip", &self.clip, &fresh.clip)?;
        same("seed", &self.seed, &fresh.seed)
    }
}
