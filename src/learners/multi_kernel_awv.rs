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
//! 4. meta prediction `y_hat_t` by a rule of [`crate::aggregation::RULES`] (VAW2:
//!    `"vaw"`, itself VAW or, with `ridge`, online ridge; VAW-EWA, -Aggr, -BOA,
//!    -ML-Poly, -ML-Prod otherwise);
//! 5. then `y_t` updates every expert (on the raw label) and the meta rule.
//!
//! Blocks of rounds (`progressive_predict`, `learn_many`, `progressive_experts`):
//! steps 1-2 and the expert updates never read the meta rule, so over a block of
//! `B` rows each expert plays its `B` rounds first (features of the `B` rows, then
//! [`LinearAwv::predict_learn_block`], Woodbury; `B = 1`: single rounds), the
//! experts in parallel ([`crate::parallel`]), which gives the `B x N` matrix of
//! expert predictions; the meta rule then plays the `B` rows in order (the VAW
//! meta level as blocks of its own engine). Equal to the round loop up to
//! rounding (bit for bit with `block_size = 1`), for any number of threads.

use super::batch::Rows;
use super::online_learner::OnlineLearner;
use crate::aggregation::{Aggregator, AnyAggregator, RuleParams};
use crate::awv::{auto_block_size, check_block_size, LinearAwv};
use crate::error::Result;
use crate::features::rff::{RandomFourier, RffVariant, MAX_RFF_FEATURES};
use crate::features::FeatureMap;
use crate::kernels::Kernel;
use crate::parallel::{check_threads, Workers};
use crate::rng::Rng;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct MultiKernelAwv {
    kernels: Vec<Kernel>,
    n_features: usize,
    lam: f64,
    variant: RffVariant,
    /// Online ridge (current point left out) for the experts.
    ridge: bool,
    /// The meta rule as built for this configuration (fresh: no round played); the
    /// first round plays a copy of it. Boxed: the VAW rule's engine would make every
    /// `AnyLearner` as large.
    rule: Box<AnyAggregator>,
    clip: Option<(f64, f64)>,
    seed: u64,
    /// Forgetting factor of the experts (docs/choices.md, "Discounted AWV").
    #[serde(default = "crate::awv::no_discount")]
    gamma: f64,
    /// Fixed Share rate of the meta rule (EWA, BOA, ML-Poly, ML-Prod).
    #[serde(default)]
    share: f64,
    /// Rounds per expert block of the batch paths (None: automatic from the feature
    /// count; 1: single rounds). A run-time setting, not part of the state.
    #[serde(skip)]
    block_size: Option<usize>,
    /// Threads running the experts of a block (0: one per core, 1: the calling
    /// thread). A run-time setting, not part of the state.
    #[serde(skip)]
    threads: usize,
    state: Option<State>,
    /// The input of [`OnlineLearner::predict_keep`] (each expert's features in its
    /// `scratch.feats`, its `A^{-1} phi` kept by its engine).
    #[serde(skip)]
    kept: super::kept::Kept,
}

/// Rows between two Ctrl-C polls of the batch paths (whole expert blocks).
const CHUNK_ROWS: usize = 64;
/// Rows per chunk of `predict_many` (bounds each expert's `rows x r` feature buffer).
const PREDICT_ROWS: usize = 256;

/// One expert's buffers of a block: its features (`B x r`) and predictions.
#[derive(Clone, Debug, Default)]
struct Scratch {
    feats: Vec<f64>,
    preds: Vec<f64>,
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
    /// Per-expert buffers of the blocked path.
    #[serde(skip)]
    scratch: Vec<Scratch>,
    /// The `B x N` expert predictions of a block, then the meta predictions.
    #[serde(skip)]
    zb: Vec<f64>,
    #[serde(skip)]
    yhat: Vec<f64>,
}

crate::params! {
    /// The parameters of [`MultiKernelAwv`] (defaults: those of the Python class
    /// `MultiKernelAWV`).
    pub struct MultiKernelAwvParams {
        /// The kernels, one AWV expert each (shift-invariant: random features).
        kernels: Vec<Kernel> = Vec::new() => "kernels", crate::params::object("a Gaussian or Laplacian kernel").non_empty(), required;
        /// Frequencies per kernel.
        n_features: usize = 50 => "int", crate::params::between(1.0, MAX_RFF_FEATURES as f64);
        /// Ridge parameter `lambda` of the experts (and of a VAW meta level).
        lam: f64 = 1.0 => "float", crate::params::SCALE;
        /// The meta rule, a name of [`crate::aggregation::RULES`].
        aggregator: String = "vaw".into() => "str", crate::params::one_of(&crate::aggregation::rule::RULE_NAMES);
        /// Label range `(lo, hi)` the expert predictions are clipped to (needed by "aa").
        clip: Option<(f64, f64)> = None => "seq", crate::params::object("a pair of finite numbers lo < hi").or_none().note("needed by 'aa'");
        /// Seed of the frequencies.
        seed: u64 = 0 => "int", crate::params::WHOLE;
        /// Learning rate of "ewa".
        eta: f64 = RuleParams::default().eta => "float", crate::params::SCALE;
        /// Linearised (gradient) losses for "boa", "mlpoly", "mlprod".
        gradient: bool = RuleParams::default().gradient => "bool", crate::params::flag();
        /// The feature map.
        features: RffVariant = RffVariant::Cos => "str", RffVariant::DOMAIN;
        /// Online ridge (predict with `A_{t-1}`) instead of AWV for the experts.
        ridge: bool = false => "bool", crate::params::flag();
        /// Online ridge at a VAW meta level (None: `ridge` when the rule is "vaw").
        meta_ridge: Option<bool> = None => "bool", crate::params::flag().or_none().note("True needs 'vaw'");
        /// Rounds per block of a whole-stream call (None: automatic); not part of the state.
        block_size: Option<usize> = None => "int", crate::awv::BLOCK_SIZE;
        /// Threads running the experts (0: one per core); not part of the state.
        threads: usize = 0 => "int", crate::parallel::THREADS;
        /// Forgetting factor of the experts (1: none).
        gamma: f64 = 1.0 => "float", crate::awv::GAMMA;
        /// Fixed Share rate of the meta rule ("ewa", "boa", "mlpoly", "mlprod").
        share: f64 = 0.0 => "float", crate::params::FRACTION;
    }
}

impl MultiKernelAwvParams {
    fn relations(&self) -> Result<()> {
        self.meta()?.with_share(self.share).map(|_| ())
    }

    /// These parameters with the meta rule `rule` and its parameters (`eta`, `gradient`,
    /// `ridge` as `meta_ridge`).
    pub fn with_rule(mut self, rule: &str, p: RuleParams) -> Self {
        self.aggregator = rule.into();
        self.eta = p.eta;
        self.gradient = p.gradient;
        self.meta_ridge = Some(p.ridge);
        self
    }

    /// Checks the relations between the values (each is in its declared domain); the
    /// meta rule (fresh, without Fixed Share).
    fn meta(&self) -> Result<AnyAggregator> {
        let (kernels, clip, rule) = (&self.kernels, self.clip, self.aggregator.as_str());
        if let Some((lo, hi)) = clip {
            if !(lo.is_finite() && hi.is_finite() && lo < hi) {
                return crate::param_err!(
                    "clip must be a pair of finite numbers lo < hi, got ({lo}, {hi})"
                );
            }
        }
        if rule == "aa" && clip.is_none() {
            return crate::param_err!(
                "aggregator \"aa\" needs the label range: pass clip=(lo, hi)"
            );
        }
        // None: online ridge at the meta level too when the meta level is VAW
        let meta_ridge = self.meta_ridge.unwrap_or(self.ridge && rule == "vaw");
        if meta_ridge && rule != "vaw" {
            return crate::param_err!(
                "meta_ridge=True needs aggregator \"vaw\" (the other rules have no ridge form), got {rule:?}"
            );
        }
        let r = match self.features {
            RffVariant::Cos => self.n_features,
            RffVariant::CosSin => 2 * self.n_features,
        };
        crate::awv::check_discount_span(self.gamma, r, "features per kernel")?;
        let (lo, hi) = clip.unwrap_or((0.0, 1.0));
        let (lam, eta, gradient) = (self.lam, self.eta, self.gradient);
        let params =
            RuleParams { lam, lo, hi, eta, gradient, ridge: meta_ridge, ..RuleParams::default() };
        AnyAggregator::from_spec(rule, kernels.len(), &params)
    }
}

impl MultiKernelAwv {
    /// The learner; the meta rule is built through [`AnyAggregator::from_spec`] (the
    /// meta VAW's ridge is `lam`, the AA's range `clip`).
    pub fn new(p: &MultiKernelAwvParams) -> Result<Self> {
        p.validate()?;
        let rule = Box::new(p.meta()?);
        let MultiKernelAwvParams { ref kernels, n_features, lam, clip, seed, ridge, .. } = *p;
        let (kernels, variant) = (kernels.clone(), p.features);
        let me = MultiKernelAwv {
            kernels,
            n_features,
            lam,
            variant,
            ridge,
            rule,
            clip,
            seed,
            gamma: 1.0,
            share: 0.0,
            block_size: None,
            threads: 0,
            state: None,
            kept: Default::default(),
        };
        me.check_memory(None)?;
        me.with_block_size(p.block_size)?.with_threads(p.threads)?.with_drift(p.gamma, p.share)
    }

    /// Every kernel has its own AWV expert (`r(r+1)/2 + 2r` doubles), its random
    /// features on `d`-dimensional inputs ([`crate::features::rff::map_doubles`],
    /// counted once `d` is known, 0 before) and, in the batch paths, buffers of about
    /// `4 r B + 3 B^2` doubles for a block of `B` rows.
    fn memory(&self, block_size: Option<usize>, d: usize) -> Option<u128> {
        let r = self.feature_dim();
        let b = block_size.unwrap_or_else(|| auto_block_size(r)) as u128;
        let per = crate::limits::packed(r)
            + 2 * r as u128
            + 4 * r as u128 * b
            + 3 * b * b
            + if d > 0 { crate::features::rff::map_doubles(self.n_features, d) } else { 0 };
        (self.kernels.len() as u128).checked_mul(per)
    }

    fn check_memory(&self, block_size: Option<usize>) -> Result<()> {
        crate::limits::check_doubles(
            &format!(
                "MultiKernelAWV with {} kernels x {} features",
                self.kernels.len(),
                self.feature_dim()
            ),
            self.memory(block_size, 0),
        )
    }

    /// Sets the block size of the batch paths (`None`: [`auto_block_size`] of the
    /// feature count; `1`: single rounds, bit for bit the round loop).
    pub fn with_block_size(mut self, block_size: Option<usize>) -> Result<Self> {
        check_block_size(block_size)?;
        self.check_memory(block_size)?;
        self.block_size = block_size;
        Ok(self)
    }

    /// Sets the threads running the experts (`0`: one per core or `RAYON_NUM_THREADS`,
    /// `1`: the calling thread; the results do not depend on it).
    pub fn with_threads(mut self, threads: usize) -> Result<Self> {
        check_threads(threads)?;
        self.threads = threads;
        Ok(self)
    }

    pub fn block_size(&self) -> Option<usize> {
        self.block_size
    }

    pub fn threads(&self) -> usize {
        self.threads
    }

    /// Sets the experts' forgetting factor `gamma` in (0, 1] and the meta rule's
    /// Fixed Share rate `share` in [0, 1] (EWA, BOA, ML-Poly, ML-Prod only).
    pub fn with_drift(mut self, gamma: f64, share: f64) -> Result<Self> {
        self.gamma = crate::awv::check_gamma(gamma)?;
        self.rule = Box::new(self.rule.with_share(share)?);
        self.share = share;
        Ok(self)
    }

    pub fn gamma(&self) -> f64 {
        self.gamma
    }

    pub fn share(&self) -> f64 {
        self.share
    }

    /// A fresh copy of the meta rule.
    fn make_meta(&self) -> Result<AnyAggregator> {
        Ok(self.rule.as_ref().clone())
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
                experts
                    .push(LinearAwv::new(f.dim(), self.lam, self.ridge)?.with_gamma(self.gamma)?);
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
                scratch: Vec::new(),
                zb: Vec::new(),
                yhat: Vec::new(),
            });
        }
        let r = self.feature_dim();
        let n = self.kernels.len();
        let st = super::batch::built(&mut self.state, "MultiKernelAWV")?;
        super::batch::sized(&mut st.v, r);
        super::batch::sized(&mut st.z, n);
        super::batch::sized(&mut st.raw, n);
        if st.scratch.len() != n {
            st.scratch = vec![Scratch::default(); n];
        }
        Ok(st)
    }

    pub fn n_kernels(&self) -> usize {
        self.kernels.len()
    }

    /// The experts' AWV engines, in kernel order (None before the first round).
    pub fn experts(&self) -> Option<&[LinearAwv]> {
        self.state.as_ref().map(|s| s.experts.as_slice())
    }

    /// The meta rule as configured (no round played).
    pub fn meta_rule(&self) -> &AnyAggregator {
        &self.rule
    }

    /// The meta rule (None before the first round).
    pub fn meta(&self) -> Option<&AnyAggregator> {
        self.state.as_ref().map(|s| &s.meta)
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
        crate::interrupt::start();
        let mut out = Vec::with_capacity(n * self.kernels.len());
        self.rows_with_raw(Rows { x, d, y }, None, Some(&mut out))?;
        Ok(out)
    }

    /// Full rounds over the rows (validated by [`crate::stream`], except against
    /// features that the first row of a fresh learner draws): meta predictions
    /// pushed onto `out`, raw expert predictions (row-major) onto `raw`. Polls
    /// Ctrl-C between chunks of whole blocks; a row that does not fit the drawn
    /// features stops the run after the rows before it, with the error.
    fn rows_with_raw(
        &mut self,
        rows: Rows<'_>,
        mut out: Option<&mut Vec<f64>>,
        mut raw: Option<&mut Vec<f64>>,
    ) -> Result<()> {
        let Rows { mut x, d, mut y } = rows;
        if self.state.is_none() && !y.is_empty() {
            // The first round draws the features (keep the one Rng's draw order).
            crate::interrupt::poll()?;
            let p = self.predict_learn(&x[..d], y[0])?;
            if let Some(o) = out.as_deref_mut() {
                o.push(p);
            }
            if let (Some(r), Some(st)) = (raw.as_deref_mut(), &self.state) {
                r.extend_from_slice(&st.raw);
            }
            (x, y) = (&x[d..], &y[1..]);
        }
        if y.is_empty() {
            return Ok(());
        }
        let r = self.feature_dim();
        let block = self.block_size.unwrap_or_else(|| auto_block_size(r)).max(1);
        // The meta VAW on N experts blocks as its own engine would (never more rows).
        let meta_block = block.min(auto_block_size(self.kernels.len()));
        let chunk = block * (CHUNK_ROWS / block).max(1);
        let plan =
            ChunkPlan { block, meta_block, clip: self.clip, workers: Workers::new(self.threads) };
        let st = self.state_mut(d)?;
        for (xc, yc) in x.chunks(chunk * d).zip(y.chunks(chunk)) {
            crate::interrupt::poll()?;
            let mut k = 0;
            let mut failed = None;
            for row in xc.chunks_exact(d) {
                if let Err(e) = crate::features::rff::check_inputs(&st.features, row) {
                    failed = Some(e);
                    break;
                }
                k += 1;
            }
            st.run_chunk(&xc[..k * d], d, &yc[..k], &plan);
            if let Some(o) = out.as_deref_mut() {
                o.extend_from_slice(&st.yhat);
            }
            if let Some(r) = raw.as_deref_mut() {
                r.extend_from_slice(&st.zb);
            }
            if let Some(e) = failed {
                return Err(e);
            }
        }
        Ok(())
    }

    fn clip_in_place(&self, z: &mut [f64]) {
        if let Some((lo, hi)) = self.clip {
            z.iter_mut().for_each(|v| *v = v.clamp(lo, hi));
        }
    }
}

/// How a whole-stream call runs its chunks of rows.
struct ChunkPlan {
    /// Rows per expert block (1: single rounds).
    block: usize,
    /// Rows per block of the meta VAW.
    meta_block: usize,
    /// The clip of the experts' predictions before the meta rule.
    clip: Option<(f64, f64)>,
    workers: Workers,
}

impl State {
    /// `y.len()` rounds: every expert's rounds (blocks of `plan.block` rows, experts in
    /// parallel), the raw `B x N` predictions left in `zb`, then the meta rule on
    /// the (clipped) rows in order, its predictions left in `yhat`.
    fn run_chunk(&mut self, x: &[f64], d: usize, y: &[f64], plan: &ChunkPlan) {
        let ChunkPlan { block, meta_block, clip, ref workers } = *plan;
        let (n, nk) = (y.len(), self.experts.len());
        self.zb.clear();
        self.yhat.clear();
        if n == 0 {
            return;
        }
        let mut items: Vec<_> = self
            .features
            .iter()
            .zip(self.experts.iter_mut())
            .zip(self.scratch.iter_mut())
            .collect();
        workers.for_each(&mut items, |((f, e), sc)| {
            let r = e.dim();
            sc.preds.clear();
            sc.feats.resize(r * block.min(n), 0.0);
            if block == 1 {
                // Single rounds, exactly as `predict_learn` plays them.
                for (row, &yi) in x.chunks_exact(d).zip(y) {
                    f.map_into(row, &mut sc.feats);
                    sc.preds.push(e.predict_learn(&sc.feats, yi));
                }
                return;
            }
            for (xb, yb) in x.chunks(block * d).zip(y.chunks(block)) {
                for (row, v) in xb.chunks_exact(d).zip(sc.feats.chunks_exact_mut(r)) {
                    f.map_into(row, v);
                }
                e.predict_learn_block(&sc.feats[..yb.len() * r], yb, &mut sc.preds);
            }
        });
        // Each expert wrote its own column: gather the B x N matrix.
        self.zb.resize(n * nk, 0.0);
        for (j, sc) in self.scratch.iter().enumerate() {
            for (i, &p) in sc.preds.iter().enumerate() {
                self.zb[i * nk + j] = p;
            }
        }
        let mut z = std::mem::take(&mut self.z);
        z.clone_from(&self.zb);
        if let Some((lo, hi)) = clip {
            z.iter_mut().for_each(|v| *v = v.clamp(lo, hi));
        }
        match &mut self.meta {
            AnyAggregator::Vaw(m) if meta_block > 1 => {
                for (zc, yc) in z.chunks(meta_block * nk).zip(y.chunks(meta_block)) {
                    m.predict_update_block(zc, yc, &mut self.yhat);
                }
            }
            meta => {
                for (zi, &yi) in z.chunks_exact(nk).zip(y) {
                    self.yhat.push(meta.predict_update(zi, yi));
                }
            }
        }
        self.raw.copy_from_slice(&self.zb[(n - 1) * nk..]);
        z.truncate(nk);
        z.copy_from_slice(&self.raw);
        if let Some((lo, hi)) = clip {
            z.iter_mut().for_each(|v| *v = v.clamp(lo, hi));
        }
        self.z = z;
    }
}

impl OnlineLearner for MultiKernelAwv {
    fn input_dim(&self) -> Option<usize> {
        self.feature_maps().map(|f| f[0].input_dim())
    }

    fn check_input_dim(&self, d: usize) -> Result<()> {
        crate::limits::check_input_doubles(
            &format!(
                "MultiKernelAWV with {} kernels x {} random features on {d}-dimensional inputs",
                self.kernels.len(),
                self.n_features
            ),
            self.memory_doubles(d),
        )
    }

    fn memory_doubles(&self, d: usize) -> Option<u128> {
        self.memory(self.block_size, d)
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

    /// `sqrt(sum_j pi_j sigma_j^2)` over the experts' noise levels
    /// ([`crate::uncertainty::mixture_noise`]).
    fn noise_std(&self) -> Option<f64> {
        let Some(st) = &self.state else { return Some(f64::NAN) };
        let s: Vec<f64> = st.experts.iter().map(|e| e.noise_std()).collect();
        Some(crate::uncertainty::mixture_noise(&st.meta.weights(), &s))
    }

    /// The meta rule's mixture of the experts' predictive distributions
    /// ([`crate::uncertainty::mixture_std`]).
    fn predict_std(&self, x: &[f64]) -> Result<Option<(f64, f64)>> {
        let Some(st) = &self.state else { return Ok(Some((self.predict(x)?, f64::NAN))) };
        let (mut z, mut s) = (Vec::new(), Vec::new());
        for (f, e) in st.features.iter().zip(&st.experts) {
            let (m, sd) = e.predict_std(&f.map(x));
            z.push(m);
            s.push(sd);
        }
        self.clip_in_place(&mut z);
        let p = st.meta.predict(&z);
        Ok(Some((p, crate::uncertainty::mixture_std(&st.meta.weights(), &z, &s, p))))
    }

    fn predict_keep(&mut self, x: &[f64]) -> Result<f64> {
        self.kept.clear();
        let n_seen = self.n_seen();
        let clip = self.clip;
        let Some(st) = self.state.as_mut() else { return self.predict(x) };
        if st.scratch.len() != st.experts.len() {
            st.scratch = vec![Scratch::default(); st.experts.len()];
        }
        let mut z = Vec::with_capacity(st.experts.len());
        for ((f, e), sc) in st.features.iter().zip(st.experts.iter_mut()).zip(&mut st.scratch) {
            sc.feats.resize(e.dim(), 0.0);
            f.map_into(x, &mut sc.feats[..e.dim()]);
            z.push(e.predict_keep(&sc.feats[..e.dim()]));
        }
        if let Some((lo, hi)) = clip {
            z.iter_mut().for_each(|v| *v = v.clamp(lo, hi));
        }
        let p = st.meta.predict(&z);
        self.kept.set(x, n_seen);
        Ok(p)
    }

    fn predict_learn(&mut self, x: &[f64], y: f64) -> Result<f64> {
        let kept = self.kept.take(x, self.n_seen());
        // The first round draws the features: check x against them, else undo the draw.
        if self.state.is_none() {
            self.state_mut(x.len())?;
            crate::features::rff::keep_draw_if_fits(&mut self.state, |s| &s.features, x)?;
        }
        let clip = self.clip;
        let st = self.state_mut(x.len())?;
        let State { features, experts, meta, v, z, raw, scratch, .. } = st;
        for (j, ((f, e), zj)) in
            features.iter().zip(experts.iter_mut()).zip(z.iter_mut()).enumerate()
        {
            // A kept round finishes from the expert's kept features and A^{-1} phi.
            if kept {
                if let Some(p) = scratch
                    .get(j)
                    .and_then(|sc| sc.feats.get(..e.dim()))
                    .and_then(|v| e.learn_kept(v, y))
                {
                    *zj = p;
                    continue;
                }
            }
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

    fn run_rows(&mut self, rows: Rows<'_>, out: Option<&mut Vec<f64>>) -> Result<()> {
        self.rows_with_raw(rows, out, None)
    }

    fn supports_weights(&self) -> bool {
        true
    }

    /// Every expert's weighted AWV round (`A += w phi phi^T`, `b += w y phi`), then the
    /// meta-aggregator's round with its losses weighted by `w`.
    fn predict_learn_weighted(&mut self, x: &[f64], y: f64, w: f64) -> Result<f64> {
        if w == 1.0 {
            return self.predict_learn(x, y);
        }
        self.kept.clear();
        if self.state.is_none() {
            self.state_mut(x.len())?;
            crate::features::rff::keep_draw_if_fits(&mut self.state, |s| &s.features, x)?;
        }
        let clip = self.clip;
        let st = self.state_mut(x.len())?;
        let State { features, experts, meta, v, z, raw, .. } = st;
        for ((f, e), zj) in features.iter().zip(experts.iter_mut()).zip(z.iter_mut()) {
            f.map_into(x, v);
            *zj = e.predict_learn_weighted(v, y, w);
        }
        raw.copy_from_slice(z);
        if let Some((lo, hi)) = clip {
            z.iter_mut().for_each(|v| *v = v.clamp(lo, hi));
        }
        Ok(meta.predict_update_weighted(z, y, w))
    }

    /// The experts' predictions as matrix-matrix products ([`LinearAwv::predict_many`],
    /// experts in parallel) when the learner runs blocks; single predictions (bit for
    /// bit `predict`) otherwise.
    fn predict_rows(&self, x: &[f64], d: usize, out: &mut Vec<f64>) -> Result<()> {
        let blocked = self
            .state
            .as_ref()
            .filter(|_| self.block_size.unwrap_or_else(|| auto_block_size(self.feature_dim())) > 1);
        let Some(st) = blocked else { return super::batch::predict_each(self, x, d, out) };
        let nk = st.experts.len();
        let workers = Workers::new(self.threads);
        let mut cols = vec![Vec::new(); nk];
        let mut z = Vec::new();
        for xc in x.chunks(PREDICT_ROWS * d) {
            crate::interrupt::poll()?;
            let n = xc.len() / d;
            let mut items: Vec<_> =
                st.features.iter().zip(&st.experts).zip(cols.iter_mut()).collect();
            workers.for_each(&mut items, |((f, e), col)| {
                let r = e.dim();
                let mut feats = vec![0.0; n * r];
                for (row, v) in xc.chunks_exact(d).zip(feats.chunks_exact_mut(r)) {
                    f.map_into(row, v);
                }
                col.clear();
                e.predict_many(&feats, col);
            });
            z.resize(nk, 0.0);
            for i in 0..n {
                for (zj, c) in z.iter_mut().zip(&cols) {
                    *zj = c[i];
                }
                self.clip_in_place(&mut z);
                out.push(st.meta.predict(&z));
            }
        }
        Ok(())
    }

    fn n_seen(&self) -> u64 {
        self.state.as_ref().map_or(0, |s| s.meta.n_seen())
    }

    fn dim(&self) -> usize {
        self.kernels.len() * self.feature_dim()
    }
}

// The format version of a pickled MultiKernelAwv: bump it when a serialised field changes.
crate::state::state_version!(MultiKernelAwv, 6);

impl crate::state::ValidState for MultiKernelAwv {
    fn validate(&self) -> Result<()> {
        use crate::state::*;
        let n = self.kernels.len();
        self.rule.validate()?;
        len_is("the meta rule's experts", self.rule.n_experts(), n)?;
        ensure(self.rule.n_seen() == 0, || {
            "the meta rule's configuration has played rounds".into()
        })?;
        let Some(st) = &self.state else { return Ok(()) };
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
        st.meta.check_config(&self.rule)
    }
    fn check_config(&self, fresh: &Self) -> Result<()> {
        self.rule.check_config(&fresh.rule)?;
        crate::state::same_fields!(self, fresh;
            kernels, n_features, lam, variant: "features", ridge, clip, seed, gamma, share)
    }
    fn adopt_settings(&mut self, fresh: &Self) {
        self.block_size = fresh.block_size;
        self.threads = fresh.threads;
    }
}

crate::state_params!(MultiKernelAwv; kernels, n_features, lam, variant as "features", ridge, clip, seed, gamma, share);
