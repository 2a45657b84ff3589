//! NystromAWV's state: its format version, the invariants of a decoded state and the
//! parameters it reports.

use super::NystromAwv;
use crate::error::{KsError, Result};

// The format version of a pickled NystromAwv: bump it when a serialised field changes.
crate::state::state_version!(NystromAwv, 8);

impl crate::state::ValidState for NystromAwv {
    fn validate(&self) -> Result<()> {
        use crate::state::*;
        self.noise.validate()?;
        self.noise_rest.validate(crate::multi::MultiOutput::n_outputs(self).unwrap_or(1))?;
        let m = self.center_rounds.len();
        let t = usize::try_from(self.n_seen).map_err(|_| KsError::Input("bad n_seen".into()))?;
        ensure(self.n_seen <= i64::MAX as u64, || "the round counter is out of range".into())?;
        if let Some(d) = self.d {
            ensure(d >= 1, || "the input dimension is 0".into())?;
            ensure(self.centers_d == 0 || self.centers_d == d, || {
                "the dictionary and the inputs have different dimensions".into()
            })?;
        } else {
            ensure(t == 0, || "rounds without an input dimension".into())?;
        }
        self.chol.validate()?;
        len_is("factor order", self.chol.dim(), m)?;
        let k = crate::multi::MultiOutput::n_outputs(self).unwrap_or(1);
        ensure((1..=crate::awv::outputs::MAX_OUTPUTS).contains(&k), || format!("{k} outputs"))?;
        len_is("q", self.q.len(), product("q", m, k)?)?;
        self.validate_discount()?;
        finite("q", &self.q)?;
        finite("dictionary", &self.centers)?;
        ensure(self.fixed_jitter.is_finite() && self.fixed_jitter >= 0.0, || "bad jitter".into())?;
        match &self.kors {
            None => {
                ensure(self.centers_d >= 1, || "a fixed dictionary without a dimension".into())?;
                len_is(
                    "dictionary",
                    self.centers.len(),
                    product("dictionary", m, self.centers_d)?,
                )?;
                ensure(self.center_rounds.iter().all(|r| r.is_none()), || {
                    "a fixed dictionary point has a round index".into()
                })?;
                ensure(
                    self.kcols.is_empty()
                        && self.xs.is_empty()
                        && self.ys.is_empty()
                        && self.capped.is_none(),
                    || "a fixed-dictionary learner holds a data cache".into(),
                )
            }
            Some(kors) => {
                kors.validate()?;
                same("KORS steps", &kors.n_seen(), &self.n_seen)?;
                same("KORS input dimension", &kors.input_dim(), &self.d)?;
                at_most("dictionary size", m, kors.size())?;
                ensure(self.centers_d == 0, || "a KORS learner with a fixed dimension".into())?;
                let d = self.d.unwrap_or(0);
                len_is("dictionary", self.centers.len(), product("dictionary", m, d)?)?;
                ensure(
                    self.center_rounds.iter().all(|r| r.is_some_and(|r| r < self.n_seen)),
                    || "a dictionary point without a past round".into(),
                )?;
                // At most one insertion a round, in order (the refill pointer replays them).
                ensure(self.center_rounds.windows(2).all(|w| w[0] < w[1]), || {
                    "dictionary rounds not increasing".into()
                })?;
                if self.is_capped() {
                    return self.validate_capped(k);
                }
                len_is("past inputs", self.xs.len(), product("past inputs", t, d)?)?;
                len_is("past targets", self.ys.len(), product("past targets", t, k)?)?;
                len_is("kernel columns", self.kcols.len(), m)?;
                for c in &self.kcols {
                    len_is("a kernel column", c.len(), t)?;
                    finite("a kernel column", c)?;
                }
                finite("past inputs", &self.xs)?;
                finite("past targets", &self.ys)
            }
        }
    }
    fn check_config(&self, fresh: &Self) -> Result<()> {
        crate::state::same_fields!(self, fresh; kernel, lam, ridge, centers_d, gamma)?;
        if self.kors.is_none() {
            crate::state::same_fields!(self, fresh; centers: "dictionary", fixed_jitter: "jitter")?;
        }
        self.kors.check_config(&fresh.kors)
    }
    fn adopt_settings(&mut self, fresh: &Self) {
        self.block_size = fresh.block_size;
    }
}

crate::state_params!(NystromAwv; kernel, lam, ridge, gamma);
