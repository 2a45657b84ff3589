//! OMKL-GF (Ghari & Shen 2023, "Graph-aided online multi-kernel learning"), the
//! second OGD-based baseline of the VAW2 paper (sec. 4). The OMKL-GF paper is not
//! in our sources; this follows the description of the authors' code
//! (docs/choices.md, VAW2, "Raker and OMKL-GF"), with these choices made explicit:
//!
//! * experts as in [`super::Raker`]: OGD on `[cos, sin] / sqrt(m)` features,
//!   `eta_t = lr / sqrt(t)`, ridge `reg`, kernel log-weights `logw`;
//! * the feedback graph of a round is the set `S` of distinct kernels among
//!   `n_samples` (M) draws with replacement from
//!   `p = (1 - explore) softmax(logw) + explore / N`; each kernel's inclusion
//!   probability is `q_j = 1 - (1 - p_j)^M`;
//! * the graph of round t+1 is drawn at the end of round t (and the first one
//!   when the learner is built), so `predict` is pure; it is redrawn during the
//!   first `graph_rounds` rounds and then frozen (with its `q`);
//! * prediction: `y_hat = sum_{j in S} w_j f_j / sum_{j in S} w_j`,
//!   `w = softmax(logw)`;
//! * only `j in S` take their OGD step ([`super::ogd_experts`]), importance-weighted
//!   by `iw = 1 / max(q_j, 0.05)` ("divide by q if q > 0.05, otherwise multiply by 20"):
//!   `theta_j -= eta_t iw (2 (f_j - y) v_j + 2 reg theta_j)`,
//!   `logw_j -= eta_t iw ((f_j - y)^2 + reg ||theta_j||^2)`.
//!
//! Draw order from the one `Rng`: the features of every kernel (as Raker), then
//! each graph: M uniforms, each mapped to the first `j` with
//! `u * sum(p) < p_0 + ... + p_j`.

use super::ogd_experts::{check_ogd_params, next_round, ogd_accessors, ogd_protocol, OgdExperts};
use super::online_learner::OnlineLearner;
use crate::aggregation::{renormalise_log_pub, softmax_pub};
use crate::error::Result;
use crate::features::rff::RandomFourier;
use crate::features::FeatureMap;
use crate::kernels::Kernel;
use crate::rng::Rng;
use serde::{Deserialize, Serialize};

/// Largest number of draws per graph.
pub const MAX_SAMPLES: usize = 100_000;

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct OmklGf {
    kernels: Vec<Kernel>,
    n_features: usize,
    lr: f64,
    reg: f64,
    n_samples: usize,
    explore: f64,
    graph_rounds: u64,
    seed: u64,
    state: Option<State>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
struct State {
    rng: Rng,
    experts: OgdExperts,
    /// Kernels of the current graph (sorted, distinct).
    chosen: Vec<usize>,
    /// Inclusion probabilities `q_j` of the current graph.
    q: Vec<f64>,
    t: u64,
    #[serde(skip)]
    v: Vec<f64>,
}

super::ogd_experts::ogd_params! {
    /// The parameters of [`OmklGf`] (defaults: those of the Python class `OMKLGF`).
    pub struct OmklGfParams {
        /// Draws per feedback graph.
        n_samples: usize = 10 => "int", "in [1, 100000]";
        /// Exploration probability of the graph draw.
        explore: f64 = 0.1 => "float", "in [0, 1]";
        /// Rounds per feedback graph.
        graph_rounds: u64 = 500 => "int", ">= 0";
        /// Seed of the frequencies and of the graphs.
        seed: u64 = 0 => "int", ">= 0";
    }
}

impl OmklGfParams {
    pub fn validate(&self) -> Result<()> {
        check_ogd_params(&self.kernels, self.n_features, self.lr, self.reg)?;
        let (n_samples, explore) = (self.n_samples, self.explore);
        if n_samples == 0 || n_samples > MAX_SAMPLES {
            return crate::param_err!(
                "n_samples must be in [1, {MAX_SAMPLES}] (each graph costs n_samples draws; \
                 beyond that every kernel is drawn anyway), got {n_samples}"
            );
        }
        if !(explore.is_finite() && (0.0..=1.0).contains(&explore)) {
            return crate::param_err!("explore must be in [0, 1], got {explore}");
        }
        Ok(())
    }
}

impl OmklGf {
    pub fn new(p: &OmklGfParams) -> Result<Self> {
        p.validate()?;
        let OmklGfParams { kernels, n_features, lr, reg, n_samples, explore, graph_rounds, seed } =
            p.clone();
        Ok(OmklGf {
            kernels,
            n_features,
            lr,
            reg,
            n_samples,
            explore,
            graph_rounds,
            seed,
            state: None,
        })
    }

    /// Samples the next graph from the current weights.
    fn draw_graph(st: &mut State, n_samples: usize, explore: f64) {
        let n = st.experts.logw.len();
        let mut w = vec![0.0; n];
        softmax_pub(&st.experts.logw, &mut w);
        let p: Vec<f64> = w.iter().map(|wj| (1.0 - explore) * wj + explore / n as f64).collect();
        let total: f64 = p.iter().sum();
        let mut hit = vec![false; n];
        for _ in 0..n_samples {
            let u = st.rng.uniform() * total;
            let mut acc = 0.0;
            let mut pick = n - 1;
            for (j, pj) in p.iter().enumerate() {
                acc += pj;
                if u < acc {
                    pick = j;
                    break;
                }
            }
            hit[pick] = true;
        }
        st.chosen = (0..n).filter(|&j| hit[j]).collect();
        st.q = p.iter().map(|pj| 1.0 - (1.0 - pj / total).powi(n_samples as i32)).collect();
    }

    fn state_mut(&mut self, d: usize) -> Result<&mut State> {
        if self.state.is_none() {
            let mut rng = Rng::new(self.seed);
            let experts = OgdExperts::draw(&self.kernels, d, self.n_features, &mut rng)?;
            let mut st =
                State { rng, experts, chosen: Vec::new(), q: Vec::new(), t: 0, v: Vec::new() };
            Self::draw_graph(&mut st, self.n_samples, self.explore);
            self.state = Some(st);
        }
        let r = 2 * self.n_features;
        let st = super::batch::built(&mut self.state, "OMKLGF")?;
        super::batch::sized(&mut st.v, r);
        Ok(st)
    }

    ogd_accessors!();

    /// Kernels of the graph the next round uses (None before the first round).
    pub fn chosen(&self) -> Option<&[usize]> {
        self.state.as_ref().map(|s| s.chosen.as_slice())
    }
}

impl OnlineLearner for OmklGf {
    ogd_protocol!("OMKL-GF");

    fn predict(&self, x: &[f64]) -> Result<f64> {
        let Some(st) = &self.state else { return Ok(0.0) };
        let (num, den) = st.experts.weighted_sum(st.chosen.iter().copied(), x);
        Ok(if den > 0.0 { num / den } else { 0.0 })
    }

    fn predict_learn(&mut self, x: &[f64], y: f64) -> Result<f64> {
        self.predict_learn_weighted(x, y, 1.0)
    }

    fn supports_weights(&self) -> bool {
        true
    }

    /// Sample weight `sw`: the round's objective (loss and regulariser) of every expert,
    /// hence its gradient step and its log-weight's loss, is scaled by `sw`, as the
    /// importance weight of [`super::ogd_experts`] scales it (`sw = 1`: bit for bit).
    fn predict_learn_weighted(&mut self, x: &[f64], y: f64, sw: f64) -> Result<f64> {
        // The first round draws the features: check x against them, else undo the draw.
        if self.state.is_none() {
            self.state_mut(x.len())?;
            crate::features::rff::keep_draw_if_fits(&mut self.state, |s| &s.experts.features, x)?;
        }
        let (lr, reg, ns, ex, gr) =
            (self.lr, self.reg, self.n_samples, self.explore, self.graph_rounds);
        let n = self.kernels.len();
        let st = self.state_mut(x.len())?;
        let eta = next_round(&mut st.t, lr);
        let mut w = vec![0.0; n];
        softmax_pub(&st.experts.logw, &mut w);
        let (mut num, mut den) = (0.0, 0.0);
        for &j in &st.chosen {
            let iw = sw * (1.0 / st.q[j].max(0.05));
            num += w[j] * st.experts.step(j, (x, y), (eta, iw), reg, &mut st.v);
            den += w[j];
        }
        renormalise_log_pub(&mut st.experts.logw);
        if st.t < gr {
            Self::draw_graph(st, ns, ex);
        }
        Ok(if den > 0.0 { num / den } else { 0.0 })
    }
}

// The format version of a pickled OmklGf: bump it when a serialised field changes.
crate::state::state_version!(OmklGf, 4);

impl crate::state::ValidState for OmklGf {
    fn validate(&self) -> Result<()> {
        use crate::state::*;
        let Some(st) = &self.state else { return Ok(()) };
        let n = self.kernels.len();
        st.experts.validate(n, self.n_features)?;
        len_is("inclusion probabilities", st.q.len(), n)?;
        ensure(st.q.iter().all(|q| q.is_finite() && *q >= 0.0), || {
            "an inclusion probability is not finite".into()
        })?;
        ensure(
            st.chosen.windows(2).all(|w| w[0] < w[1]) && st.chosen.iter().all(|&j| j < n),
            || "the chosen kernels are not distinct kernel indices".into(),
        )
    }
    fn check_config(&self, fresh: &Self) -> Result<()> {
        crate::state::same_fields!(self, fresh;
            kernels, n_features, lr, reg, n_samples, explore, graph_rounds, seed)
    }
}

crate::state_params!(OmklGf; kernels, n_features, lr, reg, n_samples, explore, graph_rounds, seed);
