//! [`Mixture`]: any list of learners combined online by an aggregation rule, the
//! "experts + aggregation" scheme of the VAW2 paper (Rokhlin & Gurtovaya 2025,
//! sec. 3-4) and of R's `opera::mixture`, with learners as the experts.
//!
//! Round t: every expert j predicts `z_{t,j}` for `x_t`; the rule predicts
//! `y_hat_t` from `z_t` (its weights use rounds `< t` only); then `y_t` updates
//! every expert and the rule. The experts never see the rule, so over a block
//! of rows each expert can run its own whole block first (one thread per group
//! of experts) and the rule then plays the rows in order: the results are the
//! same bits for any number of threads, and those of the round-by-round loop
//! (bit for bit unless an expert runs blocks of rounds: then up to rounding).

use super::loss_scale::LossScale;
use super::AnyLearner;
use crate::aggregation::{Aggregator, AnyAggregator};
use crate::error::Result;
use crate::learners::{OnlineLearner, Rows};
use crate::parallel::Workers;
use crate::state::ValidState;
use serde::{Deserialize, Serialize};

/// Rows per block of the blocked path (bounds the `block x N` buffer of expert predictions).
const BLOCK_ROWS: usize = 256;
/// Fewest rows of a block whose experts run on several threads.
const MIN_PARALLEL_ROWS: usize = 16;

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(try_from = "MixtureState")]
pub struct Mixture {
    pub(super) experts: Vec<AnyLearner>,
    pub(super) rule: AnyAggregator,
    /// The rules of outputs `2..=K`, each with its loss scale (one weight vector per
    /// output: `super::outputs`).
    pub(super) extra_rules: Vec<(AnyAggregator, Option<LossScale>)>,
    /// The rule as constructed, the start of an output added later.
    pub(super) fresh_rule: AnyAggregator,
    pub(super) d: Option<usize>,
    pub(super) n_seen: u64,
    /// Threads of the blocked path (1 = the calling thread only, 0 = one per core).
    threads: usize,
    /// Regrets relative to the running loss scale (`with_loss_scale`; None: plain rule).
    pub(super) loss_scale: Option<LossScale>,
    #[serde(skip)]
    z: Vec<f64>,
    /// Scratch of the blocked path: expert j's predictions of a block in `cols[j]`.
    #[serde(skip)]
    cols: Vec<Vec<f64>>,
}

/// The serialised fields of a [`Mixture`], checked as a whole before a mixture is
/// rebuilt from bytes (a corrupt state must not reach a round).
#[derive(Deserialize)]
struct MixtureState {
    experts: Vec<AnyLearner>,
    rule: AnyAggregator,
    extra_rules: Vec<(AnyAggregator, Option<LossScale>)>,
    fresh_rule: AnyAggregator,
    d: Option<usize>,
    n_seen: u64,
    threads: usize,
    loss_scale: Option<LossScale>,
}

impl TryFrom<MixtureState> for Mixture {
    type Error = crate::KsError;
    fn try_from(s: MixtureState) -> Result<Self> {
        let mut m = Mixture::new(s.experts, s.rule)?;
        // Every expert learns each round of the mixture (and may have learned before it).
        if let Some(e) = m.experts.iter().find(|e| e.n_seen() < s.n_seen) {
            return crate::input_err!(
                "corrupt mixture state: {} rounds, but an expert has seen {}",
                s.n_seen,
                e.n_seen()
            );
        }
        m.set_threads(s.threads)?;
        if let Some(ls) = &s.loss_scale {
            ls.validate()?;
        }
        m.loss_scale = s.loss_scale;
        let n = m.experts.len();
        if let Some(r) = std::iter::once(&s.fresh_rule)
            .chain(s.extra_rules.iter().map(|r| &r.0))
            .find(|r| r.n_experts() != n)
        {
            return crate::input_err!(
                "corrupt mixture state: a rule of {} experts, {n} experts",
                r.n_experts()
            );
        }
        (m.extra_rules, m.fresh_rule) = (s.extra_rules, s.fresh_rule);
        if let (Some(d), Some(e)) = (s.d, m.d) {
            if d != e {
                return crate::input_err!(
                    "corrupt mixture state: input dimension {d} vs experts' {e}"
                );
            }
        }
        if s.d == Some(0) {
            return crate::input_err!("corrupt mixture state: input dimension 0");
        }
        m.d = s.d.or(m.d);
        m.n_seen = s.n_seen;
        Ok(m)
    }
}

/// What [`super::Traced::progressive_trace`] records: per round, the expert predictions
/// and the rule's weights at prediction time (both row-major `n x N`).
#[derive(Clone, Debug, Default)]
pub struct Trace {
    pub predictions: Vec<f64>,
    pub experts: Vec<f64>,
    pub weights: Vec<f64>,
}

crate::params! {
    /// The parameters of a [`Mixture`] besides its experts and rule (defaults: those of
    /// the Python class `Mixture`).
    pub struct MixtureParams {
        /// Threads running the experts (0: one per core); not part of the results.
        threads: usize = 0 => "int", crate::parallel::THREADS;
    }
}

/// The constructor arguments of a Mixture before [`MixtureParams`]: the experts, and the
/// rule by name (the Python class builds the aggregator from the name and its keyword
/// arguments, `kernelstream.aggregation`); with the default of each (None: required).
pub const MIXTURE_ARGS: [(crate::params::ParamSpec, Option<&str>); 2] = [
    (
        crate::params::ParamSpec {
            name: "experts",
            kind: "seq",
            domain: crate::params::object("a kernelstream learner").non_empty(),
            required: true,
        },
        None,
    ),
    (
        crate::params::ParamSpec {
            name: "rule",
            kind: "str",
            domain: crate::params::one_of(&crate::aggregation::rule::RULE_NAMES),
            required: false,
        },
        Some("boa"),
    ),
];

impl MixtureParams {
    fn relations(&self) -> Result<()> {
        Ok(())
    }
}

impl Mixture {
    /// The mixture of `experts` under `rule` with the parameters `p`.
    pub fn with_params(
        experts: Vec<AnyLearner>,
        rule: AnyAggregator,
        p: &MixtureParams,
    ) -> Result<Self> {
        p.validate()?;
        let mut m = Self::new(experts, rule)?;
        m.threads = p.threads;
        Ok(m)
    }

    /// `experts` (at least one, already-fed experts keep their state) and a rule over
    /// exactly that many experts.
    pub fn new(experts: Vec<AnyLearner>, rule: AnyAggregator) -> Result<Self> {
        if experts.is_empty() {
            return crate::param_err!("a mixture needs at least one expert");
        }
        if rule.n_experts() != experts.len() {
            return crate::param_err!(
                "the aggregation rule has {} experts, the mixture {}",
                rule.n_experts(),
                experts.len()
            );
        }
        let mut d = None;
        for (j, e) in experts.iter().enumerate() {
            match (d, e.input_dim()) {
                (Some(d0), Some(dj)) if d0 != dj => {
                    return crate::param_err!(
                        "expert {j} was fed {dj}-dimensional inputs, an earlier expert {d0}-dimensional ones"
                    )
                }
                (None, Some(dj)) => d = Some(dj),
                _ => {}
            }
        }
        let n = experts.len();
        let (extra_rules, fresh_rule) = (Vec::new(), rule.clone());
        Ok(Mixture {
            experts,
            rule,
            extra_rules,
            fresh_rule,
            d,
            n_seen: 0,
            threads: 1,
            loss_scale: None,
            z: vec![0.0; n],
            cols: Vec::new(),
        })
    }

    pub fn n_experts(&self) -> usize {
        self.experts.len()
    }

    /// The rule sees regrets relative to the discounted mean of the mixture's squared
    /// errors over about `window` rounds ([`LossScale`]); before the first round.
    pub fn with_loss_scale(mut self, window: usize) -> Result<Self> {
        self.loss_scale = Some(LossScale::new(window)?);
        Ok(self)
    }

    /// The window of the loss scale (None: the plain rule).
    pub fn loss_window(&self) -> Option<usize> {
        self.loss_scale.as_ref().map(LossScale::window)
    }

    /// The rule's round, through the loss scale if there is one.
    fn rule_round(&mut self, z: &mut [f64], y: f64) -> f64 {
        match self.loss_scale.as_mut() {
            Some(ls) => ls.round(&mut self.rule, z, y),
            None => self.rule.predict_update(z, y),
        }
    }

    fn rule_predict(&self, z: &mut [f64]) -> f64 {
        match &self.loss_scale {
            Some(ls) => ls.predict(&self.rule, z),
            None => self.rule.predict(z),
        }
    }

    pub fn experts(&self) -> &[AnyLearner] {
        &self.experts
    }

    pub fn rule(&self) -> &AnyAggregator {
        &self.rule
    }

    /// The weights the rule would use next (for VAW: its ridge solution).
    pub fn weights(&self) -> Vec<f64> {
        self.rule.weights()
    }

    /// Threads used by the blocked path (0 = one per core; results do not depend on it).
    pub fn threads(&self) -> usize {
        self.threads
    }

    pub fn set_threads(&mut self, threads: usize) -> Result<()> {
        crate::parallel::check_threads(threads)?;
        self.threads = threads;
        Ok(())
    }

    /// Every expert's prediction for `x` as the next round (pure).
    pub fn expert_predictions(&self, x: &[f64]) -> Result<Vec<f64>> {
        self.experts.iter().map(|e| e.predict(x)).collect()
    }

    /// Runs every expert over one block; `cols[j]` receives expert j's predictions.
    /// The experts are independent items of `workers` (one expert per item, so that
    /// the pool balances unequal experts); a block of fewer than [`MIN_PARALLEL_ROWS`]
    /// rows (a single round of the serving path) stays on the calling thread, where
    /// handing it out would cost more than it saves.
    fn experts_block(
        &mut self,
        x: &[f64],
        d: usize,
        y: &[f64],
        cols: &mut [Vec<f64>],
        workers: &Workers,
    ) -> Result<()> {
        cols.iter_mut().for_each(Vec::clear);
        // Kernel rows several experts would each compute, once (the same bits).
        let shared = super::shared_features::Shared::prepare(&self.experts, x, d);
        let (shared, run) = (shared.as_ref(), super::shared_features::Shared::run);
        if y.len() < MIN_PARALLEL_ROWS || self.experts.len() < 2 {
            for (j, (e, c)) in self.experts.iter_mut().zip(cols.iter_mut()).enumerate() {
                run(shared, j, e, Rows { x, d, y }, false, c)?;
            }
            return Ok(());
        }
        let mut items: Vec<_> = (self.experts.iter_mut().zip(cols.iter_mut()).enumerate())
            .map(|(j, (e, c))| (j, e, c, Ok(())))
            .collect();
        // The costliest experts (the largest representations) first, so that the
        // threads finish together; errors are then reported in the experts' order.
        items.sort_by_key(|(_, e, _, _)| std::cmp::Reverse(e.dim()));
        workers.for_each(&mut items, |(j, e, c, res)| {
            *res = run(shared, *j, e, Rows { x, d, y }, false, c)
        });
        items.sort_by_key(|(j, ..)| *j);
        items.into_iter().try_for_each(|(.., r)| r)
    }

    /// The online protocol over the rows of `x`, block by block; with `trace`, also
    /// records the expert predictions and the rule's weights of every round.
    fn run(
        &mut self,
        x: &[f64],
        d: usize,
        y: &[f64],
        out: &mut Vec<f64>,
        mut trace: Option<&mut Trace>,
    ) -> Result<()> {
        let n_exp = self.experts.len();
        let mut cols = std::mem::take(&mut self.cols);
        cols.resize_with(n_exp, Vec::new);
        let workers = match self.threads {
            _ if y.len() < MIN_PARALLEL_ROWS => Workers::Caller,
            t => Workers::new(t),
        };
        let mut z = std::mem::take(&mut self.z);
        z.resize(n_exp, 0.0);
        for (xb, yb) in x.chunks(BLOCK_ROWS * d).zip(y.chunks(BLOCK_ROWS)) {
            // Ctrl-C between blocks: every completed round is in `out` and in the state.
            if let Err(e) = crate::interrupt::poll() {
                (self.z, self.cols) = (z, cols);
                return Err(e);
            }
            // A block is one step: the experts' own polls are off inside it.
            let res = crate::interrupt::uninterrupted(|| {
                self.experts_block(xb, d, yb, &mut cols, &workers)
            });
            if let Err(e) = res {
                (self.z, self.cols) = (z, cols);
                return Err(e);
            }
            self.d = Some(d);
            for (i, &yt) in yb.iter().enumerate() {
                for (zj, c) in z.iter_mut().zip(&cols) {
                    *zj = c[i];
                }
                if let Some(t) = trace.as_deref_mut() {
                    t.experts.extend_from_slice(&z);
                    t.weights.extend(self.rule.weights());
                }
                let p = self.rule_round(&mut z, yt);
                out.push(p);
                if let Some(t) = trace.as_deref_mut() {
                    t.predictions.push(p);
                }
                self.n_seen += 1;
            }
        }
        (self.z, self.cols) = (z, cols);
        Ok(())
    }
}

/// The expert predictions and the weights of every round; on Ctrl-C the run stops
/// between blocks.
impl super::Traced for Mixture {
    fn trace_rows(&mut self, rows: Rows<'_>, trace: &mut Trace) -> Result<()> {
        let mut out = Vec::with_capacity(rows.y.len());
        self.run(rows.x, rows.d, rows.y, &mut out, Some(trace))
    }
}

impl OnlineLearner for Mixture {
    fn input_dim(&self) -> Option<usize> {
        self.d
    }

    /// Every expert widened exactly (on copies, kept only if all widen): the rules saw
    /// the experts' past predictions, which a widening leaves as they were.
    fn widen_inputs(&mut self, d: usize) -> Result<()> {
        let Some(d0) = self.d else { return Ok(()) };
        if d <= d0 {
            return crate::learners::cannot_widen(d0, d);
        }
        let mut experts = self.experts.clone();
        experts.iter_mut().try_for_each(|e| e.widen_inputs(d))?;
        self.experts = experts;
        self.d = Some(d);
        Ok(())
    }

    fn check_row(&self, x: &[f64], y: Option<f64>) -> Result<()> {
        self.experts.iter().try_for_each(|e| e.check_row(x, y))
    }

    fn check_capacity(&self, n_new: usize, d: usize) -> Result<()> {
        self.experts.iter().try_for_each(|e| e.check_capacity(n_new, d))
    }

    fn check_input_dim(&self, d: usize) -> Result<()> {
        self.experts.iter().try_for_each(|e| e.check_input_dim(d))?;
        // Each expert fits alone; together they must too.
        crate::limits::check_input_doubles(
            &format!("Mixture of {} experts on {d}-dimensional inputs", self.experts.len()),
            crate::limits::sum_doubles(self.experts.iter().map(|e| e.memory_doubles(d))),
        )
    }

    fn predict(&self, x: &[f64]) -> Result<f64> {
        Ok(self.rule_predict(&mut self.expert_predictions(x)?))
    }

    /// `sqrt(sum_j pi_j sigma_j^2)` over the experts' noise levels
    /// ([`crate::uncertainty::mixture_noise`]); `None` if an expert has none.
    fn noise_std(&self) -> Option<f64> {
        let s = self.experts.iter().map(|e| e.noise_std()).collect::<Option<Vec<f64>>>()?;
        Some(crate::uncertainty::mixture_noise(&self.rule.weights(), &s))
    }

    /// The rule's mixture of the experts' predictive distributions
    /// ([`crate::uncertainty::mixture_std`]); `None` if an expert has no std.
    fn predict_std(&self, x: &[f64]) -> Result<Option<(f64, f64)>> {
        let (mut z, mut s) = (Vec::with_capacity(self.experts.len()), Vec::new());
        for e in &self.experts {
            let Some((m, sd)) = e.predict_std(x)? else { return Ok(None) };
            z.push(m);
            s.push(sd);
        }
        let p = self.rule.predict(&z);
        Ok(Some((p, crate::uncertainty::mixture_std(&self.rule.weights(), &z, &s, p))))
    }

    /// Every expert keeps its work; the following round's experts finish from it
    /// (their `predict_learn`), the rule's update is cheap.
    fn predict_keep(&mut self, x: &[f64]) -> Result<f64> {
        let mut z = std::mem::take(&mut self.z);
        z.clear();
        let mut res = Ok(());
        let shared = super::shared_features::Shared::prepare(&self.experts, x, x.len());
        for (j, e) in self.experts.iter_mut().enumerate() {
            match super::shared_features::keep(shared.as_ref(), j, e, x) {
                Ok(p) => z.push(p),
                Err(err) => {
                    res = Err(err);
                    break;
                }
            }
        }
        let p = res.map(|()| self.rule_predict(&mut z));
        self.z = z;
        p
    }

    fn learn(&mut self, x: &[f64], y: f64) -> Result<()> {
        self.predict_learn(x, y).map(|_| ())
    }

    fn predict_learn(&mut self, x: &[f64], y: f64) -> Result<f64> {
        let mut z = std::mem::take(&mut self.z);
        z.clear();
        for e in self.experts.iter_mut() {
            match e.predict_learn(x, y) {
                Ok(p) => z.push(p),
                Err(err) => {
                    self.z = z;
                    return Err(err);
                }
            }
        }
        self.d = Some(x.len());
        let p = self.rule_round(&mut z, y);
        self.n_seen += 1;
        self.z = z;
        Ok(p)
    }

    fn run_rows(&mut self, rows: Rows<'_>, out: Option<&mut Vec<f64>>) -> Result<()> {
        let mut scratch = Vec::new();
        let out = crate::learners::batch::or_scratch(out, &mut scratch, rows.y.len());
        self.run(rows.x, rows.d, rows.y, out, None)
    }

    /// Every expert's weighted round, then the rule's round with the losses weighted
    /// by `w` (docs/choices.md, "Sample weights").
    fn predict_learn_weighted(&mut self, x: &[f64], y: f64, w: f64) -> Result<f64> {
        if w == 1.0 {
            return self.predict_learn(x, y);
        }
        let mut z = std::mem::take(&mut self.z);
        z.clear();
        for e in self.experts.iter_mut() {
            match e.predict_learn_weighted(x, y, w) {
                Ok(p) => z.push(p),
                Err(err) => {
                    self.z = z;
                    return Err(err);
                }
            }
        }
        self.d = Some(x.len());
        let p = match self.loss_scale.as_mut() {
            Some(ls) => ls.round_weighted(&mut self.rule, &mut z, y, w),
            None => self.rule.predict_update_weighted(&z, y, w),
        };
        self.n_seen += 1;
        self.z = z;
        Ok(p)
    }

    fn supports_weights(&self) -> bool {
        self.experts.iter().all(|e| e.supports_weights())
    }

    fn n_seen(&self) -> u64 {
        self.n_seen
    }

    fn dim(&self) -> usize {
        self.experts.iter().map(|e| e.dim()).sum()
    }

    fn memory_doubles(&self, d: usize) -> Option<u128> {
        crate::limits::sum_doubles(self.experts.iter().map(|e| e.memory_doubles(d)))
    }
}

// The format version of a pickled Mixture: bump it when a serialised field changes, or an
// expert's or rule's version (its state holds theirs).
crate::state::state_version!(Mixture, 12);

/// The experts and the rule were checked when the bytes were decoded (`MixtureState`);
/// here each part checks its own invariants and configuration.
impl ValidState for Mixture {
    fn validate(&self) -> Result<()> {
        self.experts.iter().try_for_each(|e| e.validate())?;
        if let Some(ls) = &self.loss_scale {
            ls.validate()?;
        }
        self.rule.validate()?;
        self.fresh_rule.validate()?;
        self.extra_rules.iter().try_for_each(|(r, ls)| {
            r.validate()?;
            ls.as_ref().map_or(Ok(()), |ls| ls.validate())
        })?;
        super::outputs::validate(self)
    }
    fn check_config(&self, fresh: &Self) -> Result<()> {
        crate::state::same("n_experts", &self.experts.len(), &fresh.experts.len())?;
        for (a, b) in self.experts.iter().zip(&fresh.experts) {
            a.check_config(b)?;
        }
        crate::state::same("loss_window", &self.loss_window(), &fresh.loss_window())?;
        self.rule.check_config(&fresh.rule)?;
        self.fresh_rule.check_config(&fresh.rule)?;
        self.extra_rules.iter().try_for_each(|(r, ls)| {
            crate::state::same(
                "loss_window",
                &ls.as_ref().map(LossScale::window),
                &fresh.loss_window(),
            )?;
            r.check_config(&fresh.rule)
        })
    }
}
