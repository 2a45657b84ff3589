//! AutoKernel's serialised state, checked as a whole before use.

use super::config::AutoKernelParams;
use super::{AutoKernel, Fitted};
use crate::error::Result;
use crate::learners::OnlineLearner;
use crate::mixture::restart::Restart;
use crate::state::ValidState;
use serde::Deserialize;

/// The serialised fields of an [`AutoKernel`], checked as a whole before use.
#[derive(Deserialize)]
pub(super) struct AutoKernelState {
    cfg: AutoKernelParams,
    d: Option<usize>,
    n_seen: u64,
    k: usize,
    warm_x: Vec<f64>,
    warm_y: Vec<f64>,
    fitted: Option<Fitted>,
    restart: Option<Restart>,
    #[serde(default)]
    warm_mix: crate::mixture::warm_mix::WarmMix,
    #[serde(default)]
    warm_mix_extra: Vec<crate::mixture::warm_mix::WarmMix>,
}

impl TryFrom<AutoKernelState> for AutoKernel {
    type Error = crate::KsError;
    fn try_from(s: AutoKernelState) -> Result<Self> {
        let bad = |what: &str| crate::input_err!("corrupt AutoKernel state: {what}");
        let mut a = AutoKernel::with_config(s.cfg)?;
        let n_exp = a.n_experts();
        let d = match s.d {
            Some(0) => return bad("input dimension 0"),
            Some(d) => d,
            None if s.warm_y.is_empty() && s.warm_x.is_empty() && s.fitted.is_none() => 0,
            None => return bad("rows without an input dimension"),
        };
        let k = s.k;
        if k == 0
            || k > 1 && s.n_seen == 0
            || !s.warm_y.len().is_multiple_of(k)
            || s.warm_x.len() != s.warm_y.len() / k * d
            || s.warm_y.len() / k > a.cfg.warmup
        {
            return bad("warm-up buffers of the wrong size");
        }
        if s.warm_x.iter().chain(&s.warm_y).any(|v| !v.is_finite()) {
            return bad("non-finite warm-up values");
        }
        if let Some(f) = &s.fitted {
            let sc = &f.scaler;
            let ok = sc.x_loc.len() == d
                && sc.x_scale.len() == d
                && sc.x_loc.iter().chain([&sc.y_loc]).all(|v| v.is_finite())
                && sc.x_scale.iter().chain([&sc.y_scale]).all(|v| v.is_finite() && *v > 0.0)
                && f.rho.is_finite()
                && f.rho > 0.0
                && f.specs.len() == n_exp
                && f.mixture.n_experts() == n_exp
                && f.mixture.input_dim().is_none_or(|e| e == d)
                && f.y_extra.len() == k - 1
                && f.y_extra.iter().all(|&(l, s)| l.is_finite() && s.is_finite() && s > 0.0)
                && crate::multi::MultiOutput::n_outputs(&f.mixture).is_none_or(|km| km == k)
                && (f.warm_z.len() == a.cfg.warmup * n_exp || k > 1 && f.warm_z.is_empty());
            if !ok {
                return bad("fitted scale, experts or replay of the wrong shape");
            }
        } else if s.warm_y.len() / k >= a.cfg.warmup {
            return bad("warm-up complete but no experts");
        }
        a.d = s.d;
        a.n_seen = s.n_seen;
        a.k = k;
        a.warm_x = s.warm_x;
        a.warm_y = s.warm_y;
        let n_pred = a.warm_predictor_count();
        if !s.warm_mix.is_valid_for(n_pred) {
            return bad("a warm-up mix with non-finite or negative sums, or not one per predictor");
        }
        a.warm_mix = s.warm_mix;
        if s.warm_mix_extra.len() > k - 1
            || !s.warm_mix_extra.iter().all(|m| m.is_valid_for(n_pred))
        {
            return bad("warm-up mixes of outputs that do not exist, not finite or not one sum per predictor");
        }
        a.warm_mix_extra = s.warm_mix_extra;
        if let Some(r) = &s.restart {
            r.validate()?;
            let succ_ok = r.successor().is_none_or(|s_| {
                s_.restart.is_none()
                    && bincode::serialize(&s_.cfg).ok()
                        == bincode::serialize(&a.successor_config()).ok()
                    && s_.d.is_none_or(|e| e == d)
                    && (s_.n_seen == 0 || s_.k == k)
            });
            if !a.cfg.restarts || !succ_ok {
                return bad("restart state that does not match the configuration");
            }
        } else if a.cfg.restarts {
            return bad("no restart state");
        }
        a.restart = s.restart;
        a.fitted = s.fitted.map(|mut f| {
            f.xs = vec![0.0; d];
            f
        });
        Ok(a)
    }
}

// The format version of a pickled AutoKernel: bump it when a serialised field changes, or
// the version of a state it holds (its Mixture's, its experts').
crate::state::state_version!(AutoKernel, 16);

impl ValidState for AutoKernel {
    fn validate(&self) -> Result<()> {
        if let Some(r) = &self.restart {
            r.validate()?;
        }
        match &self.fitted {
            Some(f) => f.mixture.validate(),
            None => Ok(()),
        }
    }
    fn check_config(&self, fresh: &Self) -> Result<()> {
        // The configuration is compared through its serialised form (it holds floats).
        let (a, b) = (bincode::serialize(&self.cfg), bincode::serialize(&fresh.cfg));
        crate::state::ensure(a.is_ok() && a.ok() == b.ok(), || {
            "the AutoKernel configuration differs from its parameters".into()
        })
    }
}
